package io.tributary.testsupport;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The broker settings under which a test's broker hosts Kafka's internal topics (the consumer offsets, the
 * transaction state and the share-group state) on its own, as Kafka's single-node configuration does: replication
 * factor and minimum ISR 1, few partitions of each to keep start-up light, and no initial rebalance delay, so that a
 * new group does not wait for more members. Also right for a few brokers that each may host them alone.
 */
public final class SingleBrokerSettings {

    private SingleBrokerSettings() {
    }

    /** The settings, with {@code partitions} partitions of each internal topic. */
    public static Map<String, String> of(int partitions) {
        String count = Integer.toString(partitions);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", count);
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("transaction.state.log.num.partitions", count);
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("share.coordinator.state.topic.num.partitions", count);
        settings.put("group.initial.rebalance.delay.ms", "0");
        return settings;
    }
}
