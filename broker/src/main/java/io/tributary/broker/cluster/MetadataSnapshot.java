package io.tributary.broker.cluster;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The cluster as one broker saw it at one moment: live brokers, the controller, topics with their partitions.
 * Immutable; request handlers on any thread read one snapshot per request so that its answer is consistent.
 */
public final class MetadataSnapshot {

    public static final MetadataSnapshot EMPTY = new MetadataSnapshot(Map.of(), -1, Map.of());

    /** No controller is elected (or this broker has not seen it yet). */
    public static final int NO_CONTROLLER = -1;

    private final SortedMap<Integer, BrokerInfo> brokers;
    private final int controllerId;
    private final SortedMap<String, TopicMetadata> topics;
    private final Map<Uuid, TopicMetadata> topicsById;
    /** Dynamic broker configs by entity: {@code <default>} or a broker id. */
    private final Map<String, Map<String, String>> brokerConfigs;
    /** Live brokers in a controlled shutdown (their leaderships are being moved away). */
    private final Set<Integer> shuttingDown;
    /** Replicas of live brokers lost with a failed log directory, by broker (reported in the broker's current run). */
    private final Map<Integer, Set<TopicPartition>> offlineReplicas;

    MetadataSnapshot(Map<Integer, BrokerInfo> brokers, int controllerId, Map<String, TopicMetadata> topics) {
        this(brokers, controllerId, topics, Map.of(), Set.of());
    }

    MetadataSnapshot(Map<Integer, BrokerInfo> brokers, int controllerId, Map<String, TopicMetadata> topics,
                     Map<String, Map<String, String>> brokerConfigs, Set<Integer> shuttingDown) {
        this(brokers, controllerId, topics, brokerConfigs, shuttingDown, Map.of());
    }

    MetadataSnapshot(Map<Integer, BrokerInfo> brokers, int controllerId, Map<String, TopicMetadata> topics,
                     Map<String, Map<String, String>> brokerConfigs, Set<Integer> shuttingDown,
                     Map<Integer, Set<TopicPartition>> offlineReplicas) {
        this.brokerConfigs = Map.copyOf(brokerConfigs);
        this.shuttingDown = Set.copyOf(shuttingDown);
        Map<Integer, Set<TopicPartition>> offline = new HashMap<>();
        offlineReplicas.forEach((broker, partitions) -> offline.put(broker, Set.copyOf(partitions)));
        this.offlineReplicas = Collections.unmodifiableMap(offline);
        this.brokers = Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        this.controllerId = controllerId;
        this.topics = Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        Map<Uuid, TopicMetadata> byId = new HashMap<>();
        for (TopicMetadata topic : topics.values()) {
            if (!topic.topicId().equals(Uuid.ZERO_UUID)) {
                byId.put(topic.topicId(), topic);
            }
        }
        this.topicsById = Collections.unmodifiableMap(byId);
    }

    /**
     * The dynamic configuration that applies to a broker: the cluster-wide {@code <default>} entity with the broker's
     * own entity on top ({@code /config/brokers/...}).
     */
    public Map<String, String> dynamicBrokerConfig(int brokerId) {
        Map<String, String> merged = new HashMap<>(brokerConfigs.getOrDefault(ZkPaths.DEFAULT_BROKER_ENTITY, Map.of()));
        merged.putAll(brokerConfigs.getOrDefault(String.valueOf(brokerId), Map.of()));
        return Collections.unmodifiableMap(merged);
    }

    Map<String, Map<String, String>> brokerConfigs() {
        return brokerConfigs;
    }

    /** The dynamic configuration stored for one entity ({@code <default>} or a broker id), without merging. */
    public Map<String, String> brokerConfigEntity(String entity) {
        return brokerConfigs.getOrDefault(entity, Map.of());
    }

    /** The registered (live) brokers by id. */
    public SortedMap<Integer, BrokerInfo> brokers() {
        return brokers;
    }

    public Optional<BrokerInfo> broker(int brokerId) {
        return Optional.ofNullable(brokers.get(brokerId));
    }

    public boolean isLive(int brokerId) {
        return brokers.containsKey(brokerId);
    }

    /** The broker epoch of a live broker ({@link BrokerInfo#epoch()}), or {@link BrokerInfo#NO_EPOCH}. */
    public long brokerEpoch(int brokerId) {
        BrokerInfo broker = brokers.get(brokerId);
        return broker == null ? BrokerInfo.NO_EPOCH : broker.epoch();
    }

    /** Live brokers that announced a controlled shutdown in their current run. */
    public Set<Integer> shuttingDown() {
        return shuttingDown;
    }

    /**
     * The replicas each live broker reported lost with a failed log directory (in its current run): the broker is
     * treated as dead for those partitions.
     */
    public Map<Integer, Set<TopicPartition>> offlineReplicas() {
        return offlineReplicas;
    }

    /** Whether {@code brokerId} reported its replica of {@code tp} lost with a failed log directory. */
    public boolean isOfflineReplica(int brokerId, TopicPartition tp) {
        return offlineReplicas.getOrDefault(brokerId, Set.of()).contains(tp);
    }

    /** Whether a broker may lead or join an ISR: live and not shutting down. */
    public boolean isEligible(int brokerId) {
        return brokers.containsKey(brokerId) && !shuttingDown.contains(brokerId);
    }

    /** The controller's broker id, or {@link #NO_CONTROLLER}. */
    public int controllerId() {
        return controllerId;
    }

    public SortedMap<String, TopicMetadata> topics() {
        return topics;
    }

    public Optional<TopicMetadata> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    public Optional<TopicMetadata> topic(Uuid topicId) {
        return Optional.ofNullable(topicsById.get(topicId));
    }

    public Optional<PartitionMetadata> partition(TopicPartition tp) {
        TopicMetadata topic = topics.get(tp.topic());
        return topic == null ? Optional.empty() : Optional.ofNullable(topic.partitions().get(tp.partition()));
    }

    @Override
    public String toString() {
        return "MetadataSnapshot(brokers=" + brokers.keySet() + ", controller=" + controllerId + ", topics="
                + topics.keySet() + ")";
    }
}
