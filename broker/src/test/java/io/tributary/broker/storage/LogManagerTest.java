package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {

    private static final LogConfig LOG_CONFIG = LogConfig.parse(Map.of(
            LogConfig.SEGMENT_BYTES, "1024",
            LogConfig.SEGMENT_INDEX_BYTES, "4096"));

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path tmp;

    private final ManualTime time = new ManualTime();
    private final List<LogManager> managers = new ArrayList<>();
    private Path dirA;
    private Path dirB;

    @BeforeEach
    void createDirectoryNames() {
        dirA = tmp.resolve("data-a");
        dirB = tmp.resolve("data-b");
    }

    @AfterEach
    void closeManagers() {
        for (LogManager manager : managers) {
            manager.close();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Start-up and restart

    @Test
    void createdLogsAreSpreadOverTheLogDirectories() throws IOException {
        LogManager manager = start(dirA, dirB);

        for (int partition = 0; partition < 6; partition++) {
            manager.getOrCreateLog(tp("orders", partition), LOG_CONFIG);
        }

        assertEquals(3, partitionDirs(dirA).size(), "partitions in " + dirA);
        assertEquals(3, partitionDirs(dirB).size(), "partitions in " + dirB);
        assertEquals(6, manager.allLogs().size());
    }

    @Test
    void restartAfterCleanCloseKeepsEveryRecordAndTheCheckpointedOffsets() throws IOException {
        LogManager first = start(dirA, dirB);
        for (int partition = 0; partition < 4; partition++) {
            PartitionLog partitionLog = first.getOrCreateLog(tp("orders", partition), LOG_CONFIG);
            append(partitionLog, 10 + partition);
        }
        first.getLog(tp("orders", 0)).orElseThrow().deleteRecordsBefore(3); // inside the first segment
        first.close();

        for (Path dir : List.of(dirA, dirB)) {
            assertTrue(Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)), "clean-shutdown marker in " + dir);
        }
        Path checkpointDir = findPartitionDir("orders-0").getParent();
        assertTrue(checkpointLines(checkpointDir, LogManager.RECOVERY_POINT_CHECKPOINT).contains("orders 0 10"));
        assertTrue(checkpointLines(checkpointDir, LogManager.LOG_START_OFFSET_CHECKPOINT).contains("orders 0 3"));

        LogManager second = start(dirA, dirB);

        for (int partition = 0; partition < 4; partition++) {
            PartitionLog partitionLog = second.getLog(tp("orders", partition)).orElseThrow();
            assertEquals(10 + partition, partitionLog.logEndOffset());
            assertEquals(10 + partition, partitionLog.recoveryPoint());
        }
        assertEquals(3, second.getLog(tp("orders", 0)).orElseThrow().logStartOffset(),
                "the log start offset comes back from its checkpoint");
        for (Path dir : List.of(dirA, dirB)) {
            assertFalse(Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)),
                    "the marker is removed at start-up, so that a crash from now on means recovery: " + dir);
        }
        append(second.getLog(tp("orders", 1)).orElseThrow(), 1);
        assertEquals(12, second.getLog(tp("orders", 1)).orElseThrow().logEndOffset());
    }

    @Test
    void restartAfterAHardStopRecoversTheLogsAndCutsATornWrite() throws IOException {
        LogManager first = start(dirA);
        PartitionLog partitionLog = first.getOrCreateLog(tp("orders", 0), LOG_CONFIG);
        append(partitionLog, 25);
        Path activeSegment = LogSegment.file(partitionLog.dir(),
                partitionLog.segmentBaseOffsets().get(partitionLog.segmentBaseOffsets().size() - 1),
                LogSegment.LOG_SUFFIX);
        first.closeWithoutCleanShutdown();
        // A batch cut short by the crash: a header claiming 200 bytes, followed by 20.
        Files.write(activeSegment, new byte[] {0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, (byte) 200, 1, 2, 3, 4, 5, 6, 7, 8,
                9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, StandardOpenOption.APPEND);
        assertFalse(Files.exists(dirA.resolve(LogManager.CLEAN_SHUTDOWN_FILE)), "no marker after a hard stop");

        LogManager second = start(dirA);

        PartitionLog recovered = second.getLog(tp("orders", 0)).orElseThrow();
        assertEquals(25, recovered.logEndOffset());
        assertEquals(25, readValues(recovered).size());
        append(recovered, 1);
        assertEquals(List.of("value-0", "value-24", "value-0"), List.of(readValues(recovered).get(0),
                readValues(recovered).get(24), readValues(recovered).get(25)));
    }

    @Test
    void loadingSmallDataLogsOneSummaryLinePerDirectoryWithItsSizeAndRate() throws IOException {
        LogManager first = start(dirA);
        for (int partition = 0; partition < 3; partition++) {
            append(first.getOrCreateLog(tp("small", partition), LOG_CONFIG), 5);
        }
        first.close();
        ch.qos.logback.classic.Logger loader =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(LogDirLoader.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        loader.addAppender(lines);
        ch.qos.logback.classic.Level previous = loader.getLevel();
        loader.setLevel(ch.qos.logback.classic.Level.INFO);
        loader.setAdditive(false);
        try {
            start(dirA);
        } finally {
            loader.detachAppender(lines);
            loader.setLevel(previous);
            loader.setAdditive(true);
        }
        List<String> info = lines.list.stream()
                .filter(event -> event.getLevel() == ch.qos.logback.classic.Level.INFO)
                .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
        assertEquals(1, info.size(), info.toString());
        assertTrue(info.get(0).matches("Loaded 3 of 3 partitions in " + java.util.regex.Pattern.quote(dirA.toString())
                + " \\(\\d+\\.\\d MB, \\d+\\.\\d MB/s\\) in \\d+ ms \\(clean shutdown\\)"), info.get(0));
    }

    @Test
    void startupLoadsFortyPartitionsInParallelFromSeveralDirectories() throws IOException {
        LogManager first = start(dirA, dirB);
        for (int partition = 0; partition < 40; partition++) {
            append(first.getOrCreateLog(tp("events", partition), LOG_CONFIG), 1 + partition % 5);
        }
        first.closeWithoutCleanShutdown(); // every log is recovered at the next start

        LogManager second = start(config(4, dirA, dirB));

        assertEquals(40, second.allLogs().size());
        for (int partition = 0; partition < 40; partition++) {
            assertEquals(1 + partition % 5, second.getLog(tp("events", partition)).orElseThrow().logEndOffset());
        }
    }

    @Test
    void startupWithNoPartitionsAtAllWorks() throws IOException {
        LogManager manager = start(dirA, dirB);

        assertTrue(manager.allLogs().isEmpty());
        assertTrue(manager.offlineDirs().isEmpty());
    }

    @Test
    void logsAreLoadedWithTheirTopicsConfiguration() throws IOException {
        LogConfig compacted = LOG_CONFIG.withOverrides(Map.of(LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.RETENTION_MS, "1000"));
        LogManager first = start(dirA);
        PartitionLog accounts = first.getOrCreateLog(tp("accounts", 0), compacted);
        append(accounts, 3);
        accounts.roll();
        append(accounts, 1);
        first.close();

        LogManager second = new LogManager(config(1, dirA), time);
        managers.add(second);
        second.startup(topic -> topic.equals("accounts") ? compacted : LOG_CONFIG);
        time.advance(10_000);

        assertTrue(second.getLog(tp("accounts", 0)).orElseThrow().config().compact());
        assertEquals(0, second.runRetention(), "retention.ms does not apply to a compact-only topic");
        assertEquals(4, readValues(second.getLog(tp("accounts", 0)).orElseThrow()).size());
    }

    @Test
    void secondManagerOnTheSameDirectoryFailsAndLeavesItAlone() throws IOException {
        LogManager first = start(dirA);
        first.getOrCreateLog(tp("orders", 0), LOG_CONFIG).deleteRecordsBefore(0);
        first.checkpointAll();
        String checkpointBefore = Files.readString(dirA.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT));

        LogManager second = new LogManager(config(2, dirA, dirB), time);
        managers.add(second);
        IOException failure = assertThrows(IOException.class, second::startup);

        assertTrue(failure.getMessage().contains(dirA.toString()) && failure.getMessage().contains("in use"),
                failure.getMessage());
        second.close();
        assertEquals(checkpointBefore, Files.readString(dirA.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT)),
                "the failed manager must not write the directory's checkpoints");
        assertTrue(first.getLog(tp("orders", 0)).isPresent());
        append(first.getLog(tp("orders", 0)).orElseThrow(), 1);
    }

    @Test
    void directoryWithALogThatCannotBeLoadedIsOfflineAsAWhole() throws IOException {
        LogManager first = start(dirA, dirB);
        for (int partition = 0; partition < 20; partition++) {
            append(first.getOrCreateLog(tp("orders", partition), LOG_CONFIG), 2);
            if (partition == 10) {
                // Amid good ones, so that whatever order the directory is listed in, some good logs of dirA
                // finish loading before the broken one fails.
                Path broken = dirA.resolve("broken-0");
                Files.createDirectories(broken);
                Files.writeString(broken.resolve("not-an-offset.log"), "x");
            }
        }
        first.close();
        List<TopicPartition> inB = new ArrayList<>();
        for (String name : partitionDirs(dirB)) {
            inB.add(PartitionDirName.parse(name).orElseThrow());
        }

        LogManager second = start(dirA, dirB);

        assertEquals(Set.of(dirA), second.offlineDirs());
        assertEquals(Set.copyOf(inB), Set.copyOf(second.allLogs().stream()
                .map(PartitionLog::topicPartition).toList()), "only the logs of the online directory are served");
    }

    @Test
    void startupWithEveryDirectoryOfflineFailsAndReleasesTheLocks() throws IOException {
        Path broken = dirA.resolve("broken-0");
        Files.createDirectories(broken);
        Files.writeString(broken.resolve("not-an-offset.log"), "x");
        LogManager failed = new LogManager(config(1, dirA), time);
        managers.add(failed);

        IOException failure = assertThrows(IOException.class, failed::startup);

        assertTrue(failure.getMessage().contains("every log directory is offline")
                && failure.getMessage().contains("not-an-offset.log"), failure.getMessage());
        Files.delete(broken.resolve("not-an-offset.log"));
        assertTrue(start(dirA).offlineDirs().isEmpty(), "the directory is usable by the next manager");
    }

    @Test
    void closingAManagerThatNeverStartedWritesNothing() throws IOException {
        LogManager first = start(dirA);
        first.getOrCreateLog(tp("orders", 0), LOG_CONFIG).deleteRecordsBefore(0);
        first.close();
        String checkpoint = Files.readString(dirA.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT));

        new LogManager(config(1, dirA), time).close();

        assertEquals(checkpoint, Files.readString(dirA.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT)));
        assertEquals(List.of(tp("orders", 0)), start(dirA).allLogs().stream().map(PartitionLog::topicPartition)
                .toList());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Running

    @Test
    void deleteLogRemovesTheLogAndItsDirectory() throws IOException {
        LogManager manager = start(dirA);
        PartitionLog partitionLog = manager.getOrCreateLog(tp("orders", 0), LOG_CONFIG);
        append(partitionLog, 5);
        manager.getOrCreateLog(tp("orders", 1), LOG_CONFIG);

        manager.deleteLog(tp("orders", 0));

        assertEquals(Optional.empty(), manager.getLog(tp("orders", 0)));
        waitUntil(() -> partitionDirs(dirA).equals(List.of("orders-1")), "the deleted log's directory is removed");
        manager.close();
        assertEquals(List.of(tp("orders", 1)), start(dirA).allLogs().stream().map(PartitionLog::topicPartition)
                .toList(), "a deleted log does not come back at restart");
    }

    @Test
    void aCheckpointThatFindsTheDiskFullTakesNothingOfflineAndIsWrittenAtTheNextInterval() throws IOException {
        LogManager manager = start(dirA);
        PartitionLog partitionLog = manager.getOrCreateLog(tp("orders", 0), LOG_CONFIG);
        append(partitionLog, 3);
        partitionLog.updateHighWatermark(3);
        // A real ENOSPC: the checkpoint's .tmp is /dev/full (and deleted after the failed write, as any .tmp).
        Path tmp = dirA.resolve(LogManager.REPLICATION_OFFSET_CHECKPOINT + ".tmp");
        Files.createSymbolicLink(tmp, Path.of("/dev/full"));

        manager.checkpointHighWatermarks();

        assertTrue(manager.offlineDirs().isEmpty(), "a full disk is not a failed disk");
        assertEquals(Optional.of(partitionLog), manager.getLog(tp("orders", 0)));
        append(partitionLog, 1);
        manager.checkpointHighWatermarks();
        assertTrue(Files.readString(dirA.resolve(LogManager.REPLICATION_OFFSET_CHECKPOINT)).contains("orders 0 3"),
                "written at the next interval");
    }

    @Test
    void ioErrorInOneDirectoryTakesOnlyThatDirectoryOffline() throws IOException {
        LogManager manager = start(dirA, dirB);
        List<Path> reported = new CopyOnWriteArrayList<>();
        List<Set<TopicPartition>> lost = new CopyOnWriteArrayList<>();
        manager.addOfflineDirListener((dir, partitions) -> {
            reported.add(dir);
            lost.add(partitions);
        });
        PartitionLog inA = manager.getOrCreateLog(tp("orders", 0), LOG_CONFIG);
        PartitionLog inB = manager.getOrCreateLog(tp("orders", 1), LOG_CONFIG);
        assertEquals(dirA, inA.dir().getParent());
        append(inA, 3);
        append(inB, 3);

        deleteRecursively(inA.dir()); // the disk under orders-0 is gone
        assertThrows(KafkaStorageException.class, inA::roll);

        assertEquals(List.of(dirA), reported);
        assertEquals(List.of(Set.of(tp("orders", 0))), lost);
        assertEquals(Set.of(dirA), manager.offlineDirs());
        assertEquals(Set.of(tp("orders", 0)), manager.lostPartitions());
        assertThrows(KafkaStorageException.class, () -> manager.getOrCreateLog(tp("orders", 0), LOG_CONFIG),
                "no empty log replaces one whose directory is offline");
        assertEquals(Optional.empty(), manager.getLog(tp("orders", 0)));
        assertThrows(KafkaStorageException.class, () -> append(inA, 1));
        append(inB, 2);
        assertEquals(5, inB.logEndOffset());
        assertEquals(dirB, manager.getOrCreateLog(tp("orders", 2), LOG_CONFIG).dir().getParent(),
                "new logs go to the directories still online");
        manager.close();
        assertFalse(Files.exists(dirA.resolve(LogManager.CLEAN_SHUTDOWN_FILE)), "the offline directory");
        assertTrue(Files.exists(dirB.resolve(LogManager.CLEAN_SHUTDOWN_FILE)), "the online directory");
    }

    @Test
    void runRetentionDeletesSegmentsOlderThanRetentionMsAndCloseDoesNotWaitForTheirFiles() throws IOException {
        LogManager manager = start(dirA);
        LogConfig config = LOG_CONFIG.withOverrides(Map.of(LogConfig.RETENTION_MS, "60000",
                LogConfig.FILE_DELETE_DELAY_MS, "60000"));
        PartitionLog partitionLog = manager.getOrCreateLog(tp("orders", 0), config);
        append(partitionLog, 3);
        partitionLog.roll();
        time.advance(30_000);
        append(partitionLog, 3);
        partitionLog.roll();
        append(partitionLog, 3);

        time.advance(30_000);
        assertEquals(0, manager.runRetention(), "the oldest segment is exactly retention.ms old");
        time.advance(1);
        assertEquals(1, manager.runRetention());
        assertEquals(3, partitionLog.logStartOffset());
        time.advance(30_000);
        assertEquals(1, manager.runRetention());
        assertEquals(6, partitionLog.logStartOffset());
        assertEquals(0, manager.runRetention(), "the active segment is never deleted");

        long started = System.nanoTime();
        manager.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(closeMs < 5_000, "close waited " + closeMs + " ms for delayed file deletions");
        assertEquals(6, start(dirA).getLog(tp("orders", 0)).orElseThrow().logStartOffset());
    }

    @Test
    void scheduledFlushAndCheckpointRunInTheBackground() throws IOException {
        LogManager manager = start(new LogManager.Config(List.of(dirA), LOG_CONFIG, 3_600_000L, 10L, 10L, 1,
                LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS, disabledCleaner()));
        PartitionLog partitionLog = manager.getOrCreateLog(tp("orders", 0),
                LOG_CONFIG.withOverrides(Map.of(LogConfig.FLUSH_MS, "0")));

        append(partitionLog, 4);

        waitUntil(() -> partitionLog.recoveryPoint() == 4, "the flush task moves the recovery point");
        waitUntil(() -> checkpointLines(dirA, LogManager.RECOVERY_POINT_CHECKPOINT).contains("orders 0 4"),
                "the checkpoint task writes it");
    }

    @Test
    void cleanerCompactsCompactedLogsInTheBackground() throws IOException {
        LogManager manager = start(new LogManager.Config(List.of(dirA), LOG_CONFIG, 3_600_000L, 3_600_000L,
                3_600_000L, 1, LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS,
                new LogCleaner.Config(true, Double.MAX_VALUE, 10L, 1024 * 1024, 64 * 1024)));
        LogConfig compacted = LOG_CONFIG.withOverrides(Map.of(LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.1"));
        PartitionLog partitionLog = manager.getOrCreateLog(tp("accounts", 0), compacted);
        PartitionLog notCompacted = manager.getOrCreateLog(tp("orders", 0), LOG_CONFIG);
        append(partitionLog, 10);
        append(notCompacted, 10);
        partitionLog.roll();
        notCompacted.roll();
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
        notCompacted.updateHighWatermark(notCompacted.logEndOffset());

        waitUntil(() -> readValues(partitionLog).size() == 1, "the cleaner thread compacts accounts-0");
        assertEquals(10, readValues(notCompacted).size(), "a log with cleanup.policy=delete is left alone");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Helpers

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    private static LogCleaner.Config disabledCleaner() {
        return new LogCleaner.Config(false, Double.MAX_VALUE, 15_000L, 1024 * 1024, 64 * 1024);
    }

    /** Schedules far apart, so that only the test triggers retention, flushes and checkpoints. */
    private static LogManager.Config config(int recoveryThreadsPerDir, Path... dirs) {
        return new LogManager.Config(List.of(dirs), LOG_CONFIG, 3_600_000L, 3_600_000L, 3_600_000L,
                recoveryThreadsPerDir, LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS, disabledCleaner());
    }

    private LogManager start(Path... dirs) throws IOException {
        return start(config(2, dirs));
    }

    private LogManager start(LogManager.Config config) throws IOException {
        LogManager manager = new LogManager(config, time);
        managers.add(manager);
        manager.startup();
        return manager;
    }

    /** Appends {@code count} single-record batches, all with the same key, values value-0, value-1, ... */
    private void append(PartitionLog partitionLog, int count) {
        for (int i = 0; i < count; i++) {
            partitionLog.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord(time.milliseconds(), "key".getBytes(UTF_8), ("value-" + i).getBytes(UTF_8))), 0);
        }
    }

    private static List<String> readValues(PartitionLog partitionLog) {
        return LogContents.readAll(partitionLog).stream().map(LogContents.LogRecord::value).toList();
    }

    private static List<String> partitionDirs(Path logDir) {
        try (Stream<Path> children = Files.list(logDir)) {
            return children.filter(Files::isDirectory).map(path -> path.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private Path findPartitionDir(String name) {
        for (Path dir : List.of(dirA, dirB)) {
            if (Files.isDirectory(dir.resolve(name))) {
                return dir.resolve(name);
            }
        }
        throw new AssertionError(name + " is in no log directory");
    }

    private static List<String> checkpointLines(Path logDir, String name) {
        try {
            Path file = logDir.resolve(name);
            return Files.exists(file) ? Files.readAllLines(file, UTF_8) : List.of();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static void waitUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
