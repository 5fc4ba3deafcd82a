package io.tributary.broker.group;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of one group committed through TxnOffsetCommit whose transactions have not ended: per producer id, the
 * latest pending commit of each partition (KIP-98). A transaction's commit marker makes its producer's pending
 * offsets committed, each unless the group's committed offset of that partition was written later in the log (a
 * plain OffsetCommit after the TxnOffsetCommit); an abort marker drops them. A plain tombstone of a partition (offset
 * deletion, group deletion) drops the pending offsets of that partition too, so that the transaction cannot bring
 * back an offset deleted after it was written.
 *
 * <p>The same rules serve the live coordinator and {@link GroupLoader}'s replay of the log, so that both reach the
 * same committed offsets. No I/O. Not thread-safe: owned by a {@link Group} and used under its monitor, or by the
 * loader's thread before the group is published.
 */
final class PendingTxnOffsets {

    private final Map<Long, Map<TopicPartition, CommittedOffset>> byProducer = new HashMap<>();

    /** Records a transactional commit of {@code tp} by {@code producerId}; the later record wins. */
    void add(long producerId, TopicPartition tp, CommittedOffset offset) {
        byProducer.computeIfAbsent(producerId, id -> new HashMap<>())
                .merge(tp, offset, (held, added) -> added.isNewerThan(held) ? added : held);
    }

    /** Takes over every pending offset of {@code other} (a loaded partition's, into its installed group). */
    void addAll(PendingTxnOffsets other) {
        other.byProducer.forEach((producerId, offsets) -> offsets.forEach((tp, offset) -> add(producerId, tp, offset)));
    }

    boolean isEmpty() {
        return byProducer.isEmpty();
    }

    boolean hasProducer(long producerId) {
        return byProducer.containsKey(producerId);
    }

    /** Whether some open transaction has committed an offset of {@code tp}. */
    boolean contains(TopicPartition tp) {
        for (Map<TopicPartition, CommittedOffset> offsets : byProducer.values()) {
            if (offsets.containsKey(tp)) {
                return true;
            }
        }
        return false;
    }

    /** The partitions with a pending offset of any producer, as a copy. */
    Set<TopicPartition> partitions() {
        Set<TopicPartition> partitions = new HashSet<>();
        for (Map<TopicPartition, CommittedOffset> offsets : byProducer.values()) {
            partitions.addAll(offsets.keySet());
        }
        return partitions;
    }

    /** A plain tombstone of {@code tp} was written: no open transaction may commit an offset of it any more. */
    void remove(TopicPartition tp) {
        Iterator<Map<TopicPartition, CommittedOffset>> producers = byProducer.values().iterator();
        while (producers.hasNext()) {
            Map<TopicPartition, CommittedOffset> offsets = producers.next();
            offsets.remove(tp);
            if (offsets.isEmpty()) {
                producers.remove();
            }
        }
    }

    /**
     * The transaction of {@code producerId} ended: on commit its pending offsets go into {@code committed} (each
     * unless the committed one was written later), on abort they are dropped. Returns how many offsets were
     * committed.
     */
    int complete(long producerId, boolean commit, Map<TopicPartition, CommittedOffset> committed) {
        Map<TopicPartition, CommittedOffset> offsets = byProducer.remove(producerId);
        if (offsets == null || !commit) {
            return 0;
        }
        int applied = 0;
        for (Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet()) {
            if (entry.getValue().isNewerThan(committed.get(entry.getKey()))) {
                committed.put(entry.getKey(), entry.getValue());
                applied++;
            }
        }
        return applied;
    }
}
