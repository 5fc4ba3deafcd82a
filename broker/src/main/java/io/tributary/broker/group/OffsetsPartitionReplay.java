package io.tributary.broker.group;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.tributary.broker.group.OffsetsTopicFormat.GroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.Key;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetValue;
import io.tributary.broker.group.OffsetsTopicFormat.ShareGroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsKey;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one {@code __consumer_offsets} partition rebuilt from its batches in log order: the last group value
 * per group, the committed offsets per group, the offsets of transactions still open at the end of the log, and the
 * share groups with their last epoch.
 * <ul>
 *   <li>A plain batch's offset record commits (the record's log offset orders it against transactional commits); its
 *       tombstone deletes the committed offset and any pending one of that partition.</li>
 *   <li>A transactional batch's offset records are pending for the batch's producer id.</li>
 *   <li>A control batch (a transaction marker) of a producer makes that producer's pending offsets committed
 *       (COMMIT, by {@link PendingTxnOffsets#complete}'s rules) or drops them (ABORT).</li>
 * </ul>
 * So a coordinator that loads the partition ends with exactly the offsets the previous one had committed, and with
 * the same transactions open. No I/O: {@link GroupLoader} reads the log and feeds the batches.
 *
 * <p>Not thread-safe: used by one load on the coordinator's scheduler thread.
 */
final class OffsetsPartitionReplay {

    private static final Logger log = LoggerFactory.getLogger(OffsetsPartitionReplay.class);

    private final TopicPartition partition;
    private final Map<String, GroupValue> groupValues = new HashMap<>();
    /** Share group id to its last stored epoch (tombstoned ones removed). */
    private final Map<String, Integer> shareGroupEpochs = new HashMap<>();
    /** Share group id to its last stored partitions with share state (tombstoned ones removed). */
    private final Map<String, Map<Uuid, ShareGroup.StateTopic>> shareStateTopics = new HashMap<>();
    private final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();
    private final Map<String, PendingTxnOffsets> pending = new HashMap<>();
    /** Producer id to the groups it has pending offsets in (possibly dropped since by a tombstone). */
    private final Map<Long, Set<String>> openTransactions = new HashMap<>();
    private long records;

    OffsetsPartitionReplay(TopicPartition partition) {
        this.partition = partition;
    }

    void replay(RecordBatch batch) {
        if (batch.isControlBatch()) {
            for (Record record : batch) {
                records++;
                replayMarker(batch.producerId(), record);
            }
            return;
        }
        for (Record record : batch) {
            records++;
            try {
                replayRecord(batch, record);
            } catch (CorruptRecordException e) {
                log.error("Skipping an unreadable record at offset {} of {}: {}", record.offset(), partition,
                        e.getMessage());
            }
        }
    }

    private void replayMarker(long producerId, Record record) {
        if (!record.hasKey()) {
            return;
        }
        ControlRecordType type = ControlRecordType.parse(record.key());
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            return;
        }
        Set<String> groups = openTransactions.remove(producerId);
        if (groups == null) {
            return;
        }
        for (String groupId : groups) {
            PendingTxnOffsets groupPending = pending.get(groupId);
            if (groupPending == null) {
                continue;
            }
            Map<TopicPartition, CommittedOffset> committed = offsets.computeIfAbsent(groupId, g -> new HashMap<>());
            groupPending.complete(producerId, type == ControlRecordType.COMMIT, committed);
            if (committed.isEmpty()) {
                offsets.remove(groupId);
            }
            if (groupPending.isEmpty()) {
                pending.remove(groupId);
            }
        }
    }

    private void replayRecord(RecordBatch batch, Record record) {
        if (!record.hasKey()) {
            return;
        }
        Optional<Key> key = OffsetsTopicFormat.deserializeKey(record.key());
        if (key.isEmpty()) {
            return;
        }
        if (key.get() instanceof OffsetKey offsetKey) {
            String groupId = offsetKey.groupId();
            TopicPartition tp = new TopicPartition(offsetKey.topic(), offsetKey.partition());
            if (!record.hasValue()) {
                if (batch.isTransactional()) {
                    return; // never written: a deletion is a plain tombstone
                }
                removeOffset(groupId, tp);
                return;
            }
            OffsetValue value = OffsetsTopicFormat.deserializeOffsetValue(record.value());
            CommittedOffset offset = new CommittedOffset(value.offset(), value.leaderEpoch(), value.metadata(),
                    value.commitTimestamp(), record.offset());
            if (batch.isTransactional()) {
                pending.computeIfAbsent(groupId, g -> new PendingTxnOffsets()).add(batch.producerId(), tp, offset);
                openTransactions.computeIfAbsent(batch.producerId(), p -> new HashSet<>()).add(groupId);
            } else {
                offsets.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, offset);
            }
        } else if (key.get() instanceof ShareGroupKey shareKey) {
            if (!record.hasValue()) {
                shareGroupEpochs.remove(shareKey.groupId());
            } else {
                shareGroupEpochs.put(shareKey.groupId(),
                        OffsetsTopicFormat.deserializeShareGroupValue(record.value()).epoch());
            }
        } else if (key.get() instanceof ShareStatePartitionsKey statesKey) {
            if (!record.hasValue()) {
                shareStateTopics.remove(statesKey.groupId());
            } else {
                shareStateTopics.put(statesKey.groupId(),
                        OffsetsTopicFormat.deserializeShareStatePartitionsValue(record.value()).topics());
            }
        } else if (key.get() instanceof GroupKey groupKey) {
            if (!record.hasValue()) {
                groupValues.remove(groupKey.groupId());
            } else {
                groupValues.put(groupKey.groupId(), OffsetsTopicFormat.deserializeGroupValue(record.value()));
            }
        }
    }

    private void removeOffset(String groupId, TopicPartition tp) {
        Map<TopicPartition, CommittedOffset> groupOffsets = offsets.get(groupId);
        if (groupOffsets != null) {
            groupOffsets.remove(tp);
            if (groupOffsets.isEmpty()) {
                offsets.remove(groupId);
            }
        }
        PendingTxnOffsets groupPending = pending.get(groupId);
        if (groupPending != null) {
            groupPending.remove(tp);
            if (groupPending.isEmpty()) {
                pending.remove(groupId);
            }
        }
    }

    /** The groups with metadata, committed offsets or pending offsets. */
    Set<String> groupIds() {
        Set<String> ids = new HashSet<>(groupValues.keySet());
        ids.addAll(offsets.keySet());
        ids.addAll(pending.keySet());
        return ids;
    }

    /** The group's last metadata, or null (none, or tombstoned). */
    GroupValue groupValue(String groupId) {
        return groupValues.get(groupId);
    }

    /** The group's committed offsets (empty if none). */
    Map<TopicPartition, CommittedOffset> offsets(String groupId) {
        return offsets.getOrDefault(groupId, Map.of());
    }

    /** The group's offsets of transactions open at the end of the replayed log, or null. */
    PendingTxnOffsets pending(String groupId) {
        return pending.get(groupId);
    }

    /** A share group's partitions with share state as last stored; empty if none were. */
    Map<Uuid, ShareGroup.StateTopic> shareStateTopics(String groupId) {
        return shareStateTopics.getOrDefault(groupId, Map.of());
    }

    /** The share groups stored and not deleted: id to group epoch. */
    Map<String, Integer> shareGroupEpochs() {
        return shareGroupEpochs;
    }

    int groupValueCount() {
        return groupValues.size();
    }

    int offsetGroupCount() {
        return offsets.size();
    }

    long recordCount() {
        return records;
    }
}
