package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.kafka.common.TopicPartition;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and writes {@code /brokers/topics/<topic>/partitions/<p>/state} ({@link LeaderAndIsr} as JSON, see
 * {@link ZkJson}), always conditionally: a write names the znode version it was based on and fails, without changing
 * anything, when someone wrote in between. The writer then re-reads and decides again.
 *
 * <p>Two kinds of writer: the controller (elections, initial states, removing dead replicas from ISRs), whose writes
 * are also fenced by its epoch ({@link ControllerFence}); and a partition's leader, which records the ISR changes it
 * makes through {@link #compareAndSet}. Thread-safe; every call is a blocking ZooKeeper round trip.
 */
public final class PartitionStateStore {

    /**
     * A partition's state, the version of its znode (the version a conditional write must name) and the zxid of its
     * last write (see {@link LeaderAndIsr#isCurrentMember}).
     */
    public record VersionedState(LeaderAndIsr state, int zkVersion, long zxid) {
    }

    private final CuratorFramework zk;

    PartitionStateStore(ZkConnection connection) {
        this.zk = connection.curator();
    }

    /** The state as stored now, or empty if the controller has not written one (or the topic is gone). */
    public Optional<VersionedState> read(TopicPartition tp) {
        String path = ZkPaths.partitionState(tp.topic(), tp.partition());
        try {
            Stat stat = new Stat();
            byte[] data = zk.getData().storingStatIn(stat).forPath(path);
            return Optional.of(new VersionedState(ZkJson.parsePartitionState(path, data), stat.getVersion(),
                    stat.getMzxid()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw ClusterException.wrap("reading " + path, e);
        }
    }

    /**
     * Replaces the state if its znode still has version {@code expectedZkVersion}: how a leader records an ISR
     * change.
     *
     * @return the state as written, or empty when the state changed in between (or is gone) and nothing was written
     */
    public Optional<VersionedState> compareAndSet(TopicPartition tp, LeaderAndIsr state, int expectedZkVersion) {
        String path = ZkPaths.partitionState(tp.topic(), tp.partition());
        try {
            Stat stat = zk.setData().withVersion(expectedZkVersion).forPath(path, ZkJson.partitionState(state));
            return Optional.of(new VersionedState(state, stat.getVersion(), stat.getMzxid()));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw ClusterException.wrap("conditional write of " + path, e);
        }
    }

    /**
     * The controller writes a partition's first state, if the topic znode still has {@code topicZkVersion} (so a
     * partition of a deleted or re-created topic is never given a state) and no state exists yet.
     */
    ControllerFence.Outcome createFenced(TopicPartition tp, LeaderAndIsr state, int topicZkVersion,
                                         ControllerFence fence) {
        try {
            List<CuratorOp> ops = new ArrayList<>();
            ops.add(zk.transactionOp().check().withVersion(topicZkVersion).forPath(ZkPaths.topic(tp.topic())));
            // The parents are created in the same transaction when missing; if another writer creates them
            // first, the transaction fails with NodeExists and the caller re-reads.
            String partitions = ZkPaths.partitions(tp.topic());
            if (zk.checkExists().forPath(partitions) == null) {
                ops.add(zk.transactionOp().create().forPath(partitions));
            }
            String partition = ZkPaths.partition(tp.topic(), tp.partition());
            if (zk.checkExists().forPath(partition) == null) {
                ops.add(zk.transactionOp().create().forPath(partition));
            }
            ops.add(zk.transactionOp().create()
                    .forPath(ZkPaths.partitionState(tp.topic(), tp.partition()), ZkJson.partitionState(state)));
            return fence.commit(zk, ops);
        } catch (Exception e) {
            throw ClusterException.wrap("creating the state of " + tp, e);
        }
    }

    /** The controller replaces a state whose znode still has version {@code expectedZkVersion}. */
    ControllerFence.Outcome updateFenced(TopicPartition tp, LeaderAndIsr state, int expectedZkVersion,
                                         ControllerFence fence) {
        try {
            CuratorOp write = zk.transactionOp().setData().withVersion(expectedZkVersion)
                    .forPath(ZkPaths.partitionState(tp.topic(), tp.partition()), ZkJson.partitionState(state));
            return fence.commit(zk, List.of(write));
        } catch (Exception e) {
            throw ClusterException.wrap("updating the state of " + tp, e);
        }
    }
}
