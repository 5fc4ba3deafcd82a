package io.tributary.broker.storage;

import io.tributary.broker.storage.LogSegments.SegmentPredicate;

/**
 * The rules by which retention picks a log's oldest segments for deletion ({@link PartitionLog#deleteOldSegments},
 * DeleteRecords): each rule decides from a segment's size, its newest timestamp and the base offset of the segment
 * after it; the log applies it from the oldest segment on, stops at the first segment it spares and never offers the
 * active one ({@link LogSegments#deleteOldest}), and deletes what it picked.
 *
 * <p>Threads: a rule is made and used by the log's writer, under the log's lock, within one retention pass; the
 * {@link #pastRetentionBytes} rule counts down as it picks, so it serves one pass only.
 */
final class RetentionPolicy {

    private RetentionPolicy() {
    }

    /** Segments wholly below the log start offset: deleted whatever the cleanup policy. */
    static SegmentPredicate belowLogStart(long logStartOffset) {
        return (segment, nextBaseOffset) -> nextBaseOffset <= logStartOffset;
    }

    /**
     * {@code retention.ms}: segments whose newest record (or, without timestamps, whose file's last modification) is
     * more than {@code retentionMs} older than {@code nowMs}.
     */
    static SegmentPredicate pastRetentionMs(long nowMs, long retentionMs) {
        return (segment, nextBaseOffset) -> nowMs - segment.largestTimestamp() > retentionMs;
    }

    /**
     * {@code retention.bytes}: the oldest segments whose bytes, all of them, the log can lose and still hold at least
     * {@code retentionBytes}; a segment that would take it below is kept, and with it every later one.
     *
     * @param logBytes the log's size when the pass starts
     */
    static SegmentPredicate pastRetentionBytes(long logBytes, long retentionBytes) {
        long[] excess = {logBytes - retentionBytes};
        return (segment, nextBaseOffset) -> {
            if (excess[0] - segment.size() >= 0) {
                excess[0] -= segment.size();
                return true;
            }
            return false;
        };
    }
}
