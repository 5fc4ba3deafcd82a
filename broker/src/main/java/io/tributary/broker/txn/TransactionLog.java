package io.tributary.broker.txn;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.protocol.Errors;

/**
 * Where the coordinator keeps its state: the partitions of {@code __transaction_state}, one record per change of a
 * transactional id ({@link TransactionLogFormat}). {@link ReplicatedTransactionLog} is the broker's; tests give
 * an in-memory one.
 */
interface TransactionLog {

    /**
     * Appends the new value of a transactional id (a tombstone when {@code data} is null) to partition
     * {@code partition} with acks=all.
     *
     * @return completes with NONE once replicated to the in-sync replicas, or with the append's error
     */
    CompletableFuture<Errors> append(int partition, String transactionalId, TransactionData data);

    /**
     * Reads the whole partition: the last value of each transactional id, without those whose last record is a
     * tombstone. Stops early (with what it has) once {@code current} turns false.
     *
     * @throws RuntimeException if the partition cannot be read
     */
    Map<String, TransactionData> load(int partition, BooleanSupplier current);
}
