package io.tributary.ra.inbound;

import static io.tributary.ra.inbound.RecordingEndpointFactory.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

/**
 * The activation's JMX bean ({@code io.tributary.ra:type=activation,name=...}) on a real broker: it counts
 * deliveries, failures, redeliveries and dead letters as they happen, says why an activation does not deliver (its
 * state and last failure), and leaves when the activation stops.
 */
class ActivationStatisticsTest extends AdapterOnBroker {

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    /** The bean of the activation delivering {@code topic}, or null. */
    private static ObjectName beanOf(String topic) throws JMException {
        Set<ObjectName> names = SERVER.queryNames(new ObjectName("io.tributary.ra:type=activation,*"), null);
        for (ObjectName name : names) {
            String subscription = (String) SERVER.getAttribute(name, "Subscription");
            if (subscription.matches(".*\\b" + topic + "\\b.*")) {
                return name;
            }
        }
        return null;
    }

    private static Object attribute(ObjectName bean, String name) {
        try {
            return SERVER.getAttribute(bean, name);
        } catch (JMException e) {
            throw new AssertionError(bean + " " + name, e);
        }
    }

    private static void awaitAttribute(ObjectName bean, String name, Object expected) {
        await(bean + " " + name + " to be " + expected, WAIT, () -> Objects.equals(expected, attribute(bean, name)));
    }

    @Test
    void anActivationCountsItsDeliveriesAndItsBeanLeavesWhenItStops() throws Exception {
        String queue = name("counted");
        cluster.createTopic(queue, 2);
        send(queue, 0, texts("a", 6));
        send(queue, 1, texts("b", 4));
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec("group", s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        ObjectName bean = beanOf(queue);
        assertNotNull(bean, "the activation's bean");
        assertEquals("recording-mdb", bean.getKeyProperty("name"));

        endpoints.awaitDelivered(10, WAIT);
        awaitAttribute(bean, "Deliveries", 10L);
        assertEquals(0L, attribute(bean, "Failures"));
        assertEquals(0L, attribute(bean, "Redeliveries"));
        assertEquals(0, attribute(bean, "InFlight"));
        assertEquals("ACTIVE", attribute(bean, "State"));
        assertNull(attribute(bean, "LastFailure"));
        assertEquals(cluster.bootstrapServers(), attribute(bean, "BootstrapServers"));
        await("the consumer's lag", WAIT, () -> !Double.isNaN((Double) attribute(bean, "ConsumerLag")));

        adapter.endpointDeactivation(endpoints, spec);
        assertFalse(SERVER.isRegistered(bean));
    }

    @Test
    void anEndpointThatThrowsShowsFailuresRedeliveriesDeadLettersAndTheLastFailure() throws Exception {
        String queue = name("failing");
        String deadLetters = queue + "-dlq";
        cluster.createTopic(queue, 1);
        cluster.createTopic(deadLetters, 1);
        send(queue, 0, List.of("a", "poison", "flaky", "b"));
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("poison")) {
                throw new IllegalArgumentException("cannot pay " + message.getText());
            }
            if (message.getText().equals("flaky") && !message.getJMSRedelivered()) {
                throw new IllegalStateException("not yet");
            }
        });
        TributaryActivationSpec spec = spec("group", s -> {
            s.setDestination(queue);
            s.setMaxRedeliveries(2);
            s.setDeadLetterDestination(deadLetters);
        });
        adapter.endpointActivation(endpoints, spec);
        ObjectName bean = beanOf(queue);
        endpoints.awaitDelivered(3, WAIT);
        awaitAttribute(bean, "Deliveries", 3L);

        assertEquals(4L, attribute(bean, "Failures"), "poison three times, flaky once");
        assertEquals(3L, attribute(bean, "Redeliveries"), "poison twice, flaky once");
        assertEquals(1L, attribute(bean, "DeadLettered"));
        String lastFailure = (String) attribute(bean, "LastFailure");
        assertTrue(lastFailure.contains("onMessage threw") && lastFailure.contains("not yet"), lastFailure);
        assertNotNull(attribute(bean, "LastFailureTime"));
        assertEquals("ACTIVE", attribute(bean, "State"), "delivering again since");
        adapter.endpointDeactivation(endpoints, spec);
    }

    @Test
    void aShareGroupActivationCountsItsDeliveriesAndMeasuresNoLag() throws Exception {
        String queue = name("shared");
        cluster.createTopic(queue, 1);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(null, s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        ObjectName bean = beanOf(queue);
        send(queue, 0, texts("s", 5));

        endpoints.awaitDelivered(5, WAIT);
        awaitAttribute(bean, "Deliveries", 5L);
        assertTrue(Double.isNaN((Double) attribute(bean, "ConsumerLag")));
        adapter.endpointDeactivation(endpoints, spec);
        assertFalse(SERVER.isRegistered(bean));
    }

    @Test
    void anActivationAgainstADeadPortIsBrokerUnreachableWithTheReason() throws Exception {
        assertBrokerUnreachableAgainstADeadPort("group");
    }

    @Test
    void aShareGroupActivationAgainstADeadPortIsBrokerUnreachableWithTheReason() throws Exception {
        assertBrokerUnreachableAgainstADeadPort(null);
    }

    private void assertBrokerUnreachableAgainstADeadPort(String queueMode) throws Exception {
        int deadPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        String queue = name("unreachable");
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(queueMode, s -> {
            s.setDestination(queue);
            s.setBootstrapServers("127.0.0.1:" + deadPort);
        });
        adapter.endpointActivation(endpoints, spec);
        ObjectName bean = beanOf(queue);
        assertNotNull(bean);

        awaitAttribute(bean, "State", "BROKER_UNREACHABLE");
        String lastFailure = (String) attribute(bean, "LastFailure");
        assertTrue(lastFailure.contains("failed"), lastFailure);
        assertNotNull(attribute(bean, "FailingSince"));
        assertEquals(0L, attribute(bean, "Deliveries"));

        adapter.endpointDeactivation(endpoints, spec);
        assertFalse(SERVER.isRegistered(bean));
    }
}
