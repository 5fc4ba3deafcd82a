package io.tributary.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the segments of one partition's log directory as {@link PartitionLog#open} and a reload after a resource
 * error need them: removes temporary files ({@code .deleted}, {@code .cleaned}, {@code .tmp}), completes a compaction
 * swap a crash interrupted ({@code .swap} files), opens every {@code <base offset>.log} with its indexes, deletes
 * indexes without a log file, recovers the segments from the recovery point on after an unclean shutdown (recording
 * the leader epochs of the batches it checks), and derives the log's offsets from what it found. Replaying the
 * producer state over the segments ({@link #rebuildProducerState}) is here too, for the log to call after a
 * truncation.
 *
 * <p>Threads: used once per load, by the thread that opens the log or, under the log's lock, by its reload; the
 * {@link LogSegments} it fills are the log's, not yet read by anyone else.
 */
final class LogLoader {

    private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

    /** The offsets of a loaded log (see {@link PartitionLog} for what each means). */
    record LoadedOffsets(long logStartOffset, long logEndOffset, long recoveryPoint, long highWatermark) {
    }

    /** A log's recovery that takes longer than this reports its progress at this interval (10 s). */
    private static final long RECOVERY_REPORT_INTERVAL_NANOS = 10_000_000_000L;

    private final TopicPartition topicPartition;
    private final Path dir;
    private final LogConfig config;
    private final LogSegments segments;
    private final LeaderEpochCache epochCache;

    LogLoader(TopicPartition topicPartition, Path dir, LogConfig config,
              LogSegments segments, LeaderEpochCache epochCache) {
        this.topicPartition = topicPartition;
        this.dir = dir;
        this.config = config;
        this.segments = segments;
        this.epochCache = epochCache;
    }

    /**
     * Fills the (empty) segment map from the directory, recovering from the recovery point on unless the last
     * shutdown was clean, and leaves the last segment active.
     */
    LoadedOffsets loadSegments(LoadState loadState) throws IOException {
        removeTemporaryFiles();
        completeSwaps();
        TreeSet<Long> baseOffsets = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + LogSegment.LOG_SUFFIX)) {
            for (Path file : files) {
                baseOffsets.add(parseBaseOffset(file.getFileName().toString()));
            }
        }
        long recoverFrom = loadState.hadCleanShutdown() ? Long.MAX_VALUE : Math.max(0, loadState.recoveryPoint());
        // The segments recovery will scan (the one holding the recovery point and every later one) have their
        // indexes rebuilt by it, so their files are not read at all: the active segment's is preallocated and was
        // never trimmed. The others' were trimmed at roll and flushed before the recovery point passed them.
        Long firstRecovered = recoverFrom == Long.MAX_VALUE ? null
                : Objects.requireNonNullElse(baseOffsets.floor(recoverFrom), Long.MIN_VALUE);
        for (long baseOffset : baseOffsets) {
            boolean recovered = firstRecovered != null && baseOffset >= firstRecovered;
            segments.add(LogSegment.open(dir, baseOffset, config, false, "",
                    recovered ? LogSegment.Indexes.DISCARD : LogSegment.Indexes.CHECK));
        }
        deleteOrphanIndexes();
        if (segments.isEmpty()) {
            long start = Math.max(0, loadState.logStartOffset());
            segments.add(LogSegment.open(dir, start, config, config.preallocate, ""));
        }
        if (recoverFrom != Long.MAX_VALUE) {
            recoverSegmentsFrom(recoverFrom);
        }
        LogSegment active = segments.active();
        active.onBecomeActive();
        long logEndOffset = active.readNextOffset();
        long logStartOffset = Math.min(logEndOffset, Math.max(loadState.logStartOffset(), segments.firstBaseOffset()));
        // Recovered segments were fsynced as they were checked, so everything up to the end is durable now.
        long recoveryPoint = logEndOffset;
        // The checkpointed high watermark: what this replica last knew to be committed, so that as a restarted
        // follower (or a leader until its followers report) it does not hide everything from the log start on.
        long highWatermark = Math.max(logStartOffset, Math.min(loadState.highWatermark(), logEndOffset));
        return new LoadedOffsets(logStartOffset, logEndOffset, recoveryPoint, highWatermark);
    }

    private static long parseBaseOffset(String fileName) throws IOException {
        String digits = fileName.substring(0, fileName.indexOf('.'));
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IOException("unexpected file name " + fileName + " in a partition log directory", e);
        }
    }

    private void removeTemporaryFiles() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(LogSegment.DELETED_SUFFIX) || name.endsWith(LogSegment.CLEANED_SUFFIX)
                        || name.endsWith(".tmp")) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /**
     * A {@code .swap} segment is a finished compaction result whose swap was interrupted by a crash: it replaces
     * every segment whose base offset lies in its offset range. The cleaner keeps the last batch of every group it
     * cleans, even emptied, so that range (base offset to next offset) is exactly the range of the segments it
     * replaces. Index files left {@code .swap} by a crash during the final rename, after the log file had lost its
     * suffix, are deleted: the log file is complete and its indexes are rebuilt.
     */
    private void completeSwaps() throws IOException {
        List<Path> swaps = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir,
                "*" + LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX)) {
            files.forEach(swaps::add);
        }
        for (Path swapFile : swaps) {
            long base = parseBaseOffset(swapFile.getFileName().toString());
            LogSegment swap = LogSegment.open(dir, base, config, false, LogSegment.SWAP_SUFFIX);
            long next = swap.readNextOffset();
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + LogSegment.LOG_SUFFIX)) {
                for (Path file : files) {
                    long otherBase = parseBaseOffset(file.getFileName().toString());
                    if (otherBase >= base && otherBase < Math.max(next, base + 1)) {
                        Files.deleteIfExists(file);
                        Files.deleteIfExists(LogSegment.file(dir, otherBase, LogSegment.INDEX_SUFFIX));
                        Files.deleteIfExists(LogSegment.file(dir, otherBase, LogSegment.TIME_INDEX_SUFFIX));
                        Files.deleteIfExists(LogSegment.file(dir, otherBase, LogSegment.TXN_INDEX_SUFFIX));
                    }
                }
            }
            swap.changeFileSuffixes(LogSegment.SWAP_SUFFIX, "");
            swap.close();
            log.info("{}: completed an interrupted compaction swap of offsets {}..{}", topicPartition, base, next - 1);
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + LogSegment.SWAP_SUFFIX)) {
            for (Path orphan : files) {
                log.info("{}: deleting {}, left by an interrupted compaction swap", topicPartition, orphan);
                Files.deleteIfExists(orphan);
            }
        }
    }

    private void deleteOrphanIndexes() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{index,timeindex,txnindex}")) {
            for (Path file : files) {
                long base = parseBaseOffset(file.getFileName().toString());
                if (!segments.contains(base)) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** Recovers the segment holding {@code offset} and every later one; damage in one drops all later segments. */
    private void recoverSegmentsFrom(long offset) throws IOException {
        Collection<LogSegment> toRecover = new ArrayList<>(segments.from(offset));
        boolean damaged = false;
        // Progress of a long recovery, for the operator waiting on it; a wall-clock reading that decides nothing
        // but when to log, so it is not the injected Time.
        long startedNanos = System.nanoTime();
        long lastReportNanos = startedNanos;
        int done = 0;
        long recoveredBytes = 0;
        for (LogSegment segment : toRecover) {
            long now = System.nanoTime();
            if (now - lastReportNanos >= RECOVERY_REPORT_INTERVAL_NANOS) {
                lastReportNanos = now;
                log.info("{}: recovered {} of {} segments ({} MB) in {} s", topicPartition, done, toRecover.size(),
                        recoveredBytes / (1024 * 1024), (now - startedNanos) / 1_000_000_000L);
            }
            done++;
            if (damaged) {
                log.warn("{}: deleting segment {} that follows damaged data", topicPartition, segment);
                segments.remove(segment);
                segment.deleteIfExists();
                continue;
            }
            int cut;
            try {
                cut = segment.recover(batch -> {
                    if (batch.partitionLeaderEpoch() >= 0) {
                        try {
                            epochCache.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                });
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            damaged = cut > 0;
            segment.flush();
            recoveredBytes += segment.size();
        }
        long tookNanos = System.nanoTime() - startedNanos;
        if (tookNanos >= RECOVERY_REPORT_INTERVAL_NANOS) {
            log.info("{}: recovered {} segments ({} MB) in {} s", topicPartition, toRecover.size(),
                    recoveredBytes / (1024 * 1024), tookNanos / 1_000_000_000L);
        }
        if (segments.isEmpty()) {
            segments.add(LogSegment.open(dir, offset, config, config.preallocate, ""));
        }
        // Recovery built new, preallocated indexes: trim those of every segment but the active one, as a roll does,
        // so that the next start-up takes them by their length.
        LogSegment active = segments.active();
        for (LogSegment segment : toRecover) {
            if (segment != active && segments.holds(segment)) {
                segment.onBecomeInactive();
            }
        }
    }

    /**
     * Reloads the producer state from its latest snapshot and replays the batches of {@code segments} after it, up
     * to {@code logEndOffset}: at load, and after a truncation. Each aborted transaction the replay meets is written to
     * the transaction index of the segment holding its marker, which rebuilds the indexes that recovery discarded
     * (and adds nothing to intact ones, see {@link TransactionIndex#append}).
     */
    static void rebuildProducerState(LogSegments segments,
                                     ProducerStateManager producerState, long logStartOffset, long logEndOffset)
            throws IOException {
        producerState.truncateAndReload(logStartOffset, logEndOffset);
        long from = producerState.mapEndOffset();
        if (from < logEndOffset) {
            for (LogSegment segment : segments.from(from)) {
                int position = segment.baseOffset() >= from ? 0 : segment.offsetIndex().lookup(from).position();
                for (FileChannelRecordBatch batch : segment.records().batchesFrom(position)) {
                    if (batch.lastOffset() >= from) {
                        Optional<ProducerStateManager.CompletedTxn> completed = producerState.update(batch);
                        if (completed.isPresent() && completed.get().aborted()) {
                            ProducerStateManager.CompletedTxn txn = completed.get();
                            segment.txnIndex().append(new AbortedTxn(txn.producerId(), txn.firstOffset(),
                                    txn.lastOffset(), producerState.lastStableOffsetAfter(txn)));
                        }
                    }
                }
            }
        }
        producerState.updateMapEndOffset(logEndOffset);
    }
}
