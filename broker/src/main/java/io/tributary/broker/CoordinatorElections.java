package io.tributary.broker;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import io.tributary.broker.cluster.MetadataChange;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;

/**
 * Tells the group coordinator which partitions of {@code __consumer_offsets} this broker leads after each metadata
 * change: it becomes the coordinator of their groups (loading them) and stops coordinating the others. Registered
 * after the {@link PartitionStateApplier}, so the replica manager already has the new roles.
 *
 * <p>Threads: the metadata cache's update thread and the registration thread; serialised here.
 */
final class CoordinatorElections implements MetadataListener {

    private final int brokerId;
    private final ReplicaManager replicaManager;
    private final GroupCoordinator coordinator;

    CoordinatorElections(int brokerId, ReplicaManager replicaManager, GroupCoordinator coordinator) {
        this.brokerId = brokerId;
        this.replicaManager = replicaManager;
        this.coordinator = coordinator;
    }

    @Override
    public void onMetadataChange(MetadataChange change) {
        refresh(change.current());
    }

    /**
     * Coordinates the groups of exactly the {@code __consumer_offsets} partitions this broker leads now. Called on
     * every metadata change, and when the broker epoch changes (a lost registration ends every leadership at once,
     * with no metadata change to say so while the broker is cut off from ZooKeeper).
     */
    synchronized void refresh(MetadataSnapshot snapshot) {
        Optional<TopicMetadata> topic = snapshot.topic(GroupConfig.OFFSETS_TOPIC);
        Set<Integer> led = new HashSet<>();
        int partitionCount = 0;
        if (topic.isPresent()) {
            partitionCount = topic.get().partitionCount();
            for (PartitionMetadata partition : topic.get().partitions().values()) {
                boolean leading = partition.hasLeader() && partition.leader() == brokerId
                        && replicaManager.partition(partition.topicPartition()).map(Partition::isLeader)
                        .orElse(false);
                if (leading) {
                    led.add(partition.topicPartition().partition());
                }
            }
        }
        coordinator.onLeadershipChange(led, partitionCount);
    }
}
