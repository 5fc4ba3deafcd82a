package io.tributary.broker.replication;

import org.apache.kafka.common.protocol.Errors;

/** The answer for one partition of a produce request. */
public record ProduceResult(Errors error, String errorMessage, long baseOffset, long logAppendTimeMs,
                            long logStartOffset) {

    static ProduceResult error(Errors error, String message) {
        return new ProduceResult(error, message, -1L, -1L, -1L);
    }
}
