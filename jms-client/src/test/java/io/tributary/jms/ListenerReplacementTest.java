package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replacing the MessageListener of a running consumer: every message sent after {@code setMessageListener} returned
 * goes to the new listener, none to the old one, though the session's delivery thread was polling for the old one
 * when the listener changed. Ten replacements in a row on one-partition queues and topics, classic and simplified API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ListenerReplacementTest {

    private static final long WAIT_MS = 20_000;
    private static final int REPLACEMENTS = 10;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aReplacedListenerGetsNothingSentAfterTheReplacementInTheClassicApi(String kind) throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            String name = "replaced-" + names.incrementAndGet();
            Destination destination = kind.equals("queue") ? session.createQueue(name) : session.createTopic(name);
            MessageConsumer consumer = session.createConsumer(destination);
            MessageProducer producer = session.createProducer(destination);
            List<BlockingQueue<String>> received = new ArrayList<>();
            received.add(new ArrayBlockingQueue<>(REPLACEMENTS + 1));
            consumer.setMessageListener(collectInto(received.get(0)));
            connection.start();
            producer.send(session.createTextMessage("to listener 0"));
            assertEquals("to listener 0", received.get(0).poll(WAIT_MS, TimeUnit.MILLISECONDS));

            for (int i = 1; i <= REPLACEMENTS; i++) {
                received.add(new ArrayBlockingQueue<>(REPLACEMENTS + 1));
                consumer.setMessageListener(collectInto(received.get(i))); // the thread polls for listener i - 1
                producer.send(session.createTextMessage("to listener " + i));
                assertEquals("to listener " + i, received.get(i).poll(WAIT_MS, TimeUnit.MILLISECONDS),
                        "the earlier listeners got " + received);
            }
            for (BlockingQueue<String> earlier : received) {
                assertTrue(earlier.isEmpty(), "a listener got a message sent after it was replaced: " + received);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aReplacedListenerGetsNothingSentAfterTheReplacementInTheSimplifiedApi(String kind) throws Exception {
        try (JMSContext context = factory.createContext()) {
            String name = "replaced-ctx-" + names.incrementAndGet();
            Destination destination = kind.equals("queue") ? context.createQueue(name) : context.createTopic(name);
            JMSConsumer consumer = context.createConsumer(destination);
            JMSProducer producer = context.createProducer();
            List<BlockingQueue<String>> received = new ArrayList<>();
            received.add(new ArrayBlockingQueue<>(REPLACEMENTS + 1));
            consumer.setMessageListener(collectInto(received.get(0))); // the context starts its connection
            producer.send(destination, "to listener 0");
            assertEquals("to listener 0", received.get(0).poll(WAIT_MS, TimeUnit.MILLISECONDS));

            for (int i = 1; i <= REPLACEMENTS; i++) {
                received.add(new ArrayBlockingQueue<>(REPLACEMENTS + 1));
                consumer.setMessageListener(collectInto(received.get(i)));
                producer.send(destination, "to listener " + i);
                assertEquals("to listener " + i, received.get(i).poll(WAIT_MS, TimeUnit.MILLISECONDS),
                        "the earlier listeners got " + received);
            }
            for (BlockingQueue<String> earlier : received) {
                assertTrue(earlier.isEmpty(), "a listener got a message sent after it was replaced: " + received);
            }
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
}
