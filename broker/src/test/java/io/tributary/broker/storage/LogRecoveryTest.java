package io.tributary.broker.storage;

import static io.tributary.broker.storage.TestRecords.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.io.TempDirFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The acceptance test of crash recovery: for many seeded random logs, cut points and corruptions (truncated tail,
 * flipped byte in a batch, deleted index, garbage appended), recovery keeps every batch before the damage byte for
 * byte, serves nothing after it, and the log accepts appends afterwards.
 *
 * <p>Each seed builds a log of random batches (some compressed, some from an idempotent producer) over several small
 * segments, notes each batch's bytes and place in the segment files, drops the log without closing it, damages one
 * file and opens the log as after a crash. Flips stay inside the CRC-covered part of a batch (from its attributes
 * field on): a batch's base offset, length and leader epoch are outside Kafka's CRC, by design of the format.
 */
class LogRecoveryTest {

    private static final TopicPartition PARTITION = new TopicPartition("payments", 2);
    private static final int SEEDS = 200;
    /** Byte offset of the attributes field in a v2 batch: CRC32C covers it and everything after it. */
    private static final int CRC_COVERED_FROM = 21;
    private static final long PRODUCER = 77L;
    private static final Compression[] COMPRESSIONS = {Compression.NONE, Compression.NONE, Compression.gzip().build(),
        Compression.lz4().build()};

    enum Damage { TRUNCATED_TAIL, FLIPPED_BYTE, DELETED_INDEX, GARBAGE_APPENDED }

    /** A batch as it lies in a segment file. */
    private record StoredBatch(long segment, int position, long baseOffset, long lastOffset, int leaderEpoch,
                               byte[] bytes) {
        int end() {
            return position + bytes.length;
        }
    }

    /** An idempotent client batch, kept so that it can be sent again as a retry. */
    private record ProducerBatch(int firstSequence, SimpleRecord[] records, long firstOffset, long lastOffset) {
        int lastSequence() {
            return firstSequence + records.length - 1;
        }
    }

    @TempDir(factory = MemoryBackedTempDir.class)
    Path root;

    private Path dir;
    private final ManualTime time = new ManualTime();
    private PartitionLog log;
    private LogConfig config;
    private String seedMessage;

    @AfterEach
    void releaseFiles() {
        if (log != null) {
            log.closeHandlers();
        }
    }

    /**
     * Puts the log in memory ({@code /dev/shm}) where the platform has such a directory. Durability is not under test:
     * a crash is simulated by dropping the log, and its files stay in the page cache. But a segment roll syncs five
     * files and recovery three per segment, and on the shared build disk the seeds took from 50 s to several minutes,
     * depending on the other work on the disk; in memory they take about 10 s.
     */
    static final class MemoryBackedTempDir implements TempDirFactory {
        @Override
        public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext)
                throws IOException {
            Path memory = Path.of("/dev/shm");
            return Files.isDirectory(memory) && Files.isWritable(memory)
                    ? Files.createTempDirectory(memory, "tributary-recovery-")
                    : Files.createTempDirectory("tributary-recovery-");
        }
    }

    static LongStream seeds() {
        return LongStream.range(0, SEEDS);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void recoveryKeepsEveryBatchBeforeTheDamageByteForByteServesNothingAfterItAndTakesNewAppends(long seed)
            throws IOException {
        Random random = new Random(seed);
        dir = root.resolve(PartitionDirName.of(PARTITION));
        config = LogConfig.parse(Map.of(
                LogConfig.SEGMENT_BYTES, 1200 + random.nextInt(2800),
                LogConfig.INDEX_INTERVAL_BYTES, random.nextInt(600),
                LogConfig.SEGMENT_INDEX_BYTES, new int[] {64, 256, 4096}[random.nextInt(3)],
                LogConfig.PREALLOCATE, random.nextInt(4) == 0));
        log = PartitionLog.open(dir, PARTITION, config, LoadState.UNKNOWN, LogEnvironment.inline(time));
        List<ProducerBatch> producerBatches = appendRandomBatches(random);
        List<StoredBatch> stored = scanSegmentFiles();
        Damage damage = Damage.values()[random.nextInt(Damage.values().length)];
        seedMessage = "seed " + seed + ", " + damage + ", " + config.segmentBytes + "-byte segments"
                + (config.preallocate ? ", preallocated" : "");
        assertEquals(log.logEndOffset(), stored.get(stored.size() - 1).lastOffset() + 1, seedMessage);
        assertServedExactly(stored);

        log.closeHandlers(); // the crash: nothing closed, trimmed, flushed or snapshotted
        int survivors = applyDamage(damage, stored, random);
        List<StoredBatch> kept = stored.subList(0, survivors);
        long damagedSegment = survivors < stored.size() ? stored.get(survivors).segment() : Long.MAX_VALUE;
        log = PartitionLog.open(dir, PARTITION, config, new LoadState(0, 0, false), LogEnvironment.inline(time));

        long expectedLogEnd = kept.isEmpty() ? 0 : kept.get(kept.size() - 1).lastOffset() + 1;
        assertEquals(expectedLogEnd, log.logEndOffset(), seedMessage);
        assertServedExactly(kept);
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(expectedLogEnd + 1, 100, Long.MAX_VALUE, true),
                seedMessage);
        for (long base : segmentFileBaseOffsets()) {
            assertTrue(base <= damagedSegment, seedMessage + ": segment " + base + " follows the damaged segment "
                    + damagedSegment);
        }
        assertEquals(epochEntriesOf(kept), log.leaderEpochCache().entries(), seedMessage + ": leader epochs");
        assertLargestTimestampIsFoundAmong(kept);
        assertProducerStateMatchesTheKeptBatches(producerBatches, expectedLogEnd);
        assertNewAppendsContinueAt(log.logEndOffset(), random);

        long logEnd = log.logEndOffset();
        List<StoredBatch> beforeRestart = scanSegmentFiles();
        log.close();
        log = PartitionLog.open(dir, PARTITION, config, new LoadState(0, logEnd, true), LogEnvironment.inline(time));
        assertEquals(logEnd, log.logEndOffset(), seedMessage + ", clean restart after recovery");
        assertServedExactly(beforeRestart);
    }

    /** Appends 15 to 50 random batches; about half come from one idempotent producer, with continuous sequences. */
    private List<ProducerBatch> appendRandomBatches(Random random) {
        List<ProducerBatch> producerBatches = new ArrayList<>();
        int nextSequence = 0;
        int leaderEpoch = 0;
        int batches = 15 + random.nextInt(36);
        for (int b = 0; b < batches; b++) {
            SimpleRecord[] records = randomRecords(random, b);
            Compression compression = COMPRESSIONS[random.nextInt(COMPRESSIONS.length)];
            leaderEpoch += random.nextInt(8) == 0 ? 1 : 0;
            if (random.nextBoolean()) {
                LogAppendInfo info = log.appendAsLeader(MemoryRecords.withIdempotentRecords(compression, PRODUCER,
                        (short) 0, nextSequence, records), leaderEpoch);
                producerBatches.add(new ProducerBatch(nextSequence, records, info.firstOffset(), info.lastOffset()));
                nextSequence += records.length;
            } else {
                log.appendAsLeader(MemoryRecords.withRecords(compression, records), leaderEpoch);
            }
            time.advance(random.nextInt(50));
        }
        return producerBatches;
    }

    private SimpleRecord[] randomRecords(Random random, int batch) {
        SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(6)];
        for (int i = 0; i < records.length; i++) {
            byte[] value = new byte[random.nextInt(120)];
            random.nextBytes(value);
            long timestamp = time.milliseconds() - random.nextInt(60_000);
            records[i] = new SimpleRecord(timestamp, utf8("key-" + batch + "-" + i), value);
        }
        return records;
    }

    /** Every batch in the segment files, read straight from the files, oldest first. */
    private List<StoredBatch> scanSegmentFiles() throws IOException {
        List<StoredBatch> result = new ArrayList<>();
        for (long base : segmentFileBaseOffsets()) {
            byte[] file = Files.readAllBytes(LogSegment.file(dir, base, LogSegment.LOG_SUFFIX));
            int position = 0;
            try {
                for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(file)).batches()) {
                    result.add(new StoredBatch(base, position, batch.baseOffset(), batch.lastOffset(),
                            batch.partitionLeaderEpoch(), Arrays.copyOfRange(file, position,
                            position + batch.sizeInBytes())));
                    position += batch.sizeInBytes();
                }
            } catch (CorruptRecordException endOfData) {
                // The zero-filled rest of a preallocated segment: a batch size of 0.
            }
        }
        return result;
    }

    private List<Long> segmentFileBaseOffsets() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(LogSegment.LOG_SUFFIX))
                    .map(name -> Long.parseLong(name.substring(0, name.indexOf('.'))))
                    .sorted()
                    .toList();
        }
    }

    /**
     * Damages the files of the crashed log.
     *
     * @return how many of {@code stored} batches lie wholly before the damage and must survive recovery
     */
    private int applyDamage(Damage damage, List<StoredBatch> stored, Random random) throws IOException {
        long lastSegment = stored.get(stored.size() - 1).segment();
        Path lastFile = LogSegment.file(dir, lastSegment, LogSegment.LOG_SUFFIX);
        switch (damage) {
            case TRUNCATED_TAIL -> {
                int dataEnd = stored.get(stored.size() - 1).end();
                int cut = random.nextInt(dataEnd);
                try (FileChannel channel = FileChannel.open(lastFile, StandardOpenOption.WRITE)) {
                    channel.truncate(cut);
                }
                seedMessage += " at byte " + cut + " of segment " + lastSegment;
                return (int) stored.stream().filter(b -> b.segment() < lastSegment || b.end() <= cut).count();
            }
            case FLIPPED_BYTE -> {
                List<Long> segments = stored.stream().map(StoredBatch::segment).distinct().toList();
                long segment = segments.get(random.nextInt(segments.size()));
                List<StoredBatch> inSegment = stored.stream().filter(b -> b.segment() == segment).toList();
                StoredBatch victim = inSegment.get(random.nextInt(inSegment.size()));
                int position = victim.position() + CRC_COVERED_FROM
                        + random.nextInt(victim.bytes().length - CRC_COVERED_FROM);
                flipByte(LogSegment.file(dir, segment, LogSegment.LOG_SUFFIX), position, 1 + random.nextInt(255));
                seedMessage += " at byte " + position + " of segment " + segment + " (batch at offset "
                        + victim.baseOffset() + ")";
                return stored.indexOf(victim);
            }
            case DELETED_INDEX -> {
                List<Long> segments = stored.stream().map(StoredBatch::segment).distinct().toList();
                long segment = segments.get(random.nextInt(segments.size()));
                String suffix = random.nextBoolean() ? LogSegment.INDEX_SUFFIX : LogSegment.TIME_INDEX_SUFFIX;
                Files.delete(LogSegment.file(dir, segment, suffix));
                seedMessage += " " + suffix + " of segment " + segment;
                return stored.size();
            }
            case GARBAGE_APPENDED -> {
                byte[] garbage = new byte[1 + random.nextInt(200)];
                random.nextBytes(garbage);
                try (FileChannel channel = FileChannel.open(lastFile, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND)) {
                    channel.write(ByteBuffer.wrap(garbage));
                }
                seedMessage += ", " + garbage.length + " bytes after segment " + lastSegment;
                return stored.size();
            }
            default -> throw new AssertionError(damage);
        }
    }

    private static void flipByte(Path file, long position, int mask) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ mask)).rewind();
            channel.write(one, position);
        }
    }

    /**
     * Reads the whole log as a consumer does and checks that it serves exactly {@code expected}, byte for byte,
     * and that a read from each batch's base offset starts with that batch.
     */
    private void assertServedExactly(List<StoredBatch> expected) {
        List<byte[]> served = new ArrayList<>();
        long next = log.logStartOffset();
        while (true) {
            LogReadInfo info = log.read(next, 700, Long.MAX_VALUE, true);
            List<RecordBatch> batches = TestRecords.batches(info.records());
            if (batches.isEmpty()) {
                break;
            }
            for (RecordBatch batch : batches) {
                served.add(TestRecords.bytes(batch));
            }
            next = batches.get(batches.size() - 1).lastOffset() + 1;
        }
        assertEquals(expected.size(), served.size(), seedMessage + ": number of batches served");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).bytes(), served.get(i), seedMessage + ": batch " + i + " at offset "
                    + expected.get(i).baseOffset());
        }
        for (StoredBatch batch : expected) {
            byte[] first = TestRecords.bytes(TestRecords.batches(log.read(batch.baseOffset(), 1, Long.MAX_VALUE, true)
                    .records()).get(0));
            assertArrayEquals(batch.bytes(), first, seedMessage + ": read from offset " + batch.baseOffset());
        }
        assertEquals(0, log.read(log.logEndOffset(), 100, Long.MAX_VALUE, true).records().sizeInBytes(),
                seedMessage);
    }

    /** The leader epoch cache that {@code batches} imply: where each new epoch starts. */
    private static List<EpochEntry> epochEntriesOf(List<StoredBatch> batches) {
        List<EpochEntry> entries = new ArrayList<>();
        for (StoredBatch batch : batches) {
            if (entries.isEmpty() || entries.get(entries.size() - 1).epoch() != batch.leaderEpoch()) {
                entries.add(new EpochEntry(batch.leaderEpoch(), batch.baseOffset()));
            }
        }
        return entries;
    }

    /** ListOffsets for the largest timestamp must answer from the rebuilt time indexes with a kept record. */
    private void assertLargestTimestampIsFoundAmong(List<StoredBatch> kept) {
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long offsetOfMax = -1;
        for (StoredBatch batch : kept) {
            for (Record record : MemoryRecords.readableRecords(ByteBuffer.wrap(batch.bytes())).records()) {
                if (record.timestamp() > maxTimestamp) {
                    maxTimestamp = record.timestamp();
                    offsetOfMax = record.offset();
                }
            }
        }
        Optional<TimestampAndOffset> found = log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP);
        assertEquals(kept.isEmpty() ? Optional.empty() : Optional.of(offsetOfMax), found.map(hit -> hit.offset),
                seedMessage + ": offset of the largest timestamp " + maxTimestamp);
    }

    /**
     * The producer state must describe the kept batches only: a retry of the newest kept batch is a duplicate with
     * its original offsets, and a retry of the first lost one is written anew (answering it as a duplicate would
     * tell the producer that data the crash destroyed is safe).
     */
    private void assertProducerStateMatchesTheKeptBatches(List<ProducerBatch> producerBatches, long logEnd) {
        List<ProducerBatch> kept = producerBatches.stream().filter(b -> b.lastOffset() < logEnd).toList();
        if (!kept.isEmpty()) {
            ProducerBatch newest = kept.get(kept.size() - 1);
            LogAppendInfo retry = log.appendAsLeader(MemoryRecords.withIdempotentRecords(Compression.NONE, PRODUCER,
                    (short) 0, newest.firstSequence(), newest.records()), 0);
            assertTrue(retry.duplicate(), seedMessage + ": retry of the newest kept batch");
            assertEquals(newest.firstOffset(), retry.firstOffset(), seedMessage);
            assertEquals(logEnd, log.logEndOffset(), seedMessage);
        }
        if (kept.size() < producerBatches.size()) {
            ProducerBatch firstLost = producerBatches.get(kept.size());
            LogAppendInfo retry = log.appendAsLeader(MemoryRecords.withIdempotentRecords(Compression.NONE, PRODUCER,
                    (short) 0, firstLost.firstSequence(), firstLost.records()), log.leaderEpochCache().latestEpoch()
                    .orElse(0));
            assertFalse(retry.duplicate(), seedMessage + ": retry of the first lost batch at sequence "
                    + firstLost.firstSequence());
            assertEquals(logEnd, retry.firstOffset(), seedMessage);
        }
    }

    private void assertNewAppendsContinueAt(long logEnd, Random random) throws IOException {
        List<StoredBatch> before = scanSegmentFiles();
        List<TestRecords.Expected> sent = new ArrayList<>();
        long next = logEnd;
        for (int i = 0; i < 5; i++) {
            SimpleRecord[] records = randomRecords(random, 1_000 + i);
            LogAppendInfo info = log.appendAsLeader(MemoryRecords.withRecords(COMPRESSIONS[i % COMPRESSIONS.length],
                    records), log.leaderEpochCache().latestEpoch().orElse(0));
            assertEquals(next, info.firstOffset(), seedMessage + ": append " + i + " after recovery");
            for (SimpleRecord record : records) {
                sent.add(new TestRecords.Expected(next++, record.timestamp(), TestRecords.string(record.key()),
                        TestRecords.string(record.value())));
            }
        }
        assertEquals(next, log.logEndOffset(), seedMessage);
        List<TestRecords.Expected> readBack = new ArrayList<>();
        for (long offset = logEnd; offset < next; offset = readBack.get(readBack.size() - 1).offset() + 1) {
            long from = offset;
            TestRecords.decode(log.read(offset, 100_000, Long.MAX_VALUE, false).records()).stream()
                    .filter(record -> record.offset() >= from).forEach(readBack::add);
        }
        assertEquals(sent, readBack, seedMessage + ": records appended after recovery");
        List<StoredBatch> after = scanSegmentFiles();
        assertEquals(before.size() + 5, after.size(), seedMessage);
        for (int i = 0; i < before.size(); i++) {
            assertArrayEquals(before.get(i).bytes(), after.get(i).bytes(), seedMessage + ": batch " + i);
        }
        assertServedExactly(after);
    }
}
