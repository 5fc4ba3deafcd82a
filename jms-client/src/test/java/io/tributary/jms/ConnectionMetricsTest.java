package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's JMX metrics on a real broker: the {@code io.tributary.jms:type=destination-metrics} bean of a
 * connection and destination counts what was sent, received, acknowledged, redelivered and dead-lettered, and how
 * long receive calls waited; it leaves with its connection, and a factory with {@code metricsEnabled=false} registers
 * none.
 */
class ConnectionMetricsTest {

    private static final long WAIT_MS = 20_000;
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static String unique(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet() + "-" + System.nanoTime() % 100_000;
    }

    private static ObjectName bean(String connection, String destination) throws Exception {
        return new ObjectName("io.tributary.jms:type=destination-metrics,connection=" + connection + ",destination="
                + destination);
    }

    private static double attribute(ObjectName bean, String name) throws Exception {
        return ((Number) SERVER.getAttribute(bean, name)).doubleValue();
    }

    /** Waits until {@code bean}'s {@code name} is {@code expected}, or fails with the last value. */
    private static void awaitAttribute(ObjectName bean, String name, double expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        double value = attribute(bean, name);
        while (value != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            value = attribute(bean, name);
        }
        assertEquals(expected, value, bean + " " + name);
    }

    private static void send(Session session, Queue queue, int count) throws Exception {
        try (MessageProducer producer = session.createProducer(queue)) {
            for (int i = 0; i < count; i++) {
                producer.send(session.createTextMessage("m" + i));
            }
        }
    }

    @Test
    void sentReceivedAndAcknowledgedMessagesAreCountedPerConnectionAndDestination() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        String clientId = unique("metrics-client");
        factory.setClientId(clientId);
        String queueName = unique("metrics-queue");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            send(session, queue, 5);
            for (int i = 0; i < 5; i++) {
                assertNotNull(consumer.receive(WAIT_MS), "message " + i);
            }

            ObjectName bean = bean(clientId, "queue." + queueName);
            assertEquals(5.0, attribute(bean, "messages-sent-total"));
            assertEquals(5.0, attribute(bean, "messages-received-total"));
            awaitAttribute(bean, "messages-acknowledged-total", 5.0);
            assertEquals(0.0, attribute(bean, "messages-redelivered-total"));
            assertEquals(0.0, attribute(bean, "messages-dead-lettered-total"));
            assertEquals(5.0, attribute(bean, "receive-calls-total"));
            assertTrue(attribute(bean, "receive-wait-time-max") >= attribute(bean, "receive-wait-time-avg"));
            assertTrue(attribute(bean, "messages-sent-rate") > 0);
        }
    }

    @Test
    void aConnectionWithoutClientIdIsNamedLikeItsKafkaClientsWhichPublishTheirOwnBeans() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        String queueName = unique("metrics-anonymous");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            send(session, session.createQueue(queueName), 1);

            Set<ObjectName> beans = SERVER.queryNames(new ObjectName("io.tributary.jms:type=destination-metrics,"
                    + "destination=queue." + queueName + ",*"), null);
            assertEquals(1, beans.size(), beans.toString());
            String name = beans.iterator().next().getKeyProperty("connection");
            assertTrue(name.startsWith("tributary-jms-"), name);
            assertTrue(SERVER.isRegistered(new ObjectName("kafka.producer:type=producer-metrics,client-id=" + name
                    + "-producer")), "the Kafka producer's own bean");
        }
    }

    @Test
    void recoverCountsTheRedeliveries() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        String clientId = unique("metrics-recover");
        factory.setClientId(clientId);
        String queueName = unique("metrics-recover-queue");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            send(session, queue, 2);
            for (int i = 0; i < 2; i++) {
                assertNotNull(consumer.receive(WAIT_MS));
            }
            session.recover();
            Message last = null;
            for (int i = 0; i < 2; i++) {
                last = consumer.receive(WAIT_MS);
                assertNotNull(last);
                assertTrue(last.getJMSRedelivered());
            }
            last.acknowledge();

            ObjectName bean = bean(clientId, "queue." + queueName);
            assertEquals(4.0, attribute(bean, "messages-received-total"));
            assertEquals(2.0, attribute(bean, "messages-redelivered-total"));
            assertEquals(2.0, attribute(bean, "messages-acknowledged-total"));
        }
    }

    @Test
    void aMessageRejectedAtItsLastDeliveryIsCountedDeadLettered() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        factory.setMaxDeliveries(1);
        String clientId = unique("metrics-dead");
        factory.setClientId(clientId);
        String queueName = unique("metrics-dead-queue");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            send(session, queue, 1);
            assertNotNull(consumer.receive(WAIT_MS));
            session.recover();

            ObjectName bean = bean(clientId, "queue." + queueName);
            awaitAttribute(bean, "messages-dead-lettered-total", 1.0);
            assertEquals(0.0, attribute(bean, "messages-acknowledged-total"));
        }
    }

    @Test
    void closingTheConnectionRemovesItsBeans() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        String clientId = unique("metrics-close");
        factory.setClientId(clientId);
        Connection connection = factory.createConnection();
        Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
        String queueName = unique("metrics-close-queue");
        send(session, session.createQueue(queueName), 1);
        ObjectName bean = bean(clientId, "queue." + queueName);
        assertTrue(SERVER.isRegistered(bean));

        connection.close();

        assertFalse(SERVER.isRegistered(bean));
        assertEquals(Set.of(), SERVER.queryNames(new ObjectName("io.tributary.jms:connection=" + clientId + ",*"),
                null));
    }

    @Test
    void metricsEnabledFalseRegistersNoBean() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        factory.setMetricsEnabled(false);
        String clientId = unique("metrics-off");
        factory.setClientId(clientId);
        String queueName = unique("metrics-off-queue");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            send(session, queue, 1);
            assertNotNull(consumer.receive(WAIT_MS));

            assertEquals(Set.of(), SERVER.queryNames(new ObjectName("io.tributary.jms:*"), null).stream()
                    .filter(name -> clientId.equals(name.getKeyProperty("connection"))
                            || name.toString().contains(queueName))
                    .collect(java.util.stream.Collectors.toSet()));
        }
    }
}
