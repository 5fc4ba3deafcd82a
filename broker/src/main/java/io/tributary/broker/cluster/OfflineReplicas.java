package io.tributary.broker.cluster;

import java.util.List;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * A broker's replicas lost with its failed log directories, as it reports them to the controller
 * ({@code /brokers/offline_replicas/<id>}): the controller treats the broker as dead for exactly these partitions,
 * electing other leaders and taking it out of their ISRs.
 *
 * @param logDirs    the broker's offline log directories, for operators reading the znode
 * @param partitions the partitions whose logs were in them
 */
public record OfflineReplicas(List<String> logDirs, Set<TopicPartition> partitions) {

    public static final OfflineReplicas NONE = new OfflineReplicas(List.of(), Set.of());

    public OfflineReplicas {
        logDirs = List.copyOf(logDirs);
        partitions = Set.copyOf(partitions);
    }

    public boolean isEmpty() {
        return logDirs.isEmpty() && partitions.isEmpty();
    }
}
