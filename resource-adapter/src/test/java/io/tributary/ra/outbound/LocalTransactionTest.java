package io.tributary.ra.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionInProgressRuntimeException;
import jakarta.resource.spi.LocalTransactionException;
import jakarta.resource.spi.ManagedConnection;

import io.tributary.jms.TributaryQueue;
import io.tributary.testsupport.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Container transactions on a real broker: sends become visible only when the transaction commits, nothing of a
 * rolled-back one is published, receives are acknowledged by the commit and delivered again after a rollback, and
 * the session acts transacted inside a transaction and AUTO_ACKNOWLEDGE outside one. {@link TestConnectionManager}
 * plays the container, enlisting managed connections through their {@code LocalTransaction}.
 */
class LocalTransactionTest {

    private static final long WAIT_MS = 20_000;

    @TempDir
    static Path dir;
    private static OutboundCluster cluster;

    private TestConnectionManager container;
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
        container = new TestConnectionManager();
        factory = (ConnectionFactory) cluster.managedConnectionFactory().createConnectionFactory(container);
    }

    @AfterEach
    void destroyPool() throws Exception {
        container.destroyAll();
        assertEquals(List.of(), container.errors());
    }

    /** Sends through the adapter outside a transaction, and so at once. */
    private void sendNow(Queue queue, String text) throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession();
            session.createProducer(queue).send(session.createTextMessage(text));
        }
    }

    /** The texts an outside observer receives from {@code queue}, waiting for each. */
    private List<String> receiveFromOutside(Queue queue, int count) throws Exception {
        try (Connection connection = cluster.observer().createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            String[] texts = new String[count];
            for (int i = 0; i < count; i++) {
                Message message = consumer.receive(WAIT_MS);
                texts[i] = message == null ? null : ((TextMessage) message).getText();
            }
            return List.of(texts);
        }
    }

    @Test
    void sendsOfATransactionBecomeVisibleWhenItCommits() throws Exception {
        Queue queue = TributaryQueue.of("tx.commit");
        sendNow(queue, "before");
        assertEquals(1, cluster.endOffset("tx.commit"));

        container.begin();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(queue);
            producer.send(session.createTextMessage("one"));
            producer.send(session.createTextMessage("two"));
        } // the application closes its connection before the container commits
        try (JMSContext context = factory.createContext()) {
            context.createProducer().send(queue, "three");
        }
        assertEquals(1, container.created().size(), "the transaction's connection was shared");
        assertTrue(container.idle().isEmpty(), "held by the transaction until it ends");
        assertEquals(1, cluster.endOffset("tx.commit"), "nothing published before the commit");

        container.commit();
        // The commit is one Kafka transaction: its three records and its commit marker, which the transaction
        // coordinator writes once the commit is decided, possibly after commit() returned.
        Waits.await("three records and the commit marker after 'before'").untilAsserted(
                () -> assertEquals(5, cluster.endOffset("tx.commit")));
        assertEquals(List.of("before", "one", "two", "three"), receiveFromOutside(queue, 4));
        assertEquals(Set.copyOf(container.created()), container.idle(), "pooled again after the transaction");
    }

    @Test
    void aRolledBackTransactionPublishesNothing() throws Exception {
        Queue queue = TributaryQueue.of("tx.rollback");
        container.begin();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            session.createProducer(queue).send(session.createTextMessage("discarded"));
        }
        container.rollback();
        sendNow(queue, "after");
        assertEquals(List.of("after"), receiveFromOutside(queue, 1), "the rolled-back message never came");
        assertEquals(1, cluster.endOffset("tx.rollback"));
    }

    @Test
    void theSessionIsTransactedInsideATransactionAndAutoAcknowledgeOutside() throws Exception {
        Queue queue = TributaryQueue.of("tx.modes");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            assertFalse(session.getTransacted(), "the arguments are ignored outside a transaction");
            assertEquals(Session.AUTO_ACKNOWLEDGE, session.getAcknowledgeMode());
            assertThrows(IllegalStateException.class, session::commit);
            session.createProducer(queue).send(session.createTextMessage("auto"));
            assertEquals(1, cluster.endOffset("tx.modes"), "sent as soon as send returned");
        }
        container.begin();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertTrue(session.getTransacted(), "the arguments are ignored inside a transaction");
            assertEquals(Session.SESSION_TRANSACTED, session.getAcknowledgeMode());
            assertThrows(TransactionInProgressException.class, session::commit);
            assertThrows(TransactionInProgressException.class, session::rollback);
            session.createProducer(queue).send(session.createTextMessage("held"));
        }
        try (JMSContext context = factory.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
            assertTrue(context.getTransacted());
            assertThrows(TransactionInProgressRuntimeException.class, context::commit);
        }
        assertEquals(1, cluster.endOffset("tx.modes"));
        container.commit();
        assertEquals(2, cluster.endOffset("tx.modes"));
    }

    @Test
    void receivesAreAcknowledgedByTheCommitAndDeliveredAgainAfterARollback() throws Exception {
        Queue queue = TributaryQueue.of("tx.receive");
        sendNow(queue, "a");
        sendNow(queue, "b");
        sendNow(queue, "c");

        Connection connection = factory.createConnection();
        Session session = connection.createSession();
        MessageConsumer consumer = session.createConsumer(queue);
        connection.start();
        // A transaction begins while the connection is in use: a lazily enlisting container begins the managed
        // connection's local transaction then.
        ManagedConnection managed = container.created().get(0);
        managed.getLocalTransaction().begin();
        assertEquals("a", ((TextMessage) consumer.receive(WAIT_MS)).getText());
        managed.getLocalTransaction().rollback();

        Message again = consumer.receive(WAIT_MS);
        assertEquals("a", ((TextMessage) again).getText());
        assertTrue(again.getJMSRedelivered(), "delivered again after the rollback");
        connection.close(); // outside a transaction "a" was acknowledged when received

        container.begin();
        try (Connection inTransaction = factory.createConnection()) {
            inTransaction.start();
            MessageConsumer receiver = inTransaction.createSession().createConsumer(queue);
            assertEquals("b", ((TextMessage) receiver.receive(WAIT_MS)).getText());
        } // closed before the commit: the commit still acknowledges "b"
        container.commit();

        try (JMSContext context = factory.createContext()) {
            assertEquals("c", context.createConsumer(queue).receiveBody(String.class, WAIT_MS),
                    "neither a nor b came again");
        }
    }

    @Test
    void cleanupRollsBackAnOpenTransaction() throws Exception {
        Queue queue = TributaryQueue.of("tx.cleanup");
        TributaryManagedConnectionFactory managedFactory = cluster.managedConnectionFactory();
        ManagedConnection managed = managedFactory.createManagedConnection(null, null);
        try {
            managed.getLocalTransaction().begin();
            Connection connection = (Connection) managed.getConnection(null, null);
            Session session = connection.createSession();
            session.createProducer(queue).send(session.createTextMessage("lost"));

            managed.cleanup();
            assertThrows(IllegalStateException.class, () -> session.createTextMessage("late"),
                    "cleanup invalidates the handles");
            assertThrows(LocalTransactionException.class, () -> managed.getLocalTransaction().commit(),
                    "no transaction is left to commit");

            try (Connection next = (Connection) managed.getConnection(null, null)) {
                Session nextSession = next.createSession();
                assertFalse(nextSession.getTransacted());
                nextSession.createProducer(queue).send(nextSession.createTextMessage("kept"));
            }
            assertEquals(List.of("kept"), receiveFromOutside(queue, 1));
            assertEquals(1, cluster.endOffset("tx.cleanup"));
        } finally {
            managed.destroy();
        }
    }
}
