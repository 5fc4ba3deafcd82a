package io.tributary.broker.replication;

import org.apache.kafka.common.protocol.Errors;

/** The answer of ListOffsets for one partition; offset -1 when no record matches the timestamp. */
public record OffsetResult(Errors error, String errorMessage, long timestamp, long offset, int leaderEpoch) {

    static OffsetResult error(Errors error, String message) {
        return new OffsetResult(error, message, -1L, -1L, -1);
    }
}
