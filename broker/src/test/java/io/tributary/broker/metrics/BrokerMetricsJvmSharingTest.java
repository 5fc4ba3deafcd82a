package io.tributary.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Map;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

/**
 * Two brokers' metrics in one JVM (as in tests): a bean belongs to the first that creates it, the second's metric
 * counts unpublished, and neither removes the other's bean. Also the object names: Kafka's key order.
 */
class BrokerMetricsJvmSharingTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    @Test
    void namesFollowKafkasKeyOrder() {
        assertEquals("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders",
                BrokerMetrics.name("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec", "topic", "orders"));
        assertEquals("kafka.server:type=group-coordinator-metrics",
                BrokerMetrics.name("kafka.server", "group-coordinator-metrics", null));
    }

    @Test
    void theFirstBrokerOwnsABeanAndTheSecondNeverRemovesIt() throws Exception {
        String name = "kafka.test:type=Sharing,name=EventsPerSec";
        ObjectName bean = new ObjectName(name);
        try (BrokerMetrics first = BrokerMetrics.jmx(); BrokerMetrics second = BrokerMetrics.jmx()) {
            first.meter(name).mark(3);
            second.meter(name).mark(5);
            assertEquals(3L, JMX.getAttribute(bean, "Count"));
            assertEquals(5L, second.meter(name).getCount()); // counted, not published

            second.remove(name);
            assertTrue(JMX.isRegistered(bean));
            assertEquals(3L, JMX.getAttribute(bean, "Count"));

            first.close();
            assertFalse(JMX.isRegistered(bean));
            second.meter(name).mark();
            assertTrue(JMX.isRegistered(bean)); // free again: the second broker publishes its own
        }
        assertFalse(JMX.isRegistered(bean));
    }

    @Test
    void attributeBeansHaveNamedDoubleAttributes() throws Exception {
        String name = "kafka.test:type=attribute-test,protocol=classic";
        try (BrokerMetrics metrics = BrokerMetrics.jmx()) {
            metrics.attributes(name, Map.of("group-count", () -> 2.0));
            assertEquals(2.0, JMX.getAttribute(new ObjectName(name), "group-count"));
        }
        assertFalse(JMX.isRegistered(new ObjectName(name)));
    }

    @Test
    void aDetachedRegistryCountsAndPublishesNothing() throws Exception {
        String name = "kafka.test:type=Detached,name=EventsPerSec";
        try (BrokerMetrics metrics = BrokerMetrics.detached()) {
            metrics.meter(name).mark();
            assertEquals(1L, metrics.meter(name).getCount());
            assertFalse(JMX.isRegistered(new ObjectName(name)));
        }
    }
}
