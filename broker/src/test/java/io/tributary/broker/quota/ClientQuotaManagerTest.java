package io.tributary.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.storage.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Throttle times of the byte-rate quota, with a mock clock: Kafka's defaults of 11 windows of 1 s. */
class ClientQuotaManagerTest {

    private final ManualTime time = new ManualTime();
    private volatile ClientQuotas quotas = new ClientQuotas(Map.of(QuotaEntity.client("app"),
            Map.of(QuotaType.PRODUCE.key(), 1000.0)));
    private final ClientQuotaManager manager = new ClientQuotaManager(QuotaType.PRODUCE, new QuotaConfig(11, 1),
            () -> quotas, time, BrokerMetrics.detached());

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void withinTheQuotaOverTheWindowIsNotThrottled() {
        // The rate of a young sensor is taken over (11 - 1) windows: 10 s x 1000 B/s may arrive at once.
        assertEquals(0, manager.recordAndGetThrottleTimeMs("alice", "app", 10_000));
    }

    @Test
    void overTheQuotaIsThrottledForHowFarOverItIsBoundedByTheWindows() {
        // 15000 B over 10 s is 1500 B/s, half over the 1000 B/s quota: throttled half the 10 s span.
        assertEquals(5_000, manager.recordAndGetThrottleTimeMs("alice", "app", 15_000));
        // Far over: at most the whole 11 s span.
        assertEquals(11_000, manager.recordAndGetThrottleTimeMs("alice", "app", 1_000_000));
    }

    @Test
    void aClientWithoutAQuotaIsNeverThrottled() {
        assertEquals(0, manager.recordAndGetThrottleTimeMs("alice", "other", 100_000_000));
        assertEquals(Integer.MAX_VALUE, manager.maxValueInQuotaWindow("alice", "other"));
    }

    @Test
    void aChangedQuotaAppliesToTheNextRecording() {
        assertEquals(0, manager.recordAndGetThrottleTimeMs("alice", "app", 5_000));
        quotas = new ClientQuotas(Map.of(QuotaEntity.client("app"), Map.of(QuotaType.PRODUCE.key(), 100.0)));
        assertEquals(11_000, manager.recordAndGetThrottleTimeMs("alice", "app", 1));
    }

    @Test
    void unrecordedBytesNoLongerCount() {
        assertEquals(0, manager.recordAndGetThrottleTimeMs("alice", "app", 10_000));
        manager.unrecord("alice", "app", 10_000);
        assertEquals(0, manager.recordAndGetThrottleTimeMs("alice", "app", 10_000));
        assertEquals(10_000, manager.maxValueInQuotaWindow("alice", "app"));
    }
}
