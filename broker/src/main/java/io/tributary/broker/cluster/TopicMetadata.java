package io.tributary.broker.cluster;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;

/**
 * What a broker knows of one topic.
 *
 * @param topicId         the topic id, {@link Uuid#ZERO_UUID} until the controller gives one to a topic written
 *                        without (by an old Kafka)
 * @param partitions      by partition number
 * @param configOverrides the topic's overrides from {@code /config/topics/<topic>}; the broker defaults apply to
 *                        everything else
 */
public record TopicMetadata(String name, Uuid topicId, SortedMap<Integer, PartitionMetadata> partitions,
                            Map<String, String> configOverrides) {

    public TopicMetadata {
        partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
        configOverrides = Collections.unmodifiableMap(new TreeMap<>(configOverrides));
    }

    public int partitionCount() {
        return partitions.size();
    }
}
