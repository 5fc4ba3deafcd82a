package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link ActivationStatistics} derives an activation's state from its reporters and deliveries, without a broker:
 * a failing cluster outranks a failing endpoint, a failed delivery backs off until the next one succeeds, and the
 * last failure and the time the failing began are kept.
 */
class ActivationStateTest {

    private static final Logger log = LoggerFactory.getLogger(ActivationStateTest.class);
    private static final Instant NOW = Instant.parse("2026-12-03T18:00:00Z");

    private final ActivationStatistics statistics = new ActivationStatistics("orders-mdb", "queue orders",
            "127.0.0.1:9092", () -> 42.0, Clock.fixed(NOW, ZoneOffset.UTC));
    private final Availability cluster = statistics.availability(log, "the cluster",
            ActivationStatistics.Dependency.CLUSTER);
    private final Availability endpoint = statistics.availability(log, "the endpoint",
            ActivationStatistics.Dependency.DELIVERY);

    @Test
    void aNewActivationIsActiveWithoutFailures() {
        assertEquals("ACTIVE", statistics.getState());
        assertNull(statistics.getLastFailure());
        assertNull(statistics.getFailingSince());
        assertEquals(42.0, statistics.getConsumerLag());
    }

    @Test
    void aFailedDeliveryBacksOffUntilTheNextDeliverySucceeds() {
        statistics.deliveryStarted(false);
        assertEquals(1, statistics.getInFlight());
        statistics.deliveryFailed("onMessage threw java.lang.IllegalStateException: no");

        assertEquals("BACKING_OFF", statistics.getState());
        assertEquals(0, statistics.getInFlight());
        assertEquals(1, statistics.getFailures());
        assertEquals("delivering: onMessage threw java.lang.IllegalStateException: no", statistics.getLastFailure());
        assertEquals(NOW.toString(), statistics.getFailingSince());

        statistics.deliveryStarted(true);
        statistics.delivered();

        assertEquals("ACTIVE", statistics.getState());
        assertEquals(1, statistics.getDeliveries());
        assertEquals(1, statistics.getRedeliveries());
        assertNull(statistics.getFailingSince());
        assertTrue(statistics.getLastFailure().contains("no"), "the last failure stays for the record");
    }

    @Test
    void anUnreachableClusterOutranksAFailingEndpointAndSaysWhy() {
        endpoint.failed("creating an endpoint", new IllegalStateException("not deployed"), "retrying");
        assertEquals("BACKING_OFF", statistics.getState());

        cluster.failed("reaching the cluster", new RuntimeException("Timeout expired while fetching topic metadata"),
                "retrying with back-off");

        assertEquals("BROKER_UNREACHABLE", statistics.getState());
        assertTrue(statistics.getLastFailure().startsWith("reaching the cluster failed, retrying with back-off: "),
                statistics.getLastFailure());
        assertTrue(statistics.getLastFailure().endsWith("Timeout expired while fetching topic metadata"));
        assertEquals(NOW.toString(), statistics.getFailingSince());
        assertEquals(NOW.toString(), statistics.getLastFailureTime());

        cluster.succeeded("reaching the cluster");
        assertEquals("BACKING_OFF", statistics.getState());
        endpoint.succeeded("creating endpoints");
        assertEquals("ACTIVE", statistics.getState());
    }

    @Test
    void aStoppingActivationSaysSo() {
        cluster.failed("consuming", new RuntimeException("down"), "retrying");
        statistics.stopping();
        assertEquals("STOPPING", statistics.getState());
        assertNull(statistics.getFailingSince());
    }

    @Test
    void twoActivationsOfOneNameGetTwoBeansAndUnregisteringTwiceIsHarmless() {
        ActivationStatistics other = new ActivationStatistics("orders-mdb", "queue refunds", "127.0.0.1:9092",
                () -> Double.NaN, Clock.systemUTC());
        statistics.register();
        other.register();
        javax.management.ObjectName first = statistics.objectName();
        javax.management.ObjectName second = other.objectName();
        try {
            assertEquals("io.tributary.ra:type=activation,name=orders-mdb", first.toString());
            assertNotEquals(first, second);
            assertEquals("orders-mdb", second.getKeyProperty("name"));
            assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(second));
        } finally {
            statistics.unregister();
            other.unregister();
        }
        statistics.unregister();
        assertNull(statistics.objectName());
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(first));
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(second));
    }
}
