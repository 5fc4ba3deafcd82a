package io.tributary.broker.share;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.tributary.broker.share.ShareStateFormat.Snapshot;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where the share coordinator keeps its state: the partitions of {@code __share_group_state}, one record per write of
 * a share-partition's state ({@link ShareStateFormat}). {@link ReplicatedShareStateLog} is the broker's; tests give
 * an in-memory one.
 */
interface ShareStateLog {

    /**
     * Appends the state of {@code key} as snapshot {@code snapshotEpoch} (a tombstone when {@code state} is null) to
     * partition {@code partition} with acks=all.
     *
     * @return completes with NONE once replicated to the in-sync replicas, or with the append's error
     */
    CompletableFuture<Errors> append(int partition, ShareKey key, int snapshotEpoch, ShareState state);

    /**
     * Reads the whole partition: the last snapshot of each key, without those whose last record is a tombstone.
     * Stops early (with what it has) once {@code current} turns false.
     *
     * @throws RuntimeException if the partition cannot be read
     */
    Map<ShareKey, Snapshot> load(int partition, BooleanSupplier current);
}
