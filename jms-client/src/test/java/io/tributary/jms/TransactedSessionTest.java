package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.TransactionRolledBackException;

import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transacted session is one Kafka transaction (issue 23): its sends and the offsets of what its consumers received
 * commit together or not at all, and JMS consumers read committed records only. Checked with a plain read_committed
 * Kafka consumer ({@link CommittedRecords}) and with JMS consumers. Runs against an in-process Tributary broker, or
 * the cluster named by {@value TransactionTestCluster#EXTERNAL}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactedSessionTest {

    private static final long WAIT_MS = 20_000;

    private TransactionTestCluster cluster;
    private TributaryConnectionFactory factory;
    /** The class\'s temporary directory: the children\'s output goes there. */
    private Path dir;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        this.dir = dir;
        cluster = TransactionTestCluster.start(dir);
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void commitMakesTheSendsVisibleTogetherAndTheReceivedMessagesAreNotDeliveredAgain() throws Exception {
        String in = topic("commit-in");
        String out = topic("commit-out");
        sendTexts(in, "m0", "m1", "m2");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(in));
            MessageProducer producer = session.createProducer(session.createQueue(out));
            connection.start();
            for (int i = 0; i < 3; i++) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "message " + i);
                producer.send(session.createTextMessage("copy-of-" + ((TextMessage) message).getText()));
            }
            assertEquals(List.of(), CommittedRecords.read(cluster.bootstrapServers(), out), "nothing before commit");
            session.commit();
        }
        assertEquals(List.of("copy-of-m0", "copy-of-m1", "copy-of-m2"),
                CommittedRecords.read(cluster.bootstrapServers(), out));
        assertEquals(3L, committedOffset(in), "the queue's group committed past the three messages");
        assertEquals(List.of("copy-of-m0", "copy-of-m1", "copy-of-m2"), receiveTexts(out, 3));
        sendTexts(in, "m3");
        assertEquals(List.of("m3"), receiveTexts(in, 1), "m0..m2 are not delivered again");
    }

    @Test
    void rollbackWritesNothingAndDeliversTheReceivedMessagesAgainMarkedRedelivered() throws Exception {
        String in = topic("rollback-in");
        String out = topic("rollback-out");
        sendTexts(in, "m0", "m1");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(in));
            MessageProducer producer = session.createProducer(session.createQueue(out));
            connection.start();
            for (String expected : List.of("m0", "m1")) {
                Message message = consumer.receive(WAIT_MS);
                assertEquals(expected, ((TextMessage) message).getText());
                assertFalse(message.getJMSRedelivered());
                producer.send(session.createTextMessage("copy-of-" + expected));
            }
            session.rollback();
            for (String expected : List.of("m0", "m1")) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, expected + " is delivered again");
                assertEquals(expected, ((TextMessage) message).getText());
                assertTrue(message.getJMSRedelivered(), expected + " is marked redelivered");
                assertEquals(2, message.getIntProperty("JMSXDeliveryCount"));
            }
            session.commit(); // consumes m0 and m1 without sending anything
        }
        assertEquals(List.of(), CommittedRecords.read(cluster.bootstrapServers(), out),
                "a read_committed consumer sees none of the rolled back sends");
        sendTexts(out, "after-rollback");
        assertEquals(List.of("after-rollback"), receiveTexts(out, 1), "a JMS consumer sees none of them either");
        assertEquals(2L, committedOffset(in));
    }

    @Test
    void aMessageSentInAnOpenTransactedSessionIsReceivedOnlyAfterCommitAndNeverAfterRollback() throws Exception {
        String queue = topic("open-jms");
        try (Connection connection = factory.createConnection()) {
            Session transacted = connection.createSession(Session.SESSION_TRANSACTED);
            MessageProducer producer = transacted.createProducer(transacted.createQueue(queue));
            Session receiving = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = receiving.createConsumer(receiving.createQueue(queue));
            connection.start();
            producer.send(transacted.createTextMessage("rolled-back"));
            assertNull(consumer.receive(1_000), "not received while the transaction is open");
            transacted.rollback();
            producer.send(transacted.createTextMessage("committed"));
            assertNull(consumer.receive(1_000), "not received while the transaction is open");
            transacted.commit();
            Message message = consumer.receive(WAIT_MS);
            assertNotNull(message, "received once committed");
            assertEquals("committed", ((TextMessage) message).getText(), "the rolled back message never comes");
        }
    }

    /**
     * JMS consumers read committed records only, whoever wrote them: records of a Kafka transaction that is open are
     * not delivered before it commits, and records of an aborted one never.
     */
    @Test
    void aJmsConsumerReceivesRecordsOfAKafkaTransactionOnlyOnceItCommitsAndNeverWhenItAborts() throws Exception {
        String queue = topic("open-kafka");
        try (Connection connection = factory.createConnection();
             KafkaProducer<String, String> kafka = Clients.producer(cluster.bootstrapServers(),
                     ProducerConfig.TRANSACTIONAL_ID_CONFIG, "open-kafka-test")) {
            kafka.initTransactions();
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            kafka.beginTransaction();
            kafka.send(new ProducerRecord<>(queue, 0, null, "aborted")).get();
            assertNull(consumer.receive(1_000), "a record of an open transaction is not delivered");
            kafka.abortTransaction();
            kafka.beginTransaction();
            kafka.send(new ProducerRecord<>(queue, 0, null, "committed")).get();
            assertNull(consumer.receive(1_000), "a record of an open transaction is not delivered");
            kafka.commitTransaction();
            Message message = consumer.receive(WAIT_MS);
            assertNotNull(message, "delivered once committed");
            // A plain record arrives as a BytesMessage.
            byte[] body = message.getBody(byte[].class);
            assertEquals("committed", new String(body, java.nio.charset.StandardCharsets.UTF_8),
                    "the aborted record is never delivered");
        }
    }

    @Test
    void aConnectionFencedByANewerInstanceWithTheSameTransactionalIdPrefixFailsItsCommit() throws Exception {
        String out = topic("fencing-out");
        TributaryConnectionFactory old = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        old.setTransactionalIdPrefix("fencing-app");
        try (Connection connection = old.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            MessageProducer producer = session.createProducer(session.createQueue(out));
            // Two sends a commit: a commit of one send is one write, made without a transaction.
            producer.send(session.createTextMessage("before-1"));
            producer.send(session.createTextMessage("before-2"));
            session.commit();
            // The application restarts elsewhere (a JVM of its own, as a real successor would be) and commits.
            try (ChildJvm successor = new ChildJvm(dir.resolve("successor.log"), TransactedCopyMain.class,
                    cluster.bootstrapServers(), "unused", out, "fencing-app", "send").start()) {
                assertEquals(0, successor.awaitExit(Duration.ofMillis(60_000)), successor.output());
                assertTrue(successor.printed("done"), successor.output());
            }
            producer.send(session.createTextMessage("fenced-1"));
            producer.send(session.createTextMessage("fenced-2"));
            TransactionRolledBackException e = assertThrows(TransactionRolledBackException.class, session::commit);
            assertTrue(e.getMessage().contains("fenced"), e.getMessage());
            assertTrue(e.getMessage().contains("fencing-app-0"), e.getMessage());
            // It does not fence the newer instance back with a new producer: its commits stay refused.
            producer.send(session.createTextMessage("fenced-3"));
            producer.send(session.createTextMessage("fenced-4"));
            TransactionRolledBackException again = assertThrows(TransactionRolledBackException.class,
                    session::commit);
            assertTrue(again.getMessage().contains("fenced"), again.getMessage());
        }
        assertEquals(List.of("before-1", "before-2", "successor-1", "successor-2"),
                CommittedRecords.read(cluster.bootstrapServers(), out));
    }

    @Test
    void connectionsOfOneApplicationWithTheSamePrefixShareTheirProducersAndDoNotFenceEachOther() throws Exception {
        String out = topic("shared-prefix-out");
        TributaryConnectionFactory shared = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        shared.setTransactionalIdPrefix("shared-app");
        try (Connection first = shared.createConnection(); Connection second = shared.createConnection()) {
            Session one = first.createSession(Session.SESSION_TRANSACTED);
            Session two = second.createSession(Session.SESSION_TRANSACTED);
            Queue queue = one.createQueue(out);
            MessageProducer fromOne = one.createProducer(queue);
            MessageProducer fromTwo = two.createProducer(queue);
            for (int i = 0; i < 3; i++) {
                fromOne.send(one.createTextMessage("one-" + i + "a"));
                fromOne.send(one.createTextMessage("one-" + i + "b"));
                one.commit();
                fromTwo.send(two.createTextMessage("two-" + i + "a"));
                fromTwo.send(two.createTextMessage("two-" + i + "b"));
                two.commit();
            }
        }
        assertEquals(List.of("one-0a", "one-0b", "two-0a", "two-0b", "one-1a", "one-1b", "two-1a", "two-1b", "one-2a",
                        "one-2b", "two-2a", "two-2b"),
                CommittedRecords.read(cluster.bootstrapServers(), out));
    }

    private String topic(String name) throws Exception {
        return cluster.createTopic("tx-" + name, 1);
    }

    private void sendTexts(String queue, String... texts) throws JMSException {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        }
    }

    /** The next {@code count} text messages of {@code queue}, passing over plain records (the readers' markers). */
    private List<String> receiveTexts(String queue, int count) throws JMSException {
        List<String> texts = new ArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            while (texts.size() < count) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "after " + texts + ", nothing more");
                if (message instanceof TextMessage text) {
                    texts.add(text.getText());
                }
            }
        }
        return texts;
    }

    private long committedOffset(String queue) throws Exception {
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(queue)
                    .partitionsToOffsetAndMetadata().get();
            OffsetAndMetadata offset = offsets.get(new TopicPartition(queue, 0));
            assertNotNull(offset, "group " + queue + " committed nothing: " + offsets);
            return offset.offset();
        }
    }
}
