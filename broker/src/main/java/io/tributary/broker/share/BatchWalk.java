package io.tributary.broker.share;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Set;

import io.tributary.broker.share.SharePartition.BatchSpan;
import io.tributary.broker.storage.AbortedTxn;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * The batches of one read of a share-partition's log, as {@link BatchSpan}s, walked only as far as the acquisition
 * iterates ({@link SharePartition#acquire} stops once it has {@code maxRecords}); with aborted transactions
 * (read_committed) the batches of aborted transactions are marked not deliverable, as a read_committed consumer would
 * skip them. For each batch walked it also keeps the byte position after it, where the records sent are cut.
 *
 * <p>Why lazily: the read is bounded by the fetch's MaxBytes (a Kafka client's {@code fetch.max.bytes}, 50 MiB), not
 * by its MaxRecords, so with a backlog it holds far more batches than one fetch acquires. A JMS producer's
 * synchronous sends make one batch per 1 KiB message: walking every batch of a 20,000-message backlog to acquire 100
 * of them cost 10–16 ms per fetch at the start of the drain (falling to 0.1 ms near its end), and held one share-mode
 * DUPS_OK receiver to 8,000–11,600 msg/s.
 *
 * <p>Threads: one, the fetch's; not safe for concurrent use. The walk runs under the share-partition's lock (inside
 * {@link SharePartition#acquire}), reading one batch header per batch: about 101 for a fetch of 100 single-record
 * batches.
 */
final class BatchWalk implements Iterable<BatchSpan> {

    private final Iterator<? extends RecordBatch> batches;
    /** Aborted transactions not yet reached, by first offset. */
    private final PriorityQueue<AbortedTxn> pending = new PriorityQueue<>((a, b) -> Long.compare(a.firstOffset(),
            b.firstOffset()));
    /** Producers whose aborted transaction the walk is in, until its abort marker. */
    private final Set<Long> abortedProducers = new HashSet<>();
    private final List<BatchSpan> spans = new ArrayList<>();
    private final List<Integer> ends = new ArrayList<>();
    private int position;

    /** @param aborted the read's aborted transactions (read_committed), or null to deliver every data batch */
    BatchWalk(Records records, List<AbortedTxn> aborted) {
        this.batches = records.batches().iterator();
        if (aborted != null) {
            pending.addAll(aborted);
        }
    }

    /** Iterates from the first batch; batches already walked are not read again. */
    @Override
    public Iterator<BatchSpan> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < spans.size() || walkOne();
            }

            @Override
            public BatchSpan next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return spans.get(next++);
            }
        };
    }

    /** How many batches were read so far. */
    int walked() {
        return spans.size();
    }

    /** The {@code index}-th batch, which must have been walked. */
    BatchSpan span(int index) {
        return spans.get(index);
    }

    /** The byte position after the {@code index}-th batch, which must have been walked. */
    int end(int index) {
        return ends.get(index);
    }

    private boolean walkOne() {
        if (!batches.hasNext()) {
            return false;
        }
        RecordBatch batch = batches.next();
        while (!pending.isEmpty() && pending.peek().firstOffset() <= batch.lastOffset()) {
            abortedProducers.add(pending.poll().producerId());
        }
        boolean deliverable;
        if (batch.isControlBatch()) {
            deliverable = false;
            if (isAbortMarker(batch)) {
                abortedProducers.remove(batch.producerId());
            }
        } else {
            deliverable = !(batch.isTransactional() && abortedProducers.contains(batch.producerId()));
        }
        position += batch.sizeInBytes();
        spans.add(new BatchSpan(batch.baseOffset(), batch.lastOffset(), deliverable));
        ends.add(position);
        return true;
    }

    private static boolean isAbortMarker(RecordBatch batch) {
        var iterator = batch.iterator();
        if (!iterator.hasNext()) {
            return false;
        }
        Record marker = iterator.next();
        ByteBuffer key = marker.key();
        return key != null && ControlRecordType.parse(key) == ControlRecordType.ABORT;
    }
}
