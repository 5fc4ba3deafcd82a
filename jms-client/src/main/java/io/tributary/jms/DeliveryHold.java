package io.tributary.jms;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions of one consumer whose next record has a {@code JMSDeliveryTime} in the future: that record and the
 * records fetched behind it, in order, until the delivery time. A held partition keeps its order by waiting whole; the
 * consumer pauses it meanwhile, so the Kafka consumer fetches nothing more of it, and resumes it when the hold is
 * released ({@link #releaseDue}, {@link #releaseAll}).
 *
 * <p>Decides only: the consumer pauses, resumes and seeks. Times are epoch milliseconds of the connection's clock.
 *
 * <p>Not thread-safe: the consumer's Kafka lock guards every call.
 */
final class DeliveryHold {

    /** Per held partition: its records, the one not deliverable yet first. */
    private final Map<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> held = new HashMap<>();
    /** When each held partition's first record becomes deliverable (epoch ms). */
    private final Map<TopicPartition, Long> heldUntil = new HashMap<>();

    boolean isHeld(TopicPartition tp) {
        return held.containsKey(tp);
    }

    /**
     * After a poll with every partition paused: the partitions of {@code assignment} to resume, those neither paused
     * before it ({@code pausedBefore}) nor held.
     */
    List<TopicPartition> toResume(Collection<TopicPartition> assignment, Set<TopicPartition> pausedBefore) {
        List<TopicPartition> resume = new ArrayList<>();
        for (TopicPartition tp : assignment) {
            if (!pausedBefore.contains(tp) && !held.containsKey(tp)) {
                resume.add(tp);
            }
        }
        return resume;
    }

    /** Holds {@code record}'s partition until {@code untilMillis}; the consumer pauses the partition. */
    void hold(TopicPartition tp, ConsumerRecord<byte[], byte[]> record, long untilMillis) {
        ArrayDeque<ConsumerRecord<byte[], byte[]>> queue = new ArrayDeque<>();
        queue.add(record);
        held.put(tp, queue);
        heldUntil.put(tp, untilMillis);
    }

    /** Whether {@code record} had to wait behind a held record of its partition (it now does). */
    boolean holdBehind(ConsumerRecord<byte[], byte[]> record) {
        if (held.isEmpty()) {
            return false;
        }
        ArrayDeque<ConsumerRecord<byte[], byte[]>> behind =
                held.get(new TopicPartition(record.topic(), record.partition()));
        if (behind == null) {
            return false;
        }
        behind.add(record);
        return true;
    }

    /** A poll waits no longer than {@code pollMs}, nor than until the first held record becomes deliverable. */
    long pollWaitMs(long pollMs, long nowMillis) {
        long wait = pollMs;
        for (long until : heldUntil.values()) {
            wait = Math.min(wait, Math.max(0, until - nowMillis));
        }
        return wait;
    }

    /**
     * Puts the partitions whose held record is due back at the front of {@code buffer}, in order, and returns them
     * for the consumer to resume.
     */
    List<TopicPartition> releaseDue(long nowMillis, ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer) {
        List<TopicPartition> due = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> entry : heldUntil.entrySet()) {
            if (entry.getValue() <= nowMillis) {
                due.add(entry.getKey());
            }
        }
        for (TopicPartition tp : due) {
            heldUntil.remove(tp);
            ArrayDeque<ConsumerRecord<byte[], byte[]>> records = held.remove(tp);
            for (Iterator<ConsumerRecord<byte[], byte[]>> it = records.descendingIterator(); it.hasNext(); ) {
                buffer.addFirst(it.next());
            }
        }
        return due;
    }

    /**
     * Releases every hold without delivering (recovery): returns each held partition with the offset of its first
     * held record, where the consumer seeks before it resumes the partition.
     */
    Map<TopicPartition, Long> releaseAll() {
        Map<TopicPartition, Long> firstOffsets = new HashMap<>();
        for (Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> entry : held.entrySet()) {
            firstOffsets.put(entry.getKey(), entry.getValue().peekFirst().offset());
        }
        held.clear();
        heldUntil.clear();
        return firstOffsets;
    }

    /** The partitions moved to another member of the group. */
    void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            held.remove(tp);
            heldUntil.remove(tp);
        }
    }
}
