package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.tributary.broker.storage.LogLifecycle.State;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable log of one topic-partition: a directory {@code <topic>-<partition>} of {@link LogSegment}s, the
 * producer state for idempotence, and the leader-epoch cache.
 *
 * <p>Offsets: {@code logStartOffset} is the first offset a reader may ask for; {@code logEndOffset} (LEO) the next
 * offset to be written; {@code highWatermark} (maintained by replication, at most LEO) bounds what consumers see;
 * {@code recoveryPoint} is the offset below which every byte is known to be fsynced, so recovery after a crash
 * starts there. The log end offset, the recovery point and flushing are {@link LogSegments}'s; the log start offset
 * and the high watermark are this class's.
 *
 * <p>Transactions: the producer state also tracks open transactions, from which the log derives its last stable
 * offset ({@link #lastStableOffset}, what read_committed consumers read below); each segment's {@code .txnindex}
 * ({@link TransactionIndex}) lists the aborted transactions whose marker it holds ({@link #abortedTransactions}).
 *
 * <p>Files besides the segments: {@code leader-epoch-checkpoint} ({@link LeaderEpochCache}) and
 * {@code <offset>.snapshot} ({@link ProducerStateManager}). The log start offset and recovery point are
 * checkpointed per log directory by the {@link LogManager}.
 *
 * <p>Threads: one writer at a time, serialised by {@link #lock}: appends, roll, truncation, retention, compaction's
 * segment swap, config changes, and the bookkeeping of a flush ({@link LogSegments#flushUpTo}, which shares this
 * lock). Reads ({@link #read}, {@link #offsetForTimestamp}, the offset accessors) take no lock: the segments
 * ({@link LogSegments}, changed only by the writer) are a concurrent map and the offsets, here and there, are
 * volatile, written by the writer after the data they describe.
 *
 * <p>I/O errors ({@link StorageFault}; the states they lead to are {@link LogLifecycle}'s): a disk failure takes the
 * log offline (every later call throws {@link KafkaStorageException}) and is reported to the
 * {@link LogDirFailureHandler}, which takes the whole log directory offline. A resource that comes back (EMFILE,
 * ENOSPC) fails only the call, with
 * {@link StorageResourceException}: an append cuts its partial write off again, and the other changes either leave
 * the log as it was or, where a change was half made (a truncation, a compaction swap), <em>suspend</em> the log: its
 * files are closed (which also gives file descriptors back) and calls fail with {@code StorageResourceException}
 * until the {@link LogManager} reloads it from disk ({@link #reloadIfSuspended}), as after a crash, from its recovery
 * point. An fsync failure is always a disk failure: after one, Linux may have dropped the dirty pages it could not
 * write (PostgreSQL's "fsyncgate"), so the disk no longer holds what the log has in memory.
 */
public final class PartitionLog implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    /** ListOffsets' special timestamps. */
    public static final long EARLIEST_TIMESTAMP = -2L;
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long MAX_TIMESTAMP = -3L;

    static final String LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";

    private final TopicPartition topicPartition;
    private final Path dir;
    private final LogEnvironment env;
    private final Object lock = new Object();
    private final LogSegments segments;
    private final ProducerStateManager producerState;
    private final LeaderEpochCache epochCache;

    private volatile LogConfig config;
    private final LogLifecycle lifecycle;
    /** Written under the lock. */
    private volatile long logStartOffset;
    /** Written under the lock. */
    private volatile long highWatermark;
    /**
     * The producer state's first unstable offset ({@link ProducerStateManager#firstUnstableOffset()}), or
     * {@link Long#MAX_VALUE} when every transaction is decided below the high watermark. Written under the lock.
     */
    private volatile long firstUnstableOffset = Long.MAX_VALUE;
    /** Number of truncations so far; the cleaner drops a pass that overlapped one. Written under the lock. */
    private volatile long truncations;

    private PartitionLog(TopicPartition topicPartition, Path dir, LogConfig config, LogEnvironment env)
            throws IOException {
        this.topicPartition = topicPartition;
        this.dir = dir;
        this.config = config;
        this.env = env;
        this.lifecycle = new LogLifecycle(topicPartition, dir, env.failureHandler());
        this.segments = new LogSegments(topicPartition, dir, this::config, env, lock, lifecycle);
        this.producerState = new ProducerStateManager(topicPartition, dir, env.producerIdExpirationMs(), env.time());
        this.epochCache = new LeaderEpochCache(topicPartition, dir.resolve(LEADER_EPOCH_CHECKPOINT));
    }

    /**
     * Opens the log in {@code dir} (created if missing), completing an interrupted compaction swap, recovering
     * every segment from the recovery point on if the last shutdown was not clean, and rebuilding the producer state.
     */
    public static PartitionLog open(Path dir, TopicPartition topicPartition, LogConfig config, LoadState loadState,
                                    LogEnvironment env) throws IOException {
        Files.createDirectories(dir);
        PartitionLog partitionLog = new PartitionLog(topicPartition, dir, config, env);
        try {
            partitionLog.load(loadState);
        } catch (IOException | RuntimeException e) {
            partitionLog.releaseSegments();
            throw e;
        }
        return partitionLog;
    }

    private void load(LoadState loadState) throws IOException {
        LogLoader.LoadedOffsets loaded = new LogLoader(topicPartition, dir, config, segments, epochCache)
                .loadSegments(loadState);
        segments.loaded(loaded.logEndOffset(), loaded.recoveryPoint());
        logStartOffset = loaded.logStartOffset();
        highWatermark = loaded.highWatermark();
        epochCache.truncateFromEnd(loaded.logEndOffset());
        truncateEpochsFromStart(logStartOffset);
        if (!loadState.hadCleanShutdown()) {
            // The replay must cover every segment recovery scanned: their transaction indexes were discarded and are
            // rebuilt by it. A snapshot above the recovery point would start it too late.
            long recoveryPoint = Math.max(0, loadState.recoveryPoint());
            long firstRecovered = segments.from(recoveryPoint).stream().findFirst().map(LogSegment::baseOffset)
                    .orElse(recoveryPoint);
            producerState.deleteSnapshotsAfter(Math.min(recoveryPoint, firstRecovered));
        }
        rebuildProducerState();
        log.info("Loaded {} with {} segments, log start offset {}, log end offset {}{}", topicPartition,
                segments.count(), logStartOffset, loaded.logEndOffset(),
                loadState.hadCleanShutdown() ? "" : " (recovered from offset " + loadState.recoveryPoint() + ")");
    }

    private void rebuildProducerState() throws IOException {
        LogLoader.rebuildProducerState(segments, producerState, logStartOffset, segments.logEndOffset());
        producerState.onHighWatermarkUpdated(highWatermark);
        updateFirstUnstableOffset();
    }

    /** Publishes the producer state's first unstable offset for the lock-free {@link #lastStableOffset()}. */
    private void updateFirstUnstableOffset() {
        firstUnstableOffset = producerState.firstUnstableOffset().orElse(Long.MAX_VALUE);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Appends

    /**
     * Validates a client's batches, assigns them the next offsets and the leader epoch, and appends them. A batch
     * that repeats one of a producer's last five (an idempotent retry) is not written again: the result carries
     * the original offsets and {@code duplicate = true}.
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        return appendAsLeader(records, leaderEpoch, AppendOrigin.CLIENT);
    }

    /**
     * {@link #appendAsLeader(MemoryRecords, int)} on behalf of {@code origin}: a coordinator's batches are checked
     * against the producer state by epoch only, and may be transaction markers ({@link ProducerStateManager}).
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch, AppendOrigin origin) {
        long now = env.time().milliseconds();
        LogConfig current = config;
        BatchValidator.ValidBatches valid = BatchValidator.validateForLeader(topicPartition.toString(), records,
                current, now, origin);
        if (valid.batches().isEmpty()) {
            return new LogAppendInfo(logEndOffset(), logEndOffset() - 1, LogAppendInfo.NO_APPEND_TIME, logStartOffset,
                    0, 0, false);
        }
        synchronized (lock) {
            lifecycle.ensureOpen();
            Optional<BatchMetadata> duplicate = producerState.checkLeaderAppend(valid.batches(), origin);
            if (duplicate.isPresent()) {
                BatchMetadata original = duplicate.get();
                return new LogAppendInfo(original.firstOffset(), original.lastOffset(),
                        current.timestampType == TimestampType.LOG_APPEND_TIME ? original.maxTimestamp()
                                : LogAppendInfo.NO_APPEND_TIME,
                        logStartOffset, 0, 0, true);
            }
            long firstOffset = logEndOffset();
            long next = firstOffset;
            for (MutableRecordBatch batch : valid.batches()) {
                batch.setLastOffset(next + batch.lastOffset() - batch.baseOffset());
                batch.setPartitionLeaderEpoch(leaderEpoch);
                if (current.timestampType == TimestampType.LOG_APPEND_TIME) {
                    batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, now);
                }
                next = batch.nextOffset();
            }
            long maxTimestamp = current.timestampType == TimestampType.LOG_APPEND_TIME ? now : valid.maxTimestamp();
            append(records, valid, firstOffset, next - 1, maxTimestamp);
            return new LogAppendInfo(firstOffset, next - 1,
                    current.timestampType == TimestampType.LOG_APPEND_TIME ? now : LogAppendInfo.NO_APPEND_TIME,
                    logStartOffset, valid.recordCount(), valid.sizeInBytes(), false);
        }
    }

    /**
     * Appends batches a leader has already assigned offsets to (replication). A trailing partial batch is left out;
     * offsets must not go back below the log end offset.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        BatchValidator.ValidBatches valid = BatchValidator.validateForFollower(topicPartition.toString(), records,
                config);
        if (valid.batches().isEmpty()) {
            return new LogAppendInfo(logEndOffset(), logEndOffset() - 1, LogAppendInfo.NO_APPEND_TIME, logStartOffset,
                    0, 0, false);
        }
        synchronized (lock) {
            lifecycle.ensureOpen();
            long firstOffset = valid.batches().get(0).baseOffset();
            long lastOffset = valid.batches().get(valid.batches().size() - 1).lastOffset();
            if (firstOffset < logEndOffset()) {
                throw new OffsetOutOfRangeException("Replicated batches for " + topicPartition + " start at offset "
                        + firstOffset + ", below the log end offset " + logEndOffset());
            }
            MemoryRecords whole = valid.sizeInBytes() == records.sizeInBytes() ? records
                    : MemoryRecords.readableRecords(records.buffer().duplicate().limit(
                            records.buffer().position() + valid.sizeInBytes()).slice());
            append(whole, valid, firstOffset, lastOffset, valid.maxTimestamp());
            return new LogAppendInfo(firstOffset, lastOffset, LogAppendInfo.NO_APPEND_TIME, logStartOffset,
                    valid.recordCount(), valid.sizeInBytes(), false);
        }
    }

    /**
     * The writing half shared by leader and follower appends. Caller holds {@link #lock}. On a full disk the append
     * is refused with nothing written and the log stays open; any other I/O error takes it offline.
     *
     * <p>An ABORT marker's entry goes to the transaction index of the segment that got the marker once the append is
     * complete. If that write fails the log is suspended (a resource error) or goes offline: the marker is in the log
     * but not in the index, and the reload's recovery rebuilds the index from the log.
     */
    private void append(MemoryRecords records, BatchValidator.ValidBatches valid, long firstOffset, long lastOffset,
                        long maxTimestamp) {
        LogSegment segment;
        List<AbortedTxn> aborted = new ArrayList<>(0);
        try {
            segment = segments.active();
            if (segment.shouldRoll(valid.sizeInBytes(), maxTimestamp, lastOffset, config)) {
                segment = segments.roll(firstOffset, producerState::takeSnapshot);
            }
            for (MutableRecordBatch batch : valid.batches()) {
                if (batch.partitionLeaderEpoch() >= 0) {
                    epochCache.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
                }
            }
            segment.append(lastOffset, records);
        } catch (IOException e) {
            // Nothing to undo for a resource error: a failed roll leaves the old active segment, a failed segment
            // append cuts itself back, and an epoch recorded at firstOffset without records is what a new leader
            // records anyway (the next append in that epoch finds it in place).
            throw lifecycle.storageError("append at offset " + firstOffset, e);
        }
        for (MutableRecordBatch batch : valid.batches()) {
            Optional<ProducerStateManager.CompletedTxn> completed = producerState.update(batch);
            if (completed.isPresent() && completed.get().aborted()) {
                ProducerStateManager.CompletedTxn txn = completed.get();
                aborted.add(new AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(),
                        producerState.lastStableOffsetAfter(txn)));
            }
        }
        producerState.updateMapEndOffset(lastOffset + 1);
        // Before the log end offset moves: a reader never sees a transaction's records without its instability.
        updateFirstUnstableOffset();
        lifecycle.appendSucceeded(firstOffset);
        segments.appended(lastOffset + 1, valid.recordCount());
        try {
            for (AbortedTxn txn : aborted) {
                segment.txnIndex().append(txn);
            }
        } catch (IOException e) {
            throw storageErrorSuspending("writing the transaction index of the abort marker at offset "
                    + aborted.get(aborted.size() - 1).lastOffset(), e);
        }
    }

    /**
     * Records that leader epoch {@code epoch} starts at the log end offset: a replica becoming leader does this at
     * once, so that followers asking where an earlier epoch ended get the right answer before the first append.
     *
     * <p>On a resource error ({@link StorageFault}: a full disk, no file descriptor for the checkpoint) the epoch is
     * not recorded and the replica leads all the same, serving reads: the first batch of the epoch records it when it
     * is appended, at this same offset (only the leader appends, and nothing can be appended before that batch; a
     * failed {@link LeaderEpochCache#assign} leaves the cache and its file as they were). Until then the cache ends
     * with the epoch before, and a follower asking where that one ended is told the log end offset, the same answer.
     * Failing the leadership instead would leave the partition without a leader for as long as the disk is full.
     */
    public void assignEpochStartOffset(int epoch) {
        synchronized (lock) {
            lifecycle.ensureOpen();
            try {
                epochCache.assign(epoch, logEndOffset());
            } catch (IOException e) {
                if (!StorageFault.isResourceExhausted(e)) {
                    throw lifecycle.offline("recording leader epoch " + epoch + " at offset " + logEndOffset(), e);
                }
                log.warn("{}: cannot record leader epoch {} at offset {} yet ({}); its first batch records it",
                        topicPartition, epoch, logEndOffset(), e.getMessage());
            }
        }
    }

    /**
     * Starts a new active segment at the log end offset, taking a producer snapshot, unless the active one is empty
     * and starts there already; the old one is fsynced ({@link LogSegments#roll}).
     */
    public void roll() {
        synchronized (lock) {
            lifecycle.ensureOpen();
            long logEndOffset = segments.logEndOffset();
            try {
                segments.roll(logEndOffset, producerState::takeSnapshot);
            } catch (IOException e) {
                throw lifecycle.storageError("roll at offset " + logEndOffset, e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reads

    /**
     * Reads from {@code startOffset}: at most {@code maxBytes} (but one whole batch if {@code minOneBatch}), never
     * at or beyond {@code maxOffset} (the high watermark for consumers, the log end offset for followers).
     *
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start or above the log end offset
     */
    public LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
        lifecycle.ensureOpen();
        long end = logEndOffset();
        long start = logStartOffset;
        if (startOffset < start || startOffset > end) {
            throw new OffsetOutOfRangeException("Offset " + startOffset + " of " + topicPartition
                    + " is out of range [" + start + ", " + end + "]");
        }
        long limit = Math.min(maxOffset, end);
        if (startOffset >= limit) {
            return new LogReadInfo(startOffset, MemoryRecords.EMPTY);
        }
        return segments.read(startOffset, maxBytes, limit, minOneBatch);
    }

    /**
     * ListOffsets: for {@link #EARLIEST_TIMESTAMP} the log start offset, for {@link #LATEST_TIMESTAMP} the log end
     * offset, for {@link #MAX_TIMESTAMP} the record with the largest timestamp, otherwise the first record whose
     * timestamp is at least {@code timestamp} (empty if none is). The leader epoch is that of the offset.
     */
    public Optional<TimestampAndOffset> offsetForTimestamp(long timestamp) {
        lifecycle.ensureOpen();
        if (timestamp == EARLIEST_TIMESTAMP) {
            long start = logStartOffset;
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, start, epochFor(start)));
        }
        if (timestamp == LATEST_TIMESTAMP) {
            long end = logEndOffset();
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, end, epochFor(end)));
        }
        Optional<TimestampAndOffset> found = timestamp == MAX_TIMESTAMP ? segments.maxTimestampRecord(logStartOffset)
                : segments.firstAtOrAfter(timestamp, logStartOffset);
        return found.map(hit -> new TimestampAndOffset(hit.timestamp, hit.offset, epochFor(hit.offset)));
    }

    private Optional<Integer> epochFor(long offset) {
        java.util.OptionalInt epoch = epochCache.epochForOffset(offset);
        return epoch.isPresent() ? Optional.of(epoch.getAsInt()) : Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Log start, truncation, retention

    /**
     * DeleteRecords: makes {@code offset} the new log start offset (if it is larger) and deletes the segments that
     * lie wholly below it.
     *
     * @return the log start offset afterwards
     * @throws OffsetOutOfRangeException if {@code offset} is beyond the log end offset
     */
    public long deleteRecordsBefore(long offset) {
        synchronized (lock) {
            lifecycle.ensureOpen();
            if (offset > logEndOffset() || offset < 0) {
                throw new OffsetOutOfRangeException("Cannot delete records of " + topicPartition + " before offset "
                        + offset + ": the log ends at " + logEndOffset());
            }
            if (offset > logStartOffset) {
                advanceLogStartOffset(offset);
                deleteSegments(RetentionPolicy.belowLogStart(logStartOffset), "below the log start offset");
            }
            return logStartOffset;
        }
    }

    private void advanceLogStartOffset(long offset) {
        logStartOffset = offset;
        if (highWatermark < offset) {
            highWatermark = offset;
            producerState.onHighWatermarkUpdated(offset);
            updateFirstUnstableOffset();
        }
        try {
            truncateEpochsFromStart(offset);
        } catch (IOException e) {
            throw lifecycle.offline("advancing the log start offset to " + offset, e);
        }
    }

    /**
     * Forgets the leader epochs before {@code offset}, at load and when the log start moves. On a resource error
     * ({@link StorageFault}) the checkpoint cannot be rewritten and the cache keeps them, in memory as in its file
     * (a failed {@link LeaderEpochCache#truncateFromStart} changes neither): they only describe offsets below the log
     * start, which no read asks for, and the next move of the log start or the next load drops them. Retention and
     * DeleteRecords, which free space, must not fail for want of it, nor a start-up on a full disk.
     *
     * @throws IOException a disk failure
     */
    private void truncateEpochsFromStart(long offset) throws IOException {
        try {
            epochCache.truncateFromStart(offset);
        } catch (IOException e) {
            if (!StorageFault.isResourceExhausted(e)) {
                throw e;
            }
            log.warn("{}: leader epochs before the log start offset {} stay recorded in {} for now: {}",
                    topicPartition, offset, LEADER_EPOCH_CHECKPOINT, e.getMessage());
        }
    }

    /**
     * Removes every record at or above {@code offset} (a follower dropping a divergent suffix), and every leader epoch
     * that starts there or later. A batch is never split: the log ends at the start of the batch that holds
     * {@code offset}.
     */
    public void truncateTo(long offset) {
        synchronized (lock) {
            lifecycle.ensureOpen();
            if (offset >= logEndOffset()) {
                // Nothing to cut, but an epoch may start at the end without records (this replica became leader and
                // wrote nothing before another was elected): it is not this log's and must go, or a follower would
                // keep naming it as the epoch of its last batch.
                try {
                    epochCache.truncateFromEnd(logEndOffset());
                } catch (IOException e) {
                    throw lifecycle.storageError("truncation of the leader epochs at offset " + logEndOffset(), e);
                }
                return;
            }
            if (offset < logStartOffset) {
                truncateFullyAndStartAtLocked(offset);
                return;
            }
            truncations++;
            try {
                long logEndOffset = segments.truncateTo(offset);
                afterTruncation();
                log.info("{}: truncated to offset {}", topicPartition, logEndOffset);
            } catch (IOException e) {
                throw storageErrorSuspending("truncation to offset " + offset, e);
            }
        }
    }

    /** Deletes every segment and starts an empty log at {@code offset} (a follower far behind the leader's start). */
    public void truncateFullyAndStartAt(long offset) {
        synchronized (lock) {
            lifecycle.ensureOpen();
            truncateFullyAndStartAtLocked(offset);
        }
    }

    private void truncateFullyAndStartAtLocked(long offset) {
        truncations++;
        try {
            segments.truncateFullyAndStartAt(offset);
            logStartOffset = offset;
            epochCache.clearAndFlush();
            producerState.truncateFullyAndStartAt(offset);
            updateFirstUnstableOffset();
            segments.startRecoveryAt(offset);
            highWatermark = offset;
            log.info("{}: truncated fully, the log now starts at offset {}", topicPartition, offset);
        } catch (IOException e) {
            throw storageErrorSuspending("full truncation to offset " + offset, e);
        }
    }

    private void afterTruncation() throws IOException {
        long logEndOffset = segments.logEndOffset();
        epochCache.truncateFromEnd(logEndOffset);
        rebuildProducerState();
        segments.lowerRecoveryPointToEnd();
        highWatermark = Math.min(highWatermark, logEndOffset);
    }

    /**
     * Applies {@code retention.ms}, {@code retention.bytes} (for logs with {@code cleanup.policy} delete) and the log
     * start offset ({@link RetentionPolicy}): deletes whole segments from the oldest on, never the active segment.
     *
     * @return the number of segments deleted
     */
    public int deleteOldSegments() {
        synchronized (lock) {
            if (!lifecycle.is(State.OPEN)) {
                return 0;
            }
            LogConfig current = config;
            long now = env.time().milliseconds();
            int deleted = deleteSegments(RetentionPolicy.belowLogStart(logStartOffset), "below the log start offset");
            if (!current.delete()) {
                return deleted;
            }
            if (current.retentionMs >= 0) {
                deleted += deleteSegments(RetentionPolicy.pastRetentionMs(now, current.retentionMs),
                        "past retention.ms=" + current.retentionMs);
            }
            if (current.retentionBytes >= 0) {
                deleted += deleteSegments(RetentionPolicy.pastRetentionBytes(size(), current.retentionBytes),
                        "past retention.bytes=" + current.retentionBytes);
            }
            return deleted;
        }
    }

    /**
     * Deletes the oldest segments while {@code predicate} holds ({@link LogSegments#deleteOldest}), then moves the log
     * start offset up to the first segment left and drops the producer snapshots below it.
     */
    private int deleteSegments(LogSegments.SegmentPredicate predicate, String reason) {
        int deleted = segments.deleteOldest(predicate, reason);
        if (deleted == 0) {
            return 0;
        }
        long newStart = segments.firstBaseOffset();
        if (newStart > logStartOffset) {
            advanceLogStartOffset(newStart);
        }
        try {
            producerState.deleteSnapshotsBefore(segments.firstBaseOffset());
        } catch (IOException e) {
            if (!StorageFault.isResourceExhausted(e)) {
                throw lifecycle.offline("deleting producer snapshots " + reason, e);
            }
            // Snapshots below the log start are never read; the next deletion takes them.
        }
        log.info("{}: deleted {} segment(s) {}; log start offset now {}", topicPartition, deleted, reason,
                logStartOffset);
        return deleted;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Compaction support (LogCleaner)

    /** The segments at this instant, oldest first; the last one is the active segment. */
    List<LogSegment> segmentsSnapshot() {
        return segments.snapshot();
    }

    /**
     * Replaces {@code oldSegments} (consecutive, none of them active) by {@code cleaned}, which the cleaner wrote
     * with suffix {@link LogSegment#CLEANED_SUFFIX} and the base offset of the first old segment.
     *
     * <p>Refused, changing nothing, unless every segment in {@code readByPass} is still in the log, not active, and
     * of the size it had when the pass read it: a truncation, retention or DeleteRecords since then may have removed
     * records the pass's key map relied on. (A non-active segment changes only by being truncated, which makes it
     * the active one, or by being removed; the size also catches a truncated segment that was refilled and rolled
     * again, unless it reached exactly its old size.)
     *
     * <p>The swap itself, crash-safe and without a gap for readers, is {@link LogSegments#replace}'s.
     *
     * @param readByPass every segment the cleaning pass read, with its size then; includes {@code oldSegments}
     * @return whether the segments were replaced
     */
    boolean replaceSegments(LogSegment cleaned, List<LogSegment> oldSegments, Map<LogSegment, Integer> readByPass,
                            long truncationsWhenRead) {
        synchronized (lock) {
            lifecycle.ensureOpen();
            if (truncations != truncationsWhenRead) {
                log.info("{}: the log was truncated since the cleaner read it; not replacing {}", topicPartition,
                        oldSegments);
                return false;
            }
            if (!segments.unchangedSince(readByPass, oldSegments)) {
                return false;
            }
            try {
                segments.replace(cleaned, oldSegments);
                return true;
            } catch (IOException e) {
                // The swap is crash-safe on disk (see LogLoader), so a reload finishes or undoes it.
                throw storageErrorSuspending("replacing cleaned segments", e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Flush, config, lifecycle

    /** fsyncs everything appended so far and moves the recovery point to the log end offset. */
    public void flush() {
        segments.flush();
    }

    /** Flushes if {@code flush.ms} has passed since the last flush (called by the log manager's flusher). */
    public void flushIfDue() {
        segments.flushIfDue();
    }

    /** Forgets producers idle for longer than {@code producer.id.expiration.ms} (the log manager's schedule). */
    public void removeExpiredProducers() {
        synchronized (lock) {
            if (lifecycle.is(State.OPEN)) {
                producerState.removeExpiredProducers(env.time().milliseconds());
            }
        }
    }

    /** Takes a new configuration (topic config change at runtime); it applies to the next append and retention pass. */
    public void updateConfig(LogConfig newConfig) {
        synchronized (lock) {
            config = newConfig;
        }
    }

    /** Sets the high watermark (by replication), kept within [log start offset, log end offset]. */
    public void updateHighWatermark(long offset) {
        synchronized (lock) {
            highWatermark = Math.max(logStartOffset, Math.min(offset, logEndOffset()));
            producerState.onHighWatermarkUpdated(highWatermark);
            updateFirstUnstableOffset();
        }
    }

    /**
     * Flushes, snapshots the producer state and closes every file; idempotent. A snapshot that cannot be written for
     * want of a resource is left out ({@link ProducerStateManager#takeSnapshotAtClose}); the close is clean all the
     * same.
     *
     * @throws StorageResourceException if trimming the indexes or closing a file failed for want of space or file
     *                                  descriptors: the data is flushed and every file closed anyway, but the next
     *                                  start-up should recover this log rather than trust it was closed cleanly
     */
    @Override
    public void close() {
        synchronized (lock) {
            lifecycle.close(() -> {
                segments.flush();
                producerState.takeSnapshotAtClose();
                segments.close();
            }, this::releaseSegments);
        }
    }

    /** Closes and deletes every file of this log, and the directory (topic deletion). */
    public void delete() {
        synchronized (lock) {
            try {
                segments.deleteAll();
                lifecycle.moveTo(State.CLOSED);
                try (var files = Files.walk(dir)) {
                    List<Path> paths = files.sorted(java.util.Comparator.reverseOrder()).toList();
                    for (Path path : paths) {
                        Files.deleteIfExists(path);
                    }
                }
            } catch (IOException e) {
                throw lifecycle.offline("delete", e);
            }
        }
    }

    /** Releases file handles without flushing after the directory failed; idempotent. */
    void closeHandlers() {
        synchronized (lock) {
            lifecycle.moveTo(State.OFFLINE);
            releaseSegments();
        }
    }

    /** Releases file handles without flushing, the log being deleted at once (topic deletion); idempotent. */
    void closeForDeletion() {
        synchronized (lock) {
            if (!lifecycle.is(State.OFFLINE)) {
                lifecycle.moveTo(State.CLOSED);
            }
            releaseSegments();
        }
    }

    private void releaseSegments() {
        segments.closeHandlers();
    }

    /**
     * A suspended log (see the class comment) loads itself again from disk: from the offsets it had when it was
     * suspended, recovering every segment from its recovery point on. Called by the log manager's scheduler.
     *
     * @return whether the log is open (again); false while the resource is still missing, or if the reload met a
     *         disk failure, which takes the log offline as any other
     */
    boolean reloadIfSuspended() {
        synchronized (lock) {
            return lifecycle.reloadIfSuspended(offsets -> {
                segments.clear();
                truncations++;
                load(offsets);
                log.info("{}: reloaded after a resource error; log end offset {}", topicPartition,
                        segments.logEndOffset());
            }, () -> {
                releaseSegments();
                segments.clear();
            });
        }
    }

    boolean isSuspended() {
        return lifecycle.is(State.SUSPENDED);
    }

    /**
     * The exception for an I/O error in a change that may be half made: for a resource error the log is suspended
     * until a reload from disk from its offsets now, else it goes offline ({@link LogLifecycle#suspend}). Caller
     * holds the lock.
     */
    private KafkaStorageException storageErrorSuspending(String operation, IOException cause) {
        return lifecycle.suspend(operation, cause,
                new LoadState(logStartOffset, Math.min(segments.recoveryPoint(), segments.logEndOffset()),
                        highWatermark, false),
                this::releaseSegments);
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return segments.logEndOffset();
    }

    public long highWatermark() {
        return highWatermark;
    }

    /**
     * The last stable offset (LSO): read_committed consumers read below it. The smaller of the high watermark and the
     * first offset of the oldest transaction not decided below the high watermark (ongoing, or whose marker the high
     * watermark has not passed), never below the log start offset (retention may pass an ongoing transaction's start,
     * as in Kafka).
     */
    public long lastStableOffset() {
        long hw = highWatermark;
        return Math.max(logStartOffset, Math.min(firstUnstableOffset, hw));
    }

    /**
     * The aborted transactions that overlap {@code [fetchOffset, upperBound)}, for a read_committed fetch of that
     * range: from the transaction indexes of the segment holding {@code fetchOffset} on, stopping at the first entry
     * written when every transaction starting below {@code upperBound} was decided ({@link TransactionIndex#collect}).
     * Lock-free, like {@link #read}.
     */
    public List<AbortedTxn> abortedTransactions(long fetchOffset, long upperBound) {
        List<AbortedTxn> found = new ArrayList<>();
        for (LogSegment segment : segments.from(fetchOffset)) {
            if (segment.txnIndex().collect(fetchOffset, upperBound, found)) {
                break;
            }
        }
        return found;
    }

    /** The producers the producer state knows (DescribeProducers), in producer-id order. */
    public List<ActiveProducer> activeProducers() {
        Map<Long, ProducerStateEntry> producers;
        synchronized (lock) {
            lifecycle.ensureOpen();
            producers = producerState.activeProducers();
        }
        return producers.values().stream()
                .sorted(Comparator.comparingLong(ProducerStateEntry::producerId))
                .map(ActiveProducer::of)
                .toList();
    }

    public long recoveryPoint() {
        return segments.recoveryPoint();
    }

    /** How many truncations this log has seen since it was opened (the cleaner's consistency check). */
    long truncationCount() {
        return truncations;
    }

    /** Bytes in every segment. */
    public long size() {
        return segments.sizeInBytes();
    }

    public int numberOfSegments() {
        return segments.count();
    }

    public LeaderEpochCache leaderEpochCache() {
        return epochCache;
    }

    ProducerStateManager producerState() {
        return producerState;
    }

    boolean isOffline() {
        return lifecycle.is(State.OFFLINE);
    }

    /** Base offsets of the segments, oldest first (diagnostics and tests). */
    public List<Long> segmentBaseOffsets() {
        return segments.baseOffsets();
    }

    @Override
    public String toString() {
        return "PartitionLog(" + topicPartition + ", start=" + logStartOffset + ", end=" + logEndOffset() + ")";
    }
}
