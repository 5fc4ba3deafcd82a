package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;

import io.tributary.jms.kafka.ReplaySeeker;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Takes a new consumer's Kafka consumer to where its subscription starts. A subscription without a group (a
 * non-durable topic subscriber) is assigned every partition of its topic at the end of the log, or where its
 * {@link StartPosition} replays from. A group-backed one subscribes; when it is a topic subscription (which starts
 * "now", {@link Subscription#startsAtCreation()}) or replays, it joins the group and commits the position of every
 * partition that has no committed offset yet (and of every partition the replay moved), so that it receives exactly
 * the messages sent after it was created, even before its first receive. Each step waits up to 30 s.
 *
 * <p>Threads: used once, by the thread constructing the consumer, under the consumer's Kafka lock.
 */
final class SubscriptionStart {

    private static final long START_TIMEOUT_MS = 30_000;
    private static final long POLL_SLICE_MS = 100;
    /** How long the admin client may take to tell whether the group has offsets. */
    private static final Duration OFFSETS_TIMEOUT = Duration.ofMillis(POLL_SLICE_MS * 50);

    private final KafkaConsumer<byte[], byte[]> kafka;
    private final Subscription subscription;
    private final StartPosition startPosition;
    private final Destination destination;
    /** Whose admin client answers whether the group has committed offsets. */
    private final TributaryConnection connection;

    SubscriptionStart(KafkaConsumer<byte[], byte[]> kafka, Subscription subscription, StartPosition startPosition,
                      Destination destination, TributaryConnection connection) {
        this.kafka = kafka;
        this.subscription = subscription;
        this.startPosition = startPosition;
        this.destination = destination;
        this.connection = connection;
    }

    /**
     * Subscribes (with {@code rebalance}) or assigns, and for subscriptions that start "now" fixes the position
     * before returning. An assigned partition's start goes to {@code tracker}; records the joining polls fetched go
     * to {@code buffer}.
     *
     * @throws InvalidDestinationException if the topic does not exist
     */
    void start(ConsumerRebalanceListener rebalance, AcknowledgementTracker tracker,
               ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer) throws JMSException {
        String topic = subscription.topic();
        List<PartitionInfo> partitions;
        try {
            partitions = kafka.partitionsFor(topic, Duration.ofMillis(START_TIMEOUT_MS));
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Looking up " + destination, e);
        }
        if (partitions == null || partitions.isEmpty()) {
            throw new InvalidDestinationException("Topic '" + topic + "' does not exist and was not created "
                    + "(auto.create.topics.enable is off on the cluster)");
        }
        if (subscription.groupId() == null) {
            List<TopicPartition> all = new ArrayList<>();
            for (PartitionInfo info : partitions) {
                all.add(new TopicPartition(topic, info.partition()));
            }
            kafka.assign(all);
            kafka.seekToEnd(all);
            seekToStartPosition(all);
            for (TopicPartition tp : all) {
                // position() resolves the end offset now: later sends are received
                tracker.startAt(tp, kafka.position(tp));
            }
            return;
        }
        kafka.subscribe(List.of(topic), rebalance);
        if (subscription.startsAtCreation() || startPosition.kind() != StartPosition.Kind.COMMITTED) {
            fixStartingPositions(buffer);
        }
    }

    /** Seeks {@code partitions} to the start position (a replay); returns the partitions it moved. */
    private List<TopicPartition> seekToStartPosition(Collection<TopicPartition> partitions) {
        return ReplaySeeker.seek(kafka, startPosition, partitions, Duration.ofMillis(START_TIMEOUT_MS));
    }

    /**
     * Joins the group and commits the current position of every partition that has no committed offset yet, so a
     * new subscription receives exactly the messages sent after it was created, even before its first receive.
     */
    private void fixStartingPositions(ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer) throws JMSException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        try {
            while (kafka.assignment().isEmpty() && System.nanoTime() < deadline) {
                kafka.poll(Duration.ofMillis(POLL_SLICE_MS)).forEach(buffer::add);
                // Joining a subscription that already has a position: nothing to fix unless it is a replay.
                if (!kafka.assignment().isEmpty()
                        || (startPosition.kind() == StartPosition.Kind.COMMITTED && groupHasOffsets())) {
                    break;
                }
            }
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.committed(kafka.assignment());
            Map<TopicPartition, OffsetAndMetadata> fix = new HashMap<>();
            // A replay moves the subscription: records fetched before the seek are dropped.
            List<TopicPartition> moved = seekToStartPosition(kafka.assignment());
            buffer.removeIf(record -> moved.contains(new TopicPartition(record.topic(), record.partition())));
            for (TopicPartition tp : kafka.assignment()) {
                if (committed.get(tp) == null || moved.contains(tp)) {
                    fix.put(tp, new OffsetAndMetadata(kafka.position(tp), subscription.offsetMetadata()));
                }
            }
            if (!fix.isEmpty()) {
                kafka.commitSync(fix);
            }
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Creating subscription " + subscription.groupId(), e);
        }
    }

    /**
     * Whether the subscription's group has committed offsets, asked through the connection's admin client: the
     * consumer's own coordinator connection may be waiting on its JoinGroup, which the broker holds until every
     * member rejoined.
     */
    private boolean groupHasOffsets() {
        try {
            return !new SubscriptionAdmin(connection.admin(), OFFSETS_TIMEOUT)
                    .committedOffsets(subscription.groupId()).isEmpty();
        } catch (JMSException | RuntimeException e) {
            return false;
        }
    }
}
