package io.tributary.broker.replication;

import java.util.List;

import io.tributary.broker.storage.AbortedTxn;
import io.tributary.broker.storage.LeaderEpochCache;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * The answer for one partition of a fetch: records (a slice of a segment file) or an error, and the offsets; for a
 * follower whose log diverges from the leader's, the epoch and end offset it must truncate to instead of records.
 *
 * @param abortedTransactions for a read_committed fetch that returned records, the aborted transactions overlapping
 *                            them (possibly empty); null otherwise, which the response encodes as a null array
 */
public record FetchPartitionResult(Errors error, String errorMessage, long highWatermark, long lastStableOffset,
                                   long logStartOffset, Records records, LeaderEpochCache.EpochEndOffset divergingEpoch,
                                   List<AbortedTxn> abortedTransactions) {

    public FetchPartitionResult(Errors error, String errorMessage, long highWatermark, long lastStableOffset,
                                long logStartOffset, Records records, LeaderEpochCache.EpochEndOffset divergingEpoch) {
        this(error, errorMessage, highWatermark, lastStableOffset, logStartOffset, records, divergingEpoch, null);
    }

    static FetchPartitionResult error(Errors error, String message) {
        return new FetchPartitionResult(error, message, -1L, -1L, -1L, MemoryRecords.EMPTY, null);
    }

    static FetchPartitionResult diverging(long highWatermark, long logStartOffset,
                                          LeaderEpochCache.EpochEndOffset divergingEpoch) {
        return new FetchPartitionResult(Errors.NONE, null, highWatermark, highWatermark, logStartOffset,
                MemoryRecords.EMPTY, divergingEpoch);
    }
}
