package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tributary.testsupport.InProcessBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * AUTO_ACKNOWLEDGE commits are pipelined: sent when a message is handed over, and awaited before the session hands
 * over the next one. The rule that keeps this within Jakarta Messaging 3.1 §6.2.10 ("Only a session's last consumed
 * message is subject to this ambiguity") is tested where it matters: the consumer already holds the following
 * messages (they were fetched together) when its broker goes away, so nothing but that rule keeps it from handing
 * them over unacknowledged. It hands over at most one more message, then the failed acknowledgement is thrown from
 * receive; a new receiver gets back only the last message handed over. Run with no work between two receive calls
 * (the session then commits at once, as the next record is already there) and with work longer than a commit takes
 * (the commit is pipelined, to overlap that work).
 */
class AutoAcknowledgePipelineTest {

    private static final long WAIT_MS = 20_000;
    private static final int SENT = 8;

    private InProcessBroker cluster;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        cluster = InProcessBroker.builder(dir).start();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @ParameterizedTest(name = "{0} ms of work per message")
    @ValueSource(ints = {0, 200})
    void anAutoConsumerWhoseAcknowledgementCannotCompleteHandsOverNoFurtherMessage(int workMs) throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("pipelined");
            MessageProducer producer = session.createProducer(queue);
            for (int i = 0; i < SENT; i++) {
                producer.send(session.createTextMessage("m" + i));
            }
        }

        // Short client timeouts: the commit retried after the broker went away gives up within seconds.
        factory.setKafkaProperty("consumer.default.api.timeout.ms", "2000");
        factory.setKafkaProperty("consumer.request.timeout.ms", "2000");
        List<String> handedOver = new ArrayList<>();
        JMSException failure = null;
        Connection connection = factory.createConnection();
        try {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("pipelined"));
            connection.start();
            for (int i = 0; i < 2; i++) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "message " + i);
                handedOver.add(((TextMessage) message).getText());
                work(workMs);
            }
            // The broker comes back on another port: the consumer's commits from now on cannot complete, while
            // it still holds the rest of the queue, fetched with the first messages.
            cluster.restart();
            for (int i = 0; i < SENT && failure == null; i++) {
                try {
                    Message message = consumer.receive(WAIT_MS);
                    if (message == null) {
                        break;
                    }
                    handedOver.add(((TextMessage) message).getText());
                    work(workMs);
                } catch (JMSException e) {
                    failure = e;
                }
            }
        } finally {
            connection.close();
        }
        assertNotNull(failure, "receive reports the acknowledgement that could not complete; handed over "
                + handedOver);
        assertTrue(handedOver.size() <= 3, "after the broker went away at most one more message was handed over "
                + "(its commit may have completed before), but " + handedOver + " were");
        assertEquals(texts(0, handedOver.size()), handedOver, "in order");

        String last = handedOver.get(handedOver.size() - 1);
        List<String> afterRestart = new ArrayList<>();
        try (Connection again = TestConnectionFactory.groupMode(cluster.bootstrapServers()).createConnection()) {
            Session session = again.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("pipelined"));
            again.start();
            String end = "m" + (SENT - 1);
            while (afterRestart.isEmpty() || !afterRestart.get(afterRestart.size() - 1).equals(end)) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "after the restart " + afterRestart + " arrived, then nothing");
                afterRestart.add(((TextMessage) message).getText());
            }
            assertNull(consumer.receive(500), "nothing after " + end);
        }
        int resumedAt = Integer.parseInt(afterRestart.get(0).substring(1));
        assertTrue(afterRestart.get(0).equals(last) || resumedAt == handedOver.size(),
                "only the last message handed over (" + last + ") may come again; the new receiver got "
                        + afterRestart);
        assertEquals(texts(resumedAt, SENT), afterRestart);
    }

    /** The application working on a message: the time between a receive's return and the next call. */
    private static void work(int ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private static List<String> texts(int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add("m" + i);
        }
        return texts;
    }
}
