package io.tributary.broker.cluster;

import org.apache.kafka.common.TopicPartition;

/**
 * One partition whose metadata changed between two snapshots.
 *
 * @param before null for a partition that is new (a created topic or partition)
 * @param after  null for a partition that is gone (its topic was deleted)
 */
public record PartitionChange(PartitionMetadata before, PartitionMetadata after) {

    public PartitionChange {
        if (before == null && after == null) {
            throw new IllegalArgumentException("a change needs a before or an after");
        }
    }

    public TopicPartition topicPartition() {
        return after != null ? after.topicPartition() : before.topicPartition();
    }

    public boolean isNew() {
        return before == null;
    }

    public boolean isDeleted() {
        return after == null;
    }

    /**
     * Whether the partition became another partition with the same name: its topic was deleted and created again
     * between the snapshots, so whatever log the old one had must go.
     */
    public boolean isRecreated() {
        return before != null && after != null && !before.topicId().equals(after.topicId());
    }
}
