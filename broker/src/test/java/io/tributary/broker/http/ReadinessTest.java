package io.tributary.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** When a broker is ready for traffic, with its parts as fakes. */
class ReadinessTest {

    @Test
    void aBrokerLoadingItsLogsIsNotReady() {
        Readiness readiness = new Readiness();
        readiness.registration(() -> true);
        readiness.offlineLedPartitions(List::of);
        Readiness.Status status = readiness.check();
        assertFalse(status.ready());
        assertEquals("loading logs", status.reason());
    }

    @Test
    void aBrokerNotRegisteredInZooKeeperIsNotReadyAndBecomesReadyOnceRegistered() {
        Readiness readiness = new Readiness();
        AtomicBoolean registered = new AtomicBoolean();
        readiness.logsLoaded();
        readiness.offlineLedPartitions(List::of);
        assertEquals("not registered in ZooKeeper", readiness.check().reason());
        readiness.registration(registered::get);
        assertFalse(readiness.check().ready());
        registered.set(true);
        assertTrue(readiness.check().ready());
        registered.set(false); // a lost session
        assertFalse(readiness.check().ready());
    }

    @Test
    void anOfflinePartitionLedHereMakesTheBrokerUnreadyAndIsNamed() {
        Readiness readiness = new Readiness();
        List<TopicPartition> offline = new ArrayList<>();
        readiness.logsLoaded();
        readiness.registration(() -> true);
        readiness.offlineLedPartitions(() -> List.copyOf(offline));
        assertTrue(readiness.check().ready());
        offline.add(new TopicPartition("orders", 2));
        Readiness.Status status = readiness.check();
        assertFalse(status.ready());
        assertEquals("1 partition(s) led here are offline: orders-2", status.reason());
        for (int i = 0; i < 10; i++) {
            offline.add(new TopicPartition("many", i));
        }
        assertTrue(readiness.check().reason().startsWith("11 partition(s) led here are offline: many-0, many-1"));
        assertTrue(readiness.check().reason().endsWith(", ..."));
    }

    @Test
    void aBrokerShuttingDownIsNotReadyWhateverElseHolds() {
        Readiness readiness = new Readiness();
        readiness.logsLoaded();
        readiness.registration(() -> true);
        readiness.offlineLedPartitions(List::of);
        assertTrue(readiness.check().ready());
        readiness.stopping();
        assertEquals(new Readiness.Status(false, "shutting down"), readiness.check());
    }
}
