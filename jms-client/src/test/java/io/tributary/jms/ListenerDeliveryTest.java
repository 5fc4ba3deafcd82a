package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session's delivery thread on a real broker: it waits while there is nothing it may deliver to, is woken by
 * what ends the wait (a listener set, the connection started, the session closed), hands each message to the
 * listener set when it is handed over, and ends with its session.
 */
class ListenerDeliveryTest {

    private static final long WAIT_MS = 20_000;

    @TempDir
    Path dir;

    @Test
    void theWaitingDeliveryThreadWakesForAListenerAndForTheConnectionsStartDeliversToTheCurrentListenerAndEndsWithItsSession()
            throws Exception {
        try (InProcessBroker cluster = InProcessBroker.builder(dir).start();
             Connection connection = TestConnectionFactory.create(cluster.bootstrapServers()).createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("woken");
            MessageProducer producer = session.createProducer(queue);
            MessageConsumer consumer = session.createConsumer(queue);
            BlockingQueue<String> first = new ArrayBlockingQueue<>(10);
            consumer.setMessageListener(collectInto(first)); // the thread starts, waits for the connection
            producer.send(session.createTextMessage("one"));
            assertNull(first.poll(500, TimeUnit.MILLISECONDS), "not started yet");
            connection.start();
            assertEquals("one", first.poll(WAIT_MS, TimeUnit.MILLISECONDS));

            Thread delivery = deliveryThreadOf(session);
            BlockingQueue<String> second = new ArrayBlockingQueue<>(10);
            consumer.setMessageListener(collectInto(second)); // while the thread polls for the first listener
            producer.send(session.createTextMessage("two"));
            assertEquals("two", second.poll(WAIT_MS, TimeUnit.MILLISECONDS), "the first listener got " + first);
            assertTrue(first.isEmpty());

            consumer.setMessageListener(null);
            awaitWaitingForWork(delivery);
            producer.send(session.createTextMessage("three"));
            BlockingQueue<String> third = new ArrayBlockingQueue<>(10);
            consumer.setMessageListener(collectInto(third));
            assertEquals("three", third.poll(WAIT_MS, TimeUnit.MILLISECONDS));
            assertTrue(second.isEmpty(), "the second listener got " + second);

            consumer.setMessageListener(null);
            session.close();
            delivery.join(WAIT_MS);
            assertFalse(delivery.isAlive(), "the thread ends with its session");
        }
    }

    private static MessageListener collectInto(BlockingQueue<String> texts) {
        return message -> {
            try {
                texts.add(((TextMessage) message).getText());
            } catch (JMSException e) {
                throw new AssertionError(e);
            }
        };
    }

    /** Waits until {@code thread} waits in {@code ListenerDelivery.awaitDeliverable}, for something to deliver. */
    private static void awaitWaitingForWork(Thread thread) {
        Waits.await(thread.getName() + " waits for work").until(() -> {
            assertTrue(thread.isAlive(), thread.getName() + " ended");
            return thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace()).anyMatch(
                    frame -> frame.getClassName().equals(ListenerDelivery.class.getName())
                            && frame.getMethodName().equals("awaitDeliverable"));
        });
    }

    /** The session's delivery thread, found by its name, which carries the session's identity hash. */
    private static Thread deliveryThreadOf(Session session) {
        String name = "tributary-jms-session-" + Integer.toHexString(System.identityHashCode(session));
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + name));
    }
}
