package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.errors.InvalidReplicationFactorException;

/**
 * Places the replicas of new partitions on brokers, without regard to racks, in the spirit of Kafka's assignment:
 * leaders go round-robin over the brokers from a start broker, so that leadership spreads evenly; the followers of a
 * partition are the next brokers after its leader, skipping a shift that grows by one every time the partition
 * numbers wrap around the broker list, so that the same pairs of brokers do not always share partitions (and one
 * broker's failure spreads its followers' extra load over many brokers, not one).
 *
 * <p>Pure; the random start and shift come from the injected {@link Random}.
 */
final class ReplicaAssigner {

    private final Random random;

    ReplicaAssigner(Random random) {
        this.random = random;
    }

    /**
     * Replicas for partitions {@code firstPartition .. firstPartition + count - 1}.
     *
     * @param brokers    the live brokers, in id order
     * @param startIndex index into {@code brokers} of the leader of partition 0, or -1 for a random one
     */
    SortedMap<Integer, List<Integer>> assign(List<Integer> brokers, int firstPartition, int count,
                                             int replicationFactor, int startIndex) {
        int n = brokers.size();
        if (replicationFactor > n) {
            throw new InvalidReplicationFactorException("Replication factor: " + replicationFactor
                    + " larger than available brokers: " + n + ".");
        }
        int start = startIndex >= 0 ? startIndex % n : random.nextInt(n);
        int baseShift = random.nextInt(n);
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = firstPartition; p < firstPartition + count; p++) {
            int leaderIndex = (start + p) % n;
            int shift = baseShift + p / n;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            replicas.add(brokers.get(leaderIndex));
            for (int j = 0; j < replicationFactor - 1; j++) {
                // Offsets 1 .. n-1 from the leader: never the leader itself, and distinct for distinct j.
                int offset = 1 + (shift + j) % (n - 1);
                replicas.add(brokers.get((leaderIndex + offset) % n));
            }
            assignment.put(p, replicas);
        }
        return assignment;
    }
}
