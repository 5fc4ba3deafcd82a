package io.tributary.broker.replication;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.tributary.broker.storage.AppendOrigin;
import io.tributary.broker.storage.LogReadInfo;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's view of the partitions of its internal topic ({@code __transaction_state},
 * {@code __share_group_state}) in the replica manager: appends one keyed record as the partition's leader with
 * acks=all ({@link AppendOrigin#COORDINATOR}), and reads a partition back whole when this broker becomes its
 * coordinator. What the keys and values mean is the coordinator's.
 *
 * <p>Threads: appends from any thread (their futures complete on the replica manager's threads); reads on the
 * calling coordinator's thread. Holds no state of its own.
 */
public final class InternalTopicLog {

    private static final Logger log = LoggerFactory.getLogger(InternalTopicLog.class);

    /** Kafka's {@code request.timeout.ms} default, which its coordinators give these appends. */
    private static final long APPEND_TIMEOUT_MS = 30_000;
    /** Kafka's coordinators' {@code *.load.buffer.size} default: bytes read at a time when loading. */
    private static final int LOAD_BUFFER_BYTES = 5 * 1024 * 1024;

    /** Applies one record of a partition being read; throws {@link CorruptRecordException} if it cannot. */
    @FunctionalInterface
    public interface RecordReplay {
        void replay(Record record);
    }

    private final ReplicaManager replicaManager;
    private final Time time;

    public InternalTopicLog(ReplicaManager replicaManager, Time time) {
        this.replicaManager = replicaManager;
        this.time = time;
    }

    /**
     * Appends the record {@code key}/{@code value} ({@code value} null: a tombstone) to {@code tp} as its leader. A
     * failure is logged at WARN, naming {@code what} was appended.
     *
     * @return completes with NONE once the record is replicated to the in-sync replicas, or with the append's error
     *         (never exceptionally)
     */
    public CompletableFuture<Errors> append(TopicPartition tp, byte[] key, byte[] value, Object what) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(time.milliseconds(), key, value));
        return replicaManager.appendRecords(Map.of(tp, records), (short) -1, APPEND_TIMEOUT_MS,
                        AppendOrigin.COORDINATOR)
                .thenApply(results -> {
                    ProduceResult result = results.get(tp);
                    if (result.error() != Errors.NONE) {
                        log.warn("Appending {} to {} failed: {} {}", what, tp, result.error(), result.errorMessage());
                    }
                    return result.error();
                })
                .exceptionally(failure -> {
                    log.error("Appending {} to {} failed", what, tp, failure);
                    return Errors.UNKNOWN_SERVER_ERROR;
                });
    }

    /**
     * What a failed append to a coordinator's partition means to the coordinator's client, as Kafka's coordinators
     * map it: the partition moved (NOT_COORDINATOR), or it cannot take writes now (COORDINATOR_NOT_AVAILABLE).
     */
    public static Errors coordinatorError(Errors appendError) {
        return switch (appendError) {
            case NONE -> Errors.NONE;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                 REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    /**
     * Reads {@code tp} from its log start to its log end and gives each record with a key of each data batch (not
     * control batches) to {@code replay}, in offset order. A record {@code replay} cannot read
     * ({@link CorruptRecordException}) is skipped with an ERROR line, so one bad record does not make a coordinator
     * unavailable. Stops early once {@code current} turns false.
     *
     * @throws NotLeaderOrFollowerException if this broker does not host {@code tp}
     * @throws RuntimeException             if the log cannot be read
     */
    public void replay(TopicPartition tp, BooleanSupplier current, RecordReplay replay) {
        readBatches(tp, current, batch -> {
            if (batch.isControlBatch()) {
                return;
            }
            for (Record record : batch) {
                if (!record.hasKey()) {
                    continue;
                }
                try {
                    replay.replay(record);
                } catch (CorruptRecordException e) {
                    log.error("Skipping an unreadable record at offset {} of {}: {}", record.offset(), tp,
                            e.getMessage());
                }
            }
        });
    }

    private void readBatches(TopicPartition tp, BooleanSupplier current, Consumer<RecordBatch> each) {
        Optional<Partition> hosted = replicaManager.partition(tp);
        if (hosted.isEmpty()) {
            throw new NotLeaderOrFollowerException("This broker does not host " + tp);
        }
        PartitionLog partitionLog = hosted.get().log();
        long offset = partitionLog.logStartOffset();
        // The whole log, as the group loader reads its own: records past the high watermark are this leader's and
        // commit once replicated (or this broker stops coordinating them).
        long end = partitionLog.logEndOffset();
        while (offset < end && current.getAsBoolean()) {
            LogReadInfo info = partitionLog.read(offset, LOAD_BUFFER_BYTES, end, true);
            long next = offset;
            for (RecordBatch batch : info.records().batches()) {
                next = batch.nextOffset();
                each.accept(batch);
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
    }
}
