package io.tributary.broker;

import java.util.Collection;
import java.util.Optional;

import io.tributary.broker.cluster.MetadataChange;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionChange;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicConfigs;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries the controller's decisions, as the metadata cache sees them, to this broker's replicas: a partition whose
 * replica this broker is gets its log and its role (leader or follower); a deleted topic's logs are deleted; a topic
 * config change reaches the logs at once. Its first call carries the whole cluster state, so a restarted broker also
 * deletes the logs of topics deleted while it was down.
 *
 * <p>Threads: called on the metadata cache's update thread, one change at a time, in order.
 */
final class PartitionStateApplier implements MetadataListener {

    private static final Logger log = LoggerFactory.getLogger(PartitionStateApplier.class);

    private final int brokerId;
    private final BrokerConfig config;
    private final ReplicaManager replicaManager;
    private final LogManager logManager;
    private boolean firstChange = true;

    PartitionStateApplier(BrokerConfig config, ReplicaManager replicaManager, LogManager logManager) {
        this.brokerId = config.brokerId;
        this.config = config;
        this.replicaManager = replicaManager;
        this.logManager = logManager;
    }

    @Override
    public void onMetadataChange(MetadataChange change) {
        MetadataSnapshot current = change.current();
        // Parsed once per change, not per partition: a restart applies every partition in one change.
        LogConfig defaults = TopicConfigs.brokerDefaults(config, current);
        for (PartitionChange partitionChange : change.partitionChanges()) {
            try {
                apply(current, defaults, partitionChange);
            } catch (RuntimeException e) {
                log.error("Could not apply the new state of {}: {}", partitionChange.topicPartition(),
                        e.getMessage(), e);
            }
        }
        for (TopicPartition tp : replicaManager.hostedPartitions()) {
            if (change.brokerConfigsChanged() || change.configChangedTopics().contains(tp.topic())) {
                replicaManager.updateConfig(tp, TopicConfigs.topicConfig(defaults, current.topic(tp.topic())));
            }
        }
        if (firstChange) {
            firstChange = false;
            deleteLogsOfVanishedTopics(current, logManager.allLogs());
        }
    }

    private void apply(MetadataSnapshot current, LogConfig defaults, PartitionChange change) {
        TopicPartition tp = change.topicPartition();
        PartitionMetadata after = change.after();
        if (change.isDeleted() || change.isRecreated()) {
            if (replicaManager.partition(tp).isPresent() || replicaManager.isOffline(tp)
                    || logManager.getLog(tp).isPresent()) {
                log.info("Deleting the log of {}: its topic was deleted", tp);
                replicaManager.stopReplica(tp, true);
            }
            if (change.isDeleted()) {
                return;
            }
        }
        if (after == null || !after.hasState()) {
            return;
        }
        if (!after.isReplica(brokerId)) {
            if (replicaManager.partition(tp).isPresent() || replicaManager.isOffline(tp)) {
                log.info("Broker {} is no longer a replica of {}; deleting its log", brokerId, tp);
                replicaManager.stopReplica(tp, true);
            }
            return;
        }
        Partition.State state = new Partition.State(after.leader(), after.leaderEpoch(), after.replicas(),
                after.isr(), after.isrEpochs(), after.zkVersion(), after.stateZxid(), after.controllerEpoch());
        replicaManager.applyPartitionState(tp, after.topicId(), state,
                TopicConfigs.topicConfig(defaults, current.topic(tp.topic())));
    }

    private void deleteLogsOfVanishedTopics(MetadataSnapshot current, Collection<PartitionLog> logs) {
        for (PartitionLog partitionLog : logs) {
            TopicPartition tp = partitionLog.topicPartition();
            Optional<PartitionMetadata> partition = current.topic(tp.topic())
                    .map(topic -> topic.partitions().get(tp.partition()));
            if (partition.isEmpty()) {
                log.info("Deleting the log of {}: the cluster no longer has that partition", tp);
                replicaManager.stopReplica(tp, true);
            } else if (!partition.get().isReplica(brokerId)) {
                // Deleted and created again elsewhere while this broker was down: the log is of the old topic.
                log.info("Deleting the log of {}: this broker is not among its replicas {}", tp,
                        partition.get().replicas());
                replicaManager.stopReplica(tp, true);
            }
        }
    }
}
