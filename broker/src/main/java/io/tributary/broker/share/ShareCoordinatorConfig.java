package io.tributary.broker.share;

/**
 * The share coordinator's settings, with Kafka's property names (parsed once by {@code BrokerConfig}): the layout of
 * {@code __share_group_state}, the internal topic that keeps the durable state of every share-partition.
 *
 * @param stateTopicNumPartitions     {@code share.coordinator.state.topic.num.partitions}
 * @param stateTopicReplicationFactor {@code share.coordinator.state.topic.replication.factor}
 * @param stateTopicMinIsr            {@code share.coordinator.state.topic.min.isr}, the topic's
 *                                    {@code min.insync.replicas}
 * @param stateTopicSegmentBytes      {@code share.coordinator.state.topic.segment.bytes}
 */
public record ShareCoordinatorConfig(int stateTopicNumPartitions, short stateTopicReplicationFactor,
                                     int stateTopicMinIsr, int stateTopicSegmentBytes) {

    /** The internal topic holding the share coordinators' state. */
    public static final String STATE_TOPIC = "__share_group_state";

    /** Kafka's defaults. */
    public static ShareCoordinatorConfig defaults() {
        return new ShareCoordinatorConfig(50, (short) 3, 2, 100 * 1024 * 1024);
    }
}
