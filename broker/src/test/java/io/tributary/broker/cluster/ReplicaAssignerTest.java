package io.tributary.broker.cluster;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;

import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReplicaAssignerTest {

    private final ReplicaAssigner assigner = new ReplicaAssigner(new Random(42));

    @Test
    void everyPartitionGetsDistinctReplicasAndLeadersSpreadEvenly() {
        List<Integer> brokers = List.of(1, 2, 3, 4, 5);
        for (int rf = 1; rf <= brokers.size(); rf++) {
            SortedMap<Integer, List<Integer>> assignment = assigner.assign(brokers, 0, 20, rf, -1);
            assertEquals(20, assignment.size());
            Map<Integer, Integer> leaders = new HashMap<>();
            Map<Integer, Integer> replicas = new HashMap<>();
            for (List<Integer> r : assignment.values()) {
                assertEquals(rf, r.size());
                assertEquals(rf, new HashSet<>(r).size(), "distinct replicas " + r);
                leaders.merge(r.get(0), 1, Integer::sum);
                r.forEach(b -> replicas.merge(b, 1, Integer::sum));
            }
            for (int broker : brokers) {
                assertEquals(4, leaders.get(broker), "leaders of broker " + broker + " with rf " + rf);
                assertEquals(4 * rf, replicas.get(broker), "replicas of broker " + broker + " with rf " + rf);
            }
        }
    }

    @Test
    void fixedStartPutsTheFirstLeaderThereAndContinuesRoundRobin() {
        SortedMap<Integer, List<Integer>> assignment = assigner.assign(List.of(1, 2, 3), 3, 3, 2, 1);
        assertEquals(List.of(3, 4, 5), List.copyOf(assignment.keySet()));
        // partition p is led by brokers[(start + p) % n]: p=3 -> index 1, p=4 -> 2, p=5 -> 0
        assertEquals(2, assignment.get(3).get(0));
        assertEquals(3, assignment.get(4).get(0));
        assertEquals(1, assignment.get(5).get(0));
    }

    @Test
    void replicationFactorAboveTheBrokerCountIsRefused() {
        InvalidReplicationFactorException e = assertThrows(InvalidReplicationFactorException.class,
                () -> assigner.assign(List.of(1, 2), 0, 1, 3, -1));
        assertEquals("Replication factor: 3 larger than available brokers: 2.", e.getMessage());
    }
}
