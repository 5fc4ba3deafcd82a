package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction of a log with transactions: the LSO bounds it, aborted records go, markers stay. */
class LogCleanerTxnTest {

    private static final TopicPartition PARTITION = new TopicPartition("balances", 0);
    private static final long PRODUCER = 77L;

    @TempDir
    Path tmp;

    private final ManualTime time = new ManualTime();
    private PartitionLog log;
    private LogCleaner cleaner;
    private int sequence;

    @BeforeEach
    void open() throws IOException {
        LogConfig config = LogConfig.parse(Map.of(LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.SEGMENT_INDEX_BYTES, "4096", LogConfig.FILE_DELETE_DELAY_MS, "0",
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.0"));
        log = PartitionLog.open(tmp.resolve(PartitionDirName.of(PARTITION)), PARTITION, config, LoadState.UNKNOWN,
                LogEnvironment.inline(time));
        cleaner = new LogCleaner(new LogCleaner.Config(true, Double.MAX_VALUE, 15_000L, 1024 * 1024, 1024),
                () -> List.of(log), time);
    }

    @AfterEach
    void close() {
        log.closeHandlers();
    }

    @Test
    void abortedRecordsAreRemovedAndNeverShadowTheCommittedValueButTheMarkerStays() {
        plain("a", "1");                                  // 0
        txn("a", "aborted", "b", "aborted");              // 1-2
        long abort = marker(ControlRecordType.ABORT);     // 3
        plain("c", "1");                                  // 4
        log.roll();
        plain("d", "1");                                  // 5, active
        log.updateHighWatermark(log.logEndOffset());

        assertTrue(cleaner.clean(log));

        assertEquals(List.of("0:a=1", "3:marker", "4:c=1", "5:d=1"), contents());
        assertEquals(List.of(new AbortedTxn(PRODUCER, 1, abort, abort + 1)), log.abortedTransactions(0, 6));
    }

    @Test
    void nothingFromTheSegmentHoldingTheLastStableOffsetOnIsCleaned() {
        plain("k", "1");                                  // 0
        plain("k", "2");                                  // 1
        log.roll();
        txn("k", "open");                                 // 2: the transaction stays open
        log.roll();
        plain("z", "1");                                  // 3, active
        log.updateHighWatermark(log.logEndOffset());
        assertEquals(2, log.lastStableOffset());

        cleaner.clean(log);
        assertEquals(List.of("1:k=2", "2:k=open", "3:z=1"), contents(),
                "the open transaction's record must not shadow k=2: it may still be aborted");

        marker(ControlRecordType.ABORT);                  // 4
        log.roll();
        plain("y", "1");                                  // 5, active
        log.updateHighWatermark(log.logEndOffset());
        assertTrue(cleaner.clean(log));
        assertEquals(List.of("1:k=2", "3:z=1", "4:marker", "5:y=1"), contents());
    }

    /** Every record of the log as "offset:key=value", a marker as "offset:marker". */
    private List<String> contents() {
        List<String> result = new ArrayList<>();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            long next = offset;
            for (RecordBatch batch : log.read(offset, 64 * 1024, end, true).records().batches()) {
                for (Record record : batch) {
                    if (record.offset() >= offset) {
                        result.add(record.offset() + ":" + (batch.isControlBatch() ? "marker"
                                : string(record.key()) + "=" + string(record.value())));
                    }
                }
                next = batch.nextOffset();
            }
            offset = next;
        }
        return result;
    }

    private static String string(java.nio.ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private void plain(String key, String value) {
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record(key, value)), 0);
    }

    private void txn(String... keysAndValues) {
        SimpleRecord[] records = new SimpleRecord[keysAndValues.length / 2];
        for (int i = 0; i < records.length; i++) {
            records[i] = record(keysAndValues[2 * i], keysAndValues[2 * i + 1]);
        }
        log.appendAsLeader(MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER, (short) 0, sequence,
                records), 0, AppendOrigin.CLIENT);
        sequence += records.length;
    }

    private long marker(ControlRecordType type) {
        return log.appendAsLeader(MemoryRecords.withEndTransactionMarker(time.milliseconds(), PRODUCER, (short) 0,
                new EndTransactionMarker(type, 0)), 0, AppendOrigin.COORDINATOR).firstOffset();
    }

    private SimpleRecord record(String key, String value) {
        return new SimpleRecord(time.milliseconds(), key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }
}
