package io.tributary.ra.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import io.tributary.ra.QueueAdminObject;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicConnectionFactory;
import jakarta.jms.TopicSession;
import jakarta.resource.spi.ManagedConnection;

import io.tributary.jms.TributaryQueue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pooled connection factory against a real broker, outside a server: connections and contexts come from a
 * {@link TestConnectionManager} pool, handles follow the container rules, and managed connections are reused clean
 * and destroyed for good.
 */
class PooledConnectionTest {

    private static final long WAIT_MS = 20_000;

    @TempDir
    static Path dir;
    private static OutboundCluster cluster;

    private TestConnectionManager pool;
    private ConnectionFactory factory;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new OutboundCluster(dir);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    @BeforeEach
    void createPool() {
        pool = new TestConnectionManager();
        factory = (ConnectionFactory) cluster.managedConnectionFactory().createConnectionFactory(pool);
    }

    @AfterEach
    void destroyPool() throws Exception {
        pool.destroyAll();
        assertEquals(java.util.List.of(), pool.errors());
    }

    private void sendFromOutside(Queue queue, String... texts) throws Exception {
        try (Connection connection = cluster.observer().createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(queue);
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        }
    }

    @Test
    void messagesGoOutAndComeInThroughConnectionAndContextHandles() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            QueueAdminObject queue = new QueueAdminObject(); // as a server would bind it in JNDI
            queue.setName("pooled.classic");
            session.createProducer(queue).send(session.createTextMessage("hello"));
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertEquals("hello", ((TextMessage) consumer.receive(WAIT_MS)).getText());
        }
        try (JMSContext context = factory.createContext()) {
            Queue queue = context.createQueue("pooled.simplified");
            context.createProducer().setProperty("attempt", 1).send(queue, "from a context");
            JMSConsumer consumer = context.createConsumer(queue);
            Message received = consumer.receive(WAIT_MS);
            assertEquals("from a context", received.getBody(String.class));
            assertEquals(1, received.getIntProperty("attempt"));
            context.createProducer().send(queue, 42L);
            assertThrows(jakarta.jms.MessageFormatRuntimeException.class,
                    () -> consumer.receiveBody(String.class, WAIT_MS), "a Long body is no String");
            assertEquals(42L, consumer.receiveBody(Long.class, WAIT_MS), "delivered again after the format error");
        }
        TopicConnectionFactory topics = (TopicConnectionFactory) factory;
        try (TopicConnection connection = topics.createTopicConnection()) {
            TopicSession session = connection.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("pooled.topic");
            MessageConsumer subscriber = session.createSubscriber(topic); // positioned at the end when created
            connection.start();
            session.createPublisher(topic).publish(session.createTextMessage("published"));
            assertEquals("published", ((TextMessage) subscriber.receive(WAIT_MS)).getText());
        }
        assertEquals(1, pool.created().size(), "one managed connection served all three, one after the other");
    }

    @Test
    void closingAHandleGivesTheManagedConnectionBackAndTheNextHandleStartsClean() throws Exception {
        Queue queue = TributaryQueue.of("pooled.reuse");
        sendFromOutside(queue, "first", "second");

        Connection first = factory.createConnection();
        Session firstSession = first.createSession();
        TemporaryQueue temporary = firstSession.createTemporaryQueue();
        MessageConsumer firstConsumer = firstSession.createConsumer(queue);
        first.start();
        assertEquals("first", ((TextMessage) firstConsumer.receive(WAIT_MS)).getText());
        assertTrue(cluster.topics().contains(temporary.getQueueName()));
        first.close();

        ManagedConnection managed = pool.created().get(0);
        assertEquals(java.util.Set.of(managed), pool.idle(), "closing the handle gave it back to the pool");
        OutboundCluster.await("the temporary queue is deleted", () -> !cluster.topics().contains(
                temporary.getQueueName()));
        assertThrows(IllegalStateException.class, () -> firstSession.createTextMessage("late"));
        assertThrows(IllegalStateException.class, firstConsumer::receiveNoWait);
        first.close(); // idempotent

        try (Connection second = factory.createConnection()) {
            assertEquals(1, pool.created().size(), "the pooled managed connection was reused");
            assertTrue(pool.idle().isEmpty());
            Session session = second.createSession();
            MessageConsumer consumer = session.createConsumer(queue);
            assertNull(consumer.receive(500), "a new handle starts stopped, like a new JMS connection");
            second.start();
            // "first" was acknowledged when received, and its consumer left the queue's group at cleanup.
            assertEquals("second", ((TextMessage) consumer.receive(WAIT_MS)).getText());
        }
        assertSame(managed, pool.idle().iterator().next());
    }

    @Test
    void aHandleHasOneSessionAtATime() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession();
            IllegalStateException second = assertThrows(IllegalStateException.class,
                    () -> connection.createSession(Session.AUTO_ACKNOWLEDGE));
            assertTrue(second.getMessage().contains("only one"), second.getMessage());
            session.close();
            assertNotNull(connection.createSession(false, Session.AUTO_ACKNOWLEDGE), "allowed once the first closed");
        }
        try (JMSContext context = factory.createContext()) {
            assertThrows(IllegalStateRuntimeException.class, () -> context.createContext(JMSContext.AUTO_ACKNOWLEDGE));
        }
    }

    @Test
    void queueAndTopicSessionHandlesRefuseTheOtherDomain() throws Exception {
        Queue queue = TributaryQueue.of("pooled.domain");
        try (QueueConnection connection = ((QueueConnectionFactory) factory).createQueueConnection()) {
            QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = io.tributary.jms.TributaryTopic.of("pooled.domain.topic");
            assertThrows(IllegalStateException.class, () -> session.createTopic("pooled.domain.topic"));
            assertThrows(IllegalStateException.class, () -> ((TopicSession) session).createSubscriber(topic));
            assertThrows(IllegalStateException.class, () -> session.createDurableSubscriber(topic, "d"));
            assertThrows(IllegalStateException.class, () -> session.createDurableConsumer(topic, "d"));
            assertThrows(IllegalStateException.class, () -> session.createSharedConsumer(topic, "s"));
            assertThrows(IllegalStateException.class, () -> session.createSharedDurableConsumer(topic, "s"));
            assertThrows(IllegalStateException.class, session::createTemporaryTopic);
            IllegalStateException unsubscribe = assertThrows(IllegalStateException.class,
                    () -> session.unsubscribe("d"));
            assertTrue(unsubscribe.getMessage().contains("QueueSession"), unsubscribe.getMessage());
            assertEquals(queue, session.createQueue("pooled.domain"));
        }
        try (TopicConnection connection = ((TopicConnectionFactory) factory).createTopicConnection()) {
            TopicSession session = connection.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThrows(IllegalStateException.class, () -> session.createQueue("pooled.domain"));
            assertThrows(IllegalStateException.class, () -> session.createBrowser(queue));
            IllegalStateException temporary = assertThrows(IllegalStateException.class,
                    session::createTemporaryQueue);
            assertTrue(temporary.getMessage().contains("TopicSession"), temporary.getMessage());
            assertNotNull(session.createTopic("pooled.domain.topic"));
        }
    }

    @Test
    void methodsForbiddenInAContainerThrowIllegalState() throws Exception {
        try (Connection connection = factory.createConnection()) {
            assertThrows(IllegalStateException.class, () -> connection.setClientID("mine"));
            assertThrows(IllegalStateException.class, () -> connection.setExceptionListener(e -> { }));
            assertThrows(IllegalStateException.class, connection::stop);
            Session session = connection.createSession();
            Queue queue = session.createQueue("pooled.forbidden");
            assertThrows(IllegalStateException.class,
                    () -> connection.createConnectionConsumer(queue, null, null, 1));
            assertThrows(IllegalStateException.class,
                    () -> connection.createSharedDurableConnectionConsumer(session.createTopic("t"), "s", null,
                            null, 1));
            assertThrows(IllegalStateException.class, () -> session.setMessageListener(m -> { }));
            assertThrows(IllegalStateException.class, session::getMessageListener);
            assertThrows(IllegalStateRuntimeException.class, session::run);
            MessageConsumer consumer = session.createConsumer(queue);
            assertThrows(IllegalStateException.class, () -> consumer.setMessageListener(m -> { }));
            MessageProducer producer = session.createProducer(queue);
            CompletionListener listener = new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                }

                @Override
                public void onException(Message message, Exception exception) {
                }
            };
            assertThrows(IllegalStateException.class, () -> producer.send(session.createMessage(), listener));
        }
        try (JMSContext context = factory.createContext()) {
            assertThrows(IllegalStateRuntimeException.class, context::stop);
            assertThrows(IllegalStateRuntimeException.class, () -> context.setClientID("mine"));
            assertThrows(IllegalStateRuntimeException.class, () -> context.setExceptionListener(e -> { }));
            assertThrows(IllegalStateRuntimeException.class,
                    () -> context.createProducer().setAsync(new CompletionListener() {
                        @Override
                        public void onCompletion(Message message) {
                        }

                        @Override
                        public void onException(Message message, Exception exception) {
                        }
                    }));
        }
    }

    @Test
    void destroyClosesThePhysicalConnection() throws Exception {
        Connection connection = factory.createConnection();
        Session session = connection.createSession();
        TemporaryQueue temporary = session.createTemporaryQueue();
        MessageProducer producer = session.createProducer(session.createQueue("pooled.destroyed"));
        assertTrue(cluster.topics().contains(temporary.getQueueName()));

        ManagedConnection managed = pool.created().get(0);
        managed.destroy();
        // Only the physical connection's close deletes what it created: the handle was never closed.
        OutboundCluster.await("the temporary queue is deleted", () -> !cluster.topics().contains(
                temporary.getQueueName()));
        assertThrows(IllegalStateException.class, () -> producer.send(session.createTextMessage("too late")));
        assertThrows(IllegalStateException.class, connection::start);
        connection.close();
        managed.destroy(); // idempotent
        assertThrows(jakarta.resource.spi.IllegalStateException.class, () -> managed.getConnection(null, null));
        assertThrows(jakarta.resource.spi.IllegalStateException.class, managed::cleanup);
        assertFalse(pool.idle().contains(managed));
    }
}
