package io.tributary.broker.storage;

import static io.tributary.broker.storage.TestRecords.batchAt;
import static io.tributary.broker.storage.TestRecords.bytes;
import static io.tributary.broker.storage.TestRecords.concat;
import static io.tributary.broker.storage.TestRecords.decode;
import static io.tributary.broker.storage.TestRecords.simpleRecords;
import static io.tributary.broker.storage.TestRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import io.tributary.broker.storage.TestRecords.Expected;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSegmentTest {

    private static final long BASE = 100L;
    private static final long T0 = ManualTime.DEFAULT_START_MS;
    /** Byte offset of the attributes field in a v2 batch: CRC32C covers it and everything after it. */
    private static final int CRC_COVERED_FROM = 21;

    @TempDir
    Path dir;

    private final List<LogSegment> opened = new ArrayList<>();

    /** What the test appended, in order: each batch's bytes, position in the file and offsets. */
    private final List<Appended> appended = new ArrayList<>();
    private final List<Expected> expectedRecords = new ArrayList<>();
    private long nextOffset = BASE;
    private int nextPosition;

    private record Appended(byte[] bytes, int position, long baseOffset, long lastOffset) {
        boolean holds(long offset) {
            return baseOffset <= offset && offset <= lastOffset;
        }
    }

    @AfterEach
    void releaseFiles() {
        for (LogSegment segment : opened) {
            segment.closeHandlers();
        }
    }

    private static LogConfig config(Object... keysAndValues) {
        Map<String, Object> properties = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return LogConfig.parse(properties);
    }

    private LogSegment open(LogConfig config) throws IOException {
        LogSegment segment = LogSegment.open(dir, BASE, config, false, "");
        opened.add(segment);
        return segment;
    }

    /** Appends one batch of records with these timestamps at the next offsets. */
    private MemoryRecords append(LogSegment segment, Compression compression, long... timestamps) throws IOException {
        MemoryRecords batch = batch(compression, timestamps);
        segment.append(nextOffset + timestamps.length - 1, batch);
        remember(batch);
        return batch;
    }

    private MemoryRecords batch(Compression compression, long... timestamps) {
        SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            long offset = nextOffset + i;
            records[i] = new SimpleRecord(timestamps[i], utf8("key-" + offset), utf8("value-" + offset));
        }
        return batchAt(nextOffset, compression, records);
    }

    private void remember(MemoryRecords records) {
        for (RecordBatch batch : records.batches()) {
            byte[] batchBytes = TestRecords.bytes(batch);
            appended.add(new Appended(batchBytes, nextPosition, batch.baseOffset(), batch.lastOffset()));
            for (var record : batch) {
                expectedRecords.add(new Expected(record.offset(), record.timestamp(),
                        TestRecords.string(record.key()), TestRecords.string(record.value())));
            }
            nextPosition += batchBytes.length;
            nextOffset = batch.lastOffset() + 1;
        }
    }

    /** Appends {@code count} one-record batches with timestamps T0, T0 + 1, ... */
    private void appendBatches(LogSegment segment, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            append(segment, Compression.NONE, T0 + nextOffset - BASE);
        }
    }

    private Appended batchHolding(long offset) {
        return appended.stream().filter(batch -> batch.holds(offset)).findFirst().orElseThrow();
    }

    /** The bytes of every appended batch from the one at {@code index} on. */
    private byte[] bytesFrom(int index) {
        ByteBuffer buffer = ByteBuffer.allocate(nextPosition - appended.get(index).position());
        for (Appended batch : appended.subList(index, appended.size())) {
            buffer.put(batch.bytes());
        }
        return buffer.array();
    }

    @Test
    void readFromEveryOffsetReturnsTheBatchesFromTheOneHoldingItToTheEnd() throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 150));
        Random random = new Random(7);
        for (int i = 0; i < 30; i++) {
            long[] timestamps = new long[1 + random.nextInt(4)];
            Arrays.fill(timestamps, T0 + i);
            append(segment, i % 3 == 0 ? Compression.gzip().build() : Compression.NONE, timestamps);
        }

        for (long offset = BASE; offset < nextOffset; offset++) {
            LogReadInfo info = segment.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE, false);

            assertNotNull(info, "offset " + offset);
            assertEquals(offset, info.fetchOffset());
            assertArrayEquals(bytesFrom(appended.indexOf(batchHolding(offset))), bytes(info.records()),
                    "offset " + offset);
        }
        assertEquals(expectedRecords, decode(segment.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
    }

    /** Position of the first appended batch whose last offset is at least {@code offset}; the end if none. */
    private int expectedLimitPosition(long offset) {
        return appended.stream().filter(batch -> batch.lastOffset() >= offset).findFirst()
                .map(Appended::position).orElse(nextPosition);
    }

    @Test
    void limitPositionAndReadsAtTheTailAgreeWithTheFileBeforeAndAfterTruncationAndReopening() throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 150));
        for (int i = 0; i < 12; i++) {
            long[] timestamps = new long[1 + i % 3];
            Arrays.fill(timestamps, T0 + i);
            append(segment, Compression.NONE, timestamps);
        }
        // The last append is remembered; the answers must be the file's, whatever the offset.
        for (long offset = BASE - 1; offset <= nextOffset + 2; offset++) {
            assertEquals(expectedLimitPosition(offset), segment.limitPosition(offset), "offset " + offset);
        }
        Appended last = appended.get(appended.size() - 1);
        for (long offset = last.baseOffset(); offset <= last.lastOffset(); offset++) {
            assertArrayEquals(last.bytes(), bytes(segment.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE,
                    false).records()), "offset " + offset);
        }

        // Truncation removes the remembered batch: nothing of it may be found any more.
        Appended kept = appended.get(7);
        segment.truncateTo(kept.lastOffset() + 1);
        appended.subList(8, appended.size()).clear();
        nextPosition = kept.position() + kept.bytes().length;
        for (long offset = last.baseOffset(); offset <= last.lastOffset(); offset++) {
            assertNull(segment.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE, false), "offset " + offset);
        }
        for (long offset = BASE; offset <= last.lastOffset() + 1; offset++) {
            assertEquals(expectedLimitPosition(offset), segment.limitPosition(offset), "offset " + offset);
        }

        // An append after the truncation is remembered again, at its new position.
        nextOffset = kept.lastOffset() + 1;
        append(segment, Compression.NONE, T0 + 20, T0 + 21);
        Appended after = appended.get(appended.size() - 1);
        assertEquals(nextPosition - after.bytes().length, after.position());
        assertArrayEquals(after.bytes(), bytes(segment.read(after.lastOffset(), Integer.MAX_VALUE, Long.MAX_VALUE,
                false).records()));
        assertEquals(after.position(), segment.limitPosition(after.baseOffset()));
        assertEquals(nextPosition, segment.limitPosition(after.lastOffset() + 1));
    }

    @Test
    void readPastTheLastOffsetFindsNothing() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        assertNull(segment.read(BASE, 1000, Long.MAX_VALUE, true), "empty segment");
        appendBatches(segment, 3);

        assertNull(segment.read(nextOffset, 1000, Long.MAX_VALUE, true));
        assertEquals(nextOffset, segment.readNextOffset());
    }

    @Test
    void readReturnsAtMostMaxSizeBytesEndingInsideABatchButNeverPartOfTheFirstBatchAlone() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        appendBatches(segment, 5);
        int first = appended.get(0).bytes().length;
        int second = appended.get(1).bytes().length;

        LogReadInfo twoAndABit = segment.read(BASE, first + second + 7, Long.MAX_VALUE, false);
        assertArrayEquals(Arrays.copyOf(bytesFrom(0), first + second + 7), bytes(twoAndABit.records()));
        assertEquals(expectedRecords.subList(0, 2), decode(twoAndABit.records()));

        // Only part of the first batch would make the Java consumer fail ("no complete records were found").
        LogReadInfo tooSmall = segment.read(BASE, first - 1, Long.MAX_VALUE, false);
        assertEquals(0, tooSmall.records().sizeInBytes());
    }

    @Test
    void readWithMinOneBatchReturnsTheWholeFirstBatchWhenMaxSizeIsSmaller() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        append(segment, Compression.NONE, T0, T0, T0, T0);
        append(segment, Compression.NONE, T0);

        LogReadInfo info = segment.read(BASE + 2, 1, Long.MAX_VALUE, true);

        assertArrayEquals(appended.get(0).bytes(), bytes(info.records()));
        assertArrayEquals(appended.get(0).bytes(), bytes(segment.read(BASE + 2, 0, Long.MAX_VALUE, true).records()));
        assertEquals(0, segment.read(BASE, 0, Long.MAX_VALUE, false).records().sizeInBytes());
    }

    @Test
    void readNeverGoesPastMaxPosition() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        appendBatches(segment, 4);
        int third = appended.get(2).position();

        LogReadInfo info = segment.read(BASE, Integer.MAX_VALUE, third, true);
        assertArrayEquals(Arrays.copyOf(bytesFrom(0), third), bytes(info.records()));

        LogReadInfo atLimit = segment.read(BASE + 2, Integer.MAX_VALUE, third, true);
        assertEquals(0, atLimit.records().sizeInBytes(), "minOneBatch does not lift the position limit");
    }

    @Test
    void offsetIndexGetsAnEntryOnceIndexIntervalBytesHavePassedSinceTheLast() throws IOException {
        int interval = 250;
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, interval));
        appendBatches(segment, 40);

        int expectedEntries = 0;
        int sinceLastEntry = 0;
        for (Appended batch : appended) {
            if (sinceLastEntry > interval) {
                expectedEntries++;
                assertEquals(new OffsetIndex.OffsetPosition(batch.lastOffset(), batch.position()),
                        segment.offsetIndex().lookup(batch.lastOffset()));
                sinceLastEntry = 0;
            }
            sinceLastEntry += batch.bytes().length;
        }
        assertTrue(expectedEntries >= 5, "the test should make several entries, made " + expectedEntries);
        assertEquals(expectedEntries, segment.offsetIndex().entries());
        for (Appended batch : appended) {
            int indexed = segment.offsetIndex().lookup(batch.baseOffset()).position();
            assertTrue(indexed <= batch.position() && batch.position() - indexed <= interval + batch.bytes().length,
                    "lookup of " + batch.baseOffset() + " gave position " + indexed + " for a batch at "
                            + batch.position());
        }
    }

    @Test
    void findOffsetByTimestampReturnsTheFirstRecordAtOrAfterTheTimestampWhenTimestampsAreOutOfOrder()
            throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 100));
        Random random = new Random(42);
        for (int i = 0; i < 60; i++) {
            long[] timestamps = new long[1 + random.nextInt(5)];
            for (int r = 0; r < timestamps.length; r++) {
                timestamps[r] = T0 + random.nextInt(1000);
            }
            append(segment, i % 4 == 0 ? Compression.lz4().build() : Compression.NONE, timestamps);
        }
        assertTrue(segment.timeIndex().entries() > 3, "the time index should be used");

        for (long startingOffset : new long[] {BASE, BASE + 37, BASE + 150}) {
            for (long target = T0 - 3; target <= T0 + 1003; target += 3) {
                assertEquals(expectedFirstAtOrAfter(target, startingOffset),
                        segment.findOffsetByTimestamp(target, startingOffset).map(hit -> hit.offset),
                        "timestamp " + target + " from offset " + startingOffset);
            }
        }
    }

    private Optional<Long> expectedFirstAtOrAfter(long timestamp, long startingOffset) {
        return expectedRecords.stream()
                .filter(record -> record.timestamp() >= timestamp && record.offset() >= startingOffset)
                .map(Expected::offset)
                .findFirst();
    }

    @Test
    void findOffsetByTimestampLooksIntoACompressedBatchOfLargeRecords() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        append(segment, Compression.NONE, T0);
        byte[] large = new byte[64 * 1024];
        new Random(3).nextBytes(large);
        MemoryRecords batch = batchAt(nextOffset, Compression.gzip().build(),
                new SimpleRecord(T0 + 10, utf8("big-1"), large), new SimpleRecord(T0 + 20, utf8("big-2"), large));
        segment.append(nextOffset + 1, batch);
        remember(batch);

        Optional<TimestampAndOffset> hit = segment.findOffsetByTimestamp(T0 + 15, BASE);

        assertEquals(Optional.of(BASE + 2), hit.map(found -> found.offset));
        assertEquals(Optional.of(T0 + 20), hit.map(found -> found.timestamp));
    }

    @Test
    void truncateToRemovesTheWholeBatchHoldingTheOffsetAndEverythingAfterIt() throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 100));
        for (int i = 0; i < 20; i++) {
            append(segment, Compression.NONE, T0 + 3 * i, T0 + 3 * i + 1, T0 + 3 * i + 2);
        }
        Appended cut = appended.get(12);

        int removed = segment.truncateTo(cut.baseOffset() + 1);

        assertEquals(nextPosition - cut.position(), removed);
        assertEquals(cut.position(), segment.size());
        assertEquals(cut.baseOffset(), segment.readNextOffset());
        assertNull(segment.read(cut.baseOffset(), 1000, Long.MAX_VALUE, true));
        assertTrue(segment.offsetIndex().lastOffset() < cut.baseOffset());
        assertTrue(segment.timeIndex().lastEntry().offset() < cut.baseOffset());
        assertEquals(T0 + 3 * 11 + 2, segment.maxTimestampSoFar());
        assertEquals(Optional.empty(), segment.findOffsetByTimestamp(T0 + 3 * 12, BASE));

        appended.subList(12, appended.size()).clear();
        expectedRecords.removeIf(record -> record.offset() >= cut.baseOffset());
        nextOffset = cut.baseOffset();
        nextPosition = cut.position();
        for (int i = 0; i < 5; i++) {
            append(segment, Compression.NONE, T0 + 500 + i);
        }
        assertEquals(expectedRecords, decode(segment.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
        assertEquals(Optional.of(cut.baseOffset()), segment.findOffsetByTimestamp(T0 + 400, BASE)
                .map(hit -> hit.offset));
    }

    @Test
    void truncateToAtTheBaseOffsetEmptiesTheSegment() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        appendBatches(segment, 3);

        segment.truncateTo(BASE);

        assertEquals(0, segment.size());
        assertEquals(BASE, segment.readNextOffset());
        assertEquals(RecordBatch.NO_TIMESTAMP, segment.maxTimestampSoFar());
    }

    @Test
    void recoverCutsTheFileAtTheFirstBatchWithABadCrc() throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 100));
        appendBatches(segment, 20);
        Appended damaged = appended.get(13);
        flipByte(segment.records().file().toPath(), damaged.position() + CRC_COVERED_FROM + 5);
        List<Long> seen = new ArrayList<>();

        int cut = segment.recover(batch -> seen.add(batch.baseOffset()));

        assertEquals(nextPosition - damaged.position(), cut);
        assertEquals(damaged.position(), segment.size());
        assertEquals(damaged.position(), Files.size(segment.records().file().toPath()));
        assertEquals(appended.subList(0, 13).stream().map(Appended::baseOffset).toList(), seen);
        assertEquals(damaged.baseOffset(), segment.readNextOffset());
        assertArrayEquals(Arrays.copyOf(bytesFrom(0), damaged.position()),
                bytes(segment.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
        assertTrue(segment.offsetIndex().lastOffset() < damaged.baseOffset());
        assertEquals(T0 + 12, segment.maxTimestampSoFar());
    }

    @Test
    void recoverCutsATornBatchAtTheTail() throws IOException {
        LogSegment segment = open(LogConfig.defaults());
        appendBatches(segment, 5);
        Appended last = appended.get(4);
        try (FileChannel channel = FileChannel.open(segment.records().file().toPath(), StandardOpenOption.WRITE)) {
            channel.truncate(last.position() + last.bytes().length - 3);
        }
        segment.closeHandlers();
        LogSegment reopened = open(LogConfig.defaults());

        int cut = reopened.recover(batch -> { });

        assertEquals(last.bytes().length - 3, cut);
        assertEquals(last.baseOffset(), reopened.readNextOffset());
        assertEquals(expectedRecords.subList(0, 4),
                decode(reopened.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
    }

    @Test
    void recoverOfAnIntactSegmentCutsNothingAndRebuildsTheSameIndexes() throws IOException {
        LogSegment segment = open(config(LogConfig.INDEX_INTERVAL_BYTES, 100));
        appendBatches(segment, 30);
        List<OffsetIndex.OffsetPosition> lookups = lookups(segment);

        assertEquals(0, segment.recover(batch -> { }));

        assertEquals(lookups, lookups(segment));
        assertEquals(T0 + 29, segment.maxTimestampSoFar());
        assertEquals(new TimeIndex.TimestampOffset(T0 + 29, BASE + 29), segment.timeIndex().lastEntry());
    }

    @Test
    void missingOffsetIndexIsRebuiltFromTheLogWhenTheSegmentIsOpened() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        List<OffsetIndex.OffsetPosition> lookups = lookups(segment);
        segment.close();
        Files.delete(LogSegment.file(dir, BASE, LogSegment.INDEX_SUFFIX));

        LogSegment reopened = open(config);

        assertTrue(reopened.offsetIndex().entries() > 3);
        assertEquals(lookups, lookups(reopened));
        assertEquals(expectedRecords, decode(reopened.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
    }

    @Test
    void missingTimeIndexIsRebuiltFromTheLogWhenTheSegmentIsOpened() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        segment.close();
        Files.delete(LogSegment.file(dir, BASE, LogSegment.TIME_INDEX_SUFFIX));

        LogSegment reopened = open(config);

        assertTimeIndexOfThirtyBatches(reopened);
    }

    @Test
    void corruptOffsetIndexIsRebuiltFromTheLogWhenTheSegmentIsOpened() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        List<OffsetIndex.OffsetPosition> lookups = lookups(segment);
        segment.close();
        Path index = LogSegment.file(dir, BASE, LogSegment.INDEX_SUFFIX);
        ByteBuffer outOfOrder = ByteBuffer.allocate(16).putInt(9).putInt(900).putInt(4).putInt(400);
        Files.write(index, outOfOrder.array());

        LogSegment reopened = open(config);

        assertEquals(lookups, lookups(reopened));
    }

    @Test
    void corruptTimeIndexIsRebuiltFromTheLogWhenTheSegmentIsOpened() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        segment.close();
        ByteBuffer goingBack = ByteBuffer.allocate(24).putLong(T0 + 20).putInt(20).putLong(T0 + 10).putInt(25);
        Files.write(LogSegment.file(dir, BASE, LogSegment.TIME_INDEX_SUFFIX), goingBack.array());

        LogSegment reopened = open(config);

        assertTimeIndexOfThirtyBatches(reopened);
    }

    @Test
    void preallocatedIndexesOfASegmentThatIsNotActiveAreRebuiltFromTheLogAndTrimmed() throws IOException {
        // segment.index.bytes at its default, 10 MiB: the files are as a crash (or a power loss that undid the trim
        // at roll) leaves them, 10 MiB long with 7 and 8 entries at the start.
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        List<OffsetIndex.OffsetPosition> lookups = lookups(segment);
        int offsetEntries = segment.offsetIndex().entries();
        segment.flush();
        segment.closeHandlers();
        Path index = LogSegment.file(dir, BASE, LogSegment.INDEX_SUFFIX);
        Path timeIndex = LogSegment.file(dir, BASE, LogSegment.TIME_INDEX_SUFFIX);
        assertEquals(LogConfig.defaults().segmentIndexBytes, Files.size(index));

        LogSegment reopened = open(config);

        assertEquals(offsetEntries, reopened.offsetIndex().entries(), "the entries of the log, not 10 MiB / 8");
        assertEquals(lookups, lookups(reopened));
        assertEquals((long) offsetEntries * OffsetIndex.ENTRY_SIZE, Files.size(index), "trimmed");
        assertEquals((long) reopened.timeIndex().entries() * TimeIndex.ENTRY_SIZE, Files.size(timeIndex), "trimmed");
        assertEquals(new TimeIndex.TimestampOffset(T0 + 29, BASE + 29), reopened.timeIndex().lastEntry());
    }

    @Test
    void discardedIndexesAreNotReadAndRecoveryRebuildsThem() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        List<OffsetIndex.OffsetPosition> lookups = lookups(segment);
        segment.close();
        // Entries that pass every check on open (in order, after the first batch, inside the log) but are wrong.
        Files.write(LogSegment.file(dir, BASE, LogSegment.INDEX_SUFFIX),
                ByteBuffer.allocate(16).putInt(1).putInt(1).putInt(2).putInt(7).array());
        Files.write(LogSegment.file(dir, BASE, LogSegment.TIME_INDEX_SUFFIX),
                ByteBuffer.allocate(12).putLong(T0 + 1_000_000).putInt(1).array());

        LogSegment discarded = LogSegment.open(dir, BASE, config, false, "", LogSegment.Indexes.DISCARD);
        opened.add(discarded);

        assertEquals(0, discarded.offsetIndex().entries());
        assertEquals(0, discarded.timeIndex().entries());
        assertEquals(0, discarded.recover(batch -> { }));
        assertEquals(lookups, lookups(discarded));
        assertEquals(T0 + 29, discarded.maxTimestampSoFar());
        assertEquals(expectedRecords, decode(discarded.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
    }

    @Test
    void indexPointingPastTheEndOfTheLogIsRebuiltWhenTheSegmentIsOpened() throws IOException {
        LogConfig config = config(LogConfig.INDEX_INTERVAL_BYTES, 100);
        LogSegment segment = open(config);
        appendBatches(segment, 30);
        int lastIndexed = segment.offsetIndex().lastPosition();
        segment.close();
        try (FileChannel channel = FileChannel.open(LogSegment.file(dir, BASE, LogSegment.LOG_SUFFIX),
                StandardOpenOption.WRITE)) {
            channel.truncate(lastIndexed);
        }
        Appended firstLost = appended.stream().filter(batch -> batch.position() == lastIndexed).findFirst()
                .orElseThrow();

        LogSegment reopened = open(config);

        assertTrue(reopened.offsetIndex().lastPosition() < lastIndexed);
        assertEquals(firstLost.baseOffset(), reopened.readNextOffset());
        expectedRecords.removeIf(record -> record.offset() >= firstLost.baseOffset());
        assertEquals(expectedRecords, decode(reopened.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
    }

    @Test
    void reopenedSegmentKeepsItsLargestTimestampAndAgeForSegmentMs() throws IOException {
        LogConfig config = config(LogConfig.SEGMENT_MS, 1000L);
        LogSegment segment = open(config);
        append(segment, Compression.NONE, T0 + 5);
        append(segment, Compression.NONE, T0 + 300);
        append(segment, Compression.NONE, T0 + 100);
        assertTrue(segment.shouldRoll(100, T0 + 1006, nextOffset, config), "first batch at T0 + 5");
        segment.close();

        LogSegment reopened = open(config);
        reopened.onBecomeActive(); // as the log does for its last segment

        assertEquals(T0 + 300, reopened.maxTimestampSoFar());
        assertEquals(T0 + 300, reopened.largestTimestamp());
        assertFalse(reopened.shouldRoll(100, T0 + 1005, nextOffset, config));
        assertTrue(reopened.shouldRoll(100, T0 + 1006, nextOffset, config),
                "segment.ms is measured from the first batch, also after a restart");
        assertTrue(reopened.olderThan(T0 + 1006, 1000));
    }

    @Test
    void oneAppendOfMoreBatchesThanTheIndexHasRoomForIsStoredWhole() throws IOException {
        // 64 bytes: 8 offset entries, 5 time entries; an entry for every batch is wanted.
        LogConfig config = config(LogConfig.SEGMENT_INDEX_BYTES, 64, LogConfig.INDEX_INTERVAL_BYTES, 0);
        LogSegment segment = open(config);
        List<MemoryRecords> batches = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            MemoryRecords batch = batch(Compression.NONE, T0 + i);
            batches.add(batch);
            remember(batch);
        }

        segment.append(nextOffset - 1, concat(batches.toArray(MemoryRecords[]::new)));

        assertTrue(segment.offsetIndex().isFull() || segment.timeIndex().isFull());
        assertEquals(expectedRecords, decode(segment.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
        assertEquals(0, segment.recover(batch -> { }), "recovery skips the entries it has no room for too");
        assertEquals(expectedRecords, decode(segment.read(BASE, Integer.MAX_VALUE, Long.MAX_VALUE, false).records()));
        segment.onBecomeInactive();
        assertEquals(new TimeIndex.TimestampOffset(T0 + 19, BASE + 19), segment.timeIndex().lastEntry());
    }

    /** The time index and timestamps of a segment holding {@code appendBatches(segment, 30)}, rebuilt from the log. */
    private static void assertTimeIndexOfThirtyBatches(LogSegment reopened) {
        assertEquals(T0 + 29, reopened.maxTimestampSoFar());
        assertEquals(new TimeIndex.TimestampOffset(T0 + 29, BASE + 29), reopened.timeIndex().lastEntry());
        assertEquals(Optional.of(BASE + 17), reopened.findOffsetByTimestamp(T0 + 17, BASE).map(hit -> hit.offset));
    }

    private List<OffsetIndex.OffsetPosition> lookups(LogSegment segment) {
        List<OffsetIndex.OffsetPosition> result = new ArrayList<>();
        for (long offset = BASE; offset < nextOffset; offset++) {
            result.add(segment.offsetIndex().lookup(offset));
        }
        return result;
    }

    static void flipByte(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, position);
        }
    }
}
