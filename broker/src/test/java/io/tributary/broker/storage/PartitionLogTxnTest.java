package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Transactions in a partition log: the last stable offset, the transaction index, recovery and truncation. */
class PartitionLogTxnTest {

    private static final TopicPartition PARTITION = new TopicPartition("payments", 0);
    private static final long PRODUCER_A = 11L;
    private static final long PRODUCER_B = 22L;
    /** Small segments, so that the transactions below span several. */
    private static final LogConfig SMALL_SEGMENTS = config(LogConfig.SEGMENT_BYTES, 400);

    @TempDir
    Path root;

    private Path dir;
    private final ManualTime time = new ManualTime();
    private PartitionLog log;
    private int sequenceA;
    private int sequenceB;

    @BeforeEach
    void open() throws IOException {
        dir = root.resolve(PartitionDirName.of(PARTITION));
        log = PartitionLog.open(dir, PARTITION, SMALL_SEGMENTS, LoadState.UNKNOWN, LogEnvironment.inline(time));
    }

    @AfterEach
    void releaseFiles() {
        if (log != null) {
            log.closeHandlers();
        }
    }

    /**
     * A writes, B writes, A is aborted, B stays open: offsets 0-1 A, 2-? plain records to roll segments, then B, then
     * A's ABORT marker in a later segment than A's data.
     */
    private long[] abortAWhileBIsOpen() {
        long aFirst = txn(PRODUCER_A, 2);
        for (int i = 0; i < 8; i++) {
            plain(3);
        }
        long bFirst = txn(PRODUCER_B, 1);
        long abortOffset = marker(PRODUCER_A, ControlRecordType.ABORT, 4);
        log.updateHighWatermark(log.logEndOffset());
        return new long[] {aFirst, bFirst, abortOffset};
    }

    @Test
    void lastStableOffsetStopsAtTheOldestOpenTransactionAndAbortsAreIndexed() {
        long aFirst = txn(PRODUCER_A, 2);
        plain(1);
        log.updateHighWatermark(log.logEndOffset());
        assertEquals(aFirst, log.lastStableOffset());

        long bFirst = txn(PRODUCER_B, 1);
        long abortOffset = marker(PRODUCER_A, ControlRecordType.ABORT, 4);
        assertEquals(aFirst, log.lastStableOffset(), "A's marker is not below the high watermark yet");
        log.updateHighWatermark(abortOffset + 1);
        assertEquals(bFirst, log.lastStableOffset());

        assertEquals(List.of(new AbortedTxn(PRODUCER_A, aFirst, abortOffset, bFirst)),
                log.abortedTransactions(0, log.lastStableOffset()));
        assertEquals(List.of(), log.abortedTransactions(abortOffset + 1, log.logEndOffset()));

        long commitOffset = marker(PRODUCER_B, ControlRecordType.COMMIT, 4);
        log.updateHighWatermark(commitOffset + 1);
        assertEquals(log.logEndOffset(), log.lastStableOffset());
        assertEquals(1, log.abortedTransactions(0, log.logEndOffset()).size(), "a commit is not indexed");
    }

    @Test
    void abortIsIndexedInTheSegmentHoldingItsMarker() throws IOException {
        long[] offsets = abortAWhileBIsOpen();
        assertTrue(log.numberOfSegments() > 2, "the transactions span segments: " + log.segmentBaseOffsets());

        LogSegment markerSegment = log.segmentsSnapshot().stream()
                .filter(segment -> segment.baseOffset() <= offsets[2]).reduce((first, second) -> second).orElseThrow();
        assertEquals(List.of(new AbortedTxn(PRODUCER_A, offsets[0], offsets[2], offsets[1])),
                markerSegment.txnIndex().entries());
        assertEquals(List.of(LogSegment.filenamePrefix(markerSegment.baseOffset()) + LogSegment.TXN_INDEX_SUFFIX),
                txnIndexFiles());
        // A fetch from A's first segment finds the abort in the later one.
        assertEquals(List.of(new AbortedTxn(PRODUCER_A, offsets[0], offsets[2], offsets[1])),
                log.abortedTransactions(offsets[0], offsets[1]));
    }

    @Test
    void crashRecoveryRebuildsTheTransactionIndexAndTheOpenTransaction() throws IOException {
        long[] offsets = abortAWhileBIsOpen();
        long logEnd = log.logEndOffset();
        log.closeHandlers(); // no flush, no snapshot at close: as a crash
        log = PartitionLog.open(dir, PARTITION, SMALL_SEGMENTS, new LoadState(0, 0, logEnd, false),
                LogEnvironment.inline(time));

        assertEquals(offsets[1], log.lastStableOffset(), "B is open again");
        assertEquals(List.of(new AbortedTxn(PRODUCER_A, offsets[0], offsets[2], offsets[1])),
                log.abortedTransactions(0, log.lastStableOffset()));
        assertEquals(1, txnIndexFiles().size());
        assertEquals(offsets[1], log.activeProducers().stream().filter(p -> p.producerId() == PRODUCER_B)
                .findFirst().orElseThrow().currentTxnStartOffset());
    }

    @Test
    void cleanRestartKeepsTheIndexAndTheOpenTransaction() throws IOException {
        long[] offsets = abortAWhileBIsOpen();
        LoadState checkpoint = new LoadState(log.logStartOffset(), log.recoveryPoint(), log.highWatermark(), true);
        log.close();
        log = PartitionLog.open(dir, PARTITION, SMALL_SEGMENTS, checkpoint, LogEnvironment.inline(time));

        assertEquals(offsets[1], log.lastStableOffset());
        assertEquals(List.of(new AbortedTxn(PRODUCER_A, offsets[0], offsets[2], offsets[1])),
                log.abortedTransactions(0, log.lastStableOffset()));
    }

    @Test
    void truncationBelowAMarkerRemovesItsIndexEntryAndReopensTheTransaction() {
        long[] offsets = abortAWhileBIsOpen();
        log.truncateTo(offsets[2]);
        log.updateHighWatermark(log.logEndOffset());

        assertEquals(List.of(), log.abortedTransactions(0, log.logEndOffset()));
        assertEquals(offsets[0], log.lastStableOffset(), "A is open again");
    }

    @Test
    void deleteRecordsPastAnOpenTransactionsStartLeavesItOpenAndTheLsoAtTheLogStart() {
        long aFirst = txn(PRODUCER_A, 2);  // 0-1
        plain(3);                          // 2-4
        log.updateHighWatermark(log.logEndOffset());
        log.deleteRecordsBefore(3);

        assertEquals(3, log.lastStableOffset(), "bounded below by the log start");
        assertEquals(aFirst, log.activeProducers().get(0).currentTxnStartOffset());
        marker(PRODUCER_A, ControlRecordType.COMMIT, 0);
        log.updateHighWatermark(log.logEndOffset());
        assertEquals(log.logEndOffset(), log.lastStableOffset());
    }

    @Test
    void clientsCannotWriteMarkers() {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(time.milliseconds(), PRODUCER_A, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(marker, 0, AppendOrigin.CLIENT));
        assertEquals(0, log.logEndOffset());
    }

    private long txn(long producerId, int count) {
        int sequence = producerId == PRODUCER_A ? sequenceA : sequenceB;
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, (short) 0,
                sequence, records(count));
        if (producerId == PRODUCER_A) {
            sequenceA += count;
        } else {
            sequenceB += count;
        }
        return log.appendAsLeader(records, 0, AppendOrigin.CLIENT).firstOffset();
    }

    private void plain(int count) {
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records(count)), 0);
    }

    private long marker(long producerId, ControlRecordType type, int coordinatorEpoch) {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(0L, time.milliseconds(),
                RecordBatch.NO_PARTITION_LEADER_EPOCH, producerId, (short) 0,
                new EndTransactionMarker(type, coordinatorEpoch));
        return log.appendAsLeader(marker, 0, AppendOrigin.COORDINATOR).firstOffset();
    }

    private SimpleRecord[] records(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(time.milliseconds(), ("key-" + i).getBytes(), new byte[20]);
        }
        return records;
    }

    private List<String> txnIndexFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(LogSegment.TXN_INDEX_SUFFIX)).sorted().toList();
        }
    }

    private static LogConfig config(Object... keysAndValues) {
        Map<String, Object> properties = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return LogConfig.parse(properties);
    }
}
