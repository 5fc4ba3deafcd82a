package io.tributary.broker.api;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.storage.LogConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's internal topics ({@code __consumer_offsets}): marked internal in Metadata, hidden from default topic
 * listings by clients, refused to producers and to topic deletion, and created by the broker itself with their own
 * settings the first time a coordinator is looked up (or the topic is asked for by name).
 */
final class InternalTopics {

    private static final Logger log = LoggerFactory.getLogger(InternalTopics.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** When the last "cannot create" warning was logged: clients retry every few milliseconds. */
    private static final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);
    /** Whether a creation of the offsets topic is under way on the admin thread. */
    private static final java.util.concurrent.atomic.AtomicBoolean creating =
            new java.util.concurrent.atomic.AtomicBoolean();

    private InternalTopics() {
    }

    static boolean isInternal(String topic) {
        return GroupConfig.OFFSETS_TOPIC.equals(topic);
    }

    /**
     * Creates {@code __consumer_offsets} with {@code offsets.topic.num.partitions}, {@code
     * offsets.topic.replication.factor}, compaction and {@code offsets.topic.segment.bytes}.
     *
     * @return null when its creation was started (or is under way), else why it cannot be created yet
     */
    static String createOffsetsTopic(ClusterView cluster, GroupConfig config) {
        int live = cluster.snapshot().brokers().size();
        if (live < config.offsetsTopicReplicationFactor()) {
            long now = System.nanoTime();
            long last = lastWarning.get();
            if (now - last >= WARN_INTERVAL_NANOS && lastWarning.compareAndSet(last, now)) {
                log.warn("Cannot create {} yet: {} live brokers, offsets.topic.replication.factor is {}. Consumer "
                        + "groups are unavailable until enough brokers are up (a single broker needs "
                        + "offsets.topic.replication.factor=1, as in config/server.properties).",
                        GroupConfig.OFFSETS_TOPIC, live, config.offsetsTopicReplicationFactor());
            }
            return "Number of alive brokers '" + live + "' does not meet the required replication factor '"
                    + config.offsetsTopicReplicationFactor() + "' for the offsets topic (configured via '"
                    + "offsets.topic.replication.factor'). This error can be ignored if the cluster is starting up "
                    + "and not all brokers are up yet.";
        }
        // Off this thread (FindCoordinator and Metadata must not wait for ZooKeeper), one attempt at a time.
        if (creating.compareAndSet(false, true)) {
            cluster.adminWork("creating " + GroupConfig.OFFSETS_TOPIC, () -> cluster.topicAdmin().createTopic(
                            GroupConfig.OFFSETS_TOPIC, config.offsetsTopicNumPartitions(),
                            config.offsetsTopicReplicationFactor(), null,
                            Map.of(LogConfig.CLEANUP_POLICY, "compact",
                                    LogConfig.SEGMENT_BYTES, Integer.toString(config.offsetsTopicSegmentBytes())),
                            false))
                    .whenComplete((created, failure) -> {
                        creating.set(false);
                        Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                && failure.getCause() != null ? failure.getCause() : failure;
                        if (cause == null) {
                            log.info("Created {} with {} partitions and replication factor {}",
                                    GroupConfig.OFFSETS_TOPIC, config.offsetsTopicNumPartitions(),
                                    config.offsetsTopicReplicationFactor());
                        } else if (!(cause instanceof TopicExistsException)) {
                            log.warn("Could not create {}: {}", GroupConfig.OFFSETS_TOPIC, cause.getMessage());
                        }
                    });
        }
        return null;
    }
}
