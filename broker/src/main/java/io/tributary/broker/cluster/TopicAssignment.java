package io.tributary.broker.cluster;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;

/**
 * A topic's id and the replicas of each partition, the content of {@code /brokers/topics/<topic>}; the first replica
 * of a partition is its preferred leader.
 *
 * @param topicId    {@link Uuid#ZERO_UUID} for a topic written without one (by an old Kafka) until the controller
 *                   gives it an id
 * @param partitions partition number to replica broker ids, in preference order
 */
record TopicAssignment(Uuid topicId, SortedMap<Integer, List<Integer>> partitions) {

    TopicAssignment {
        TreeMap<Integer, List<Integer>> copy = new TreeMap<>();
        for (Map.Entry<Integer, List<Integer>> e : partitions.entrySet()) {
            copy.put(e.getKey(), List.copyOf(e.getValue()));
        }
        partitions = Collections.unmodifiableSortedMap(copy);
    }

    int replicationFactor() {
        return partitions.isEmpty() ? 0 : partitions.get(partitions.firstKey()).size();
    }

    /** This assignment with more partitions. */
    TopicAssignment plus(Map<Integer, List<Integer>> added) {
        TreeMap<Integer, List<Integer>> all = new TreeMap<>(partitions);
        all.putAll(added);
        return new TopicAssignment(topicId, all);
    }

    TopicAssignment withTopicId(Uuid id) {
        return new TopicAssignment(id, partitions);
    }
}
