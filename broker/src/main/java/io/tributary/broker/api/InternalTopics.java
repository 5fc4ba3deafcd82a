package io.tributary.broker.api;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.share.ShareCoordinatorConfig;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.txn.TransactionConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's internal topics ({@code __consumer_offsets}, {@code __transaction_state},
 * {@code __share_group_state}): marked internal in
 * Metadata, hidden from default topic listings by clients, refused to producers and to topic deletion, and created
 * by the broker itself with their own settings the first time a coordinator is looked up (or the topic is asked for
 * by name, or a share-partition leader looks up its share coordinator).
 */
public final class InternalTopics {

    private static final Logger log = LoggerFactory.getLogger(InternalTopics.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** How one internal topic is created, and which settings say so. */
    private record Layout(String topic, int partitions, short replicationFactor, String replicationSetting,
                          Map<String, String> configs) {
    }

    /** When the last "cannot create" warning was logged, per topic: clients retry every few milliseconds. */
    private static final Map<String, AtomicLong> lastWarning = new ConcurrentHashMap<>();
    /** Whether a creation is under way on the admin thread, per topic. */
    private static final Map<String, AtomicBoolean> creating = new ConcurrentHashMap<>();

    private InternalTopics() {
    }

    static boolean isInternal(String topic) {
        return GroupConfig.OFFSETS_TOPIC.equals(topic) || TransactionConfig.TRANSACTION_STATE_TOPIC.equals(topic)
                || ShareCoordinatorConfig.STATE_TOPIC.equals(topic);
    }

    /**
     * Creates the internal topic {@code topic} with its configured layout.
     *
     * @return null when its creation was started (or is under way), else why it cannot be created yet
     */
    public static String create(ClusterView cluster, BrokerConfig config, String topic) {
        return switch (topic) {
            case TransactionConfig.TRANSACTION_STATE_TOPIC ->
                    createTransactionStateTopic(cluster, config.transactionConfig);
            case ShareCoordinatorConfig.STATE_TOPIC -> createShareStateTopic(cluster, config.shareCoordinatorConfig);
            default -> createOffsetsTopic(cluster, config.groupConfig);
        };
    }

    /**
     * Creates {@code __consumer_offsets} with {@code offsets.topic.num.partitions}, {@code
     * offsets.topic.replication.factor}, compaction and {@code offsets.topic.segment.bytes}.
     *
     * @return null when its creation was started (or is under way), else why it cannot be created yet
     */
    static String createOffsetsTopic(ClusterView cluster, GroupConfig config) {
        return create(cluster, new Layout(GroupConfig.OFFSETS_TOPIC, config.offsetsTopicNumPartitions(),
                config.offsetsTopicReplicationFactor(), "offsets.topic.replication.factor",
                Map.of(LogConfig.CLEANUP_POLICY, "compact",
                        LogConfig.SEGMENT_BYTES, Integer.toString(config.offsetsTopicSegmentBytes()))));
    }

    /**
     * Creates {@code __transaction_state} with {@code transaction.state.log.num.partitions}, {@code
     * transaction.state.log.replication.factor}, compaction, {@code transaction.state.log.segment.bytes} and
     * {@code transaction.state.log.min.isr} as its {@code min.insync.replicas}.
     *
     * @return null when its creation was started (or is under way), else why it cannot be created yet
     */
    static String createTransactionStateTopic(ClusterView cluster, TransactionConfig config) {
        return create(cluster, compacted(TransactionConfig.TRANSACTION_STATE_TOPIC, config.logNumPartitions(),
                config.logReplicationFactor(), "transaction.state.log.replication.factor", config.logSegmentBytes(),
                config.logMinIsr()));
    }

    /**
     * Creates {@code __share_group_state} with {@code share.coordinator.state.topic.num.partitions}, {@code
     * share.coordinator.state.topic.replication.factor}, {@code share.coordinator.state.topic.segment.bytes},
     * {@code share.coordinator.state.topic.min.isr} as its {@code min.insync.replicas}, and compaction: every record
     * is a share-partition's whole state, so the last one of each key is all a coordinator needs (Kafka's coordinator
     * writes deltas against snapshots, so its topic deletes by retention and prunes itself instead).
     *
     * @return null when its creation was started (or is under way), else why it cannot be created yet
     */
    static String createShareStateTopic(ClusterView cluster, ShareCoordinatorConfig config) {
        return create(cluster, compacted(ShareCoordinatorConfig.STATE_TOPIC, config.stateTopicNumPartitions(),
                config.stateTopicReplicationFactor(), "share.coordinator.state.topic.replication.factor",
                config.stateTopicSegmentBytes(), config.stateTopicMinIsr()));
    }

    /** A coordinator's compacted topic with its own segment size and {@code min.insync.replicas}. */
    private static Layout compacted(String topic, int partitions, short replicationFactor, String replicationSetting,
                                    int segmentBytes, int minIsr) {
        return new Layout(topic, partitions, replicationFactor, replicationSetting,
                Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, Integer.toString(segmentBytes),
                        LogConfig.MIN_INSYNC_REPLICAS, Integer.toString(minIsr)));
    }

    private static String create(ClusterView cluster, Layout layout) {
        int live = cluster.snapshot().brokers().size();
        if (live < layout.replicationFactor()) {
            AtomicLong warned = lastWarning.computeIfAbsent(layout.topic(),
                    t -> new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS));
            long now = System.nanoTime();
            long last = warned.get();
            if (now - last >= WARN_INTERVAL_NANOS && warned.compareAndSet(last, now)) {
                log.warn("Cannot create {} yet: {} live brokers, {} is {}. Its coordinators are unavailable until "
                        + "enough brokers are up (a single broker needs {}=1, as in config/server.properties).",
                        layout.topic(), live, layout.replicationSetting(), layout.replicationFactor(),
                        layout.replicationSetting());
            }
            return "Number of alive brokers '" + live + "' does not meet the required replication factor '"
                    + layout.replicationFactor() + "' for " + layout.topic() + " (configured via '"
                    + layout.replicationSetting() + "'). This error can be ignored if the cluster is starting up "
                    + "and not all brokers are up yet.";
        }
        // Off this thread (FindCoordinator and Metadata must not wait for ZooKeeper), one attempt at a time.
        AtomicBoolean underway = creating.computeIfAbsent(layout.topic(), t -> new AtomicBoolean());
        if (underway.compareAndSet(false, true)) {
            cluster.adminWork("creating " + layout.topic(), () -> cluster.topicAdmin().createTopic(
                            layout.topic(), layout.partitions(), layout.replicationFactor(), null, layout.configs(),
                            false))
                    .whenComplete((created, failure) -> {
                        underway.set(false);
                        Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                && failure.getCause() != null ? failure.getCause() : failure;
                        if (cause == null) {
                            log.info("Created {} with {} partitions and replication factor {}", layout.topic(),
                                    layout.partitions(), layout.replicationFactor());
                        } else if (!(cause instanceof TopicExistsException)) {
                            log.warn("Could not create {}: {}", layout.topic(), cause.getMessage());
                        }
                    });
        }
        return null;
    }
}
