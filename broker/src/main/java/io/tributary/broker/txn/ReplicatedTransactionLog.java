package io.tributary.broker.txn;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.tributary.broker.replication.InternalTopicLog;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.AppendOrigin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;

/**
 * The {@link TransactionLog} of the broker: the partitions of {@code __transaction_state} in the replica manager,
 * appended to as their leader with acks=all ({@link AppendOrigin#COORDINATOR}) and read back whole when this broker
 * becomes a partition's coordinator ({@link InternalTopicLog}). Records are those of {@link TransactionLogFormat}.
 *
 * <p>Threads: appends from any thread (their futures complete on the replica manager's threads); loads on the
 * coordinator's thread. Holds no state of its own.
 */
final class ReplicatedTransactionLog implements TransactionLog {

    private final InternalTopicLog topicLog;

    ReplicatedTransactionLog(ReplicaManager replicaManager, Time time) {
        this.topicLog = new InternalTopicLog(replicaManager, time);
    }

    @Override
    public CompletableFuture<Errors> append(int partition, String transactionalId, TransactionData data) {
        TopicPartition tp = new TopicPartition(TransactionConfig.TRANSACTION_STATE_TOPIC, partition);
        return topicLog.append(tp, TransactionLogFormat.serializeKey(transactionalId),
                data == null ? null : TransactionLogFormat.serializeValue(data),
                "the state of transactional id " + transactionalId);
    }

    @Override
    public Map<String, TransactionData> load(int partition, BooleanSupplier current) {
        TopicPartition tp = new TopicPartition(TransactionConfig.TRANSACTION_STATE_TOPIC, partition);
        Map<String, TransactionData> transactions = new HashMap<>();
        topicLog.replay(tp, current, record -> {
            String transactionalId = TransactionLogFormat.deserializeKey(record.key());
            if (!record.hasValue()) {
                transactions.remove(transactionalId);
            } else {
                transactions.put(transactionalId, TransactionLogFormat.deserializeValue(record.value()));
            }
        });
        return transactions;
    }
}
