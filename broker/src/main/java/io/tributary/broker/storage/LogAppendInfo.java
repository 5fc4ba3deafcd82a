package io.tributary.broker.storage;

import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The outcome of one append to a partition log: the offsets and timestamps that the produce response reports.
 *
 * @param firstOffset     offset of the first appended record (for a duplicate: of the original batch)
 * @param lastOffset      offset of the last appended record
 * @param logAppendTimeMs the broker time stamped on the records under {@code LogAppendTime}, else -1
 * @param logStartOffset  the log start offset after the append
 * @param recordCount     number of records appended (0 for a duplicate)
 * @param validBytes      bytes written to the log (0 for a duplicate)
 * @param duplicate       the batch had been appended before (idempotent retry) and was not written again
 */
public record LogAppendInfo(long firstOffset, long lastOffset, long logAppendTimeMs, long logStartOffset,
                            long recordCount, int validBytes, boolean duplicate) {

    static final long NO_APPEND_TIME = RecordBatch.NO_TIMESTAMP;
}
