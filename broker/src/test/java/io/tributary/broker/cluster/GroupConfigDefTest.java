package io.tributary.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import io.tributary.broker.share.ShareAutoOffsetReset;
import io.tributary.broker.share.ShareConfig;
import io.tributary.broker.share.ShareGroupSettings;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

/** Group configuration keys, defaults from the broker's settings, and Kafka's validation naming the key at fault. */
class GroupConfigDefTest {

    private final ShareConfig broker = ShareConfig.defaults();
    private final GroupConfigDef def = new GroupConfigDef(broker);

    @Test
    void aGroupWithoutConfigurationHasTheBrokersShareSettings() {
        assertEquals(ShareGroupSettings.of(broker), def.defaults().share());
        assertEquals(broker.sessionTimeoutMs(), def.defaults().shareSessionTimeoutMs());
        assertEquals(broker.heartbeatIntervalMs(), def.defaults().shareHeartbeatIntervalMs());
        assertEquals(String.valueOf(broker.recordLockDurationMs()),
                def.defaultValue(GroupConfigDef.SHARE_RECORD_LOCK_DURATION_MS));
        assertEquals("latest", def.defaultValue(GroupConfigDef.SHARE_AUTO_OFFSET_RESET));
    }

    @Test
    void everyShareKeyReachesTheEffectiveSettings() {
        GroupConfigDef.Effective effective = def.parse(Map.of(
                "share.auto.offset.reset", "by_duration:PT1H",
                "share.record.lock.duration.ms", "20000",
                "share.isolation.level", "read_committed",
                "share.delivery.count.limit", "3",
                "share.partition.max.record.locks", "500",
                "share.session.timeout.ms", "50000",
                "share.heartbeat.interval.ms", "6000",
                "consumer.session.timeout.ms", "50000",
                "consumer.heartbeat.interval.ms", "6000"));

        assertEquals(new ShareGroupSettings(new ShareAutoOffsetReset(ShareAutoOffsetReset.Strategy.BY_DURATION,
                Duration.ofHours(1)), 20_000, IsolationLevel.READ_COMMITTED, 3, 500), effective.share());
        assertEquals(50_000, effective.shareSessionTimeoutMs());
        assertEquals(6_000, effective.shareHeartbeatIntervalMs());
        assertEquals(50_000, effective.consumerSessionTimeoutMs());
    }

    @Test
    void unknownKeysAndValuesOutOfBoundsAreRefusedNamingTheKey() {
        assertRefused(Map.of("share.no.such.key", "1"), "share.no.such.key");
        assertRefused(Map.of("share.record.lock.duration.ms", "1000"), "share.record.lock.duration.ms");
        assertRefused(Map.of("share.session.timeout.ms", "1"), "share.session.timeout.ms");
        assertRefused(Map.of("share.heartbeat.interval.ms", "16000"), "share.heartbeat.interval.ms");
        assertRefused(Map.of("share.delivery.count.limit", "11"), "share.delivery.count.limit");
        assertRefused(Map.of("share.partition.max.record.locks", "99"), "share.partition.max.record.locks");
        assertRefused(Map.of("share.isolation.level", "READ_COMMITTED"), "share.isolation.level");
        assertRefused(Map.of("share.auto.offset.reset", "sometime"), "share.auto.offset.reset");
        assertRefused(Map.of("consumer.session.timeout.ms", "ten"), "consumer.session.timeout.ms");
    }

    private void assertRefused(Map<String, String> config, String key) {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class, () -> def.parse(config));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }
}
