package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The znodes of topics: assignments under {@code /brokers/topics/<topic>}, overrides under
 * {@code /config/topics/<topic>}, deletion requests under {@code /admin/delete_topics/<topic>} (formats in
 * {@link ZkJson}). Only I/O: what to write is decided by {@link TopicAdmin} and {@link Controller}. Every update is
 * conditional on the version that was read. Thread-safe; every call is a blocking ZooKeeper round trip.
 *
 * <p>Lookups take names from clients' requests: a name no topic can have ({@link TopicNames#isLegal}) has no znode and
 * is answered as absent without a round trip, since ZooKeeper refuses such a path ("Invalid path string": a NUL, a
 * character it does not allow) with an exception that would surface as a server error.
 */
final class TopicStore {

    /** A value and the version of the znode it was read from. */
    record Versioned<T>(T value, int zkVersion) {
    }

    /** How many times a write that lost a race with another writer is re-read and retried before giving up. */
    private static final int MAX_CONFLICT_RETRIES = 5;
    /** Read-change-write rounds of a config znode that others keep changing before giving up. */
    private static final int MAX_CONFIG_ATTEMPTS = 10;

    private final CuratorFramework zk;

    TopicStore(ZkConnection connection) {
        this.zk = connection.curator();
    }

    List<String> topicNames() {
        try {
            return zk.getChildren().forPath(ZkPaths.TOPICS);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw ClusterException.wrap("listing " + ZkPaths.TOPICS, e);
        }
    }

    Optional<Versioned<TopicAssignment>> readAssignment(String topic) {
        if (!TopicNames.isLegal(topic)) {
            return Optional.empty();
        }
        String path = ZkPaths.topic(topic);
        try {
            Stat stat = new Stat();
            byte[] data = zk.getData().storingStatIn(stat).forPath(path);
            return Optional.of(new Versioned<>(ZkJson.parseTopicAssignment(path, data), stat.getVersion()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw ClusterException.wrap("reading " + path, e);
        }
    }

    /**
     * Creates the topic's assignment and its config overrides in one transaction (Kafka writes the overrides first
     * so that no broker ever sees the topic without them; one transaction gives the same guarantee).
     *
     * @throws TopicExistsException if the topic exists
     */
    void create(String topic, TopicAssignment assignment, Map<String, String> overrides) {
        String topicPath = ZkPaths.topic(topic);
        String configPath = ZkPaths.topicConfig(topic);
        for (int attempt = 0; ; attempt++) {
            try {
                // A config znode without a topic is left over from a topic whose deletion was interrupted by hand;
                // it is overwritten, as Kafka does.
                Stat configStat = zk.checkExists().forPath(configPath);
                CuratorOp config = configStat == null
                        ? zk.transactionOp().create().forPath(configPath, ZkJson.topicConfig(overrides))
                        : zk.transactionOp().setData().withVersion(configStat.getVersion())
                        .forPath(configPath, ZkJson.topicConfig(overrides));
                CuratorOp assign = zk.transactionOp().create().forPath(topicPath, ZkJson.topicAssignment(assignment));
                zk.transaction().forOperations(config, assign);
                return;
            } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException e) {
                if (exists(topic)) {
                    throw new TopicExistsException("Topic '" + topic + "' already exists.");
                }
                if (attempt >= MAX_CONFLICT_RETRIES) {
                    throw new ClusterException("creating topic " + topic + " kept conflicting with another writer of "
                            + configPath, e);
                }
            } catch (Exception e) {
                throw ClusterException.wrap("creating topic " + topic, e);
            }
        }
    }

    boolean exists(String topic) {
        return TopicNames.isLegal(topic) && checkExists(ZkPaths.topic(topic));
    }

    /** Replaces the assignment if the znode still has {@code expectedZkVersion}; false when it changed or vanished. */
    boolean updateAssignment(String topic, TopicAssignment assignment, int expectedZkVersion) {
        String path = ZkPaths.topic(topic);
        try {
            zk.setData().withVersion(expectedZkVersion).forPath(path, ZkJson.topicAssignment(assignment));
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw ClusterException.wrap("updating " + path, e);
        }
    }

    /** The controller gives a topic written without an id (by an old Kafka) its id. */
    ControllerFence.Outcome updateAssignmentFenced(String topic, TopicAssignment assignment, int expectedZkVersion,
                                                   ControllerFence fence) {
        try {
            CuratorOp write = zk.transactionOp().setData().withVersion(expectedZkVersion)
                    .forPath(ZkPaths.topic(topic), ZkJson.topicAssignment(assignment));
            return fence.commit(zk, List.of(write));
        } catch (Exception e) {
            throw ClusterException.wrap("updating the assignment of " + topic, e);
        }
    }

    /**
     * The controller finishes a reassignment: the topic's new assignment and the partition's new state, both
     * conditional on the versions read, in one transaction.
     */
    ControllerFence.Outcome completeReassignmentFenced(TopicPartition tp, TopicAssignment assignment,
                                                       int expectedTopicVersion, LeaderAndIsr state,
                                                       int expectedStateVersion, ControllerFence fence) {
        try {
            CuratorOp topicWrite = zk.transactionOp().setData().withVersion(expectedTopicVersion)
                    .forPath(ZkPaths.topic(tp.topic()), ZkJson.topicAssignment(assignment));
            CuratorOp stateWrite = zk.transactionOp().setData().withVersion(expectedStateVersion)
                    .forPath(ZkPaths.partitionState(tp.topic(), tp.partition()), ZkJson.partitionState(state));
            return fence.commit(zk, List.of(topicWrite, stateWrite));
        } catch (Exception e) {
            throw ClusterException.wrap("completing the reassignment of " + tp, e);
        }
    }

    /** The overrides and the version of their znode; empty if the znode does not exist. */
    Optional<Versioned<Map<String, String>>> readConfig(String topic) {
        return TopicNames.isLegal(topic) ? readConfigAt(ZkPaths.topicConfig(topic)) : Optional.empty();
    }

    /**
     * Changes the config znode at {@code path} ({@code /config/brokers/<entity>}, {@code /config/groups/<group>}):
     * reads it, applies {@code change} (which validates, throwing to refuse) and writes the result if the znode is
     * still as read, or creates it; read-change-write again when someone else wrote in between, so that concurrent
     * changes from two brokers never lose one another.
     *
     * @param what names the configuration in the error when it kept changing
     * @return the configuration after the change (not written when {@code validateOnly})
     */
    Map<String, String> alterConfigAt(String path, UnaryOperator<Map<String, String>> change, boolean validateOnly,
                                      String what) {
        for (int attempt = 0; attempt < MAX_CONFIG_ATTEMPTS; attempt++) {
            Optional<Versioned<Map<String, String>>> current = readConfigAt(path);
            Map<String, String> after = change.apply(new HashMap<>(current.map(Versioned::value).orElse(Map.of())));
            if (validateOnly || writeConfigAt(path, after, current.map(Versioned::zkVersion).orElse(-1))) {
                return after;
            }
        }
        throw new ClusterException(what + " kept changing during " + MAX_CONFIG_ATTEMPTS + " attempts to alter it");
    }

    private Optional<Versioned<Map<String, String>>> readConfigAt(String path) {
        try {
            Stat stat = new Stat();
            byte[] data = zk.getData().storingStatIn(stat).forPath(path);
            return Optional.of(new Versioned<>(ZkJson.parseTopicConfig(path, data), stat.getVersion()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw ClusterException.wrap("reading " + path, e);
        }
    }

    /**
     * Writes the overrides if their znode still has {@code expectedZkVersion}, or creates it when
     * {@code expectedZkVersion} is -1; false when someone else wrote in between.
     */
    boolean writeConfig(String topic, Map<String, String> overrides, int expectedZkVersion) {
        return writeConfigAt(ZkPaths.topicConfig(topic), overrides, expectedZkVersion);
    }

    private boolean writeConfigAt(String path, Map<String, String> overrides, int expectedZkVersion) {
        try {
            if (expectedZkVersion < 0) {
                zk.create().forPath(path, ZkJson.topicConfig(overrides));
            } else {
                zk.setData().withVersion(expectedZkVersion).forPath(path, ZkJson.topicConfig(overrides));
            }
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException
                 | KeeperException.NodeExistsException e) {
            return false;
        } catch (Exception e) {
            throw ClusterException.wrap("writing " + path, e);
        }
    }

    /** Files a deletion request for the controller; a request already pending is left as it is. */
    void requestDeletion(String topic) {
        String path = ZkPaths.deleteTopicRequest(topic);
        try {
            zk.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // already requested
        } catch (Exception e) {
            throw ClusterException.wrap("creating " + path, e);
        }
    }

    boolean isMarkedForDeletion(String topic) {
        return TopicNames.isLegal(topic) && checkExists(ZkPaths.deleteTopicRequest(topic));
    }

    /**
     * The controller removes every znode of a topic, its overrides and the deletion request, atomically: a broker
     * sees the topic either whole or gone. The partition znodes are listed first; if one is added meanwhile, the
     * transaction fails with NotEmpty and the outcome is {@link ControllerFence.Outcome#CONFLICT}.
     */
    ControllerFence.Outcome deleteFenced(String topic, ControllerFence fence) {
        try {
            List<CuratorOp> ops = new ArrayList<>();
            String topicPath = ZkPaths.topic(topic);
            if (zk.checkExists().forPath(topicPath) != null) {
                String partitionsPath = ZkPaths.partitions(topic);
                for (String partition : children(partitionsPath)) {
                    String partitionPath = partitionsPath + "/" + partition;
                    for (String child : children(partitionPath)) {
                        ops.add(zk.transactionOp().delete().forPath(partitionPath + "/" + child));
                    }
                    ops.add(zk.transactionOp().delete().forPath(partitionPath));
                }
                if (zk.checkExists().forPath(partitionsPath) != null) {
                    ops.add(zk.transactionOp().delete().forPath(partitionsPath));
                }
                ops.add(zk.transactionOp().delete().forPath(topicPath));
            }
            if (zk.checkExists().forPath(ZkPaths.topicConfig(topic)) != null) {
                ops.add(zk.transactionOp().delete().forPath(ZkPaths.topicConfig(topic)));
            }
            if (zk.checkExists().forPath(ZkPaths.deleteTopicRequest(topic)) != null) {
                ops.add(zk.transactionOp().delete().forPath(ZkPaths.deleteTopicRequest(topic)));
            }
            return ops.isEmpty() ? ControllerFence.Outcome.COMMITTED : fence.commit(zk, ops);
        } catch (Exception e) {
            throw ClusterException.wrap("deleting topic " + topic, e);
        }
    }

    /** Removes a deletion request without deleting the topic (deletion is disabled on the controller). */
    void dropDeletionRequest(String topic) {
        try {
            zk.delete().forPath(ZkPaths.deleteTopicRequest(topic));
        } catch (KeeperException.NoNodeException e) {
            // gone already
        } catch (Exception e) {
            throw ClusterException.wrap("deleting " + ZkPaths.deleteTopicRequest(topic), e);
        }
    }

    private List<String> children(String path) throws Exception {
        try {
            return zk.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private boolean checkExists(String path) {
        try {
            return zk.checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw ClusterException.wrap("checking " + path, e);
        }
    }
}
