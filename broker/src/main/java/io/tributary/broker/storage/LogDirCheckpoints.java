package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset checkpoints of each log directory: {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint} and {@code replication-offset-checkpoint} (high watermarks), each a
 * {@link CheckpointFile} of {@code "topic partition offset"} lines. Read once per directory at start-up; written on
 * the {@link LogManager}'s schedules and at close.
 *
 * <p>A checkpoint that cannot be written for want of a resource ({@link StorageFault}) stays as it was and is written
 * at the next interval (logged once per episode); any other error is a disk failure of the directory.
 *
 * <p>Threads: writes are serialised by {@link #writeLock}: the replica manager's high-watermark schedule and the log
 * manager's checkpoint schedule write {@code replication-offset-checkpoint} through the same {@code .tmp} file.
 */
final class LogDirCheckpoints {

    private static final Logger log = LoggerFactory.getLogger(LogDirCheckpoints.class);

    /** The checkpointed offsets of one directory's partitions; partitions without a checkpoint are absent. */
    record Offsets(Map<TopicPartition, Long> recoveryPoints, Map<TopicPartition, Long> logStartOffsets,
                   Map<TopicPartition, Long> highWatermarks) {
    }

    private final List<Path> logDirs;
    private final Predicate<Path> writable;
    private final Collection<PartitionLog> logs;
    private final BiConsumer<Path, IOException> onDiskFailure;
    /** Serialises checkpoint writes (see the class comment). */
    private final Object writeLock = new Object();
    /** Directories where a checkpoint could not be written for want of a resource, so that it is logged once. */
    private final Set<Path> behind = ConcurrentHashMap.newKeySet();

    /**
     * @param logDirs       every configured log directory, in order
     * @param writable      whether a directory's checkpoints may be written now (online, and loaded by this manager)
     * @param logs          the live view of the logs whose offsets are written
     * @param onDiskFailure takes a directory offline after a disk failure
     */
    LogDirCheckpoints(List<Path> logDirs, Predicate<Path> writable, Collection<PartitionLog> logs,
                      BiConsumer<Path, IOException> onDiskFailure) {
        this.logDirs = logDirs;
        this.writable = writable;
        this.logs = logs;
        this.onDiskFailure = onDiskFailure;
    }

    /** Reads a directory's checkpoints; a corrupt one reads as empty (see {@link OffsetCheckpoint#readMap}). */
    static Offsets read(Path dir) throws IOException {
        Map<TopicPartition, Long> recoveryPoints = offsetCheckpoint(dir, LogManager.RECOVERY_POINT_CHECKPOINT)
                .readMap();
        Map<TopicPartition, Long> startOffsets = offsetCheckpoint(dir, LogManager.LOG_START_OFFSET_CHECKPOINT)
                .readMap();
        Map<TopicPartition, Long> highWatermarks = offsetCheckpoint(dir, LogManager.REPLICATION_OFFSET_CHECKPOINT)
                .readMap();
        return new Offsets(recoveryPoints, startOffsets, highWatermarks);
    }

    /**
     * Writes the high-watermark checkpoint of every writable directory, and with {@code all} its recovery-point and
     * log-start-offset checkpoints too.
     */
    void write(boolean all) {
        // One writer at a time: the replica manager's high-watermark schedule and this manager's checkpoint schedule
        // write replication-offset-checkpoint through the same .tmp file, and the second rename of two interleaved
        // writes found no .tmp (NoSuchFileException), which took the directory offline.
        synchronized (writeLock) {
            writeCheckpoints(all);
        }
    }

    private void writeCheckpoints(boolean all) {
        for (Path dir : logDirs) {
            if (!writable.test(dir)) {
                continue;
            }
            Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
            Map<TopicPartition, Long> startOffsets = new HashMap<>();
            Map<TopicPartition, Long> highWatermarks = new HashMap<>();
            for (PartitionLog partitionLog : logs) {
                if (partitionLog.dir().getParent().equals(dir)) {
                    recoveryPoints.put(partitionLog.topicPartition(), partitionLog.recoveryPoint());
                    startOffsets.put(partitionLog.topicPartition(), partitionLog.logStartOffset());
                    highWatermarks.put(partitionLog.topicPartition(), partitionLog.highWatermark());
                }
            }
            try {
                offsetCheckpoint(dir, LogManager.REPLICATION_OFFSET_CHECKPOINT).writeMap(highWatermarks);
                if (all) {
                    offsetCheckpoint(dir, LogManager.RECOVERY_POINT_CHECKPOINT).writeMap(recoveryPoints);
                    offsetCheckpoint(dir, LogManager.LOG_START_OFFSET_CHECKPOINT).writeMap(startOffsets);
                }
                if (behind.remove(dir)) {
                    log.info("Checkpoints of {} are written again", dir);
                }
            } catch (IOException e) {
                if (!StorageFault.isResourceExhausted(e)) {
                    onDiskFailure.accept(dir, e);
                } else if (behind.add(dir)) {
                    // The old checkpoint stays in place (written to .tmp, then renamed), only older: a crash now
                    // recovers a little more of each log, a restarted replica starts from an older high watermark,
                    // and a log start offset that DeleteRecords moved within a segment moves back. Taking the
                    // directory offline would cost every read.
                    log.warn("Cannot write the checkpoints of {} ({}); trying again at the next interval", dir,
                            e.getMessage());
                }
            }
        }
    }

    private static OffsetCheckpoint offsetCheckpoint(Path dir, String name) {
        return new OffsetCheckpoint(dir.resolve(name));
    }

    /** A per-directory checkpoint of one offset per partition, lines {@code "topic partition offset"}. */
    private static final class OffsetCheckpoint {
        private final CheckpointFile<Map.Entry<TopicPartition, Long>> file;

        OffsetCheckpoint(Path path) {
            this.file = new CheckpointFile<>(path, 0,
                    entry -> entry.getKey().topic() + " " + entry.getKey().partition() + " " + entry.getValue(),
                    line -> {
                        String[] fields = CheckpointFile.fields(line, 3);
                        return Map.entry(new TopicPartition(fields[0], Integer.parseInt(fields[1])),
                                Long.parseLong(fields[2]));
                    });
        }

        Map<TopicPartition, Long> readMap() throws IOException {
            Map<TopicPartition, Long> result = new HashMap<>();
            try {
                for (Map.Entry<TopicPartition, Long> entry : file.read()) {
                    result.put(entry.getKey(), entry.getValue());
                }
            } catch (CorruptCheckpointException e) {
                // Losing a checkpoint costs a full recovery, never data: recover everything instead of refusing.
                log.warn("{}; recovering every log of the directory from the start", e.getMessage());
                return Map.of();
            }
            return result;
        }

        void writeMap(Map<TopicPartition, Long> offsets) throws IOException {
            file.write(List.copyOf(offsets.entrySet()));
        }
    }
}
