package io.tributary.broker.cluster;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;

/**
 * A topic's id and the replicas of each partition, the content of {@code /brokers/topics/<topic>}; the first replica
 * of a partition is its preferred leader. A partition being reassigned lists its target replicas followed by the
 * ones leaving, and names them in {@code addingReplicas} and {@code removingReplicas} (Kafka's version-3 layout).
 *
 * @param topicId    {@link Uuid#ZERO_UUID} for a topic written without one (by an old Kafka) until the controller
 *                   gives it an id
 * @param partitions partition number to replica broker ids, in preference order
 * @param adding     per partition under reassignment, the replicas being added
 * @param removing   per partition under reassignment, the replicas being removed
 */
record TopicAssignment(Uuid topicId, SortedMap<Integer, List<Integer>> partitions,
                       SortedMap<Integer, List<Integer>> adding, SortedMap<Integer, List<Integer>> removing) {

    TopicAssignment {
        partitions = copy(partitions);
        adding = copy(adding);
        removing = copy(removing);
    }

    TopicAssignment(Uuid topicId, SortedMap<Integer, List<Integer>> partitions) {
        this(topicId, partitions, new TreeMap<>(), new TreeMap<>());
    }

    private static SortedMap<Integer, List<Integer>> copy(Map<Integer, List<Integer>> map) {
        TreeMap<Integer, List<Integer>> copy = new TreeMap<>();
        for (Map.Entry<Integer, List<Integer>> e : map.entrySet()) {
            copy.put(e.getKey(), List.copyOf(e.getValue()));
        }
        return Collections.unmodifiableSortedMap(copy);
    }

    int replicationFactor() {
        return partitions.isEmpty() ? 0 : partitions.get(partitions.firstKey()).size();
    }

    /** This assignment with more partitions. */
    TopicAssignment plus(Map<Integer, List<Integer>> added) {
        TreeMap<Integer, List<Integer>> all = new TreeMap<>(partitions);
        all.putAll(added);
        return new TopicAssignment(topicId, all, adding, removing);
    }

    TopicAssignment withTopicId(Uuid id) {
        return new TopicAssignment(id, partitions, adding, removing);
    }

    List<Integer> adding(int partition) {
        return adding.getOrDefault(partition, List.of());
    }

    List<Integer> removing(int partition) {
        return removing.getOrDefault(partition, List.of());
    }

    /** This assignment with one partition's replicas and reassignment markers replaced (empty lists: none). */
    TopicAssignment withPartition(int partition, List<Integer> replicas, List<Integer> addingReplicas,
                                  List<Integer> removingReplicas) {
        TreeMap<Integer, List<Integer>> all = new TreeMap<>(partitions);
        all.put(partition, replicas);
        TreeMap<Integer, List<Integer>> add = new TreeMap<>(adding);
        TreeMap<Integer, List<Integer>> remove = new TreeMap<>(removing);
        add.remove(partition);
        remove.remove(partition);
        if (!addingReplicas.isEmpty()) {
            add.put(partition, addingReplicas);
        }
        if (!removingReplicas.isEmpty()) {
            remove.put(partition, removingReplicas);
        }
        return new TopicAssignment(topicId, all, add, remove);
    }
}
