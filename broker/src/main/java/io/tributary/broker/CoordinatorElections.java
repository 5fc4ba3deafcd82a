package io.tributary.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.tributary.broker.cluster.MetadataChange;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.share.ShareCoordinator;
import io.tributary.broker.share.ShareCoordinatorConfig;
import io.tributary.broker.txn.TransactionConfig;
import io.tributary.broker.txn.TransactionCoordinator;

/**
 * Tells the coordinators which partitions of their internal topics this broker leads after each metadata change:
 * the group coordinator those of {@code __consumer_offsets}, the transaction coordinator those of
 * {@code __transaction_state} with each partition's leader epoch (its coordinator epoch, which transaction markers
 * carry), the share coordinator those of {@code __share_group_state} with their leader epochs. Each becomes the coordinator of the partitions it now leads (loading them) and stops coordinating the
 * others. Registered after the {@link PartitionStateApplier}, so the replica manager already has the new roles.
 *
 * <p>Threads: the metadata cache's update thread and the registration thread; serialised here.
 */
final class CoordinatorElections implements MetadataListener {

    /** The partitions of one internal topic this broker leads (partition to leader epoch), and its size. */
    private record Led(Map<Integer, Integer> epochs, int partitionCount) {
    }

    private final int brokerId;
    private final ReplicaManager replicaManager;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final ShareCoordinator shares;

    CoordinatorElections(int brokerId, ReplicaManager replicaManager, GroupCoordinator groups,
                         TransactionCoordinator transactions, ShareCoordinator shares) {
        this.brokerId = brokerId;
        this.replicaManager = replicaManager;
        this.groups = groups;
        this.transactions = transactions;
        this.shares = shares;
    }

    @Override
    public void onMetadataChange(MetadataChange change) {
        refresh(change.current());
    }

    /**
     * Coordinates exactly the internal partitions this broker leads now. Called on every metadata change, and when
     * the broker epoch changes (a lost registration ends every leadership at once, with no metadata change to say
     * so while the broker is cut off from ZooKeeper).
     */
    synchronized void refresh(MetadataSnapshot snapshot) {
        Led offsets = led(snapshot, GroupConfig.OFFSETS_TOPIC);
        groups.onLeadershipChange(offsets.epochs().keySet(), offsets.partitionCount());
        Led transactionState = led(snapshot, TransactionConfig.TRANSACTION_STATE_TOPIC);
        transactions.onLeadershipChange(transactionState.epochs(), transactionState.partitionCount());
        Led shareState = led(snapshot, ShareCoordinatorConfig.STATE_TOPIC);
        shares.onLeadershipChange(shareState.epochs(), shareState.partitionCount());
    }

    private Led led(MetadataSnapshot snapshot, String topicName) {
        Optional<TopicMetadata> topic = snapshot.topic(topicName);
        Map<Integer, Integer> led = new HashMap<>();
        if (topic.isEmpty()) {
            return new Led(led, 0);
        }
        for (PartitionMetadata partition : topic.get().partitions().values()) {
            boolean leading = partition.hasLeader() && partition.leader() == brokerId
                    && replicaManager.partition(partition.topicPartition()).map(Partition::isLeader).orElse(false);
            if (leading) {
                led.put(partition.topicPartition().partition(), partition.leaderEpoch());
            }
        }
        return new Led(led, topic.get().partitionCount());
    }
}
