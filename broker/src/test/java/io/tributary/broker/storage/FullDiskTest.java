package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.tributary.testsupport.SmallFileSystem;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage layer on a file system that is really full ({@link SmallFileSystem}, an 8 MiB tmpfs): start-up after an
 * unclean shutdown, reads, DeleteRecords and retention must work, and appends fail without taking the directory
 * offline. Indexes are preallocated to the default {@code segment.index.bytes} (10 MiB, sparse): on a full tmpfs
 * reading or writing one of their holes through the mapping is a SIGBUS.
 */
class FullDiskTest {

    private static final LogConfig LOG_CONFIG = LogConfig.parse(Map.of(
            LogConfig.SEGMENT_BYTES, "16384",
            LogConfig.INDEX_INTERVAL_BYTES, "256",
            LogConfig.FILE_DELETE_DELAY_MS, "0",
            LogConfig.RETENTION_MS, "3600000"));
    private static final int PARTITIONS = 4;
    private static final int RECORDS = 600;

    @TempDir
    Path tmp;

    private SmallFileSystem fileSystem;
    private Path dir;
    private final ManualTime time = new ManualTime();
    private final List<LogManager> managers = new ArrayList<>();

    @BeforeEach
    void mount() throws Exception {
        Optional<SmallFileSystem> small = SmallFileSystem.mount(tmp.resolve("small"), 8);
        assumeTrue(small.isPresent(), "this machine allows no tmpfs in an unprivileged user namespace");
        fileSystem = small.get();
        dir = fileSystem.root().resolve("data");
    }

    @AfterEach
    void unmount() throws Exception {
        for (LogManager manager : managers) {
            manager.closeWithoutCleanShutdown();
        }
        if (fileSystem != null) {
            fileSystem.close();
        }
    }

    @Test
    void startsAfterAnUncleanShutdownOnAFullDiskServesReadsAndFreesSpaceByDeleteRecordsAndRetention()
            throws IOException {
        LogManager first = start();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            append(first.getOrCreateLog(tp(partition), LOG_CONFIG), 0, RECORDS);
        }
        first.closeWithoutCleanShutdown(); // the active segments' indexes stay preallocated, 10 MiB each
        fileSystem.fill(fileSystem.root().resolve("filler"));

        LogManager second = start();

        assertTrue(second.offlineDirs().isEmpty(), "offline: " + second.offlineDirs());
        for (int partition = 0; partition < PARTITIONS; partition++) {
            assertEquals(expected(0, RECORDS), readValues(log(second, partition)), "partition " + partition);
        }
        // Recovery deleted the old active indexes, and its new ones took what that freed: fill up again.
        fileSystem.fill(fileSystem.root().resolve("filler-2"));
        PartitionLog orders0 = log(second, 0);
        StorageResourceException refused = assertThrows(StorageResourceException.class, () -> orders0.appendAsLeader(
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[8192])), 0),
                "a batch larger than a page: the segment's last page cannot take it");
        assertTrue(refused.getMessage().contains("No space left"), refused.getMessage());
        orders0.assignEpochStartOffset(1); // a new leadership after the restart
        assertEquals(List.of(new EpochEntry(0, 0)), orders0.leaderEpochCache().entries(), "not recorded yet");
        second.checkpointAll();
        second.checkpointHighWatermarks();
        assertTrue(second.offlineDirs().isEmpty(), "offline: " + second.offlineDirs());
        assertEquals(RECORDS, orders0.logEndOffset());
        assertEquals(expected(0, RECORDS), readValues(orders0));

        assertEquals(250, orders0.deleteRecordsBefore(250));
        assertEquals(expected(250, RECORDS), readValues(orders0));
        time.advance(3_600_001);
        assertTrue(second.runRetention() >= PARTITIONS, "every partition has closed segments past retention.ms");
        assertTrue(second.offlineDirs().isEmpty(), "offline: " + second.offlineDirs());

        append(orders0, RECORDS, RECORDS + 50, 1); // deleted segments gave their space back
        List<EpochEntry> epochs = orders0.leaderEpochCache().entries();
        assertEquals(new EpochEntry(1, RECORDS), epochs.get(epochs.size() - 1),
                "the epoch's first batch records it where the leadership began");
        second.close();
        LogManager third = start();
        PartitionLog reopened = log(third, 0);
        List<String> values = readValues(reopened);
        assertEquals(expected(RECORDS + 50 - values.size(), RECORDS + 50), values);
        assertEquals(RECORDS + 50, reopened.logEndOffset());
    }

    @Test
    void anIndexEntryOnAFullDiskFailsWithAnIOExceptionInsteadOfFaultingAndLeavesTheIndexAsItWas()
            throws IOException {
        Path file = fileSystem.root().resolve("00000000000000000000.index");
        fileSystem.fill(fileSystem.root().resolve("filler"));
        OffsetIndex index = new OffsetIndex(file, 0, 10 * 1024 * 1024); // sparse: creating it needs no space

        // Its page needs storage: a store through the mapping would be a SIGBUS.
        IOException refused = assertThrows(IOException.class, () -> index.append(10, 100));

        assertTrue(StorageFault.isResourceExhausted(refused), refused.toString());
        assertEquals(0, index.entries());
        assertEquals(new OffsetIndex.OffsetPosition(0, 0), index.lookup(10));
        index.close();
        assertEquals(0, Files.size(file), "trimmed to its no entries");
    }

    @Test
    void recoveryOnAFullDiskServesEveryRecordAndTheIndexIsRebuiltOnceThereIsSpace() throws IOException {
        LogConfig config = LogConfig.parse(Map.of(LogConfig.INDEX_INTERVAL_BYTES, "256"));
        Path segmentDir = fileSystem.root().resolve("orders-0");
        Files.createDirectories(segmentDir);
        LogSegment segment = LogSegment.open(segmentDir, 0, config, false, "");
        for (int i = 0; i < RECORDS; i++) {
            segment.append(i, MemoryRecords.withRecords(i, Compression.NONE, new SimpleRecord(time.milliseconds() + i,
                    ("key-" + i).getBytes(UTF_8), ("value-" + i).getBytes(UTF_8))));
        }
        int entries = segment.offsetIndex().entries();
        segment.flush();
        segment.closeHandlers();

        LogSegment recovered = LogSegment.open(segmentDir, 0, config, false, "", LogSegment.Indexes.DISCARD);
        Path filler = fileSystem.root().resolve("filler");
        try {
            fileSystem.fill(filler); // also the pages the discarded index files gave back
            assertEquals(0, recovered.recover(batch -> { }));
            assertTrue(recovered.offsetIndex().isIncomplete() && recovered.timeIndex().isIncomplete());
            assertEquals(expected(0, RECORDS), TestRecords.decode(recovered.read(0, Integer.MAX_VALUE,
                    Long.MAX_VALUE, false).records()).stream().map(TestRecords.Expected::value).toList());
            assertEquals(RECORDS, recovered.readNextOffset());
            assertEquals(time.milliseconds() + RECORDS - 1, recovered.maxTimestampSoFar());
        } finally {
            recovered.close();
        }
        assertEquals(10 * 1024 * 1024 / OffsetIndex.ENTRY_SIZE * OffsetIndex.ENTRY_SIZE,
                Files.size(recovered.offsetIndex().file()),
                "left preallocated, not trimmed: the next open must not take it for a complete index");
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 1024 * 1024);
        }

        LogSegment reopened = LogSegment.open(segmentDir, 0, config, false, "");
        try {
            assertEquals(entries, reopened.offsetIndex().entries(), "rebuilt from the log, not taken as it was");
            assertEquals(time.milliseconds() + RECORDS - 1, reopened.maxTimestampSoFar());
        } finally {
            reopened.closeHandlers();
        }
    }

    private LogManager start() throws IOException {
        LogManager manager = new LogManager(new LogManager.Config(List.of(dir), LOG_CONFIG, 3_600_000L, 3_600_000L,
                3_600_000L, 1, LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS,
                new LogCleaner.Config(false, Double.MAX_VALUE, 15_000L, 1024 * 1024, 64 * 1024)), time);
        managers.add(manager);
        manager.startup(topic -> LOG_CONFIG);
        return manager;
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition("orders", partition);
    }

    private static PartitionLog log(LogManager manager, int partition) {
        return manager.getLog(tp(partition)).orElseThrow();
    }

    private void append(PartitionLog partitionLog, int from, int to) {
        append(partitionLog, from, to, 0);
    }

    private void append(PartitionLog partitionLog, int from, int to, int leaderEpoch) {
        for (int i = from; i < to; i++) {
            partitionLog.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord(time.milliseconds(), ("key-" + i).getBytes(UTF_8),
                            ("value-" + i).getBytes(UTF_8))), leaderEpoch);
        }
    }

    private static List<String> expected(int from, int to) {
        List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add("value-" + i);
        }
        return values;
    }

    private static List<String> readValues(PartitionLog partitionLog) {
        return LogContents.readAll(partitionLog).stream().map(LogContents.LogRecord::value).toList();
    }
}
