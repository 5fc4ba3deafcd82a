package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.storage.LogConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicDeletionDisabledException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topic administration as the CreateTopics, DeleteTopics, CreatePartitions, DescribeConfigs and
 * IncrementalAlterConfigs handlers need it: Kafka's validation rules and error types, replica assignment, and the
 * ZooKeeper writes. Partition states are not written here: the controller writes them when it sees the new
 * assignment ({@link #whenPartitionStatesWritten}), and carries out deletions ({@link #whenDeleted}).
 *
 * <p>Failures a client caused are Kafka's {@code ApiException}s with Kafka's messages; ZooKeeper failures are
 * {@link ClusterException}s. Thread-safe: concurrent writers (also on other brokers) are serialized by conditional
 * writes; a lost race is re-read and re-validated.
 */
public final class TopicAdmin {

    private static final Logger log = LoggerFactory.getLogger(TopicAdmin.class);

    /** What CreateTopics v4+ sends for "the broker's default" partitions or replication factor. */
    public static final int USE_DEFAULT = -1;

    /**
     * The most partitions one request may create (CreateTopics, over all its topics) or add (CreatePartitions): Kafka's
     * limit (its controller's {@code MAX_PARTITIONS_PER_BATCH}, answered POLICY_VIOLATION with the same message).
     * Every partition is an assignment entry built in memory, a state znode and a log directory with two index files;
     * a request for two billion, one mutated integer away from a valid one, used to exhaust the broker's heap.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    private static final int MAX_CONFLICT_RETRIES = 5;

    /** A topic as created (or, with validateOnly, as it would have been created). */
    public record CreatedTopic(String name, Uuid topicId, SortedMap<Integer, List<Integer>> assignment,
                               Map<String, String> configOverrides) {

        public int partitionCount() {
            return assignment.size();
        }

        public int replicationFactor() {
            return assignment.isEmpty() ? 0 : assignment.get(assignment.firstKey()).size();
        }
    }

    private final BrokerConfig config;
    private final TopicStore store;
    private final MetadataCache metadata;
    private final ReplicaAssigner assigner;

    TopicAdmin(BrokerConfig config, TopicStore store, MetadataCache metadata, ReplicaAssigner assigner) {
        this.config = config;
        this.store = store;
        this.metadata = metadata;
        this.assigner = assigner;
    }

    /**
     * Creates a topic with either a partition count and replication factor ({@link #USE_DEFAULT} for the broker's
     * {@code num.partitions} / {@code default.replication.factor}), or an explicit assignment (partition to replica
     * broker ids, partitions numbered from 0) with both counts {@link #USE_DEFAULT}. A null or empty assignment
     * means none.
     *
     * @param configs       topic config overrides, validated against the topic-level settings
     * @param validateOnly  validate and compute the assignment, write nothing
     * @throws InvalidTopicException              illegal or colliding name
     * @throws TopicExistsException               the topic exists (also while its deletion is pending)
     * @throws InvalidPartitionsException         fewer than one partition
     * @throws InvalidReplicationFactorException  replication factor below one or above the live brokers
     * @throws InvalidReplicaAssignmentException  an explicit assignment with gaps, duplicates, unequal replication
     *                                            factors or unknown brokers
     * @throws InvalidConfigurationException      a bad override, the message naming the property
     * @throws InvalidRequestException            both counts and an assignment given
     * @throws PolicyViolationException           more than {@link #MAX_PARTITIONS_PER_REQUEST} partitions
     */
    public CreatedTopic createTopic(String name, int numPartitions, int replicationFactor,
                                    Map<Integer, List<Integer>> assignment, Map<String, String> configs,
                                    boolean validateOnly) {
        TopicNames.validate(name);
        if (assignment != null && assignment.isEmpty()) {
            assignment = null; // CreateTopics sends an empty list of assignments when there are none
        }
        Map<String, String> overrides = validateConfigs(name, configs == null ? Map.of() : configs);
        if (assignment != null && (numPartitions != USE_DEFAULT || replicationFactor != USE_DEFAULT)) {
            throw new InvalidRequestException("Both numPartitions or replicationFactor and replicasAssignments were "
                    + "set. Both cannot be used at the same time.");
        }
        List<String> existing = store.topicNames();
        if (existing.contains(name)) {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        TopicNames.checkCollisions(name, existing);

        List<Integer> live = liveBrokers();
        SortedMap<Integer, List<Integer>> replicas;
        if (assignment != null) {
            checkPartitionsPerRequest(assignment.size());
            replicas = validateAssignment(new TreeMap<>(assignment), 0, -1, live);
        } else {
            int partitions = numPartitions == USE_DEFAULT ? config.numPartitions : numPartitions;
            int factor = replicationFactor == USE_DEFAULT ? config.defaultReplicationFactor : replicationFactor;
            if (partitions < 1) {
                throw new InvalidPartitionsException("Number of partitions must be larger than 0.");
            }
            if (factor < 1) {
                throw new InvalidReplicationFactorException("Replication factor must be larger than 0.");
            }
            checkPartitionsPerRequest(partitions);
            replicas = assigner.assign(live, 0, partitions, factor, -1);
        }
        Uuid topicId = Uuid.randomUuid();
        TopicAssignment topic = new TopicAssignment(topicId, replicas);
        if (!validateOnly) {
            store.create(name, topic, overrides);
            log.info("Created topic {} (id {}) with assignment {} and overrides {}", name, topicId, replicas,
                    overrides);
        }
        return new CreatedTopic(name, topicId, topic.partitions(), overrides);
    }

    /**
     * The partitions a CreateTopics topic asks for, for {@link #checkPartitionsPerRequest}: its count
     * ({@link #USE_DEFAULT} for the broker's {@code num.partitions}), or with an explicit assignment that
     * assignment's size; 0 for a count that is refused anyway.
     */
    public long requestedPartitions(int numPartitions, int assignmentSize) {
        if (assignmentSize > 0) {
            return assignmentSize;
        }
        return numPartitions == USE_DEFAULT ? config.numPartitions : Math.max(0, numPartitions);
    }

    /**
     * @param partitions the partitions one request creates or adds, in all
     * @throws PolicyViolationException if they are more than {@link #MAX_PARTITIONS_PER_REQUEST}
     */
    public static void checkPartitionsPerRequest(long partitions) {
        if (partitions > MAX_PARTITIONS_PER_REQUEST) {
            throw new PolicyViolationException("Excessively large number of partitions per request: " + partitions
                    + " requested, at most " + MAX_PARTITIONS_PER_REQUEST + ".");
        }
    }

    /**
     * Completes once this broker's metadata shows at least {@code partitionCount} partitions of the topic, each with
     * the state the controller writes: after {@link #createTopic} or {@link #createPartitions}, the moment a
     * producer can find leaders. Bound the wait with {@link CompletableFuture#orTimeout}.
     */
    public CompletableFuture<Void> whenPartitionStatesWritten(String topic, int partitionCount) {
        return asVoid(metadata.when(snapshot -> snapshot.topic(topic)
                .filter(t -> t.partitionCount() >= partitionCount)
                .map(t -> t.partitions().values().stream().allMatch(PartitionMetadata::hasState))
                .orElse(false)));
    }

    /** The wait as a future of nothing; when the caller's timeout completes it, the metadata cache stops waiting. */
    private static CompletableFuture<Void> asVoid(CompletableFuture<MetadataSnapshot> wait) {
        CompletableFuture<Void> result = wait.thenApply(snapshot -> null);
        result.whenComplete((nothing, error) -> wait.cancel(false));
        return result;
    }

    /**
     * Asks the controller to delete a topic: its assignment, partition states and config overrides go, and every
     * broker deletes its logs when its metadata shows the topic gone.
     *
     * @return the id of the topic that will be deleted, for {@link #whenDeleted}
     * @throws TopicDeletionDisabledException   {@code delete.topic.enable=false}
     * @throws UnknownTopicOrPartitionException no such topic
     */
    public Uuid deleteTopic(String name) {
        if (!config.deleteTopicEnable) {
            throw new TopicDeletionDisabledException("Topic deletion is disabled (delete.topic.enable=false).");
        }
        TopicAssignment topic = store.readAssignment(name)
                .orElseThrow(() -> unknownTopic(name))
                .value();
        store.requestDeletion(name);
        log.info("Requested the deletion of topic {} (id {})", name, topic.topicId());
        return topic.topicId();
    }

    /** Completes once this broker's metadata no longer shows the topic with this id. */
    public CompletableFuture<Void> whenDeleted(Uuid topicId) {
        return asVoid(metadata.when(snapshot -> snapshot.topic(topicId).isEmpty()));
    }

    /**
     * Adds partitions to a topic, up to {@code newTotal}.
     *
     * @param newAssignment the replicas of each new partition in order, or null to assign them like a new topic's;
     *                      the replication factor is the topic's
     * @return the assignment of the new partitions
     * @throws UnknownTopicOrPartitionException  no such topic
     * @throws InvalidTopicException             the topic is being deleted
     * @throws InvalidPartitionsException        {@code newTotal} not above the current count
     * @throws InvalidReplicaAssignmentException a bad explicit assignment
     * @throws PolicyViolationException          more than {@link #MAX_PARTITIONS_PER_REQUEST} new partitions
     */
    public SortedMap<Integer, List<Integer>> createPartitions(String name, int newTotal,
                                                              List<List<Integer>> newAssignment,
                                                              boolean validateOnly) {
        return createPartitions(name, newTotal, newAssignment, validateOnly, MAX_PARTITIONS_PER_REQUEST);
    }

    /**
     * {@link #createPartitions(String, int, List, boolean)} adding at most {@code maxAdded} partitions: what is left
     * of a request's {@link #MAX_PARTITIONS_PER_REQUEST} after its earlier topics.
     */
    public SortedMap<Integer, List<Integer>> createPartitions(String name, int newTotal,
                                                              List<List<Integer>> newAssignment,
                                                              boolean validateOnly, int maxAdded) {
        for (int attempt = 0; ; attempt++) {
            TopicStore.Versioned<TopicAssignment> current = store.readAssignment(name)
                    .orElseThrow(() -> unknownTopic(name));
            if (store.isMarkedForDeletion(name)) {
                throw new InvalidTopicException("The topic is queued for deletion.");
            }
            TopicAssignment topic = current.value();
            int count = topic.partitions().size();
            if (newTotal < count) {
                throw new InvalidPartitionsException("Topic currently has " + count
                        + " partitions, which is higher than the requested " + newTotal + ".");
            }
            if (newTotal == count) {
                throw new InvalidPartitionsException("Topic already has " + count + " partitions.");
            }
            int added = newTotal - count;
            if (added > maxAdded) {
                checkPartitionsPerRequest((long) MAX_PARTITIONS_PER_REQUEST - maxAdded + added);
            }
            List<Integer> live = liveBrokers();
            SortedMap<Integer, List<Integer>> replicas;
            if (newAssignment != null) {
                if (newAssignment.size() != added) {
                    throw new InvalidReplicaAssignmentException("Increasing the number of partitions by " + added
                            + " but " + newAssignment.size() + " assignments provided.");
                }
                SortedMap<Integer, List<Integer>> explicit = new TreeMap<>();
                for (int i = 0; i < added; i++) {
                    explicit.put(count + i, newAssignment.get(i));
                }
                replicas = validateAssignment(explicit, count, topic.replicationFactor(), live);
            } else {
                // Continue the topic's round robin where partition 0's leader started it.
                List<Integer> first = topic.partitions().get(topic.partitions().firstKey());
                int startIndex = first.isEmpty() ? -1 : live.indexOf(first.get(0));
                replicas = assigner.assign(live, count, added, topic.replicationFactor(), startIndex);
            }
            if (validateOnly) {
                return replicas;
            }
            if (store.updateAssignment(name, topic.plus(replicas), current.zkVersion())) {
                log.info("Added partitions {} to topic {}", replicas, name);
                return replicas;
            }
            if (attempt >= MAX_CONFLICT_RETRIES) {
                throw new ClusterException("adding partitions to " + name + " kept conflicting with other writers");
            }
        }
    }

    /**
     * The topic's config overrides (the broker defaults apply to everything else).
     *
     * @throws UnknownTopicOrPartitionException no such topic
     */
    public Map<String, String> topicConfig(String name) {
        if (!store.exists(name)) {
            throw unknownTopic(name);
        }
        return store.readConfig(name).map(TopicStore.Versioned::value).orElse(Map.of());
    }

    /**
     * Changes the topic's overrides: {@code change} gets the current overrides (a mutable copy) and returns the new
     * ones; they are validated and written with a conditional write, and {@code change} is applied again to the
     * fresh overrides if another writer got in between. How IncrementalAlterConfigs' SET, DELETE, APPEND and
     * SUBTRACT are applied.
     *
     * @return the overrides as written (or, with validateOnly, as they would have been)
     * @throws UnknownTopicOrPartitionException no such topic
     * @throws InvalidConfigurationException    a bad override, the message naming the property
     */
    public Map<String, String> alterTopicConfig(String name, UnaryOperator<Map<String, String>> change,
                                                boolean validateOnly) {
        for (int attempt = 0; ; attempt++) {
            if (!store.exists(name)) {
                throw unknownTopic(name);
            }
            Optional<TopicStore.Versioned<Map<String, String>>> current = store.readConfig(name);
            Map<String, String> before = new HashMap<>(current.map(TopicStore.Versioned::value).orElse(Map.of()));
            Map<String, String> after = validateConfigs(name, change.apply(before));
            if (validateOnly) {
                return after;
            }
            if (store.writeConfig(name, after, current.map(TopicStore.Versioned::zkVersion).orElse(-1))) {
                log.info("Topic {} config overrides are now {}", name, after);
                return after;
            }
            if (attempt >= MAX_CONFLICT_RETRIES) {
                throw new ClusterException("altering the config of " + name + " kept conflicting with other writers");
            }
        }
    }

    /**
     * Completes once this broker's metadata shows the topic with exactly these config overrides, or no longer shows
     * the topic: after {@link #alterTopicConfig}, the moment a describe through this broker reads the change. Bound
     * the wait with {@link CompletableFuture#orTimeout}.
     */
    public CompletableFuture<Void> whenConfigApplied(String topic, Map<String, String> overrides) {
        return asVoid(metadata.when(snapshot -> snapshot.topic(topic)
                .map(t -> t.configOverrides().equals(overrides))
                .orElse(true)));
    }

    private static Map<String, String> validateConfigs(String topic, Map<String, String> configs) {
        Set<String> nulls = new HashSet<>();
        configs.forEach((key, value) -> {
            if (value == null) {
                nulls.add(key);
            }
        });
        if (!nulls.isEmpty()) {
            throw new InvalidConfigurationException("Null value not supported for topic configs: "
                    + String.join(",", new TreeSet<>(nulls)));
        }
        try {
            LogConfig.parse(configs);
        } catch (ConfigException e) {
            throw new InvalidConfigurationException("Invalid config for topic " + topic + ": " + e.getMessage());
        }
        return Collections.unmodifiableMap(new TreeMap<>(configs));
    }

    /**
     * Checks an explicit assignment of partitions {@code first ..}: consecutive partition numbers from
     * {@code first}, at least one replica each, no broker twice in a partition, one replication factor (the topic's,
     * when {@code replicationFactor} is not -1), only live brokers.
     */
    private static SortedMap<Integer, List<Integer>> validateAssignment(SortedMap<Integer, List<Integer>> assignment,
                                                                       int first, int replicationFactor,
                                                                       List<Integer> live) {
        if (assignment.isEmpty()) {
            throw new InvalidPartitionsException("Number of partitions must be larger than 0.");
        }
        int expectedPartition = first;
        int factor = replicationFactor;
        List<Integer> unknown = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> entry : assignment.entrySet()) {
            int partition = entry.getKey();
            List<Integer> replicas = entry.getValue();
            if (partition != expectedPartition++) {
                throw new InvalidReplicaAssignmentException("Partitions should be a consecutive 0-based integer "
                        + "sequence, but the assignment has partitions " + assignment.keySet() + ".");
            }
            if (replicas == null || replicas.isEmpty()) {
                throw new InvalidReplicaAssignmentException("Partition " + partition + " has no replicas.");
            }
            if (new HashSet<>(replicas).size() != replicas.size()) {
                throw new InvalidReplicaAssignmentException("Duplicate replica assignment found: partition "
                        + partition + " has replicas " + replicas + ".");
            }
            if (factor == -1) {
                factor = replicas.size();
            } else if (replicas.size() != factor) {
                throw new InvalidReplicaAssignmentException("Inconsistent replication factor between partitions: "
                        + "partition " + partition + " has " + replicas.size() + " replicas where " + factor
                        + " are expected.");
            }
            for (int broker : replicas) {
                if (!live.contains(broker) && !unknown.contains(broker)) {
                    unknown.add(broker);
                }
            }
        }
        if (!unknown.isEmpty()) {
            throw new InvalidReplicaAssignmentException("Unknown broker(s) in replica assignment: " + unknown
                    + "; live brokers are " + live + ".");
        }
        return assignment;
    }

    private List<Integer> liveBrokers() {
        return new ArrayList<>(metadata.snapshot().brokers().keySet());
    }

    private static UnknownTopicOrPartitionException unknownTopic(String name) {
        return new UnknownTopicOrPartitionException("The topic '" + name + "' does not exist.");
    }
}
