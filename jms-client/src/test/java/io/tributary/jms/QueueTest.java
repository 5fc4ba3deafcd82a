package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queues in group mode on a real broker (share mode: {@link ShareGroupQueueTest}): point-to-point delivery through
 * the queue's consumer group, each acknowledgement mode,
 * transactions, recovery with redelivery flags, listeners, browsing, asynchronous sends, the simplified API, and
 * records from plain Kafka producers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueueTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
    }

    private String queueName() {
        return "queue-" + names.incrementAndGet();
    }

    private static void send(Session session, Queue queue, String... texts) throws Exception {
        MessageProducer producer = session.createProducer(queue);
        for (String text : texts) {
            TextMessage message = session.createTextMessage(text);
            message.setStringProperty("origin", "test");
            message.setIntProperty("n", text.length());
            producer.send(message);
        }
        producer.close();
    }

    private static String text(Message message) throws Exception {
        return message == null ? null : ((TextMessage) message).getText();
    }

    @Test
    void messagesSentToAQueueAreReceivedOnceInOrderWithTheirPropertiesAndLogPosition() throws Exception {
        Queue queue;
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            queue = session.createQueue(queueName());
            send(session, queue, "one", "two", "three");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            List<String> received = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "message " + i);
                received.add(text(message));
                assertEquals("test", message.getStringProperty("origin"));
                assertEquals(text(message).length(), message.getIntProperty("n"));
                assertEquals(0, message.getIntProperty("JMS_Tributary_Partition"));
                assertEquals((long) i, message.getLongProperty("JMS_Tributary_Offset"));
                assertEquals(1, message.getIntProperty("JMSXDeliveryCount"));
                assertFalse(message.getJMSRedelivered());
                assertEquals(queue, message.getJMSDestination());
                assertTrue(message.getJMSMessageID().startsWith("ID:"));
            }
            assertEquals(List.of("one", "two", "three"), received);
            assertNull(consumer.receiveNoWait());
        }
        // AUTO_ACKNOWLEDGE committed every receive: a new receiver of the queue gets nothing of it again.
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            send(session, queue, "four");
            assertEquals("four", text(consumer.receive(WAIT_MS)));
        }
    }

    @Test
    void anObjectMessageBeyondTheFactorysLimitsIsRefusedWhenReadAndTheQueueGoesOn() throws Exception {
        TributaryConnectionFactory limited = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        limited.setObjectMessageMaxDepth(3);
        ArrayList<Object> nested = new ArrayList<>();
        ArrayList<Object> inner = nested;
        for (int level = 0; level < 5; level++) {
            ArrayList<Object> next = new ArrayList<>();
            inner.add(next);
            inner = next;
        }
        try (Connection connection = limited.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            MessageProducer producer = session.createProducer(queue);
            producer.send(session.createObjectMessage(nested));
            producer.send(session.createObjectMessage(new ArrayList<>(List.of("flat"))));
            send(session, queue, "after");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();

            ObjectMessage deep = (ObjectMessage) consumer.receive(WAIT_MS);
            MessageFormatException refused = assertThrows(MessageFormatException.class, deep::getObject);
            assertTrue(refused.getMessage().contains("over the objectMessageMaxDepth limit of 3"),
                    refused.getMessage());
            assertEquals(List.of("flat"), ((ObjectMessage) consumer.receive(WAIT_MS)).getObject());
            assertEquals("after", text(consumer.receive(WAIT_MS)));
        }
    }

    @Test
    void recoverRedeliversUnacknowledgedMessagesMarkedRedeliveredAndAcknowledgeCommitsThem() throws Exception {
        String name = queueName();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(name);
            send(session, queue, "a", "b");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertEquals("a", text(consumer.receive(WAIT_MS)));
            assertEquals("b", text(consumer.receive(WAIT_MS)));
            session.recover();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("a", text(again));
            assertTrue(again.getJMSRedelivered());
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
            again.acknowledge(); // acknowledges "a" only: "b" was not delivered again yet
            Message b = consumer.receive(WAIT_MS);
            assertEquals("b", text(b));
            assertEquals(2, b.getIntProperty("JMSXDeliveryCount"));
        }
        // "b" was delivered but not acknowledged when the connection closed: it comes again.
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(name));
            connection.start();
            Message b = consumer.receive(WAIT_MS);
            assertEquals("b", text(b));
            b.acknowledge();
            assertNull(consumer.receive(500));
        }
    }

    @Test
    void aTransactedSessionSendsAtCommitNotBeforeAndRollbackRedelivers() throws Exception {
        String name = queueName();
        try (Connection connection = factory.createConnection()) {
            Session transacted = connection.createSession(Session.SESSION_TRANSACTED);
            Session plain = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = transacted.createQueue(name);
            MessageConsumer observer = plain.createConsumer(queue);
            connection.start();

            send(transacted, queue, "dropped");
            transacted.rollback();
            send(transacted, queue, "kept");
            assertNull(observer.receive(500), "nothing is visible before commit");
            transacted.commit();
            assertEquals("kept", text(observer.receive(WAIT_MS)));

            send(transacted, queue, "closed before its commit");
            transacted.close();
            assertNull(observer.receive(500), "closing a transacted session rolls its sends back");
        }
        try (Connection connection = factory.createConnection()) {
            Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
            Queue queue = transacted.createQueue(queueName());
            MessageConsumer consumer = transacted.createConsumer(queue);
            connection.start();
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, "x");
            assertEquals("x", text(consumer.receive(WAIT_MS)));
            transacted.rollback();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("x", text(again));
            assertTrue(again.getJMSRedelivered());
            transacted.commit();
            assertNull(consumer.receive(500));
        }
    }

    @Test
    void aListenerGetsEveryMessageAndOneThatThrowsIsRedelivered() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            List<String> seen = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(3);
            AtomicInteger failures = new AtomicInteger();
            MessageConsumer consumer = session.createConsumer(queue);
            consumer.setMessageListener(message -> {
                try {
                    String text = text(message);
                    if (text.equals("boom") && failures.getAndIncrement() == 0) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    seen.add(text + (message.getJMSRedelivered() ? "(redelivered)" : ""));
                    done.countDown();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, "first", "boom", "last");
            connection.start();
            assertTrue(done.await(WAIT_MS, TimeUnit.MILLISECONDS), "delivered: " + seen);
            assertEquals(List.of("first", "boom(redelivered)", "last"), seen);
        }
    }

    @Test
    void aBrowserShowsWhatIsQueuedWithoutConsumingIt() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            send(session, queue, "p", "q", "r");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertEquals("p", text(consumer.receive(WAIT_MS)));

            QueueBrowser browser = session.createBrowser(queue);
            List<String> browsed = new ArrayList<>();
            for (Enumeration<?> e = browser.getEnumeration(); e.hasMoreElements(); ) {
                browsed.add(text((Message) e.nextElement()));
            }
            assertEquals(List.of("q", "r"), browsed, "from the committed position to the end");
            QueueBrowser selecting = session.createBrowser(queue, "n > 1");
            assertEquals(List.of(), Collections.list(selecting.getEnumeration()), "the selector matches none");
            assertEquals(List.of("q", "r"), List.of(text(consumer.receive(WAIT_MS)), text(consumer.receive(WAIT_MS))),
                    "browsing consumed nothing");
        }
    }

    @Test
    void asynchronousSendsCompleteInOrderAndTheSimplifiedApiReceivesBodies() throws Exception {
        try (JMSContext context = factory.createContext()) {
            Queue queue = context.createQueue(queueName());
            List<String> completed = new CopyOnWriteArrayList<>();
            CountDownLatch all = new CountDownLatch(5);
            var producer = context.createProducer();
            CompletionListener listener = new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                    try {
                        completed.add(text(message));
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    all.countDown();
                }

                @Override
                public void onException(Message message, Exception exception) {
                    completed.add("failed: " + exception);
                }
            };
            producer.setAsync(listener).setProperty("kind", "async");
            for (int i = 0; i < 5; i++) {
                producer.send(queue, "m" + i);
            }
            assertTrue(all.await(WAIT_MS, TimeUnit.MILLISECONDS));
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), completed);

            JMSConsumer consumer = context.createConsumer(queue);
            assertThrows(MessageFormatRuntimeException.class, () -> consumer.receiveBody(byte[].class, WAIT_MS),
                    "a text body is not a byte[]");
            // The message whose body could not be read is delivered again.
            assertEquals("m0", consumer.receiveBody(String.class, WAIT_MS));
            for (int i = 1; i < 5; i++) {
                assertEquals("m" + i, consumer.receiveBody(String.class, WAIT_MS));
            }
        }
    }

    @Test
    void aRecordFromAPlainKafkaProducerArrivesAsABytesMessageWithItsKeyAndPosition() throws Exception {
        String name = queueName();
        java.util.Map<String, Object> props = new java.util.HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(name, null, 1_700_000_000_000L, "key-1".getBytes(),
                    new byte[] {1, 2, 3})).get();
        }
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(name));
            connection.start();
            BytesMessage message = (BytesMessage) consumer.receive(WAIT_MS);
            assertNotNull(message);
            assertEquals(3, message.getBodyLength());
            byte[] body = new byte[3];
            message.readBytes(body);
            assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), List.of(body[0], body[1], body[2]));
            assertEquals("key-1", message.getStringProperty("JMS_Tributary_Key"));
            assertEquals(1_700_000_000_000L, message.getLongProperty("JMS_Tributary_Timestamp"));
            assertEquals(1_700_000_000_000L, message.getJMSTimestamp());
            assertEquals(0L, message.getLongProperty("JMS_Tributary_Offset"));
        }
    }
}
