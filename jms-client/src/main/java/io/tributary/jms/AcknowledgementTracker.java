package io.tributary.jms;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one consumer has delivered and what of it is acknowledged, per partition: the offset after the last
 * acknowledged record, the offset after the last delivered (or passed over) record, and how often each
 * unacknowledged offset has been delivered ({@code JMSXDeliveryCount}). Acknowledging commits the delivered positions;
 * recovery rewinds the delivered positions to the acknowledged ones, so the messages between come again.
 *
 * <p>Decides only: the consumer seeks and commits. Positions are Kafka offsets; a committed position carries the
 * subscription's offset metadata.
 *
 * <p>Not thread-safe: the consumer's Kafka lock guards every call, as it guards the Kafka consumer whose positions
 * these are.
 */
final class AcknowledgementTracker {

    /** Committed with every position ({@code Subscription.offsetMetadata()}), may be null. */
    private final String offsetMetadata;
    /** Per partition: the offset after the last acknowledged record. */
    private final Map<TopicPartition, Long> acknowledged = new HashMap<>();
    /** Per partition: the offset after the last delivered (or skipped) record. */
    private final Map<TopicPartition, Long> delivered = new HashMap<>();
    /** Per partition: how often each unacknowledged offset has been delivered. */
    private final Map<TopicPartition, TreeMap<Long, Integer>> deliveryCounts = new HashMap<>();

    AcknowledgementTracker(String offsetMetadata) {
        this.offsetMetadata = offsetMetadata;
    }

    /** An assigned partition starts at {@code position}, with nothing delivered yet. */
    void startAt(TopicPartition tp, long position) {
        acknowledged.put(tp, position);
        delivered.put(tp, position);
    }

    /** The record at {@code offset} was consumed: delivered, or passed over (which counts as delivered). */
    void consumed(TopicPartition tp, long offset) {
        acknowledged.putIfAbsent(tp, offset);
        delivered.put(tp, offset + 1);
    }

    /** The consumed record at {@code offset} is handed over; returns its delivery count, 1 the first time. */
    int countDelivery(TopicPartition tp, long offset) {
        return deliveryCounts.computeIfAbsent(tp, p -> new TreeMap<>()).merge(offset, 1, Integer::sum);
    }

    /** Per partition whose delivered position is past its acknowledged one: the delivered position. */
    Map<TopicPartition, OffsetAndMetadata> unacknowledgedPositions() {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : delivered.entrySet()) {
            Long acked = acknowledged.get(entry.getKey());
            if (acked == null || entry.getValue() > acked) {
                commit.put(entry.getKey(), new OffsetAndMetadata(entry.getValue(), offsetMetadata));
            }
        }
        return commit;
    }

    /** The positions of {@code commit} are acknowledged: their delivery counts are forgotten. */
    void markAcknowledged(Map<TopicPartition, OffsetAndMetadata> commit) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : commit.entrySet()) {
            acknowledged.put(entry.getKey(), entry.getValue().offset());
            TreeMap<Long, Integer> counts = deliveryCounts.get(entry.getKey());
            if (counts != null) {
                counts.headMap(entry.getValue().offset()).clear();
            }
        }
    }

    /**
     * Recovery: every partition delivered past its acknowledged position goes back to it. Returns those partitions
     * and the acknowledged positions, where the consumer seeks; their delivery counts stay, for the redelivery.
     */
    Map<TopicPartition, Long> rewind() {
        Map<TopicPartition, Long> rewound = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : delivered.entrySet()) {
            Long acked = acknowledged.get(entry.getKey());
            if (acked != null && entry.getValue() > acked) {
                rewound.put(entry.getKey(), acked);
                entry.setValue(acked);
            }
        }
        return rewound;
    }

    /** The partitions moved to another member of the group: their unacknowledged messages go to the new owner. */
    void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            acknowledged.remove(tp);
            delivered.remove(tp);
            deliveryCounts.remove(tp);
        }
    }
}
