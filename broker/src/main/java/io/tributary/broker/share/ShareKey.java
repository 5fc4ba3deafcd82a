package io.tributary.broker.share;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;

/**
 * What the share coordinator keeps one state for: a share group's view of one partition (KIP-932's share-partition),
 * named by topic id so that a topic deleted and created again under the same name starts afresh.
 *
 * @param groupId   the share group
 * @param topicId   the topic's id
 * @param partition the partition index
 */
public record ShareKey(String groupId, Uuid topicId, int partition) {

    public static ShareKey of(String groupId, TopicIdPartition partition) {
        return new ShareKey(groupId, partition.topicId(), partition.partition());
    }

    /**
     * The key FindCoordinator takes (key type 2, SHARE) and whose hash places the share-partition on a partition of
     * {@code __share_group_state}: {@code groupId:topicId:partition}, the topic id in Kafka's base64 form, as
     * Kafka's {@code SharePartitionKey.asCoordinatorKey} writes it.
     */
    public String coordinatorKey() {
        return groupId + ":" + topicId + ":" + partition;
    }

    @Override
    public String toString() {
        return coordinatorKey();
    }
}
