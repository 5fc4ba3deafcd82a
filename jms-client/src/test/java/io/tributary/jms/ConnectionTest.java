package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.testsupport.InProcessBroker;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connection rules on a real broker: metadata, client id rules, session modes, stop and start gating delivery,
 * what a listener may not do, and the ExceptionListener told when the cluster goes away.
 */
class ConnectionTest {

    private static final long WAIT_MS = 20_000;

    @TempDir
    Path dir;

    @Test
    void metadataClientIdAndSessionModesFollowTheSpecification() throws Exception {
        try (InProcessBroker cluster = InProcessBroker.builder(dir).start()) {
            TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
            try (Connection connection = factory.createConnection()) {
                ConnectionMetaData metaData = connection.getMetaData();
                assertEquals("3.1", metaData.getJMSVersion());
                assertEquals(3, metaData.getJMSMajorVersion());
                assertEquals("Tributary", metaData.getJMSProviderName());
                assertTrue(Collections.list(metaData.getJMSXPropertyNames()).contains("JMSXDeliveryCount"));
                assertThrows(InvalidClientIDException.class, () -> connection.setClientID(""));
                connection.setClientID("first");
                assertThrows(IllegalStateException.class, () -> connection.setClientID("second"));
                assertEquals("first", connection.getClientID());
                assertThrows(JMSException.class, () -> connection.createSession(99));
                Session transacted = connection.createSession(true, Session.AUTO_ACKNOWLEDGE);
                assertTrue(transacted.getTransacted(), "transacted=true wins over the acknowledge mode");
                assertThrows(IllegalStateException.class, transacted::recover);
                Session auto = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                assertThrows(IllegalStateException.class, auto::commit);
            }
            factory.setClientId("configured");
            try (Connection connection = factory.createConnection()) {
                assertEquals("configured", connection.getClientID());
                assertThrows(IllegalStateException.class, () -> connection.setClientID("other"));
            }
        }
    }

    @Test
    void aStoppedConnectionDeliversNothingUntilItStartsAgain() throws Exception {
        try (InProcessBroker cluster = InProcessBroker.builder(dir).start();
             Connection connection = TestConnectionFactory.create(cluster.bootstrapServers()).createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("gated");
            session.createProducer(queue).send(session.createTextMessage("held"));
            MessageConsumer receiver = session.createConsumer(queue);
            assertNull(receiver.receive(500), "not started yet");
            connection.start();
            assertEquals("held", ((TextMessage) receiver.receive(WAIT_MS)).getText());
            receiver.close();

            BlockingQueue<String> delivered = new ArrayBlockingQueue<>(10);
            AtomicReference<Exception> fromListener = new AtomicReference<>();
            Session listening = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = listening.createConsumer(queue);
            consumer.setMessageListener(message -> {
                try {
                    connection.stop();
                } catch (Exception e) {
                    fromListener.set(e);
                }
                try {
                    delivered.add(((TextMessage) message).getText()); // after the stop attempt: the test checks it
                } catch (JMSException e) {
                    throw new AssertionError(e);
                }
            });
            session.createProducer(queue).send(session.createTextMessage("one"));
            assertEquals("one", delivered.poll(WAIT_MS, TimeUnit.MILLISECONDS));
            assertInstanceOf(IllegalStateException.class, fromListener.get(),
                    "a listener may not stop its own connection");
            connection.stop();
            session.createProducer(queue).send(session.createTextMessage("two"));
            assertNull(delivered.poll(1_000, TimeUnit.MILLISECONDS), "nothing while stopped");
            connection.start();
            assertEquals("two", delivered.poll(WAIT_MS, TimeUnit.MILLISECONDS));
            assertThrows(IllegalStateException.class, () -> consumer.receive(10),
                    "receive is not allowed on a consumer with a listener");
        }
    }

    @Test
    void theExceptionListenerHearsWhenTheClusterGoesAway() throws Exception {
        InProcessBroker cluster = InProcessBroker.builder(dir).start();
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        factory.setKafkaProperty("admin.request.timeout.ms", "2000");
        factory.setKafkaProperty("admin.default.api.timeout.ms", "3000");
        Connection connection = factory.createConnection();
        CountDownLatch told = new CountDownLatch(1);
        AtomicReference<JMSException> reported = new AtomicReference<>();
        try {
            connection.setExceptionListener(exception -> {
                reported.set(exception);
                told.countDown();
            });
            connection.start();
            cluster.close();
            assertTrue(told.await(60, TimeUnit.SECONDS), "the listener was told");
            assertNotNull(reported.get().getMessage());
            assertTrue(reported.get().getMessage().contains("Reaching the cluster"), reported.get().getMessage());
        } finally {
            connection.close();
        }
    }

    @Test
    void aConnectionToAnAddressWithNoBrokerFailsSayingTheClusterThereIsUnreachable() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // closed again: nothing listens there now
        }
        TributaryConnectionFactory factory = new TributaryConnectionFactory();
        factory.setBootstrapServers("127.0.0.1:" + port);
        factory.setConnectTimeout(1_000);

        JMSException refused = assertThrows(JMSException.class, factory::createConnection);
        assertTrue(refused.getMessage().startsWith("The cluster at 127.0.0.1:" + port + " is unreachable"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("within 1000 ms"), refused.getMessage());
        assertInstanceOf(ConnectException.class, refused.getLinkedException());

        JMSRuntimeException fromContext = assertThrows(JMSRuntimeException.class, factory::createContext);
        assertTrue(fromContext.getMessage().contains("is unreachable"), fromContext.getMessage());

        factory.setBootstrapServers("no-such-port");
        JMSException malformed = assertThrows(JMSException.class, factory::createConnection);
        assertTrue(malformed.getMessage().contains("'no-such-port' is not a host:port address"),
                malformed.getMessage());
        assertThrows(IllegalArgumentException.class, () -> factory.setConnectTimeout(-1));
    }
}
