package io.tributary.jms.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tributary.jms.StartPosition;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

/**
 * Replay: moves a consumer's partitions to a {@link StartPosition} (the typed API's, the connection factory's or an
 * activation spec's {@code startAt}). {@code earliest} and {@code latest} move every partition to the start or the
 * end of its log; a time moves each partition to its first record at or after that time, or to its end when there
 * is none; {@code partition:offset} pairs move the partitions they name; {@code committed} moves nothing. The caller
 * decides what a move means for a group (the JMS consumer and the adapter commit the new position).
 *
 * <p>Stateless; called on the thread that owns the consumer.
 */
public final class ReplaySeeker {

    private ReplaySeeker() {
    }

    /**
     * Seeks {@code partitions} (assigned to {@code consumer}) to {@code start}.
     *
     * @param timeout how long looking up offsets by time may take
     * @return the partitions it moved
     * @throws org.apache.kafka.common.errors.TimeoutException if the offsets of a time are not found in time
     */
    public static List<TopicPartition> seek(Consumer<?, ?> consumer, StartPosition start,
                                            Collection<TopicPartition> partitions, Duration timeout) {
        List<TopicPartition> moved = new ArrayList<>();
        if (partitions.isEmpty()) {
            return moved; // an empty collection means "every assigned partition" to seekToBeginning and seekToEnd
        }
        switch (start.kind()) {
            case EARLIEST -> {
                consumer.seekToBeginning(partitions);
                moved.addAll(partitions);
            }
            case LATEST -> {
                consumer.seekToEnd(partitions);
                moved.addAll(partitions);
            }
            case TIME -> {
                Map<TopicPartition, Long> query = new HashMap<>();
                for (TopicPartition tp : partitions) {
                    query.put(tp, start.time().toEpochMilli());
                }
                Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, timeout);
                List<TopicPartition> past = new ArrayList<>();
                for (TopicPartition tp : partitions) {
                    OffsetAndTimestamp hit = found.get(tp);
                    if (hit == null) {
                        past.add(tp); // no record at or after the time: from the end of the log
                    } else {
                        consumer.seek(tp, hit.offset());
                    }
                    moved.add(tp);
                }
                if (!past.isEmpty()) {
                    consumer.seekToEnd(past);
                }
            }
            case OFFSETS -> {
                for (TopicPartition tp : partitions) {
                    Long offset = start.offsetsByPartition().get(tp.partition());
                    if (offset != null) {
                        consumer.seek(tp, offset);
                        moved.add(tp);
                    }
                }
            }
            case COMMITTED -> {
                // the group's committed offsets, or where a new group starts: nothing to move
            }
        }
        return moved;
    }
}
