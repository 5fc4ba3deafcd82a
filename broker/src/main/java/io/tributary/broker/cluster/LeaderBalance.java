package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's leader-imbalance rule ({@code auto.leader.rebalance.enable}): a broker's imbalance is the share of the
 * partitions whose preferred (first) replica it is that another broker leads; when that share is above {@code
 * leader.imbalance.per.broker.percentage}, its partitions are given back to it by preferred-leader elections. Pure;
 * the controller runs it every {@code leader.imbalance.check.interval.seconds}.
 */
final class LeaderBalance {

    private LeaderBalance() {
    }

    /**
     * The partitions to move back to their preferred replica: those of every live broker whose imbalance is above
     * {@code percentage}, that another broker leads now. (Whether each can move, its preferred replica being a
     * current ISR member, is the election's to decide.)
     */
    static List<TopicPartition> partitionsToRebalance(MetadataSnapshot snapshot, int percentage) {
        Map<Integer, List<TopicPartition>> notLed = new HashMap<>();
        Map<Integer, Integer> preferredCount = new HashMap<>();
        for (TopicMetadata topic : snapshot.topics().values()) {
            for (PartitionMetadata partition : topic.partitions().values()) {
                if (partition.replicas().isEmpty() || !partition.hasState() || partition.isReassigning()) {
                    continue;
                }
                int preferred = partition.replicas().get(0);
                preferredCount.merge(preferred, 1, Integer::sum);
                if (partition.leader() != preferred) {
                    notLed.computeIfAbsent(preferred, id -> new ArrayList<>()).add(partition.topicPartition());
                }
            }
        }
        List<TopicPartition> moves = new ArrayList<>();
        for (Map.Entry<Integer, List<TopicPartition>> entry : notLed.entrySet()) {
            int broker = entry.getKey();
            if (!snapshot.isEligible(broker)) {
                continue;
            }
            double imbalance = (double) entry.getValue().size() / preferredCount.get(broker);
            if (imbalance * 100 > percentage) {
                moves.addAll(entry.getValue());
            }
        }
        return moves;
    }
}
