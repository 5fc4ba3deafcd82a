package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replay from the earliest offset, from given offsets and from a point in time, through the typed API and through
 * the connection factory's {@code startAt} alone; delivery delay withholds a message (and its partition) until
 * JMSDeliveryTime; expired messages are never delivered. Delivery time and expiry follow a {@link ManualClock} that
 * starts at the real time (the records' timestamps are its readings).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplayAndTimingTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
    }

    private static List<Long> publish(Session session, jakarta.jms.Destination destination, String... texts)
            throws JMSException {
        MessageProducer producer = session.createProducer(destination);
        List<Long> timestamps = new ArrayList<>();
        for (String text : texts) {
            TextMessage message = session.createTextMessage(text);
            producer.send(message);
            timestamps.add(message.getJMSTimestamp());
        }
        producer.close();
        return timestamps;
    }

    private static List<String> receiveAll(MessageConsumer consumer, long quietMs) throws JMSException {
        List<String> texts = new ArrayList<>();
        Message message;
        while ((message = consumer.receive(texts.isEmpty() ? WAIT_MS : quietMs)) != null) {
            texts.add(((TextMessage) message).getText());
        }
        return texts;
    }

    @Test
    void aTopicSubscriberReplaysFromTheEarliestFromOffsetsAndFromATime() throws Exception {
        ManualClock clock = new ManualClock(Instant.now());
        try (Connection connection = TestConnectionFactory.groupMode(cluster.bootstrapServers(), clock)
                .createConnection()) {
            TributarySession session = (TributarySession) connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("replay-" + names.incrementAndGet());
            publish(session, topic, "a", "b");
            clock.advance(Duration.ofMillis(5)); // the next records' timestamps are strictly later
            Instant middle = clock.instant();
            clock.advance(Duration.ofMillis(5));
            publish(session, topic, "c", "d");
            connection.start();

            assertEquals(List.of("a", "b", "c", "d"),
                    receiveAll(session.createConsumer(topic, null, StartPosition.earliest()), 500));
            assertEquals(List.of("c", "d"),
                    receiveAll(session.createConsumer(topic, null, StartPosition.offsets(Map.of(0, 2L))), 500));
            assertEquals(List.of("c", "d"),
                    receiveAll(session.createConsumer(topic, null, StartPosition.at(middle)), 500));
            MessageConsumer future = session.createConsumer(topic, null, StartPosition.at(clock.instant()
                    .plusSeconds(3600)));
            publish(session, topic, "e");
            assertEquals(List.of("e"), receiveAll(future, 500), "a time after every record: the end of the log");
            MessageConsumer selective = session.createConsumer(topic, "JMS_Tributary_Offset >= 1",
                    StartPosition.earliest());
            assertEquals(List.of("b", "c", "d", "e"), receiveAll(selective, 500));
        }
    }

    @Test
    void aQueueReplaysByConfigurationAloneAndItsGroupMovesThere() throws Exception {
        String name = "replayed-queue-" + names.incrementAndGet();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(name);
            publish(session, queue, "1", "2", "3");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertEquals(List.of("1", "2", "3"), receiveAll(consumer, 500));
        }
        TributaryConnectionFactory replaying = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        replaying.setStartAt("0:1");
        try (Connection connection = replaying.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(name));
            connection.start();
            assertEquals(List.of("2", "3"), receiveAll(consumer, 500), "plain JMS code, replay from configuration");
        }
        assertThrows(IllegalArgumentException.class, () -> replaying.setStartAt("yesterday"));
    }

    @Test
    void aDelayedMessageIsWithheldUntilItsDeliveryTimeAndItsPartitionWaitsBehindIt() throws Exception {
        ManualClock clock = new ManualClock(Instant.now());
        try (Connection connection = TestConnectionFactory.groupMode(cluster.bootstrapServers(), clock)
                .createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("delayed-" + names.incrementAndGet());
            MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryDelay(60_000);
            long sent = clock.millis();
            producer.send(session.createTextMessage("later"));
            producer.setDeliveryDelay(0);
            producer.send(session.createTextMessage("after it"));
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertNull(consumer.receive(1_000), "withheld, and the message after it waits behind it");

            clock.advance(Duration.ofMillis(60_000));
            Message first = consumer.receive(WAIT_MS);
            assertNotNull(first);
            assertEquals("later", ((TextMessage) first).getText(), "order within the partition is kept");
            assertEquals(sent + 60_000, first.getJMSDeliveryTime());
            assertEquals("after it", ((TextMessage) consumer.receive(WAIT_MS)).getText());
        }
    }

    @Test
    void expiredMessagesAreNeverDelivered() throws Exception {
        ManualClock clock = new ManualClock(Instant.now());
        try (Connection connection = TestConnectionFactory.groupMode(cluster.bootstrapServers(), clock)
                .createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("expiring-" + names.incrementAndGet());
            MessageProducer producer = session.createProducer(queue);
            producer.send(session.createTextMessage("stale"), jakarta.jms.DeliveryMode.PERSISTENT, 4, 1_000);
            producer.send(session.createTextMessage("fresh"), jakarta.jms.DeliveryMode.PERSISTENT, 4, 600_000);
            clock.advance(Duration.ofMillis(1_001)); // the stale message's time to live has passed
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            Message message = consumer.receive(WAIT_MS);
            assertEquals("fresh", ((TextMessage) message).getText());
            assertTrue(message.getJMSExpiration() > clock.millis());
            assertNull(consumer.receive(300));
        }
    }
}
