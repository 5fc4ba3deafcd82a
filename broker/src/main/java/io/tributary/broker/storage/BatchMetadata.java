package io.tributary.broker.storage;

import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the producer state remembers about one appended batch of an idempotent producer: enough to recognise a retry
 * of that batch by its sequence range and to answer it with the offsets the original was written at.
 *
 * <p>Immutable; safe to share between threads. Serialised by {@link ProducerSnapshotFile} as 32 bytes.
 *
 * @param firstSequence sequence number of the batch's first record
 * @param lastSequence  sequence number of the batch's last record (wraps from {@link Integer#MAX_VALUE} to 0)
 * @param firstOffset   log offset of the batch's first record
 * @param lastOffset    log offset of the batch's last record
 * @param maxTimestamp  the batch's largest record timestamp, as written to the log
 */
record BatchMetadata(int firstSequence, int lastSequence, long firstOffset, long lastOffset, long maxTimestamp) {

    /** The metadata of a batch whose offsets are final, i.e. one that is in the log. */
    static BatchMetadata of(RecordBatch batch) {
        return new BatchMetadata(batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset(),
                batch.maxTimestamp());
    }

    boolean hasSequenceRange(int first, int last) {
        return firstSequence == first && lastSequence == last;
    }
}
