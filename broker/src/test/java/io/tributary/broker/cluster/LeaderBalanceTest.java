package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LeaderBalanceTest {

    private static final Uuid ID = Uuid.randomUuid();

    private static PartitionMetadata partition(int p, List<Integer> replicas, int leader) {
        return PartitionMetadata.of(ID, new TopicPartition("t", p), replicas,
                new LeaderAndIsr(leader, 1, replicas, 1), 1, 10, List.of(), List.of());
    }

    private static MetadataSnapshot snapshot(PartitionMetadata... partitions) {
        TreeMap<Integer, PartitionMetadata> byNumber = new TreeMap<>();
        for (PartitionMetadata partition : partitions) {
            byNumber.put(partition.topicPartition().partition(), partition);
        }
        Map<Integer, BrokerInfo> brokers = new TreeMap<>();
        for (int id = 1; id <= 3; id++) {
            brokers.put(id, new BrokerInfo(id, "h", 9000 + id, null, List.of(), 100 + id));
        }
        return new MetadataSnapshot(brokers, 1, Map.of("t", new TopicMetadata("t", ID, byNumber, Map.of())));
    }

    @Test
    void aBrokerLeadingFewerOfItsPreferredPartitionsThanThePercentageAllowsGetsThemBack() {
        MetadataSnapshot snapshot = snapshot(
                partition(0, List.of(1, 2, 3), 2),
                partition(1, List.of(1, 2, 3), 1),
                partition(2, List.of(2, 3, 1), 2),
                partition(3, List.of(3, 1, 2), 3));
        // Broker 1 prefers two partitions and leads one: 50 % imbalance.
        assertEquals(List.of(new TopicPartition("t", 0)), LeaderBalance.partitionsToRebalance(snapshot, 10));
        assertEquals(List.of(), LeaderBalance.partitionsToRebalance(snapshot, 50), "at the limit: balanced enough");
    }
}
