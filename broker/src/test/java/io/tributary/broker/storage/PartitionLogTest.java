package io.tributary.broker.storage;

import static io.tributary.broker.storage.TestRecords.batchAt;
import static io.tributary.broker.storage.TestRecords.concat;
import static io.tributary.broker.storage.TestRecords.decode;
import static io.tributary.broker.storage.TestRecords.simpleRecords;
import static io.tributary.broker.storage.TestRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

import io.tributary.broker.storage.TestRecords.Expected;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 0);
    private static final long PRODUCER = 4242L;
    /** Small segments and a dense index, so that a few dozen batches span many segments and index entries. */
    private static final LogConfig SMALL_SEGMENTS = config(LogConfig.SEGMENT_BYTES, 1024,
            LogConfig.INDEX_INTERVAL_BYTES, 128);

    @TempDir
    Path root;

    private Path dir;
    private final ManualTime time = new ManualTime();
    private PartitionLog log;
    private LogConfig config;
    /** Every record the log accepted, in offset order: the oracle for reads. */
    private final List<Expected> written = new ArrayList<>();
    private int nextKey;

    @BeforeEach
    void setUp() {
        dir = root.resolve(PartitionDirName.of(PARTITION));
    }

    @AfterEach
    void releaseFiles() {
        if (log != null) {
            log.closeHandlers();
        }
    }

    private static LogConfig config(Object... keysAndValues) {
        Map<String, Object> properties = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return LogConfig.parse(properties);
    }

    private PartitionLog open(LogConfig logConfig) throws IOException {
        config = logConfig;
        log = PartitionLog.open(dir, PARTITION, logConfig, LoadState.UNKNOWN, LogEnvironment.inline(time));
        return log;
    }

    private PartitionLog restartCleanly() throws IOException {
        LoadState checkpoint = new LoadState(log.logStartOffset(), log.recoveryPoint(), true);
        log.close();
        log = PartitionLog.open(dir, PARTITION, config, checkpoint, LogEnvironment.inline(time));
        return log;
    }

    /** Drops the log without closing it (nothing flushed, trimmed or snapshotted) and opens it as after a crash. */
    private PartitionLog restartAfterCrash() throws IOException {
        long logStart = log.logStartOffset();
        log.closeHandlers();
        log = PartitionLog.open(dir, PARTITION, config, new LoadState(logStart, 0, false),
                LogEnvironment.inline(time));
        return log;
    }

    /** Appends {@code count} records stamped {@code timestamp} as one client batch and adds them to the oracle. */
    private LogAppendInfo append(int count, long timestamp) {
        return append(count, timestamp, Compression.NONE, 0);
    }

    private LogAppendInfo append(int count, long timestamp, Compression compression, int leaderEpoch) {
        SimpleRecord[] records = simpleRecords(nextKey, count, timestamp);
        LogAppendInfo info = log.appendAsLeader(MemoryRecords.withRecords(compression, records), leaderEpoch);
        for (int i = 0; i < count; i++) {
            written.add(new Expected(info.firstOffset() + i, timestamp, "key-" + (nextKey + i),
                    "value-" + (nextKey + i)));
        }
        nextKey += count;
        return info;
    }

    /** Appends batches of 1 to 4 records with timestamps around the clock until the log has {@code segments}. */
    private void fillSegments(int segments, Random random) {
        int batch = 0;
        while (log.numberOfSegments() < segments) {
            Compression compression = batch++ % 5 == 0 ? Compression.gzip().build() : Compression.NONE;
            append(1 + random.nextInt(4), time.milliseconds() - random.nextInt(10_000), compression, 0);
        }
    }

    /** Everything from {@code from} below {@code maxOffset}, read as a consumer does: fetch, decode, continue. */
    private List<Expected> readFrom(long from, long maxOffset) {
        List<Expected> result = new ArrayList<>();
        long next = from;
        while (true) {
            LogReadInfo info = log.read(next, 300, maxOffset, true);
            List<Expected> records = decode(info.records());
            if (records.isEmpty()) {
                return result;
            }
            assertTrue(records.get(0).offset() <= next, "the first batch holds the fetch offset " + next);
            for (Expected record : records) {
                if (record.offset() >= next) {
                    result.add(record);
                }
            }
            next = records.get(records.size() - 1).offset() + 1;
        }
    }

    private List<Expected> readAll() {
        return readFrom(log.logStartOffset(), Long.MAX_VALUE);
    }

    private List<Expected> writtenFrom(long offset) {
        return written.stream().filter(record -> record.offset() >= offset).toList();
    }

    private List<Expected> writtenBelow(long offset) {
        return written.stream().filter(record -> record.offset() < offset).toList();
    }

    private byte[] segmentFileBytes() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                all.write(Files.readAllBytes(file));
            }
        }
        return all.toByteArray();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets and reads

    @Test
    void offsetsAreDenseFromZeroAcrossAppendsAndSegmentRolls() throws IOException {
        open(SMALL_SEGMENTS);
        Random random = new Random(1);
        long expectedNext = 0;
        List<Long> batchStarts = new ArrayList<>();

        for (int i = 0; i < 120; i++) {
            int count = 1 + random.nextInt(5);
            LogAppendInfo info = append(count, time.milliseconds());
            batchStarts.add(info.firstOffset());

            assertEquals(expectedNext, info.firstOffset());
            assertEquals(expectedNext + count - 1, info.lastOffset());
            assertEquals(count, info.recordCount());
            assertFalse(info.duplicate());
            expectedNext += count;
            assertEquals(expectedNext, log.logEndOffset());
        }

        assertTrue(log.numberOfSegments() > 10, "segments: " + log.numberOfSegments());
        for (long base : log.segmentBaseOffsets()) {
            assertTrue(batchStarts.contains(base), "segment base " + base + " is where a batch starts");
        }
        assertEquals(written, readAll());
        assertEquals(expectedNext, written.size());
    }

    @Test
    void readFromAnyOffsetReturnsExactlyTheRecordsFromThatOffset() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(8, new Random(2));

        for (long offset = 0; offset <= log.logEndOffset(); offset++) {
            assertEquals(writtenFrom(offset), readFrom(offset, Long.MAX_VALUE), "from offset " + offset);
        }
    }

    @Test
    void readNeverReturnsRecordsAtOrAboveTheMaxOffset() throws IOException {
        open(SMALL_SEGMENTS);
        List<Long> batchStarts = new ArrayList<>();
        Random random = new Random(3);
        while (log.numberOfSegments() < 5) {
            batchStarts.add(append(1 + random.nextInt(3), time.milliseconds()).firstOffset());
        }

        for (long highWatermark : batchStarts) {
            log.updateHighWatermark(highWatermark);
            assertEquals(highWatermark, log.highWatermark());
            for (long from = Math.max(0, highWatermark - 6); from <= highWatermark; from++) {
                long start = from;
                assertEquals(writtenBelow(highWatermark).stream().filter(record -> record.offset() >= start).toList(),
                        readFrom(from, log.highWatermark()), "from " + from + " below high watermark " + highWatermark);
            }
        }
    }

    @Test
    void readAtTheLogEndReturnsNothingAndOutsideTheLogIsOutOfRange() throws IOException {
        open(SMALL_SEGMENTS);
        append(5, time.milliseconds());

        assertEquals(0, log.read(5, 1000, Long.MAX_VALUE, true).records().sizeInBytes());
        OffsetOutOfRangeException above = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(6, 1000, Long.MAX_VALUE, true));
        assertTrue(above.getMessage().contains(PARTITION.toString()), above.getMessage());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(-1, 1000, Long.MAX_VALUE, true));
    }

    @Test
    void readOfAnEmptyLogAtOffsetZeroReturnsNothing() throws IOException {
        open(SMALL_SEGMENTS);

        assertEquals(0, log.read(0, 1000, Long.MAX_VALUE, true).records().sizeInBytes());
        assertEquals(0, log.logEndOffset());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Validation: what is refused leaves the log as it was

    /** Asserts that the append fails with {@code type} and leaves the log end, the files and the reads unchanged. */
    private <T extends Throwable> T assertRefusedWithNothingWritten(Class<T> type, MemoryRecords records)
            throws IOException {
        long logEnd = log.logEndOffset();
        long size = log.size();
        byte[] files = segmentFileBytes();

        T failure = assertThrows(type, () -> log.appendAsLeader(records, 0));

        assertEquals(logEnd, log.logEndOffset());
        assertEquals(size, log.size());
        assertArrayEquals(files, segmentFileBytes());
        assertEquals(written, readAll());
        assertEquals(logEnd, append(1, time.milliseconds()).firstOffset(), "the log still takes appends");
        return failure;
    }

    @Test
    void logAppendTimeStampsEveryRecordWithTheClock() throws IOException {
        open(config(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"));
        time.advance(12_345);
        long now = time.milliseconds();
        long producerTime = now - 3_600_000;

        LogAppendInfo plain = log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                simpleRecords(0, 3, producerTime)), 0);
        LogAppendInfo compressed = log.appendAsLeader(MemoryRecords.withRecords(Compression.lz4().build(),
                simpleRecords(3, 3, producerTime)), 0);

        assertEquals(now, plain.logAppendTimeMs());
        assertEquals(now, compressed.logAppendTimeMs());
        List<RecordBatch> batches = TestRecords.batches(log.read(0, 10_000, Long.MAX_VALUE, false).records());
        assertEquals(2, batches.size());
        for (RecordBatch batch : batches) {
            assertEquals(TimestampType.LOG_APPEND_TIME, batch.timestampType());
            assertEquals(now, batch.maxTimestamp());
        }
        List<Expected> records = decode(log.read(0, 10_000, Long.MAX_VALUE, false).records());
        assertEquals(6, records.size());
        assertTrue(records.stream().allMatch(record -> record.timestamp() == now), records.toString());
        assertEquals(Optional.of(0L), log.offsetForTimestamp(now).map(hit -> hit.offset));
    }

    @Test
    void createTimeKeepsTheProducersTimestampAndReportsNoAppendTime() throws IOException {
        open(LogConfig.defaults());
        long producerTime = time.milliseconds() - 60_000;

        LogAppendInfo info = append(2, producerTime);

        assertEquals(RecordBatch.NO_TIMESTAMP, info.logAppendTimeMs());
        assertEquals(written, readAll());
    }

    @Test
    void batchLargerThanMaxMessageBytesIsRefusedWithRecordTooLarge() throws IOException {
        open(config(LogConfig.MAX_MESSAGE_BYTES, 200));
        append(1, time.milliseconds());
        MemoryRecords large = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(time.milliseconds(), utf8("k"), new byte[300]));

        RecordTooLargeException e = assertRefusedWithNothingWritten(RecordTooLargeException.class, large);
        assertTrue(e.getMessage().contains("max.message.bytes"), e.getMessage());
    }

    @Test
    void batchWithMagicV1IsRefusedAsUnsupportedFormat() throws IOException {
        open(LogConfig.defaults());
        append(2, time.milliseconds());
        MemoryRecords v1 = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE,
                simpleRecords(0, 2, time.milliseconds()));

        assertRefusedWithNothingWritten(UnsupportedForMessageFormatException.class, v1);
    }

    @Test
    void batchWithABadCrcIsRefusedAsCorrupt() throws IOException {
        open(LogConfig.defaults());
        append(2, time.milliseconds());
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, simpleRecords(10, 3, time.milliseconds()));
        int last = batch.sizeInBytes() - 1;
        batch.buffer().put(last, (byte) (batch.buffer().get(last) ^ 1));

        assertRefusedWithNothingWritten(CorruptRecordException.class, batch);
    }

    @Test
    void appendEndingInAPartialBatchIsRefusedAsCorrupt() throws IOException {
        open(LogConfig.defaults());
        MemoryRecords whole = concat(MemoryRecords.withRecords(Compression.NONE, simpleRecords(0, 2, 1L)),
                MemoryRecords.withRecords(Compression.NONE, simpleRecords(2, 2, time.milliseconds())));
        MemoryRecords cut = MemoryRecords.readableRecords(whole.buffer().duplicate().limit(whole.sizeInBytes() - 4)
                .slice());

        assertRefusedWithNothingWritten(CorruptRecordException.class, cut);
    }

    /**
     * Found by the protocol fuzzer: a batch length field of 0x7fffffff (or anything above Integer.MAX_VALUE - 12)
     * overflowed in kafka-clients' batch iterator, and the IllegalArgumentException became UNKNOWN_SERVER_ERROR with
     * an ERROR line. It is a corrupt batch, for a leader and for a follower alike, also behind a valid first batch.
     */
    @Test
    void batchLengthFieldsThatOverflowAreRefusedAsCorrupt() throws IOException {
        open(LogConfig.defaults());
        append(2, time.milliseconds());
        for (int length : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 11}) {
            MemoryRecords alone = MemoryRecords.withRecords(Compression.NONE, simpleRecords(10, 3,
                    time.milliseconds()));
            alone.buffer().putInt(Records.SIZE_OFFSET, length);
            assertRefusedWithNothingWritten(CorruptRecordException.class, alone);

            MemoryRecords second = MemoryRecords.withRecords(Compression.NONE, simpleRecords(20, 1,
                    time.milliseconds()));
            MemoryRecords behindAValidOne = concat(MemoryRecords.withRecords(Compression.NONE, simpleRecords(13, 1,
                    time.milliseconds())), second);
            behindAValidOne.buffer().putInt(behindAValidOne.sizeInBytes() - second.sizeInBytes()
                    + Records.SIZE_OFFSET, length);
            assertRefusedWithNothingWritten(CorruptRecordException.class, behindAValidOne);

            MemoryRecords replicated = batchAt(log.logEndOffset(), Compression.NONE, simpleRecords(30, 1,
                    time.milliseconds()));
            replicated.buffer().putInt(Records.SIZE_OFFSET, length);
            assertThrows(CorruptRecordException.class, () -> log.appendAsFollower(replicated));
        }
    }

    /**
     * Found by the protocol fuzzer: a batch whose CRC matches but whose records cannot be read (a client's bug before
     * it computed the CRC) was stored, and every consumer of the partition stopped at it. Such a batch is refused as
     * INVALID_RECORD (not retriable: sending it again cannot help), compressed or not.
     */
    @Test
    void batchesWhoseRecordsCannotBeReadAreRefusedAsInvalidRecords() throws IOException {
        open(LogConfig.defaults());
        append(2, time.milliseconds());
        int firstRecord = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;

        MemoryRecords tooLong = MemoryRecords.withRecords(Compression.NONE, simpleRecords(10, 3, time.milliseconds()));
        tooLong.buffer().put(firstRecord, (byte) 0x7e); // the first record's length (zigzag 63), past its end
        assertRefusedWithNothingWritten(InvalidRecordException.class, withCrcFixed(tooLong));

        for (Compression codec : List.of(Compression.gzip().build(), Compression.lz4().build(),
                Compression.zstd().build(), Compression.snappy().build())) {
            MemoryRecords garbled = MemoryRecords.withRecords(codec, simpleRecords(10, 20, time.milliseconds()));
            for (int i = firstRecord + 4; i < garbled.sizeInBytes() - 4; i += 3) {
                garbled.buffer().put(i, (byte) (garbled.buffer().get(i) ^ 0x5a));
            }
            InvalidRecordException e = assertRefusedWithNothingWritten(InvalidRecordException.class,
                    withCrcFixed(garbled));
            assertTrue(e.getMessage().contains("cannot be read") && e.getMessage().contains(PARTITION.toString()),
                    e.getMessage());
        }
    }

    /**
     * A snappy batch of a few bytes whose lengths claim hundreds of megabytes made the decompressor allocate them
     * (400 MB and 3 s to fail, or an OutOfMemoryError for 2 GB) once the leader read compressed records: refused
     * from the lengths, before decompressing.
     */
    @Test
    void snappyLengthsThatClaimMoreThanTheBatchHoldsAreRefusedBeforeDecompressing() throws IOException {
        open(LogConfig.defaults());
        append(2, time.milliseconds());
        byte[] header = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
        byte[] hugeChunk = java.nio.ByteBuffer.allocate(28).put(header).putInt(400_000_000).put(new byte[8]).array();
        byte[] hugeBlock = java.nio.ByteBuffer.allocate(26).put(header).putInt(6)
                .put(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0}).array();
        for (byte[] body : List.of(hugeChunk, hugeBlock)) {
            long started = System.nanoTime();
            InvalidRecordException e = assertRefusedWithNothingWritten(InvalidRecordException.class,
                    snappyBatchWithBody(body));
            assertTrue(e.getMessage().contains("claims"), e.getMessage());
            assertTrue(System.nanoTime() - started < 1_000_000_000L, "refused at once");
        }
    }

    /** A record more than 16 times larger than its compressed batch is read without its value, and stored. */
    @Test
    void aRecordThatCompressesVeryWellIsStored() throws IOException {
        open(LogConfig.defaults());
        byte[] zeros = new byte[4 * 1024 * 1024];
        for (Compression codec : List.of(Compression.gzip().build(), Compression.zstd().build())) {
            MemoryRecords batch = MemoryRecords.withRecords(codec, new SimpleRecord(time.milliseconds(), utf8("k"),
                    zeros));
            assertTrue(batch.sizeInBytes() * 16L < zeros.length, "compressed to " + batch.sizeInBytes());
            log.appendAsLeader(batch, 0);
        }
        assertEquals(2, log.logEndOffset());
    }

    /** A snappy batch (of one record, header as kafka-clients writes it) whose compressed body is {@code body}. */
    private MemoryRecords snappyBatchWithBody(byte[] body) {
        MemoryRecords valid = MemoryRecords.withRecords(Compression.snappy().build(),
                new SimpleRecord(time.milliseconds(), utf8("k"), utf8("v")));
        java.nio.ByteBuffer batch = java.nio.ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD + body.length);
        batch.put(valid.buffer().duplicate().limit(DefaultRecordBatch.RECORD_BATCH_OVERHEAD)).put(body).flip();
        batch.putInt(Records.SIZE_OFFSET, batch.limit() - Records.LOG_OVERHEAD);
        return withCrcFixed(MemoryRecords.readableRecords(batch));
    }

    /** The batch with its CRC32C made to match its (changed) contents, as a client that corrupted it would send. */
    private static MemoryRecords withCrcFixed(MemoryRecords records) {
        java.nio.ByteBuffer buffer = records.buffer();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(buffer.duplicate().position(DefaultRecordBatch.CRC_OFFSET + 4)); // from the attributes on
        buffer.putInt(DefaultRecordBatch.CRC_OFFSET, (int) crc.getValue());
        return records;
    }

    @Test
    void createTimeFurtherInTheFutureThanTimestampAfterMaxMsIsRefused() throws IOException {
        open(config(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, 1_000L));
        long now = time.milliseconds();
        append(1, now + 1_000);

        InvalidTimestampException e = assertRefusedWithNothingWritten(InvalidTimestampException.class,
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(now, utf8("a"), utf8("a")),
                        new SimpleRecord(now + 1_001, utf8("b"), utf8("b"))));
        assertTrue(e.getMessage().contains(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS), e.getMessage());
    }

    @Test
    void createTimeFurtherInThePastThanTimestampBeforeMaxMsIsRefused() throws IOException {
        open(config(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 5_000L));
        long now = time.milliseconds();
        append(1, now - 5_000);

        assertRefusedWithNothingWritten(InvalidTimestampException.class,
                MemoryRecords.withRecords(Compression.NONE, simpleRecords(0, 1, now - 5_001)));
    }

    @Test
    void recordWithoutKeyIsRefusedOnACompactedTopic() throws IOException {
        open(config(LogConfig.CLEANUP_POLICY, "compact"));
        append(2, time.milliseconds());
        MemoryRecords keyless = MemoryRecords.withRecords(Compression.gzip().build(),
                new SimpleRecord(time.milliseconds(), utf8("k"), utf8("v")),
                new SimpleRecord(time.milliseconds(), null, utf8("no key")));

        InvalidRecordException e = assertRefusedWithNothingWritten(InvalidRecordException.class, keyless);
        assertTrue(e.getMessage().contains(PARTITION.toString()), e.getMessage());
    }

    @Test
    void compactedTopicAcceptsALargeKeyedRecordInACompressedBatch() throws IOException {
        open(config(LogConfig.CLEANUP_POLICY, "compact"));
        byte[] value = new byte[100 * 1024];
        new Random(5).nextBytes(value);

        LogAppendInfo info = log.appendAsLeader(MemoryRecords.withRecords(Compression.gzip().build(),
                new SimpleRecord(time.milliseconds(), utf8("big"), value)), 0);

        assertEquals(0, info.firstOffset());
        assertEquals(1, log.logEndOffset());
    }

    @Test
    void controlBatchFromAClientIsRefused() throws IOException {
        open(LogConfig.defaults());
        append(1, time.milliseconds());
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(0L, time.milliseconds(), 0, PRODUCER, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));

        assertRefusedWithNothingWritten(InvalidRecordException.class, marker);
    }

    @Test
    void appendWhoseSecondBatchIsInvalidWritesNeitherBatch() throws IOException {
        open(config(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, 1_000L));
        long now = time.milliseconds();
        MemoryRecords twoBatches = concat(MemoryRecords.withRecords(Compression.NONE, simpleRecords(0, 2, now)),
                MemoryRecords.withRecords(Compression.NONE, simpleRecords(2, 2, now + 60_000)));

        assertRefusedWithNothingWritten(InvalidTimestampException.class, twoBatches);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Timestamps

    @Test
    void offsetForTimestampAnswersEarliestLatestMaxAndRealTimestampsAcrossSegments() throws IOException {
        open(SMALL_SEGMENTS);
        Random random = new Random(8);
        long base = time.milliseconds() - 10_000;
        int epoch = 0;
        while (log.numberOfSegments() < 6) {
            long[] stamps = new long[1 + random.nextInt(3)];
            SimpleRecord[] records = new SimpleRecord[stamps.length];
            for (int i = 0; i < stamps.length; i++) {
                stamps[i] = base + random.nextInt(2_000);
                records[i] = new SimpleRecord(stamps[i], utf8("key-" + nextKey), utf8("value-" + nextKey));
                nextKey++;
            }
            epoch += random.nextInt(10) == 0 ? 1 : 0;
            LogAppendInfo info = log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), epoch);
            for (int i = 0; i < stamps.length; i++) {
                written.add(new Expected(info.firstOffset() + i, stamps[i], null, null));
            }
        }

        assertOffsetsForTimestamps(base);
        restartCleanly();
        assertOffsetsForTimestamps(base);
        restartAfterCrash();
        assertOffsetsForTimestamps(base);
    }

    private void assertOffsetsForTimestamps(long base) {
        assertEquals(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, 0, Optional.of(0)),
                log.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow());
        long logEnd = log.logEndOffset();
        assertEquals(logEnd, log.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP).orElseThrow().offset);

        Expected newest = written.stream().reduce((a, b) -> b.timestamp() > a.timestamp() ? b : a).orElseThrow();
        TimestampAndOffset max = log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow();
        assertEquals(newest.offset(), max.offset);
        assertEquals(newest.timestamp(), max.timestamp);

        for (long target = base - 5; target <= base + 2_005; target += 7) {
            long t = target;
            Optional<Expected> expected = written.stream().filter(record -> record.timestamp() >= t).findFirst();
            Optional<TimestampAndOffset> found = log.offsetForTimestamp(target);
            assertEquals(expected.map(Expected::offset), found.map(hit -> hit.offset), "timestamp " + target);
            assertEquals(expected.map(Expected::timestamp), found.map(hit -> hit.timestamp), "timestamp " + target);
            found.ifPresent(hit -> assertEquals(
                    Optional.of(log.leaderEpochCache().epochForOffset(hit.offset).getAsInt()), hit.leaderEpoch));
        }
    }

    @Test
    void offsetForTimestampOfAnEmptyLog() throws IOException {
        open(LogConfig.defaults());

        assertEquals(0, log.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset);
        assertEquals(0, log.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP).orElseThrow().offset);
        assertEquals(Optional.empty(), log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP));
        assertEquals(Optional.empty(), log.offsetForTimestamp(time.milliseconds()));
    }

    @Test
    void activeSegmentRollsWhenTimestampsAdvancePastSegmentMsAlsoAfterARestart() throws IOException {
        open(config(LogConfig.SEGMENT_MS, 1_000L));
        long t = time.milliseconds();

        append(1, t);
        append(1, t + 1_000);
        assertEquals(List.of(0L), log.segmentBaseOffsets());
        append(1, t + 1_001);
        assertEquals(List.of(0L, 2L), log.segmentBaseOffsets());

        restartCleanly();
        append(1, t + 1_500);
        assertEquals(List.of(0L, 2L), log.segmentBaseOffsets());
        append(1, t + 2_002);
        assertEquals(List.of(0L, 2L, 4L), log.segmentBaseOffsets());

        restartAfterCrash();
        append(1, t + 3_003);
        assertEquals(List.of(0L, 2L, 4L, 5L), log.segmentBaseOffsets());
        assertEquals(written, readAll());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Log start, truncation, retention

    @Test
    void deleteRecordsBeforeMovesTheStartOffsetAndRemovesWholeSegmentsBelowIt() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(6, new Random(9));
        List<Long> bases = log.segmentBaseOffsets();
        long newStart = bases.get(3) + 1;

        assertEquals(newStart, log.deleteRecordsBefore(newStart));

        assertEquals(newStart, log.logStartOffset());
        assertEquals(bases.subList(3, bases.size()), log.segmentBaseOffsets());
        for (long gone : bases.subList(0, 3)) {
            assertFalse(Files.exists(LogSegment.file(dir, gone, LogSegment.LOG_SUFFIX)), "segment " + gone);
            assertFalse(Files.exists(LogSegment.file(dir, gone, LogSegment.INDEX_SUFFIX)), "index " + gone);
        }
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(newStart - 1, 1000, Long.MAX_VALUE, true));
        assertEquals(writtenFrom(newStart), readFrom(newStart, Long.MAX_VALUE));
        assertEquals(newStart, log.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset);
        assertTrue(log.highWatermark() >= newStart);

        assertEquals(newStart, log.deleteRecordsBefore(newStart - 1), "the start never moves back");
        assertThrows(OffsetOutOfRangeException.class, () -> log.deleteRecordsBefore(log.logEndOffset() + 1));

        restartCleanly();
        assertEquals(newStart, log.logStartOffset());
        assertEquals(writtenFrom(newStart), readAll());
    }

    @Test
    void deleteRecordsUpToTheLogEndKeepsTheActiveSegment() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(3, new Random(10));
        long logEnd = log.logEndOffset();

        assertEquals(logEnd, log.deleteRecordsBefore(logEnd));

        assertEquals(1, log.numberOfSegments());
        assertEquals(List.of(), readAll());
        assertEquals(logEnd, append(2, time.milliseconds()).firstOffset());
        assertEquals(writtenFrom(logEnd), readAll());
    }

    @Test
    void truncateToInTheMiddleOfTheLogThenAppendsContinueDensely() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(6, new Random(11));
        long logEnd = log.logEndOffset();
        long target = logEnd / 2;
        log.updateHighWatermark(logEnd);
        // A batch is never split: the log ends at the start of the batch holding the target.
        long batchStart = TestRecords.batches(log.read(target, 1, Long.MAX_VALUE, true).records()).get(0)
                .baseOffset();

        log.truncateTo(target);

        assertEquals(batchStart, log.logEndOffset());
        assertEquals(batchStart, log.highWatermark());
        assertTrue(log.segmentBaseOffsets().stream().allMatch(base -> base <= batchStart));
        written.removeIf(record -> record.offset() >= batchStart);
        assertEquals(written, readAll());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(batchStart + 1, 1000, Long.MAX_VALUE, true));

        for (int i = 0; i < 30; i++) {
            long expected = log.logEndOffset();
            assertEquals(expected, append(3, time.milliseconds()).firstOffset());
        }
        assertEquals(written, readAll());
        restartCleanly();
        assertEquals(written, readAll());
    }

    @Test
    void truncateToASegmentBaseOffsetRemovesThatSegment() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(4, new Random(12));
        List<Long> bases = log.segmentBaseOffsets();

        log.truncateTo(bases.get(2));

        assertEquals(bases.subList(0, 2), log.segmentBaseOffsets());
        assertEquals(bases.get(2), log.logEndOffset());
        written.removeIf(record -> record.offset() >= bases.get(2));
        assertEquals(written, readAll());
        assertEquals(bases.get(2), append(1, time.milliseconds()).firstOffset());
        assertEquals(written, readAll());
    }

    @Test
    void truncateFullyAndStartAtLeavesOneEmptySegmentAtTheNewOffset() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(3, new Random(13));

        log.truncateFullyAndStartAt(1_000);

        assertEquals(List.of(1_000L), log.segmentBaseOffsets());
        assertEquals(1_000, log.logStartOffset());
        assertEquals(1_000, log.logEndOffset());
        assertEquals(1_000, log.highWatermark());
        assertEquals(List.of(), log.leaderEpochCache().entries());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(999, 1000, Long.MAX_VALUE, true));
        written.clear();
        assertEquals(1_000, append(2, time.milliseconds()).firstOffset());
        assertEquals(written, readAll());

        restartAfterCrash();
        assertEquals(1_000, log.logStartOffset());
        assertEquals(written, readAll());
    }

    @Test
    void retentionMsDeletesOnlyClosedSegmentsWhoseNewestRecordIsOlder() throws IOException {
        open(config(LogConfig.RETENTION_MS, 1_500L));
        append(3, time.milliseconds());
        log.roll();
        time.advance(1_000);
        append(2, time.milliseconds());
        log.roll();
        time.advance(1_000);
        append(2, time.milliseconds());
        assertEquals(List.of(0L, 3L, 5L), log.segmentBaseOffsets());

        assertEquals(1, log.deleteOldSegments());
        assertEquals(List.of(3L, 5L), log.segmentBaseOffsets());
        assertEquals(3, log.logStartOffset());

        time.advance(1_000_000);
        assertEquals(1, log.deleteOldSegments());
        assertEquals(List.of(5L), log.segmentBaseOffsets(), "the active segment stays however old");
        assertEquals(writtenFrom(5), readAll());
        assertEquals(0, log.deleteOldSegments());
    }

    @Test
    void retentionMsDoesNotApplyToACompactedOnlyTopic() throws IOException {
        open(config(LogConfig.RETENTION_MS, 10L, LogConfig.CLEANUP_POLICY, "compact"));
        append(1, time.milliseconds());
        log.roll();
        append(1, time.milliseconds());
        time.advance(60_000);

        assertEquals(0, log.deleteOldSegments());
        assertEquals(2, log.numberOfSegments());
    }

    @Test
    void retentionBytesDeletesTheOldestSegmentsWhileTheRestStaysAtOrAboveTheLimit() throws IOException {
        open(LogConfig.defaults());
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long before = log.size();
            append(2 + i, time.milliseconds());
            sizes.add(log.size() - before);
            if (i < 4) {
                log.roll();
            }
        }
        long total = log.size();
        // Deleting the first segment leaves more than the limit, deleting the second too would leave less.
        long limit = total - sizes.get(0) - sizes.get(1) + 1;
        log.updateConfig(config(LogConfig.RETENTION_BYTES, limit));

        assertEquals(1, log.deleteOldSegments());

        assertEquals(total - sizes.get(0), log.size());
        assertEquals(List.of(2L, 5L, 9L, 14L), log.segmentBaseOffsets());
        assertEquals(writtenFrom(log.segmentBaseOffsets().get(0)), readAll());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Flush, restart, epochs

    @Test
    void flushMessagesMovesTheRecoveryPointToTheLogEnd() throws IOException {
        open(config(LogConfig.FLUSH_MESSAGES, 5L));
        append(3, time.milliseconds());
        assertEquals(0, log.recoveryPoint());

        append(2, time.milliseconds());
        assertEquals(5, log.recoveryPoint());

        append(1, time.milliseconds());
        assertEquals(5, log.recoveryPoint());
        log.roll();
        assertEquals(6, log.recoveryPoint(), "a roll flushes the segment it closes");
    }

    @Test
    void cleanCloseAndReopenKeepsEveryRecordTheLogEndAndTheSegments() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(5, new Random(14));
        long logEnd = log.logEndOffset();
        List<Long> segments = log.segmentBaseOffsets();
        byte[] files = segmentFileBytes();

        restartCleanly();

        assertEquals(logEnd, log.logEndOffset());
        assertEquals(logEnd, log.recoveryPoint());
        assertEquals(segments, log.segmentBaseOffsets());
        assertArrayEquals(files, segmentFileBytes());
        assertEquals(written, readAll());
        assertEquals(logEnd, append(2, time.milliseconds()).firstOffset());
        assertEquals(written, readAll());
    }

    @Test
    void closeIsIdempotentAndAClosedLogRefusesAppendsAndReadsNamingThePartition() throws IOException {
        open(LogConfig.defaults());
        append(1, time.milliseconds());

        log.close();
        log.close();

        for (Executable use : List.<Executable>of(() -> append(1, time.milliseconds()),
                () -> log.read(0, 1000, Long.MAX_VALUE, true), () -> log.offsetForTimestamp(time.milliseconds()),
                () -> log.truncateTo(0), () -> log.deleteRecordsBefore(1))) {
            KafkaStorageException e = assertThrows(KafkaStorageException.class, use);
            assertTrue(e.getMessage().contains(PARTITION.toString()) && e.getMessage().contains("CLOSED"),
                    e.getMessage());
        }
    }

    @Test
    void preallocatedSegmentsAreTrimmedWhenRolledAndSurviveCleanAndCrashRestarts() throws IOException {
        open(config(LogConfig.SEGMENT_BYTES, 1024, LogConfig.PREALLOCATE, true));
        fillSegments(4, new Random(16));
        List<Long> bases = log.segmentBaseOffsets();
        long dataBytes = log.size();
        assertEquals(1024, Files.size(LogSegment.file(dir, bases.get(3), LogSegment.LOG_SUFFIX)));
        long closedBytes = 0;
        for (long base : bases.subList(0, 3)) {
            closedBytes += Files.size(LogSegment.file(dir, base, LogSegment.LOG_SUFFIX));
        }
        assertTrue(closedBytes < dataBytes, "closed segments hold their data only");

        restartAfterCrash();
        assertEquals(written, readAll());
        assertEquals(dataBytes, log.size());
        append(1, time.milliseconds());
        restartCleanly();
        assertEquals(written, readAll());
        assertEquals(log.size(), segmentFileBytes().length);
    }

    @Test
    void crashRestartWithoutDamageKeepsEveryRecord() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(5, new Random(15));
        long logEnd = log.logEndOffset();

        restartAfterCrash();

        assertEquals(logEnd, log.logEndOffset());
        assertEquals(written, readAll());
        assertEquals(logEnd, append(1, time.milliseconds()).firstOffset());
    }

    @Test
    void uncleanRestartRebuildsTheActiveSegmentsIndexesFromTheLogWhateverTheyHold() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(5, new Random(17));
        while (log.segmentsSnapshot().get(4).offsetIndex().entries() < 2) {
            append(1, time.milliseconds());
        }
        assertEquals(5, log.numberOfSegments());
        long maxTimestampOffset = log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset;
        LogSegment active = log.segmentsSnapshot().get(4);
        assertEquals(active.baseOffset(), log.recoveryPoint(), "every roll flushed the segment before it");
        List<OffsetIndex.OffsetPosition> activeLookups = lookups(active);
        long recoveryPoint = log.recoveryPoint();
        long logStart = log.logStartOffset();
        log.closeHandlers();
        // The active segment's indexes as a crash could leave them, made worse: trimmed, and with entries that pass
        // every check on open (in order, after the first batch, inside the log) but would send reads to position 1
        // and give the segment a timestamp an hour ahead of every record. Recovery rebuilds them (without reading
        // them: LogSegmentTest.discardedIndexesAreNotReadAndRecoveryRebuildsThem).
        Files.write(LogSegment.file(dir, active.baseOffset(), LogSegment.INDEX_SUFFIX),
                java.nio.ByteBuffer.allocate(8).putInt(1).putInt(1).array());
        Files.write(LogSegment.file(dir, active.baseOffset(), LogSegment.TIME_INDEX_SUFFIX),
                java.nio.ByteBuffer.allocate(12).putLong(time.milliseconds() + 3_600_000).putInt(1).array());

        log = PartitionLog.open(dir, PARTITION, config, new LoadState(logStart, recoveryPoint, false),
                LogEnvironment.inline(time));

        assertEquals(written, readAll());
        assertEquals(activeLookups, lookups(log.segmentsSnapshot().get(4)));
        assertEquals(maxTimestampOffset, log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset);
    }

    /** The offset index's answer for every offset from the segment's base to the log end. */
    private List<OffsetIndex.OffsetPosition> lookups(LogSegment segment) {
        List<OffsetIndex.OffsetPosition> result = new ArrayList<>();
        for (long offset = segment.baseOffset(); offset < log.logEndOffset(); offset++) {
            result.add(segment.offsetIndex().lookup(offset));
        }
        return result;
    }

    @Test
    void restartTakesTheIndexesOfSegmentsThatAreNotActiveByTheirTrimmedLength() throws IOException {
        open(SMALL_SEGMENTS);
        fillSegments(5, new Random(18));
        long recoveryPoint = log.recoveryPoint();
        long logStart = log.logStartOffset();
        log.closeHandlers(); // a crash after the last roll: the active segment's indexes stay preallocated

        log = PartitionLog.open(dir, PARTITION, config, new LoadState(logStart, recoveryPoint, false),
                LogEnvironment.inline(time));
        assertEquals(written, readAll());
        assertIndexesOfClosedSegmentsAreTrimmedAndTheActiveOnesPreallocated();

        restartCleanly();
        assertEquals(written, readAll());
        assertIndexesOfClosedSegmentsAreTrimmedAndTheActiveOnesPreallocated();
    }

    private void assertIndexesOfClosedSegmentsAreTrimmedAndTheActiveOnesPreallocated() throws IOException {
        List<LogSegment> segments = log.segmentsSnapshot();
        for (LogSegment segment : segments.subList(0, segments.size() - 1)) {
            for (AbstractIndex index : List.<AbstractIndex>of(segment.offsetIndex(), segment.timeIndex())) {
                assertEquals(index.sizeInBytes(), Files.size(index.file()), index.file() + " is trimmed");
                assertEquals(index.entries(), index.maxEntries(), index.file() + " is mapped at its length");
            }
        }
        LogSegment active = segments.get(segments.size() - 1);
        int maxBytes = config.segmentIndexBytes;
        assertEquals(maxBytes / OffsetIndex.ENTRY_SIZE * OffsetIndex.ENTRY_SIZE,
                Files.size(active.offsetIndex().file()));
        assertEquals(maxBytes / TimeIndex.ENTRY_SIZE * TimeIndex.ENTRY_SIZE, Files.size(active.timeIndex().file()));
    }

    @Test
    void leaderEpochsAreRecordedStampedOnBatchesAndTruncatedWithTheLog() throws IOException {
        open(SMALL_SEGMENTS);
        append(3, time.milliseconds(), Compression.NONE, 0);
        append(2, time.milliseconds(), Compression.NONE, 0);
        append(2, time.milliseconds(), Compression.NONE, 2);
        append(1, time.milliseconds(), Compression.NONE, 5);
        append(2, time.milliseconds(), Compression.NONE, 5);

        List<EpochEntry> epochs = List.of(new EpochEntry(0, 0), new EpochEntry(2, 5), new EpochEntry(5, 7));
        assertEquals(epochs, log.leaderEpochCache().entries());
        assertEquals(List.of(0, 0, 2, 5, 5), TestRecords.batches(log.read(0, 100_000, Long.MAX_VALUE, false)
                .records()).stream().map(RecordBatch::partitionLeaderEpoch).toList());

        restartCleanly();
        assertEquals(epochs, log.leaderEpochCache().entries());
        restartAfterCrash();
        assertEquals(epochs, log.leaderEpochCache().entries());

        log.truncateTo(7);
        assertEquals(epochs.subList(0, 2), log.leaderEpochCache().entries());
        restartAfterCrash();
        assertEquals(epochs.subList(0, 2), log.leaderEpochCache().entries());
        append(1, time.milliseconds(), Compression.NONE, 6);
        assertEquals(List.of(epochs.get(0), epochs.get(1), new EpochEntry(6, 7)), log.leaderEpochCache().entries());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Idempotent producers

    private MemoryRecords idempotentBatch(int firstSequence, int count) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, PRODUCER, (short) 0, firstSequence,
                simpleRecords(firstSequence, count, time.milliseconds()));
    }

    /** Appends batches of 2 records from {@code firstSequence} on; returns the infos, by first sequence / 2. */
    private List<LogAppendInfo> appendIdempotent(int firstSequence, int batches) {
        List<LogAppendInfo> infos = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            LogAppendInfo info = log.appendAsLeader(idempotentBatch(firstSequence + 2 * i, 2), 0);
            assertFalse(info.duplicate());
            infos.add(info);
        }
        return infos;
    }

    private void assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(int firstSequence, LogAppendInfo original,
                                                                        String when) throws IOException {
        long logEnd = log.logEndOffset();
        byte[] files = segmentFileBytes();

        LogAppendInfo retry = log.appendAsLeader(idempotentBatch(firstSequence, 2), 0);

        assertTrue(retry.duplicate(), when);
        assertEquals(original.firstOffset(), retry.firstOffset(), when);
        assertEquals(original.lastOffset(), retry.lastOffset(), when);
        assertEquals(0, retry.recordCount(), when);
        assertEquals(logEnd, log.logEndOffset(), when);
        assertArrayEquals(files, segmentFileBytes(), when);
    }

    private void assertSequenceGapIsRefused(int firstSequence, String when) throws IOException {
        long logEnd = log.logEndOffset();
        byte[] files = segmentFileBytes();

        assertThrows(OutOfOrderSequenceException.class, () -> log.appendAsLeader(idempotentBatch(firstSequence, 1), 0),
                when);

        assertEquals(logEnd, log.logEndOffset(), when);
        assertArrayEquals(files, segmentFileBytes(), when);
    }

    @Test
    void idempotentRetriesAndSequenceGapsAreDetectedBeforeAndAfterCleanAndCrashRestarts() throws IOException {
        open(config(LogConfig.SEGMENT_BYTES, 400));
        List<LogAppendInfo> infos = new ArrayList<>(appendIdempotent(0, 12));
        assertTrue(log.numberOfSegments() > 3, "rolls write producer snapshots");

        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(22, infos.get(11), "newest batch");
        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(14, infos.get(7), "fifth newest batch");
        assertSequenceGapIsRefused(30, "gap");
        assertSequenceGapIsRefused(12, "sixth newest batch is no longer remembered");

        restartCleanly();
        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(22, infos.get(11), "after a clean restart");
        assertSequenceGapIsRefused(30, "gap after a clean restart");
        infos.addAll(appendIdempotent(24, 5));

        assertTrue(snapshotOffsets().stream().anyMatch(offset -> offset < log.logEndOffset()),
                "the crash restart loads a snapshot and replays the log after it: " + snapshotOffsets());
        restartAfterCrash();
        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(32, infos.get(16), "after a crash restart");
        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(26, infos.get(13), "after a crash restart");
        assertSequenceGapIsRefused(40, "gap after a crash restart");
        assertSequenceGapIsRefused(0, "old sequence after a crash restart");
        assertFalse(log.appendAsLeader(idempotentBatch(34, 2), 0).duplicate());
    }

    @Test
    void producerStateFollowsTruncation() throws IOException {
        open(config(LogConfig.SEGMENT_BYTES, 400));
        List<LogAppendInfo> infos = appendIdempotent(0, 6);

        log.truncateTo(infos.get(4).firstOffset());

        assertFalse(log.appendAsLeader(idempotentBatch(8, 2), 0).duplicate(),
                "sequence 8 follows the last batch left in the log");
        assertRetryIsAnsweredWithTheOriginalOffsetsAndNotWritten(6, infos.get(3), "after truncation");
    }

    private List<Long> snapshotOffsets() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".snapshot"))
                    .map(name -> Long.parseLong(name.substring(0, name.indexOf('.')))).sorted().toList();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Follower appends and small indexes

    @Test
    void followerAppendKeepsTheLeadersOffsetsAndLeavesOutATrailingPartialBatch() throws IOException {
        open(LogConfig.defaults());
        long now = time.milliseconds();
        MemoryRecords fetched = concat(batchAt(0, Compression.NONE, simpleRecords(0, 3, now)),
                batchAt(3, Compression.NONE, simpleRecords(3, 2, now)),
                batchAt(5, Compression.NONE, simpleRecords(5, 2, now)));
        MemoryRecords cut = MemoryRecords.readableRecords(fetched.buffer().duplicate()
                .limit(fetched.sizeInBytes() - 5).slice());

        LogAppendInfo info = log.appendAsFollower(cut);

        assertEquals(0, info.firstOffset());
        assertEquals(4, info.lastOffset());
        assertEquals(5, log.logEndOffset());
        assertEquals(5, decode(log.read(0, 100_000, Long.MAX_VALUE, false).records()).size());
        assertThrows(OffsetOutOfRangeException.class,
                () -> log.appendAsFollower(batchAt(4, Compression.NONE, simpleRecords(4, 1, now))));
    }

    @Test
    void logWithATinyIndexRollsWhenTheIndexIsFullAndKeepsEveryTimestamp() throws IOException {
        // 64 bytes: 8 offset index entries and 5 time index entries per segment.
        open(config(LogConfig.SEGMENT_INDEX_BYTES, 64, LogConfig.INDEX_INTERVAL_BYTES, 100));
        long now = time.milliseconds();
        List<MemoryRecords> fetched = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            fetched.add(batchAt(i, Compression.NONE, new SimpleRecord(now + i, utf8("key-" + i), utf8("value-" + i))));
            written.add(new Expected(i, now + i, "key-" + i, "value-" + i));
        }

        log.appendAsFollower(concat(fetched.toArray(MemoryRecords[]::new)));
        nextKey = 30;
        for (int i = 0; i < 40; i++) {
            append(1, now + 30 + i);
        }

        assertTrue(log.numberOfSegments() > 3, "segments: " + log.numberOfSegments());
        assertEquals(written, readAll());
        restartCleanly();
        assertEquals(Optional.of(29L), log.offsetForTimestamp(now + 29).map(hit -> hit.offset));
        assertEquals(69, log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset);
        for (int i = 0; i < 70; i += 3) {
            assertEquals(Optional.of((long) i), log.offsetForTimestamp(now + i).map(hit -> hit.offset));
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Resource errors: a real ENOSPC from /dev/full, which a file the log writes through a .tmp name is linked to.
    // The log deletes a .tmp it could not write, and with it the link: the space is back for the next attempt.

    /** Makes the next write of {@code tmpFile} in the log's directory fail with ENOSPC. */
    private Path diskFullFor(String tmpFile) throws IOException {
        return Files.createSymbolicLink(dir.resolve(tmpFile), Path.of("/dev/full"));
    }

    @Test
    void anAppendWhoseRollFindsTheDiskFullChangesNothingAndSucceedsOnceThereIsSpace() throws IOException {
        open(SMALL_SEGMENTS);
        append(3, time.milliseconds());
        List<Long> segmentsBefore = log.segmentBaseOffsets();
        // 100 records do not fit in what is left of a 1 KiB segment: the append rolls, and the roll writes the
        // producer snapshot at offset 3.
        Path full = diskFullFor(LogSegment.filenamePrefix(3) + ".snapshot.tmp");

        assertThrows(StorageResourceException.class, () -> append(100, time.milliseconds()));

        assertEquals(3, log.logEndOffset());
        assertEquals(segmentsBefore, log.segmentBaseOffsets(), "no half-made segment");
        assertEquals(written, readAll());
        assertFalse(Files.exists(full, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals(3, append(100, time.milliseconds()).firstOffset());
        assertEquals(written, readAll());
        restartAfterCrash();
        assertEquals(written, readAll(), "nothing torn for recovery to meet");
    }

    @Test
    void aTruncationThatFindsTheDiskFullSuspendsTheLogUntilItReloadsFromDisk() throws IOException {
        open(config());
        append(5, time.milliseconds(), Compression.NONE, 0);
        append(5, time.milliseconds(), Compression.NONE, 1);
        // Cutting epoch 1 rewrites the leader-epoch checkpoint after the segment was cut: half made.
        diskFullFor(LeaderEpochCache.CHECKPOINT_FILE_NAME + ".tmp");

        assertThrows(StorageResourceException.class, () -> log.truncateTo(5));

        assertTrue(log.isSuspended());
        assertThrows(StorageResourceException.class, () -> log.read(0, 1000, Long.MAX_VALUE, true));
        assertThrows(StorageResourceException.class, () -> log.appendAsLeader(
                MemoryRecords.withRecords(Compression.NONE, simpleRecords(100, 1, 0L)), 1));
        assertTrue(log.isSuspended(), "until the log manager's reload task runs");

        assertTrue(log.reloadIfSuspended());
        assertEquals(5, log.logEndOffset(), "the truncation made on disk stands");
        assertEquals(java.util.OptionalInt.of(0), log.leaderEpochCache().latestEpoch());
        written.removeIf(record -> record.offset() >= 5);
        assertEquals(written, readAll());
        assertEquals(5, append(2, time.milliseconds(), Compression.NONE, 2).firstOffset());
        assertEquals(written, readAll());
    }
}
