package io.tributary.broker.storage;

import static io.tributary.broker.storage.LogContents.latestValues;
import static io.tributary.broker.storage.LogContents.readAll;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.tributary.broker.storage.LogContents.LogRecord;
import io.tributary.testsupport.Waits;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class LogCleanerTest {

    private static final TopicPartition PARTITION = new TopicPartition("accounts", 0);
    private static final double UNLIMITED_IO = Double.MAX_VALUE;

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path tmp;

    private final ManualTime time = new ManualTime();
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void closeLogs() {
        for (PartitionLog partitionLog : opened) {
            partitionLog.closeHandlers();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The acceptance test: a random workload against a reference model

    static LongStream seeds() {
        return LongStream.range(0, 50);
    }

    /**
     * Random puts and deletes over a small key space, in batches of one to six records (some compressed), on a log
     * with small segments, with cleaning passes between appends. After every pass the log must read exactly as the
     * model says: below the end of the cleaned part, for each key only its latest write (a tombstone until
     * {@code delete.retention.ms} has passed since the pass that first kept it), at its original offset; above it,
     * every record as appended and the segment files byte for byte as they were.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void compactionAgreesWithAReferenceModelOverARandomWorkload(long seed) throws IOException {
        Random random = new Random(seed);
        int keySpace = 4 + random.nextInt(30);
        long deleteRetentionMs = new long[] {0L, 2_000L, 20_000L}[random.nextInt(3)];
        long minCompactionLagMs = random.nextInt(3) == 0 ? 3_000L : 0L;
        LogConfig config = compactedConfig(Map.of(
                LogConfig.SEGMENT_BYTES, String.valueOf(new int[] {400, 700, 1500}[random.nextInt(3)]),
                LogConfig.INDEX_INTERVAL_BYTES, String.valueOf(new int[] {0, 100, 4096}[random.nextInt(3)]),
                LogConfig.DELETE_RETENTION_MS, String.valueOf(deleteRetentionMs),
                LogConfig.MIN_COMPACTION_LAG_MS, String.valueOf(minCompactionLagMs)));
        // Small read buffers make a pass work through a segment in several chunks and grow for big batches.
        int readBufferSize = new int[] {128, 300, 1024, 64 * 1024}[random.nextInt(4)];
        Path dir = tmp.resolve(PartitionDirName.of(PARTITION));
        PartitionLog partitionLog = open(dir, config, LoadState.UNKNOWN);
        LogCleaner cleaner = cleaner(UNLIMITED_IO, 1024 * 1024, readBufferSize, partitionLog);
        ReferenceModel model = new ReferenceModel(deleteRetentionMs, minCompactionLagMs, config
                + ", read buffer " + readBufferSize);

        for (int round = 0; round < 30; round++) {
            int batches = 1 + random.nextInt(6);
            for (int i = 0; i < batches; i++) {
                model.appendRandomBatch(partitionLog, random, keySpace);
                time.advance(random.nextInt(400));
            }
            if (random.nextInt(10) < 6) {
                // Now and then replication lags: the high watermark somewhere in the log instead of at its end.
                long start = partitionLog.logStartOffset();
                long end = partitionLog.logEndOffset();
                long highWatermark = random.nextInt(4) == 0 ? start + (long) (random.nextDouble() * (end - start)) : end;
                model.cleanAndCheck(partitionLog, cleaner, highWatermark);
            }
            if (random.nextInt(8) == 0) {
                time.advance(deleteRetentionMs + minCompactionLagMs + 1);
            }
        }
        // Let every tombstone expire and every segment age, then clean what is left twice: the first pass may be
        // the one that first sees the last tombstones.
        partitionLog.roll();
        for (int i = 0; i < 2; i++) {
            time.advance(deleteRetentionMs + minCompactionLagMs + 1);
            model.cleanAndCheck(partitionLog, cleaner, partitionLog.logEndOffset());
        }
        assertEquals(model.latestValues(), latestValues(readAll(partitionLog)),
                "key -> latest value read from the log differs from the reference model");

        List<LogRecord> beforeRestart = readAll(partitionLog);
        partitionLog.close();
        partitionLog = open(dir, config, new LoadState(partitionLog.logStartOffset(),
                partitionLog.recoveryPoint(), true));
        assertEquals(beforeRestart, readAll(partitionLog), "after a clean close and reopen");
        partitionLog.closeHandlers();
        partitionLog = open(dir, config, LoadState.UNKNOWN);
        assertEquals(beforeRestart, readAll(partitionLog), "after a crash and full recovery");
    }

    /**
     * What the log must hold, derived from the appends alone: every record written (offset, key, value, timestamp),
     * where the cleaned part ends, and the delete horizon a pass gave each tombstone it kept.
     */
    private final class ReferenceModel {
        private final long deleteRetentionMs;
        private final long minCompactionLagMs;
        private final String description;
        private final TreeMap<Long, LogRecord> written = new TreeMap<>();
        private final Map<Long, Long> deleteHorizons = new HashMap<>();
        private long cleanedEnd;
        private int sequence;

        ReferenceModel(long deleteRetentionMs, long minCompactionLagMs, String description) {
            this.description = description;
            this.deleteRetentionMs = deleteRetentionMs;
            this.minCompactionLagMs = minCompactionLagMs;
        }

        void appendRandomBatch(PartitionLog partitionLog, Random random, int keySpace) {
            int count = 1 + random.nextInt(6);
            long timestamp = time.milliseconds();
            List<LogRecord> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String key = "key-" + random.nextInt(keySpace);
                String value = random.nextInt(5) == 0 ? null
                        : "value-" + sequence++ + "-" + "x".repeat(random.nextInt(40));
                batch.add(new LogRecord(-1, key, value, timestamp));
            }
            Compression compression = switch (random.nextInt(5)) {
                case 0 -> Compression.gzip().build();
                case 1 -> Compression.lz4().build();
                default -> Compression.NONE;
            };
            long first = partitionLog.appendAsLeader(records(compression, batch), 0).firstOffset();
            for (int i = 0; i < count; i++) {
                LogRecord record = batch.get(i);
                written.put(first + i, new LogRecord(first + i, record.key(), record.value(), timestamp));
            }
        }

        void cleanAndCheck(PartitionLog partitionLog, LogCleaner cleaner, long highWatermark) throws IOException {
            partitionLog.updateHighWatermark(highWatermark);
            long now = time.milliseconds();
            long end = cleanableEnd(partitionLog, now);
            boolean passCleans = end > cleanedEnd;
            // The dirty part and the active segment; a pass with nothing dirty may still drop expired tombstones.
            long untouchedFrom = Math.max(end, cleanedEnd);
            Map<Long, byte[]> untouched = segmentFiles(partitionLog, untouchedFrom);
            long logStart = partitionLog.logStartOffset();
            long logEnd = partitionLog.logEndOffset();

            cleaner.clean(partitionLog);

            Set<Long> keptFirstTime = Set.of();
            if (passCleans) {
                cleanedEnd = end;
                keptFirstTime = stampNewTombstones(now);
            }
            assertEquals(logStart, partitionLog.logStartOffset(), "log start offset");
            assertEquals(logEnd, partitionLog.logEndOffset(), "log end offset");
            Map<Long, byte[]> after = segmentFiles(partitionLog, untouchedFrom);
            assertEquals(untouched.keySet(), after.keySet(), "segments at or above the cleaned part");
            for (Map.Entry<Long, byte[]> segment : untouched.entrySet()) {
                assertArrayEquals(segment.getValue(), after.get(segment.getKey()),
                        "segment " + segment.getKey() + " (dirty or active) was modified");
            }
            List<LogRecord> read = readAll(partitionLog);
            assertStrictlyIncreasingOffsets(read);
            assertSameRecords(expectedRecords(now, keptFirstTime), read, "after cleaning up to offset " + cleanedEnd
                    + " at " + now + " with " + description);
            assertEquals(latestValues(), LogContents.latestValues(read));
        }

        /** Where a pass stops: the active segment, a segment younger than the lag, or the high watermark's segment. */
        private long cleanableEnd(PartitionLog partitionLog, long now) {
            List<Long> bases = partitionLog.segmentBaseOffsets();
            long watermarkSegment = bases.get(0);
            for (long base : bases) {
                if (base <= partitionLog.highWatermark()) {
                    watermarkSegment = base;
                }
            }
            long end = Math.min(bases.get(bases.size() - 1), watermarkSegment);
            if (minCompactionLagMs > 0) {
                for (int i = 0; i < bases.size(); i++) {
                    long base = bases.get(i);
                    long next = i + 1 < bases.size() ? bases.get(i + 1) : Long.MAX_VALUE;
                    long maxTimestamp = written.subMap(base, next).values().stream()
                            .mapToLong(LogRecord::timestamp).max().orElse(RecordBatch.NO_TIMESTAMP);
                    if (base >= cleanedEnd && now - maxTimestamp < minCompactionLagMs) {
                        return Math.min(end, base);
                    }
                }
            }
            return end;
        }

        /**
         * A pass keeps a newest tombstone it has not kept before, whatever the retention, and stamps its batch with
         * now + retention.
         *
         * @return the offsets of those tombstones
         */
        private Set<Long> stampNewTombstones(long now) {
            Set<Long> stamped = new HashSet<>();
            for (LogRecord latest : latestWritesBelow(cleanedEnd).values()) {
                if (latest.value() == null
                        && deleteHorizons.putIfAbsent(latest.offset(), now + deleteRetentionMs) == null) {
                    stamped.add(latest.offset());
                }
            }
            return stamped;
        }

        private Map<String, LogRecord> latestWritesBelow(long end) {
            Map<String, LogRecord> latest = new HashMap<>();
            for (LogRecord record : written.headMap(end).values()) {
                latest.put(record.key(), record);
            }
            return latest;
        }

        private List<LogRecord> expectedRecords(long now, Set<Long> keptFirstTime) {
            Map<String, LogRecord> latest = latestWritesBelow(cleanedEnd);
            List<LogRecord> expected = new ArrayList<>();
            for (LogRecord record : written.values()) {
                boolean cleaned = record.offset() < cleanedEnd;
                boolean kept = !cleaned || latest.get(record.key()) == record
                        && (record.value() != null || keptFirstTime.contains(record.offset())
                                || now < deleteHorizons.get(record.offset()));
                if (kept) {
                    expected.add(record);
                }
            }
            return expected;
        }

        Map<String, String> latestValues() {
            return LogContents.latestValues(new ArrayList<>(written.values()));
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Focused behaviour

    @Test
    void onlyTheLatestValueOfEachKeyRemainsBelowTheActiveSegmentAtItsOriginalOffset() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        append(partitionLog, "a", "1", "b", "1");
        append(partitionLog, "a", "2");
        partitionLog.roll();
        append(partitionLog, "b", "2", "c", "1");
        partitionLog.roll();
        append(partitionLog, "a", "3"); // active segment: never cleaned
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());

        cleaner(partitionLog).clean(partitionLog);

        assertEquals(List.of(new LogRecord(2, "a", "2", time.milliseconds()),
                new LogRecord(3, "b", "2", time.milliseconds()),
                new LogRecord(4, "c", "1", time.milliseconds()),
                new LogRecord(5, "a", "3", time.milliseconds())), readAll(partitionLog));
    }

    @Test
    void tombstoneStaysForDeleteRetentionAfterThePassThatFirstKeptItThenGoes() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.DELETE_RETENTION_MS, "10000")));
        append(partitionLog, "a", "1", "b", "1");
        append(partitionLog, "a", null);
        partitionLog.roll();
        append(partitionLog, "c", "1");
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = cleaner(partitionLog);

        time.advance(60_000); // the tombstone's age before the first pass does not count
        cleaner.clean(partitionLog);
        assertEquals(List.of("b", "a", "c"), keys(readAll(partitionLog)), "tombstone kept by the first pass");
        time.advance(9_999);
        appendRollAndClean(partitionLog, cleaner, "d");
        assertEquals(List.of("b", "a", "c", "d"), keys(readAll(partitionLog)), "1 ms before the horizon");
        time.advance(1);
        appendRollAndClean(partitionLog, cleaner, "e");
        assertEquals(List.of("b", "c", "d", "e"), keys(readAll(partitionLog)), "at the horizon");
        assertEquals(Map.of("b", "1", "c", "1", "d", "1", "e", "1"), latestValues(readAll(partitionLog)));
    }

    @Test
    void segmentYoungerThanMinCompactionLagIsNotCleanedUntilItIsOldEnough() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.MIN_COMPACTION_LAG_MS, "5000")));
        append(partitionLog, "a", "1");
        partitionLog.roll();
        time.advance(4_000);
        append(partitionLog, "a", "2");
        partitionLog.roll();
        append(partitionLog, "a", "3");
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = cleaner(partitionLog);

        time.advance(1_500); // segment 0 is 5.5 s old, segment 1 is 1.5 s old
        cleaner.clean(partitionLog);
        assertEquals(List.of("1", "2", "3"), values(readAll(partitionLog)),
                "a young segment stops the pass, so its records cannot remove older ones");
        time.advance(3_500);
        cleaner.clean(partitionLog);
        assertEquals(List.of("3"), values(readAll(partitionLog)));
    }

    @Test
    void recordsAboveTheHighWatermarkDoNotRemoveOlderValues() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        append(partitionLog, "a", "1");
        partitionLog.roll();
        append(partitionLog, "a", "2");
        partitionLog.roll();
        append(partitionLog, "b", "1");
        partitionLog.updateHighWatermark(1); // "a"=2 is not replicated yet and may still be truncated
        LogCleaner cleaner = cleaner(partitionLog);

        cleaner.clean(partitionLog);
        partitionLog.truncateTo(1);

        assertEquals(List.of("a"), keys(readAll(partitionLog)));
        assertEquals(Map.of("a", "1"), latestValues(readAll(partitionLog)));
    }

    @Test
    void keyMapTooSmallForTheDirtyPartCleansItOverSeveralPassesWithoutLeavingDuplicates() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.SEGMENT_BYTES, "4000")));
        Map<String, String> expected = new TreeMap<>();
        for (int round = 0; round < 3; round++) {
            for (int key = 0; key < 20; key++) {
                String value = round + "-" + key;
                append(partitionLog, "key-" + key, value, "key-" + (key + 1) % 20, value);
                expected.put("key-" + key, value);
                expected.put("key-" + (key + 1) % 20, value);
            }
        }
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        // Room for about six keys: each pass maps a few batches only.
        LogCleaner cleaner = cleaner(UNLIMITED_IO, 6 * 110, 1024, partitionLog);

        for (int pass = 0; pass < 40; pass++) {
            cleaner.clean(partitionLog);
        }

        List<LogRecord> read = readAll(partitionLog);
        assertEquals(expected, latestValues(read));
        assertEquals(expected.size(), read.size(), "one record per key: " + read);
    }

    @Test
    void compressedRecordLargerThanSixteenKibIsCompacted() throws IOException {
        // Records reach a compacted log this way when a topic's cleanup.policy changes from delete to compact.
        PartitionLog partitionLog = open(LogConfig.parse(Map.of(LogConfig.FILE_DELETE_DELAY_MS, "0")));
        String big = "v".repeat(40_000);
        partitionLog.appendAsLeader(records(Compression.gzip().build(),
                List.of(new LogRecord(-1, "a", big, time.milliseconds()))), 0);
        partitionLog.appendAsLeader(records(Compression.gzip().build(),
                List.of(new LogRecord(-1, "a", big + "2", time.milliseconds()))), 0);
        partitionLog.roll();
        partitionLog.updateConfig(compactedConfig(Map.of()));
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());

        cleaner(partitionLog).clean(partitionLog);

        assertEquals(List.of(big + "2"), values(readAll(partitionLog)));
    }

    @Test
    void cleanOncePicksTheDirtiestLogAboveItsMinCleanableRatio() throws IOException {
        LogConfig config = compactedConfig(Map.of(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.5"));
        PartitionLog dirty = PartitionLog.open(tmp.resolve("dirty-0"), new TopicPartition("dirty", 0), config,
                LoadState.UNKNOWN, LogEnvironment.inline(time));
        PartitionLog fresh = PartitionLog.open(tmp.resolve("fresh-0"), new TopicPartition("fresh", 0), config,
                LoadState.UNKNOWN, LogEnvironment.inline(time));
        opened.add(dirty);
        opened.add(fresh);
        for (int i = 0; i < 5; i++) {
            append(dirty, "k", String.valueOf(i));
        }
        dirty.roll();
        append(fresh, "k", "1");
        dirty.updateHighWatermark(dirty.logEndOffset());
        fresh.updateHighWatermark(fresh.logEndOffset());
        LogCleaner cleaner = new LogCleaner(new LogCleaner.Config(true, UNLIMITED_IO, 15_000L, 1024 * 1024, 1024),
                () -> List.of(fresh, dirty), time);

        assertTrue(cleaner.cleanOnce(), "the dirty log is cleaned");
        assertEquals(List.of("4"), values(readAll(dirty)));
        assertFalse(cleaner.cleanOnce(), "nothing dirty is left: the fresh log has only an active segment");
    }

    /** Readers keep reading while the background thread swaps segments: old files stay until the delete delay. */
    @Test
    void tombstonePastItsHorizonMakesALogCleanableWithNothingDirty() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.DELETE_RETENTION_MS, "1000",
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.5")));
        append(partitionLog, "a", "1", "b", "1");
        append(partitionLog, "a", null);
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = cleaner(partitionLog);
        assertTrue(cleaner.cleanOnce());
        assertEquals(List.of("b", "a"), keys(readAll(partitionLog)));

        assertFalse(cleaner.cleanOnce(), "nothing dirty, the tombstone's horizon not reached");
        time.advance(1_000);
        assertTrue(cleaner.cleanOnce(), "nothing dirty, but the tombstone has expired");

        assertEquals(List.of("b"), keys(readAll(partitionLog)));
        assertFalse(cleaner.cleanOnce());
    }

    @Test
    void backgroundThreadCompactsWhileReadersReadAndStopsOnClose() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            PartitionLog partitionLog = PartitionLog.open(tmp.resolve(PartitionDirName.of(PARTITION)), PARTITION,
                    compactedConfig(Map.of(LogConfig.FILE_DELETE_DELAY_MS, "60000")), LoadState.UNKNOWN,
                    new LogEnvironment(time, scheduler, LogDirFailureHandler.IGNORE, 86_400_000L));
            opened.add(partitionLog);
            for (int i = 0; i < 50; i++) {
                append(partitionLog, "k" + i % 5, "v" + i);
            }
            partitionLog.roll();
            partitionLog.updateHighWatermark(partitionLog.logEndOffset());
            LogCleaner cleaner = new LogCleaner(new LogCleaner.Config(true, UNLIMITED_IO, 10L, 1024 * 1024, 1024),
                    () -> List.of(partitionLog), time);

            cleaner.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                List<LogRecord> read;
                do {
                    assertTrue(System.nanoTime() < deadline, "the background cleaner did not compact the log");
                    read = readAll(partitionLog);
                    assertEquals(Map.of("k0", "v45", "k1", "v46", "k2", "v47", "k3", "v48", "k4", "v49"),
                            latestValues(read), "a reader during cleaning");
                } while (read.size() != 5);
            } finally {
                cleaner.close();
                cleaner.close();
            }
            assertThrows(IllegalStateException.class, cleaner::cleanOnce, "a closed cleaner refuses work");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Closing the cleaner while its thread sleeps in the throttle must not interrupt it: the interrupt would survive
     * the sleep and close the channel of the next live segment the pass reads.
     */
    @Test
    void closingTheCleanerDuringAThrottledPassLeavesTheLogUsable() throws Exception {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        List<LogRecord> appended = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            appended.add(append(partitionLog, "k" + i, "v" + i));
            if (i % 3 == 2) {
                partitionLog.roll();
            }
        }
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        CountDownLatch throttled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Time clock = new ClockWithSleepAction(time, () -> {
            if (throttled.getCount() > 0) {
                throttled.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // what Time.SYSTEM's sleep does
                }
            }
        });
        LogCleaner cleaner = new LogCleaner(new LogCleaner.Config(true, 100, 10L, 1024 * 1024, 1024),
                () -> List.of(partitionLog), clock);
        cleaner.start();
        assertTrue(throttled.await(10, TimeUnit.SECONDS), "the pass never reached its throttle");

        Thread closer = new Thread(cleaner::close, "test-cleaner-close");
        closer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (closer.getState() != Thread.State.TIMED_WAITING && closer.isAlive()) {
            assertTrue(System.nanoTime() < deadline, "close() did not start waiting for the thread");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        release.countDown();
        closer.join(10_000);

        assertEquals(appended, readAll(partitionLog));
        append(partitionLog, "k0", "after");
        partitionLog.close();
        assertFalse(partitionLog.isOffline());
    }

    @Test
    void appendsProceedWhileAThrottledPassIsUnderWay() throws Exception {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        for (int i = 0; i < 10; i++) {
            append(partitionLog, "k" + i % 3, "old-" + i);
        }
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        CountDownLatch throttled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Time blockingClock = new ClockWithSleepAction(time, () -> {
            throttled.countDown();
            Waits.await("the test releasing the cleaner").atMost(Duration.ofSeconds(10))
                    .until(() -> release.getCount() == 0);
        });
        LogCleaner cleaner = new LogCleaner(new LogCleaner.Config(true, 100, 15_000L, 1024 * 1024, 1024),
                () -> List.of(partitionLog), blockingClock);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread pass = new Thread(() -> {
            try {
                cleaner.clean(partitionLog);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "test-cleaner-pass");
        pass.start();
        try {
            assertTrue(throttled.await(10, TimeUnit.SECONDS), "the pass never reached its throttle");
            for (int i = 0; i < 5; i++) {
                append(partitionLog, "k" + i % 3, "new-" + i); // would block if the pass held the log's lock
            }
            partitionLog.roll();
        } finally {
            release.countDown();
            pass.join(10_000);
        }
        assertEquals(null, failure.get());
        assertEquals(Map.of("k0", "new-3", "k1", "new-4", "k2", "new-2"), latestValues(readAll(partitionLog)));
        assertEquals(15, partitionLog.logEndOffset());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Changes to the log during a pass

    /** A truncation into the mapped range between the key map and the swap: the pass must not remove anything. */
    @Test
    void truncationDuringAPassDropsThePass() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        List<LogRecord> appended = appendSupersedingSegments(partitionLog);
        long truncateAt = partitionLog.segmentBaseOffsets().get(2);
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = throttledCleaner(partitionLog, 1, () -> partitionLog.truncateTo(truncateAt));

        cleaner.clean(partitionLog);

        assertEquals(appended.stream().filter(r -> r.offset() < truncateAt).toList(), readAll(partitionLog),
                "the records below the truncation point, none removed by a key map built before it");
        assertEquals(truncateAt, partitionLog.logEndOffset());
    }

    @Test
    void deleteRecordsBeforeDuringAPassDropsThePass() throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of()));
        List<LogRecord> appended = appendSupersedingSegments(partitionLog);
        long newStart = partitionLog.segmentBaseOffsets().get(1);
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = throttledCleaner(partitionLog, 1, () -> partitionLog.deleteRecordsBefore(newStart));

        cleaner.clean(partitionLog);

        assertEquals(appended.stream().filter(r -> r.offset() >= newStart).toList(), readAll(partitionLog));
        assertEquals(newStart, partitionLog.logStartOffset());

        cleaner.clean(partitionLog);
        assertEquals(latestValues(appended.stream().filter(r -> r.offset() >= newStart).toList()),
                latestValues(readAll(partitionLog)), "the next pass cleans normally");
    }

    static Stream<Integer> throttleCalls() {
        return Stream.of(1, 2, 3, 5, 8, 10, 11, 12, 13, 15, 20);
    }

    /**
     * A follower truncating its uncommitted suffix at any moment of a pass (the n-th time the pass reports I/O)
     * loses no committed record: the pass never used records above the high watermark.
     */
    @ParameterizedTest(name = "truncation at throttle call {0}")
    @MethodSource("throttleCalls")
    void truncationOfTheUncommittedSuffixAtAnyPointOfAPassLosesNothing(int throttleCall) throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.SEGMENT_BYTES, "300")));
        List<LogRecord> appended = appendSupersedingSegments(partitionLog);
        long committed = partitionLog.segmentBaseOffsets().get(2);
        partitionLog.updateHighWatermark(committed);
        LogCleaner cleaner = throttledCleaner(partitionLog, throttleCall, () -> partitionLog.truncateTo(committed));

        cleaner.clean(partitionLog);
        partitionLog.truncateTo(committed); // if the pass ended before the n-th call
        cleaner.clean(partitionLog);

        List<LogRecord> kept = appended.stream().filter(r -> r.offset() < committed).toList();
        assertEquals(latestValues(kept), latestValues(readAll(partitionLog)));
        assertTrue(kept.containsAll(readAll(partitionLog)), "every record read was appended at that offset");
    }

    static Stream<Integer> moreThrottleCalls() {
        return Stream.iterate(1, call -> call <= 24, call -> call + 1);
    }

    /**
     * An unclean truncation (below the high watermark) into the middle of a segment, at any moment of a pass: records
     * above the truncation point may already have removed older values (that loss is what "unclean" means), but the
     * pass must end, and the log must stay readable, in offset order, with nothing it never held and nothing above
     * the truncation point.
     */
    @ParameterizedTest(name = "truncation at throttle call {0}")
    @MethodSource("moreThrottleCalls")
    void uncleanTruncationAtAnyPointOfAPassLeavesAConsistentLog(int throttleCall) throws IOException {
        PartitionLog partitionLog = open(compactedConfig(Map.of(LogConfig.SEGMENT_BYTES, "300")));
        List<LogRecord> appended = appendSupersedingSegments(partitionLog);
        long truncateAt = partitionLog.segmentBaseOffsets().get(1) + 1;
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        LogCleaner cleaner = throttledCleaner(partitionLog, throttleCall, () -> partitionLog.truncateTo(truncateAt));

        cleaner.clean(partitionLog);
        partitionLog.truncateTo(truncateAt);
        append(partitionLog, "k0", "after");
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        cleaner.clean(partitionLog);

        List<LogRecord> read = readAll(partitionLog);
        assertStrictlyIncreasingOffsets(read);
        for (LogRecord record : read.subList(0, read.size() - 1)) {
            assertTrue(record.offset() < truncateAt && appended.contains(record), "not in the log: " + record);
        }
        assertEquals("after", read.get(read.size() - 1).value());
        assertEquals(1, read.stream().filter(record -> record.key().equals("k0")).count(), "k0 once: " + read);
    }

    /**
     * Segments 0 and 1 hold keys k0..k5; segments 2 and 3 overwrite them all; the active segment holds one more
     * record. Returns every appended record.
     */
    private List<LogRecord> appendSupersedingSegments(PartitionLog partitionLog) {
        List<LogRecord> appended = new ArrayList<>();
        for (String round : List.of("old", "new")) {
            for (int half = 0; half < 2; half++) {
                for (int i = 0; i < 3; i++) {
                    String key = "k" + (half * 3 + i);
                    appended.add(append(partitionLog, key, round + "-" + key));
                }
                partitionLog.roll();
            }
        }
        appended.add(append(partitionLog, "k9", "active"));
        return appended;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Crash during the swap

    /** Where a crash interrupts the swap of a cleaned group into the log. */
    enum CrashPoint {
        /** The cleaned files are complete but still {@code .cleaned}: the swap had not begun. */
        BEFORE_SWAP_RENAME,
        /** Only the cleaned {@code .log} had been renamed {@code .swap}; its indexes are still {@code .cleaned}. */
        DURING_SWAP_RENAME,
        /** The cleaned files are {@code .swap}, no old segment renamed yet. */
        SWAP_WRITTEN,
        /** The old segment with the cleaned segment's base offset has been renamed {@code .deleted}. */
        FIRST_OLD_SEGMENT_RENAMED,
        /** Every old segment renamed {@code .deleted}, the {@code .swap} files not renamed yet. */
        ALL_OLD_SEGMENTS_RENAMED,
        /** The final rename had renamed the {@code .log} but not the indexes. */
        DURING_FINAL_RENAME
    }

    /**
     * Segments 0 and 1 form one cleaning group; every record of segment 1 is superseded by segment 2, which is
     * another group. A log directory is left as the cleaner leaves it at each crash point of that first group's
     * swap (the cleaned files taken from a copy of the log cleaned for real), then opened: it must read as
     * either the original log or the log with that group cleaned, with no record lost or duplicated.
     */
    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void interruptedSwapIsCompletedOrDiscardedAtOpen(CrashPoint crashPoint) throws IOException {
        LogConfig config = compactedConfig(Map.of(LogConfig.SEGMENT_BYTES, "2000"));
        Path original = tmp.resolve("original").resolve(PartitionDirName.of(PARTITION));
        PartitionLog partitionLog = open(original, config, LoadState.UNKNOWN);
        append(partitionLog, "a", "1", "b", "1");
        partitionLog.roll();
        append(partitionLog, "c", "1", "d", "1");
        partitionLog.roll();
        append(partitionLog, "c", "2", "d", "2");
        for (int i = 0; i < 4; i++) {
            append(partitionLog, "filler-" + i, "y".repeat(400));
        }
        partitionLog.roll();
        append(partitionLog, "e", "1");
        List<LogRecord> originalRecords = readAll(partitionLog);
        List<Long> bases = partitionLog.segmentBaseOffsets();
        long secondGroupBase = bases.get(2);
        partitionLog.close();

        Path copy = tmp.resolve("copy").resolve(PartitionDirName.of(PARTITION));
        copyDirectory(original, copy);
        PartitionLog cleanedCopy = open(copy, config, new LoadState(0, 0, true));
        cleanedCopy.updateHighWatermark(cleanedCopy.logEndOffset());
        cleaner(cleanedCopy).clean(cleanedCopy);
        assertEquals(List.of(0L, secondGroupBase, bases.get(3)), cleanedCopy.segmentBaseOffsets(),
                "precondition: segments 0 and 1 were cleaned as one group, segment 2 as another");
        List<LogRecord> firstGroupCleaned = new ArrayList<>(readAll(cleanedCopy).stream()
                .filter(r -> r.offset() < secondGroupBase).toList());
        cleanedCopy.close();

        String cleaned = LogSegment.CLEANED_SUFFIX;
        String swap = LogSegment.SWAP_SUFFIX;
        String deleted = LogSegment.DELETED_SUFFIX;
        switch (crashPoint) {
            case BEFORE_SWAP_RENAME -> placeCleanedFiles(copy, original, cleaned, cleaned, cleaned);
            case DURING_SWAP_RENAME -> placeCleanedFiles(copy, original, swap, cleaned, cleaned);
            case SWAP_WRITTEN -> placeCleanedFiles(copy, original, swap, swap, swap);
            case FIRST_OLD_SEGMENT_RENAMED -> {
                renameSegment(original, 0, "", deleted);
                placeCleanedFiles(copy, original, swap, swap, swap);
            }
            case ALL_OLD_SEGMENTS_RENAMED -> {
                renameSegment(original, 0, "", deleted);
                renameSegment(original, bases.get(1), "", deleted);
                placeCleanedFiles(copy, original, swap, swap, swap);
            }
            case DURING_FINAL_RENAME -> {
                renameSegment(original, 0, "", deleted);
                renameSegment(original, bases.get(1), "", deleted);
                placeCleanedFiles(copy, original, "", swap, swap);
            }
        }

        PartitionLog reopened = open(original, config, LoadState.UNKNOWN);

        List<LogRecord> expected = new ArrayList<>();
        if (crashPoint == CrashPoint.BEFORE_SWAP_RENAME) {
            expected.addAll(originalRecords);
        } else {
            expected.addAll(firstGroupCleaned);
            expected.addAll(originalRecords.stream().filter(r -> r.offset() >= secondGroupBase).toList());
        }
        assertEquals(expected, readAll(reopened));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(original)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                assertFalse(name.endsWith(swap) || name.endsWith(cleaned) || name.endsWith(deleted),
                        "left over after open: " + name);
            }
        }
        append(reopened, "f", "1");
        assertEquals(expected.size() + 1, readAll(reopened).size(), "the completed log takes appends");
    }

    /** Copies the copy's cleaned segment 0 into the original directory, each file with the suffix given. */
    private static void placeCleanedFiles(Path copy, Path original, String logSuffix, String indexSuffix,
                                          String timeIndexSuffix) throws IOException {
        Files.copy(LogSegment.file(copy, 0, LogSegment.LOG_SUFFIX),
                LogSegment.file(original, 0, LogSegment.LOG_SUFFIX + logSuffix), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(LogSegment.file(copy, 0, LogSegment.INDEX_SUFFIX),
                LogSegment.file(original, 0, LogSegment.INDEX_SUFFIX + indexSuffix),
                StandardCopyOption.REPLACE_EXISTING);
        Files.copy(LogSegment.file(copy, 0, LogSegment.TIME_INDEX_SUFFIX),
                LogSegment.file(original, 0, LogSegment.TIME_INDEX_SUFFIX + timeIndexSuffix),
                StandardCopyOption.REPLACE_EXISTING);
    }

    private static void renameSegment(Path dir, long base, String from, String to) throws IOException {
        for (String suffix : List.of(LogSegment.LOG_SUFFIX, LogSegment.INDEX_SUFFIX, LogSegment.TIME_INDEX_SUFFIX)) {
            Files.move(LogSegment.file(dir, base, suffix + from), LogSegment.file(dir, base, suffix + to));
        }
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(from)) {
            for (Path file : files) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Throttler

    @Test
    void throttlerHoldsAJobToTheConfiguredByteRate() {
        Throttler throttler = new Throttler(1_000, time);
        long start = time.milliseconds();

        for (int i = 0; i < 20; i++) {
            throttler.maybeThrottle(500);
        }

        long elapsed = time.milliseconds() - start;
        assertTrue(elapsed >= 9_900 && elapsed <= 10_000, "10 000 bytes at 1 000 B/s took " + elapsed + " ms");
    }

    @Test
    void throttlerDoesNotLetASlowStretchBuyALaterBurst() {
        Throttler throttler = new Throttler(1_000, time);
        throttler.maybeThrottle(100);
        time.advance(600_000); // ten minutes of slow I/O: 600 000 bytes of unused allowance

        long start = time.milliseconds();
        for (int i = 0; i < 20; i++) {
            throttler.maybeThrottle(500);
        }

        long elapsed = time.milliseconds() - start;
        assertTrue(elapsed >= 8_900, "10 000 bytes after a slow stretch took only " + elapsed + " ms");
    }

    @Test
    void unlimitedThrottlerNeverSleeps() {
        Throttler throttler = new Throttler(Double.MAX_VALUE, time);
        long start = time.milliseconds();

        throttler.maybeThrottle(Long.MAX_VALUE / 2);

        assertEquals(start, time.milliseconds());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Helpers

    private static LogConfig compactedConfig(Map<String, String> overrides) {
        Map<String, String> properties = new HashMap<>(Map.of(
                LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.SEGMENT_INDEX_BYTES, "4096",
                LogConfig.FILE_DELETE_DELAY_MS, "0",
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.0"));
        properties.putAll(overrides);
        return LogConfig.parse(properties);
    }

    private PartitionLog open(LogConfig config) throws IOException {
        return open(tmp.resolve(PartitionDirName.of(PARTITION)), config, LoadState.UNKNOWN);
    }

    private PartitionLog open(Path dir, LogConfig config, LoadState loadState) throws IOException {
        PartitionLog partitionLog = PartitionLog.open(dir, PARTITION, config, loadState, LogEnvironment.inline(time));
        opened.add(partitionLog);
        return partitionLog;
    }

    private LogCleaner cleaner(PartitionLog partitionLog) {
        return cleaner(UNLIMITED_IO, 1024 * 1024, 1024, partitionLog);
    }

    private LogCleaner cleaner(double ioBytesPerSecond, long dedupeBufferSize, int readBufferSize,
                               PartitionLog partitionLog) {
        return new LogCleaner(new LogCleaner.Config(true, ioBytesPerSecond, 15_000L, dedupeBufferSize,
                readBufferSize), () -> List.of(partitionLog), time);
    }

    /** A cleaner limited to 1 000 B/s whose clock runs {@code action} at the n-th time the pass is throttled. */
    private LogCleaner throttledCleaner(PartitionLog partitionLog, int throttleCall, Runnable action) {
        AtomicInteger calls = new AtomicInteger();
        Time clock = new ClockWithSleepAction(time, () -> {
            if (calls.incrementAndGet() == throttleCall) {
                action.run();
            }
        });
        return new LogCleaner(new LogCleaner.Config(true, 1_000, 15_000L, 1024 * 1024, 64),
                () -> List.of(partitionLog), clock);
    }

    /** The test clock, running an action each time someone sleeps on it (the throttler, mid-pass). */
    private static final class ClockWithSleepAction implements Time {
        private final ManualTime delegate;
        private final Runnable onSleep;

        ClockWithSleepAction(ManualTime delegate, Runnable onSleep) {
            this.delegate = delegate;
            this.onSleep = onSleep;
        }

        @Override
        public long milliseconds() {
            return delegate.milliseconds();
        }

        @Override
        public long nanoseconds() {
            return delegate.nanoseconds();
        }

        @Override
        public void sleep(long ms) {
            onSleep.run();
            delegate.sleep(ms);
        }
    }

    /** Appends one batch of key/value pairs (a null value is a tombstone) and returns its last record. */
    private LogRecord append(PartitionLog partitionLog, String... keysAndValues) {
        List<LogRecord> batch = new ArrayList<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            batch.add(new LogRecord(-1, keysAndValues[i], keysAndValues[i + 1], time.milliseconds()));
        }
        long last = partitionLog.appendAsLeader(records(Compression.NONE, batch), 0).lastOffset();
        LogRecord lastRecord = batch.get(batch.size() - 1);
        return new LogRecord(last, lastRecord.key(), lastRecord.value(), lastRecord.timestamp());
    }

    private void appendRollAndClean(PartitionLog partitionLog, LogCleaner cleaner, String key) {
        append(partitionLog, key, "1");
        partitionLog.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        cleaner.clean(partitionLog);
    }

    private static MemoryRecords records(Compression compression, List<LogRecord> batch) {
        SimpleRecord[] records = new SimpleRecord[batch.size()];
        for (int i = 0; i < records.length; i++) {
            LogRecord record = batch.get(i);
            records[i] = new SimpleRecord(record.timestamp(), record.key().getBytes(UTF_8),
                    record.value() == null ? null : record.value().getBytes(UTF_8));
        }
        return MemoryRecords.withRecords(compression, records);
    }

    /** Equality of record lists, failing with the records missing and the records not expected. */
    private static void assertSameRecords(List<LogRecord> expected, List<LogRecord> actual, String context) {
        if (!expected.equals(actual)) {
            List<LogRecord> missing = new ArrayList<>(expected);
            missing.removeAll(actual);
            List<LogRecord> unexpected = new ArrayList<>(actual);
            unexpected.removeAll(expected);
            fail(context + ": missing " + missing + ", not expected " + unexpected);
        }
    }

    private static void assertStrictlyIncreasingOffsets(List<LogRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            assertTrue(records.get(i).offset() > records.get(i - 1).offset(),
                    "offsets go from " + records.get(i - 1).offset() + " to " + records.get(i).offset());
        }
    }

    private static List<String> keys(List<LogRecord> records) {
        return records.stream().map(LogRecord::key).toList();
    }

    private static List<String> values(List<LogRecord> records) {
        return records.stream().map(LogRecord::value).toList();
    }

    /** The bytes of every segment file with a base offset at or above {@code from}. */
    private static Map<Long, byte[]> segmentFiles(PartitionLog partitionLog, long from) throws IOException {
        Map<Long, byte[]> files = new LinkedHashMap<>();
        for (long base : partitionLog.segmentBaseOffsets()) {
            if (base >= from) {
                files.put(base, Files.readAllBytes(LogSegment.file(partitionLog.dir(), base, LogSegment.LOG_SUFFIX)));
            }
        }
        return files;
    }
}
