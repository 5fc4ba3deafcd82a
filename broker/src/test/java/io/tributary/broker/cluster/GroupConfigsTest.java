package io.tributary.broker.cluster;

import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.data;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;

import io.tributary.broker.share.ShareAutoOffsetReset;
import io.tributary.broker.share.ShareGroupSettings;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group configurations in a real ZooKeeper with two brokers: one writes {@code /config/groups/<group>} in the topic
 * layout, the other's cache (the {@code ShareGroupSettings.Source} share-partition leaders read) follows it; invalid
 * values never reach ZooKeeper.
 */
class GroupConfigsTest extends ZooKeeperTestBase {

    private ClusterManager one;
    private ClusterManager two;

    @BeforeEach
    void startTwoBrokers() {
        one = startBroker(config(1, connect, dir));
        two = startBroker(config(2, connect, dir));
    }

    @AfterEach
    void stopBrokers() {
        one.close();
        two.close();
    }

    private static Map<String, String> set(Map<String, String> current, String key, String value) {
        Map<String, String> next = new HashMap<>(current);
        next.put(key, value);
        return next;
    }

    @Test
    void aGroupsConfigurationWrittenByOneBrokerIsWhatEveryBrokerServes() throws Exception {
        ShareGroupSettings defaults = two.groupConfigs().settings("g");
        assertEquals(ShareAutoOffsetReset.LATEST, defaults.autoOffsetReset());

        one.groupConfigs().alter("g", current -> set(current, "share.auto.offset.reset", "earliest"), false);

        assertEquals("{\"version\":1,\"config\":{\"share.auto.offset.reset\":\"earliest\"}}",
                data(inspector, chroot + "/config/groups/g"));
        await("broker 2 serves the new setting").until(() ->
                two.groupConfigs().settings("g").autoOffsetReset().equals(ShareAutoOffsetReset.EARLIEST));
        assertEquals(defaults.recordLockDurationMs(), two.groupConfigs().settings("g").recordLockDurationMs());
        assertEquals(Map.of("share.auto.offset.reset", "earliest"), two.groupConfigs().stored("g"));

        one.groupConfigs().alter("g", current -> Map.of(), false);
        await("broker 2 is back at the defaults").until(() -> two.groupConfigs().settings("g").equals(defaults));
    }

    @Test
    void anInvalidConfigurationIsRefusedAndNotWritten() {
        assertThrows(InvalidConfigurationException.class, () -> one.groupConfigs().alter("g",
                current -> set(current, "share.delivery.count.limit", "50"), false));
        assertThrows(InvalidRequestException.class, () -> one.groupConfigs().alter("a/b",
                current -> set(current, "share.delivery.count.limit", "3"), false));
        assertEquals(Map.of(), one.groupConfigs().stored("g"));
        assertEquals(false, ClusterTestSupport.exists(inspector, chroot + "/config/groups/g"));
    }
}
