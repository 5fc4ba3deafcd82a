package io.tributary.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.tributary.broker.share.SharePartition.BatchSpan;
import io.tributary.broker.storage.AbortedTxn;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class BatchWalkTest {

    private static final TopicIdPartition TP = new TopicIdPartition(Uuid.randomUuid(), 0, "t");

    /** {@code count} batches of one record each from offset 0, as synchronous sends of a JMS producer write them. */
    private static MemoryRecords singleRecordBatches(int count) {
        ByteBuffer buffer = ByteBuffer.allocate(count * 200);
        for (int i = 0; i < count; i++) {
            buffer.put(MemoryRecords.withRecords(i, Compression.NONE, new SimpleRecord(new byte[100])).buffer());
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    @Test
    void anAcquisitionReadsOnlyOneBatchPastTheLastItUses() {
        SharePartition sp = new SharePartition("g", TP, new ShareGroupSettings(ShareAutoOffsetReset.EARLIEST,
                1_000, IsolationLevel.READ_UNCOMMITTED, 3, 2_000), 0L, List.of());
        BatchWalk walk = new BatchWalk(singleRecordBatches(1_000), null);

        SharePartition.Acquisition acquisition = sp.acquire("a", walk, 100, 0);

        assertEquals(100, acquisition.batchesUsed());
        assertEquals(101, walk.walked(), "a backlog of 1,000 batches is not walked to acquire 100");
        assertEquals(99, walk.span(99).lastOffset());
    }

    @Test
    void iteratingAgainRereadsNothingAndGoesOnWhereTheWalkStopped() {
        BatchWalk walk = new BatchWalk(singleRecordBatches(5), null);
        var first = walk.iterator();
        first.next();
        first.next();
        List<Long> offsets = new ArrayList<>();
        for (BatchSpan span : walk) {
            offsets.add(span.baseOffset());
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), offsets);
        assertEquals(5, walk.walked());
        assertEquals(walk.end(0) * 5, walk.end(4), "equal batches end at equal steps");
    }

    @Test
    void batchesOfAnAbortedTransactionAndItsMarkerAreNotDeliverable() {
        long producerId = 7;
        short epoch = 0;
        ByteBuffer buffer = ByteBuffer.allocate(1_000);
        buffer.put(MemoryRecords.withTransactionalRecords(0L, Compression.NONE, producerId, epoch, 0, 0,
                new SimpleRecord(new byte[10]), new SimpleRecord(new byte[10])).buffer());
        buffer.put(MemoryRecords.withEndTransactionMarker(2L, 0L, 0, producerId, epoch,
                new EndTransactionMarker(ControlRecordType.ABORT, 0)).buffer());
        buffer.put(MemoryRecords.withRecords(3L, Compression.NONE, new SimpleRecord(new byte[10])).buffer());
        buffer.flip();
        BatchWalk walk = new BatchWalk(MemoryRecords.readableRecords(buffer),
                List.of(new AbortedTxn(producerId, 0, 2, 3)));

        List<BatchSpan> spans = new ArrayList<>();
        walk.forEach(spans::add);

        assertEquals(List.of(new BatchSpan(0, 1, false), new BatchSpan(2, 2, false), new BatchSpan(3, 3, true)),
                spans);
    }
}
