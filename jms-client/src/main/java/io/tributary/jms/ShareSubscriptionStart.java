package io.tributary.jms;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a new share-group subscription (a shared topic subscription in {@code subscriptionMode=share}) start at the
 * end of its topic's log when it is created, as a group-mode subscription does ({@link SubscriptionStart}), before
 * its first consumer is handed to the application:
 * <ol>
 *   <li>The topic's end offsets are read: the subscription holds what is sent from there on.</li>
 *   <li>A starter member of the share group, a {@link KafkaShareConsumer} of its own, fetches until the group's
 *       coordinator has assigned every partition of the topic, then for {@link #SETTLE_MS} more. A share-partition
 *       starts where the group's {@code share.auto.offset.reset} ({@code latest}) says when a member first fetches
 *       it, not when the group is configured, so without this a message sent between {@code createSharedConsumer}
 *       and the first receive would be missed.</li>
 *   <li>What the starter acquires below the end offsets is accepted (consumed): the share-partitions of a deleted
 *       share group (unsubscribed, or a non-durable subscription whose last consumer closed) whose state the broker
 *       kept would otherwise hand the old subscription's messages to the new one. What it acquires from the end
 *       offsets on (sent while the subscription was being created) it releases, and it comes again with a delivery
 *       count of 2.</li>
 * </ol>
 * A starter rather than the consumer's own share consumer: the Kafka share consumer goes on fetching in the
 * background once it has polled, so a consumer that polled at creation would hold the next messages locked while
 * the application does not receive, and another consumer waiting in {@code receive} would not get them (measured:
 * nothing within 20 s).
 *
 * <p>Threads: used once, by the thread creating the consumer; waits up to {@link #START_TIMEOUT_MS}.
 */
final class ShareSubscriptionStart {

    private static final Logger log = LoggerFactory.getLogger(ShareSubscriptionStart.class);
    private static final long START_TIMEOUT_MS = 30_000;
    private static final long POLL_SLICE_MS = 100;
    /**
     * How long the starter fetches once its partitions are assigned: the client sends its first fetch within a poll
     * of getting the assignment, and the broker answers within {@code fetch.max.wait.ms} (100 ms for share
     * consumers, {@code KafkaClients}); five times that leaves room on a loaded machine.
     */
    static final long SETTLE_MS = 500;

    private final TributaryConnection connection;
    private final Subscription subscription;

    ShareSubscriptionStart(TributaryConnection connection, Subscription subscription) {
        this.connection = connection;
        this.subscription = subscription;
    }

    /**
     * The topic's partitions, looked up as the group-mode consumer does, which creates the topic where the cluster
     * creates topics on first use ({@code auto.create.topics.enable}): a share group's member does not create its
     * topic, and the subscription's definition is kept against its first partition.
     *
     * @throws InvalidDestinationException if the topic neither exists nor was created
     */
    static List<TopicPartition> partitions(TributaryConnection connection, String topic) throws JMSException {
        List<PartitionInfo> infos;
        try {
            infos = connection.producer().partitionsFor(topic);
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Looking up topic " + topic, e);
        }
        if (infos == null || infos.isEmpty()) {
            throw new InvalidDestinationException("Topic '" + topic + "' does not exist and was not created "
                    + "(auto.create.topics.enable is off on the cluster)");
        }
        return infos.stream().map(info -> new TopicPartition(info.topic(), info.partition())).toList();
    }

    /** Runs the start; the starter has left the group when it returns. */
    void start() throws JMSException {
        String doing = "Creating " + subscription.describe();
        List<TopicPartition> partitions = partitions(connection, subscription.topic());
        KafkaShareConsumer<byte[], byte[]> starter;
        try {
            starter = connection.clients().newShareConsumer(subscription.groupId(), MessageSelector.all());
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka(doing, e);
        }
        try {
            Map<TopicPartition, Long> end = endOffsets(connection.admin(), partitions);
            starter.subscribe(List.of(subscription.topic()));
            SubscriptionAdmin admin = new SubscriptionAdmin(connection.admin(), Duration.ofSeconds(10));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
            while (!admin.shareGroupAssignment(subscription.groupId()).containsAll(partitions)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new JMSException(doing + ": the share group's coordinator assigned the topic's partitions"
                            + " to no member within " + START_TIMEOUT_MS + " ms");
                }
                settle(starter, end, POLL_SLICE_MS);
            }
            // Until a fetch finds nothing from before the subscription (normally the first).
            while (settle(starter, end, SETTLE_MS) > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new JMSException(doing + ": messages from before the subscription kept coming for "
                            + START_TIMEOUT_MS + " ms");
                }
            }
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka(doing, e);
        } finally {
            try {
                starter.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.warn("Closing the starter member of {} failed: {}", subscription.describe(), e.toString());
            }
        }
    }

    /**
     * One fetch of the starter: accepts what is older than the subscription, releases the rest; returns how many
     * older records it accepted. The acknowledgements go with the next fetch or the close.
     */
    private static int settle(KafkaShareConsumer<byte[], byte[]> starter, Map<TopicPartition, Long> end,
                              long waitMs) {
        int older = 0;
        for (ConsumerRecord<byte[], byte[]> record : starter.poll(Duration.ofMillis(waitMs))) {
            Long from = end.get(new TopicPartition(record.topic(), record.partition()));
            if (from != null && record.offset() < from) {
                starter.acknowledge(record, AcknowledgeType.ACCEPT);
                older++;
            } else {
                starter.acknowledge(record, AcknowledgeType.RELEASE);
            }
        }
        return older;
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, List<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartition tp : partitions) {
            latest.put(tp, OffsetSpec.latest());
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        try {
            for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> entry
                    : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet()) {
                end.put(entry.getKey(), entry.getValue().offset());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("Reading the end offsets of " + partitions, e);
        }
        return end;
    }
}
