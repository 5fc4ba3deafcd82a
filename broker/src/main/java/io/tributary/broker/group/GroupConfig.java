package io.tributary.broker.group;

/**
 * The group coordinator's settings, with Kafka's property names (see {@code BrokerConfig}): the layout of
 * {@code __consumer_offsets}, offset retention, and the bounds members' requests must stay within.
 *
 * @param offsetsTopicNumPartitions        {@code offsets.topic.num.partitions}
 * @param offsetsTopicReplicationFactor    {@code offsets.topic.replication.factor}
 * @param offsetsTopicSegmentBytes         {@code offsets.topic.segment.bytes}
 * @param offsetsLoadBufferSize            {@code offsets.load.buffer.size}
 * @param offsetsRetentionMs               {@code offsets.retention.minutes}, in milliseconds
 * @param offsetsRetentionCheckIntervalMs  {@code offsets.retention.check.interval.ms}
 * @param offsetCommitTimeoutMs            {@code offsets.commit.timeout.ms}
 * @param offsetMetadataMaxBytes           {@code offset.metadata.max.bytes}
 * @param minSessionTimeoutMs              {@code group.min.session.timeout.ms}
 * @param maxSessionTimeoutMs              {@code group.max.session.timeout.ms}
 * @param initialRebalanceDelayMs          {@code group.initial.rebalance.delay.ms}
 * @param maxSize                          {@code group.max.size}
 */
public record GroupConfig(int offsetsTopicNumPartitions, short offsetsTopicReplicationFactor,
                          int offsetsTopicSegmentBytes, int offsetsLoadBufferSize, long offsetsRetentionMs,
                          long offsetsRetentionCheckIntervalMs, int offsetCommitTimeoutMs, int offsetMetadataMaxBytes,
                          int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs,
                          int maxSize) {

    /** The internal topic holding committed offsets and group metadata. */
    public static final String OFFSETS_TOPIC = "__consumer_offsets";
}
