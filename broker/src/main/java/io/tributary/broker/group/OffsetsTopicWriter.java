package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.group.OffsetsTopicFormat.GroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.MemberValue;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareGroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareGroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsValue;
import io.tributary.broker.replication.InternalTopicLog;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.AppendOrigin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends a group's records to its partition of {@code __consumer_offsets} with acks=all, and maps a failed append
 * to the error the client is given (as Kafka maps it). The records are those of {@link OffsetsTopicFormat}: a
 * group's metadata with its members' assignments, committed offsets, a share group's epoch, and tombstones of
 * these, in plain batches;
 * offsets of TxnOffsetCommit in a transactional batch of the committing producer.
 *
 * <p>Threads: called from request-handler threads and the coordinator's scheduler thread, with the group's monitor
 * held; the returned futures complete on the replica manager's threads, without it. Holds no state of its own.
 */
final class OffsetsTopicWriter {

    private static final Logger log = LoggerFactory.getLogger(OffsetsTopicWriter.class);

    private final GroupConfig config;
    private final ReplicaManager replicaManager;
    private final Time time;

    OffsetsTopicWriter(GroupConfig config, ReplicaManager replicaManager, Time time) {
        this.config = config;
        this.replicaManager = replicaManager;
        this.time = time;
    }

    /** Stores the group's current metadata with the given assignments (member id to assignment). */
    CompletableFuture<Errors> storeGroup(Group group, Map<String, byte[]> assignments) {
        List<MemberValue> members = new ArrayList<>();
        for (Member member : group.members()) {
            byte[] assignment = assignments.get(member.memberId());
            members.add(new MemberValue(member.memberId(), member.groupInstanceId(),
                    member.clientId() == null ? "" : member.clientId(), member.clientHost(),
                    member.rebalanceTimeoutMs(), member.sessionTimeoutMs(),
                    group.protocolName() == null ? new byte[0] : member.metadata(group.protocolName()),
                    assignment == null ? new byte[0] : assignment));
        }
        GroupValue value = new GroupValue(group.protocolType() == null ? "" : group.protocolType(),
                group.generationId(), group.protocolName(), group.leaderId(), group.stateTimestampMs(), members);
        long now = time.milliseconds();
        SimpleRecord record = new SimpleRecord(now, OffsetsTopicFormat.serializeKey(new GroupKey(group.groupId())),
                OffsetsTopicFormat.serializeGroupValue(value));
        return append(group, List.of(record)).thenApply(OffsetsTopicWriter::groupAppendError);
    }

    /**
     * Stores a share group's epoch (the share group metadata record), and its partitions with share state (the share
     * group state partition metadata record) when they changed since last stored; completes with the client's
     * error. Called with the group's monitor held.
     */
    CompletableFuture<Errors> storeShareGroup(ShareGroup group, int groupEpoch) {
        long now = time.milliseconds();
        List<SimpleRecord> records = new ArrayList<>(2);
        records.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(new ShareGroupKey(group.groupId())),
                OffsetsTopicFormat.serializeShareGroupValue(new ShareGroupValue(groupEpoch))));
        return storeShareRecords(group, records, now);
    }

    /**
     * Stores a share group's partitions with share state if they changed since last stored (NONE at once if not);
     * completes with the client's error. Called with the group's monitor held.
     */
    CompletableFuture<Errors> storeShareStateTopics(ShareGroup group) {
        if (!group.stateTopicsUnstored()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        return storeShareRecords(group, new ArrayList<>(1), time.milliseconds());
    }

    private CompletableFuture<Errors> storeShareRecords(ShareGroup group, List<SimpleRecord> records, long now) {
        boolean withStateTopics = group.stateTopicsUnstored();
        if (withStateTopics) {
            records.add(new SimpleRecord(now,
                    OffsetsTopicFormat.serializeKey(new ShareStatePartitionsKey(group.groupId())),
                    OffsetsTopicFormat.serializeShareStatePartitionsValue(
                            new ShareStatePartitionsValue(group.stateTopicsStoring()))));
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
        return appendBatch(group.groupId(), group.offsetsPartition(), records.size(), batch, AppendOrigin.CLIENT)
                .thenApply(appended -> {
                    if (appended.error() != Errors.NONE && withStateTopics) {
                        synchronized (group) {
                            group.stateTopicsNotStored();
                        }
                    }
                    return groupAppendError(appended.error());
                });
    }

    /**
     * Appends the tombstones of a share group's metadata and of its partitions with share state; completes with the
     * append's error.
     */
    CompletableFuture<Errors> deleteShareGroup(ShareGroup group) {
        long now = time.milliseconds();
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(now, OffsetsTopicFormat.serializeKey(
                        new ShareStatePartitionsKey(group.groupId())), null),
                new SimpleRecord(now, OffsetsTopicFormat.serializeKey(new ShareGroupKey(group.groupId())), null));
        return appendBatch(group.groupId(), group.offsetsPartition(), 2, batch, AppendOrigin.CLIENT)
                .thenApply(Appended::error);
    }

    /** The tombstone of one committed offset of a group. */
    static SimpleRecord offsetTombstone(long nowMs, String groupId, TopicPartition tp) {
        return new SimpleRecord(nowMs, OffsetsTopicFormat.serializeKey(
                new OffsetKey(groupId, tp.topic(), tp.partition())), null);
    }

    /** The tombstone of a group's metadata. */
    static SimpleRecord groupTombstone(long nowMs, String groupId) {
        return new SimpleRecord(nowMs, OffsetsTopicFormat.serializeKey(new GroupKey(groupId)), null);
    }

    /** An append's error (NONE on success), and the offset of its first record when it succeeded. */
    record Appended(Errors error, long baseOffset) {
    }

    /** Appends to the group's partition with acks=all; completes with the append's error (NONE on success). */
    CompletableFuture<Errors> append(Group group, List<SimpleRecord> records) {
        return appendPositioned(group, records).thenApply(Appended::error);
    }

    /** As {@link #append}, also giving where the records landed, by which commits of one partition are ordered. */
    CompletableFuture<Appended> appendPositioned(Group group, List<SimpleRecord> records) {
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
        return appendBatch(group.groupId(), group.offsetsPartition(), records.size(), batch, AppendOrigin.CLIENT);
    }

    /**
     * Appends the records as one transactional batch of producer {@code producerId} at {@code producerEpoch}
     * (TxnOffsetCommit): they take effect when a marker of that producer's transaction follows them. The batch is
     * the coordinator's own, so its sequence (0) is not checked, its epoch is (a fenced producer fails).
     */
    CompletableFuture<Appended> appendTransactional(Group group, long producerId, short producerEpoch,
                                                    List<SimpleRecord> records) {
        MemoryRecords batch = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, producerEpoch, 0,
                records.toArray(new SimpleRecord[0]));
        return appendBatch(group.groupId(), group.offsetsPartition(), records.size(), batch,
                AppendOrigin.COORDINATOR);
    }

    private CompletableFuture<Appended> appendBatch(String groupId, int offsetsPartition, int recordCount,
                                                    MemoryRecords batch, AppendOrigin origin) {
        TopicPartition tp = new TopicPartition(GroupConfig.OFFSETS_TOPIC, offsetsPartition);
        return replicaManager.appendRecords(Map.of(tp, batch), (short) -1, config.offsetCommitTimeoutMs(), origin)
                .thenApply(results -> {
                    ProduceResult result = results.get(tp);
                    if (result.error() != Errors.NONE) {
                        log.warn("Appending {} records of group {} to {} failed: {} {}", recordCount,
                                groupId, tp, result.error(), result.errorMessage());
                    }
                    return new Appended(result.error(), result.baseOffset());
                })
                .exceptionally(failure -> {
                    log.error("Appending records of group {} to {} failed", groupId, tp, failure);
                    return new Appended(Errors.UNKNOWN_SERVER_ERROR, -1L);
                });
    }

    /** What a failed append of group metadata means to the client (as Kafka maps it). */
    static Errors groupAppendError(Errors error) {
        return InternalTopicLog.coordinatorError(error);
    }

    /** What a failed append of offsets means to the committing client. */
    static Errors offsetAppendError(Errors error) {
        return switch (error) {
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.INVALID_COMMIT_OFFSET_SIZE;
            default -> groupAppendError(error);
        };
    }

    /**
     * What a failed transactional append of offsets means to the producer: a fenced or invalid producer is told so
     * (the producer treats it as fatal), the rest as for plain offsets.
     */
    static Errors txnOffsetAppendError(Errors error) {
        return switch (error) {
            case INVALID_PRODUCER_EPOCH, PRODUCER_FENCED, INVALID_PRODUCER_ID_MAPPING, INVALID_TXN_STATE,
                 TRANSACTION_ABORTABLE -> error;
            default -> offsetAppendError(error);
        };
    }
}
