package io.tributary.broker.cluster;

import java.util.List;
import java.util.Set;

/**
 * What changed between two snapshots of the {@link MetadataCache}.
 *
 * @param partitionChanges   every partition whose assignment or state differs, in topic and partition order
 * @param configChangedTopics topics whose config overrides differ (including created and deleted topics that have
 *                            overrides)
 */
public record MetadataChange(MetadataSnapshot previous, MetadataSnapshot current,
                             List<PartitionChange> partitionChanges, Set<String> configChangedTopics) {

    public MetadataChange {
        partitionChanges = List.copyOf(partitionChanges);
        configChangedTopics = Set.copyOf(configChangedTopics);
    }

    public boolean brokersChanged() {
        return !previous.brokers().equals(current.brokers());
    }

    public boolean controllerChanged() {
        return previous.controllerId() != current.controllerId();
    }

    /** Whether any dynamic broker configuration ({@code /config/brokers/...}) changed. */
    public boolean brokerConfigsChanged() {
        return !previous.brokerConfigs().equals(current.brokerConfigs());
    }

    /** Whether the set of brokers in a controlled shutdown changed. */
    public boolean shutdownsChanged() {
        return !previous.shuttingDown().equals(current.shuttingDown());
    }

    /** Whether the replicas brokers reported lost with a failed log directory changed. */
    public boolean offlineReplicasChanged() {
        return !previous.offlineReplicas().equals(current.offlineReplicas());
    }

    public boolean isEmpty() {
        return partitionChanges.isEmpty() && configChangedTopics.isEmpty() && !brokersChanged()
                && !controllerChanged() && !brokerConfigsChanged() && !shutdownsChanged()
                && !offlineReplicasChanged() && previous.topics().equals(current.topics());
    }
}
