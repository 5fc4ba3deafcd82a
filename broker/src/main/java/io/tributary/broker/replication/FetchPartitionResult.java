package io.tributary.broker.replication;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/** The answer for one partition of a fetch: records (a slice of a segment file) or an error, and the offsets. */
public record FetchPartitionResult(Errors error, String errorMessage, long highWatermark, long lastStableOffset,
                                   long logStartOffset, Records records) {

    static FetchPartitionResult error(Errors error, String message) {
        return new FetchPartitionResult(error, message, -1L, -1L, -1L, MemoryRecords.EMPTY);
    }
}
