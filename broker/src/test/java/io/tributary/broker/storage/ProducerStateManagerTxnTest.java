package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transactional half of {@link ProducerStateManager}: transactions, the first unstable offset, fencing. */
class ProducerStateManagerTxnTest {

    private static final TopicPartition PARTITION = new TopicPartition("payments", 0);
    private static final long EXPIRATION_MS = 86_400_000L;
    private static final long PRODUCER = 1000L;
    private static final long OTHER = 2000L;

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime();
    private ProducerStateManager manager;
    private long logEndOffset;

    @BeforeEach
    void createManager() {
        manager = newManager();
    }

    private ProducerStateManager newManager() {
        return new ProducerStateManager(PARTITION, dir, EXPIRATION_MS, time);
    }

    @Test
    void transactionIsUnstableFromItsFirstBatchUntilTheHighWatermarkPassesItsMarker() {
        append(txnBatch(PRODUCER, 0, 0, 2), AppendOrigin.CLIENT);
        append(txnBatch(PRODUCER, 0, 2, 1), AppendOrigin.CLIENT);
        assertEquals(OptionalLong.of(0), manager.firstUnstableOffset());

        Optional<ProducerStateManager.CompletedTxn> completed = append(marker(PRODUCER, 0, ControlRecordType.COMMIT, 5),
                AppendOrigin.COORDINATOR);
        assertEquals(Optional.of(new ProducerStateManager.CompletedTxn(PRODUCER, 0, 3, false)), completed);

        manager.onHighWatermarkUpdated(3); // the marker itself is not below the high watermark yet
        assertEquals(OptionalLong.of(0), manager.firstUnstableOffset());
        manager.onHighWatermarkUpdated(4);
        assertEquals(OptionalLong.empty(), manager.firstUnstableOffset());
        assertFalse(manager.activeProducers().get(PRODUCER).hasOngoingTxn());
        assertEquals(5, manager.activeProducers().get(PRODUCER).coordinatorEpoch());
    }

    @Test
    void abortRecordsTheLastStableOffsetOfTheOldestTransactionStillOngoing() {
        append(txnBatch(PRODUCER, 0, 0, 2), AppendOrigin.CLIENT); // offsets 0-1
        append(txnBatch(OTHER, 0, 0, 1), AppendOrigin.CLIENT);    // offset 2
        ProducerStateManager.CompletedTxn aborted = append(marker(PRODUCER, 0, ControlRecordType.ABORT, 1),
                AppendOrigin.COORDINATOR).orElseThrow();

        assertTrue(aborted.aborted());
        assertEquals(0, aborted.firstOffset());
        assertEquals(3, aborted.lastOffset());
        assertEquals(2, manager.lastStableOffsetAfter(aborted));
        manager.onHighWatermarkUpdated(4);
        assertEquals(OptionalLong.of(2), manager.firstUnstableOffset());

        ProducerStateManager.CompletedTxn last = append(marker(OTHER, 0, ControlRecordType.ABORT, 1),
                AppendOrigin.COORDINATOR).orElseThrow();
        assertEquals(5, manager.lastStableOffsetAfter(last));
    }

    @Test
    void markerOfAnOlderProducerEpochIsFenced() {
        append(txnBatch(PRODUCER, 3, 0, 1), AppendOrigin.CLIENT);
        assertThrows(InvalidProducerEpochException.class,
                () -> manager.checkLeaderAppend(List.of(marker(PRODUCER, 2, ControlRecordType.COMMIT, 0)),
                        AppendOrigin.COORDINATOR));
        // A newer epoch is the coordinator aborting a timed-out transaction after bumping the epoch.
        append(marker(PRODUCER, 4, ControlRecordType.ABORT, 0), AppendOrigin.COORDINATOR);
        assertEquals(4, manager.activeProducers().get(PRODUCER).producerEpoch());
        assertEquals(OptionalLong.of(0), manager.firstUnstableOffset()); // until the high watermark passes it
        manager.onHighWatermarkUpdated(logEndOffset);
        assertEquals(OptionalLong.empty(), manager.firstUnstableOffset());
    }

    @Test
    void markerOfAnOlderCoordinatorEpochIsFenced() {
        append(txnBatch(PRODUCER, 0, 0, 1), AppendOrigin.CLIENT);
        append(marker(PRODUCER, 0, ControlRecordType.COMMIT, 7), AppendOrigin.COORDINATOR);
        append(txnBatch(PRODUCER, 0, 1, 1), AppendOrigin.CLIENT);

        assertThrows(TransactionCoordinatorFencedException.class,
                () -> manager.checkLeaderAppend(List.of(marker(PRODUCER, 0, ControlRecordType.ABORT, 6)),
                        AppendOrigin.COORDINATOR));
        append(marker(PRODUCER, 0, ControlRecordType.ABORT, 7), AppendOrigin.COORDINATOR);
    }

    @Test
    void nonTransactionalBatchDuringTheProducersTransactionIsRefused() {
        append(txnBatch(PRODUCER, 0, 0, 1), AppendOrigin.CLIENT);
        MutableRecordBatch idempotent = MemoryRecords.withIdempotentRecords(Compression.NONE, PRODUCER, (short) 0, 1,
                records(1)).batches().iterator().next();
        assertThrows(InvalidTxnStateException.class,
                () -> manager.checkLeaderAppend(List.of(idempotent), AppendOrigin.CLIENT));
        // Nor within one append, after the batch that starts the transaction.
        ProducerStateManager fresh = newManager();
        MutableRecordBatch first = txnBatch(OTHER, 0, 0, 1);
        MutableRecordBatch second = MemoryRecords.withIdempotentRecords(Compression.NONE, OTHER, (short) 0, 1,
                records(1)).batches().iterator().next();
        assertThrows(InvalidTxnStateException.class,
                () -> fresh.checkLeaderAppend(List.of(first, second), AppendOrigin.CLIENT));
    }

    @Test
    void coordinatorAppendsAreCheckedByEpochButNotBySequence() {
        append(txnBatch(PRODUCER, 1, 0, 1), AppendOrigin.COORDINATOR);
        // A transactional offset commit numbers every batch 0.
        append(txnBatch(PRODUCER, 1, 0, 1), AppendOrigin.COORDINATOR);
        append(txnBatch(PRODUCER, 1, 7, 1), AppendOrigin.COORDINATOR);
        // The same from a client: sequence checked.
        assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkLeaderAppend(List.of(txnBatch(PRODUCER, 1, 3, 1)), AppendOrigin.CLIENT));
        assertThrows(InvalidProducerEpochException.class,
                () -> manager.checkLeaderAppend(List.of(txnBatch(PRODUCER, 0, 0, 1)), AppendOrigin.COORDINATOR));
    }

    @Test
    void ongoingTransactionSurvivesASnapshotAndARestart() throws IOException {
        append(marker(OTHER, 0, ControlRecordType.COMMIT, 3), AppendOrigin.COORDINATOR); // offset 0
        append(txnBatch(PRODUCER, 0, 0, 2), AppendOrigin.CLIENT);                         // offsets 1-2
        manager.takeSnapshot();

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(OptionalLong.of(1), restarted.firstUnstableOffset());
        ProducerStateEntry entry = restarted.activeProducers().get(PRODUCER);
        assertEquals(1, entry.currentTxnFirstOffset());
        assertEquals(3, restarted.activeProducers().get(OTHER).coordinatorEpoch());
        assertThrows(TransactionCoordinatorFencedException.class,
                () -> restarted.checkLeaderAppend(List.of(marker(OTHER, 0, ControlRecordType.ABORT, 2)),
                        AppendOrigin.COORDINATOR));
    }

    @Test
    void versionOneSnapshotIsStillRead() throws IOException {
        // Version 1, as written before transactions: one producer, epoch 2, no retained batch.
        ByteBuffer buffer = ByteBuffer.allocate(2 + 4 + 8 + 4 + 8 + 2 + 8 + 1);
        buffer.putShort((short) 1).putInt(0).putLong(40).putInt(1);
        buffer.putLong(PRODUCER).putShort((short) 2).putLong(time.milliseconds()).put((byte) 0);
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 6, buffer.capacity() - 6);
        buffer.putInt(2, (int) crc.getValue());
        Files.write(dir.resolve(ProducerSnapshotFile.fileName(40)), buffer.array());

        manager.truncateAndReload(0, 40);

        ProducerStateEntry entry = manager.activeProducers().get(PRODUCER);
        assertEquals(2, entry.producerEpoch());
        assertEquals(ProducerStateEntry.NO_TXN, entry.currentTxnFirstOffset());
        assertEquals(ProducerStateEntry.NO_COORDINATOR_EPOCH, entry.coordinatorEpoch());
        assertEquals(40, manager.mapEndOffset());
    }

    @Test
    void producerWithAnOngoingTransactionDoesNotExpire() {
        append(txnBatch(PRODUCER, 0, 0, 1), AppendOrigin.CLIENT);
        time.advance(EXPIRATION_MS * 2);
        manager.removeExpiredProducers(time.milliseconds());
        assertTrue(manager.activeProducers().containsKey(PRODUCER));
        assertEquals(OptionalLong.of(0), manager.firstUnstableOffset());
    }

    /** Checks, assigns offsets at the simulated log end, and applies, as the partition log does. */
    private Optional<ProducerStateManager.CompletedTxn> append(MutableRecordBatch batch, AppendOrigin origin) {
        assertEquals(Optional.empty(), manager.checkLeaderAppend(List.of(batch), origin));
        batch.setLastOffset(logEndOffset + batch.lastOffset() - batch.baseOffset());
        logEndOffset = batch.nextOffset();
        return manager.update(batch);
    }

    private MutableRecordBatch txnBatch(long producerId, int epoch, int firstSequence, int count) {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, (short) epoch, firstSequence,
                records(count)).batches().iterator().next();
    }

    private MutableRecordBatch marker(long producerId, int epoch, ControlRecordType type, int coordinatorEpoch) {
        return MemoryRecords.withEndTransactionMarker(0L, time.milliseconds(), RecordBatch.NO_PARTITION_LEADER_EPOCH,
                producerId, (short) epoch, new EndTransactionMarker(type, coordinatorEpoch))
                .batches().iterator().next();
    }

    private SimpleRecord[] records(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(time.milliseconds(), "key".getBytes(), "value".getBytes());
        }
        return records;
    }
}
