package io.tributary.broker.txn;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
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
 * The {@link TransactionLog} of the broker: the partitions of {@code __transaction_state} in the replica manager,
 * appended to as their leader with acks=all ({@link AppendOrigin#COORDINATOR}) and read back whole when this broker
 * becomes a partition's coordinator. Records are those of {@link TransactionLogFormat}.
 *
 * <p>Threads: appends from any thread (their futures complete on the replica manager's threads); loads on the
 * coordinator's thread. Holds no state of its own.
 */
final class ReplicatedTransactionLog implements TransactionLog {

    private static final Logger log = LoggerFactory.getLogger(ReplicatedTransactionLog.class);

    /** Kafka's {@code request.timeout.ms} default, which its coordinator gives these appends. */
    private static final long APPEND_TIMEOUT_MS = 30_000;
    /** Kafka's {@code transaction.state.log.load.buffer.size} default: bytes read at a time when loading. */
    private static final int LOAD_BUFFER_BYTES = 5 * 1024 * 1024;

    private final ReplicaManager replicaManager;
    private final Time time;

    ReplicatedTransactionLog(ReplicaManager replicaManager, Time time) {
        this.replicaManager = replicaManager;
        this.time = time;
    }

    @Override
    public CompletableFuture<Errors> append(int partition, String transactionalId, TransactionData data) {
        TopicPartition tp = new TopicPartition(TransactionConfig.TRANSACTION_STATE_TOPIC, partition);
        SimpleRecord record = new SimpleRecord(time.milliseconds(), TransactionLogFormat.serializeKey(transactionalId),
                data == null ? null : TransactionLogFormat.serializeValue(data));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record);
        return replicaManager.appendRecords(Map.of(tp, records), (short) -1, APPEND_TIMEOUT_MS,
                        AppendOrigin.COORDINATOR)
                .thenApply(results -> {
                    ProduceResult result = results.get(tp);
                    if (result.error() != Errors.NONE) {
                        log.warn("Appending the state of transactional id {} to {} failed: {} {}", transactionalId,
                                tp, result.error(), result.errorMessage());
                    }
                    return result.error();
                });
    }

    @Override
    public Map<String, TransactionData> load(int partition, BooleanSupplier current) {
        TopicPartition tp = new TopicPartition(TransactionConfig.TRANSACTION_STATE_TOPIC, partition);
        Optional<Partition> hosted = replicaManager.partition(tp);
        if (hosted.isEmpty()) {
            throw new NotLeaderOrFollowerException("This broker does not host " + tp);
        }
        PartitionLog partitionLog = hosted.get().log();
        Map<String, TransactionData> transactions = new HashMap<>();
        long offset = partitionLog.logStartOffset();
        // The whole log, as the group loader reads its own: records past the high watermark are this leader's and
        // commit once replicated (or this broker stops coordinating them).
        long end = partitionLog.logEndOffset();
        while (offset < end && current.getAsBoolean()) {
            LogReadInfo info = partitionLog.read(offset, LOAD_BUFFER_BYTES, end, true);
            long next = offset;
            for (RecordBatch batch : info.records().batches()) {
                next = batch.nextOffset();
                if (batch.isControlBatch()) {
                    continue;
                }
                for (Record record : batch) {
                    replay(tp, record, transactions);
                }
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return transactions;
    }

    private static void replay(TopicPartition tp, Record record, Map<String, TransactionData> transactions) {
        if (!record.hasKey()) {
            return;
        }
        try {
            String transactionalId = TransactionLogFormat.deserializeKey(record.key());
            if (!record.hasValue()) {
                transactions.remove(transactionalId);
            } else {
                transactions.put(transactionalId, TransactionLogFormat.deserializeValue(record.value()));
            }
        } catch (CorruptRecordException e) {
            log.error("Skipping an unreadable record at offset {} of {}: {}", record.offset(), tp, e.getMessage());
        }
    }
}
