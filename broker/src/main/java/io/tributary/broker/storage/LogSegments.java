package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.tributary.broker.storage.LogLifecycle.State;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segments of one {@link PartitionLog}, ordered by base offset, and the files they own, with where they end and
 * how much of them is on disk (Kafka's {@code LocalLog}): the last segment is the active one, the only one appended
 * to. What is here works on segments alone (roll, the segment holding an offset, truncation, deleting the oldest
 * segments, a compaction swap, flushing) and keeps the two offsets that follow from them: the log end offset (LEO),
 * the next offset to be written, and the recovery point, below which every byte is fsynced. The log start offset,
 * the high watermark, the producer state and the leader epochs that go with a change are the log's.
 *
 * <p>Files: {@code <base offset>.log}, {@code .index}, {@code .timeindex} and, with an abort, {@code .txnindex} per
 * segment ({@link LogSegment}). A
 * segment leaving the log is renamed {@code .deleted} and deleted after {@code file.delete.delay.ms}, so that reads
 * already under way (a zero-copy fetch holds the file) finish first.
 *
 * <p>Threads: every change is made by the log's writer under {@link PartitionLog}'s lock ({@code lock}, shared), or
 * by {@link LogLoader} while the log loads, before anyone else reads it; the methods that change something say so.
 * The log end offset and the recovery point are written only under that lock, and volatile for the log's lock-free
 * readers; the end offset is written after the data it covers. {@link #flushUpTo} takes the lock itself, around
 * the fsync and not across it. Readers ({@link #read}, the timestamp lookups, {@link #snapshot}, {@link #sizeInBytes})
 * take no lock: the map is a {@link ConcurrentSkipListMap}, in which a reader finds each segment either in the log or
 * gone, never half added; a segment that leaves it under a reader stays readable until its delayed deletion.
 */
final class LogSegments {

    private static final Logger log = LoggerFactory.getLogger(LogSegments.class);

    /** A step that may fail with an I/O error. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    private final TopicPartition topicPartition;
    private final Path dir;
    /** The log's current configuration, read at each use as the log reads it; the log is its only writer. */
    private final Supplier<LogConfig> config;
    /** Told how long each flush took. */
    private final java.util.function.LongConsumer flushTimes;
    /** May be null: deletions and the flush after a roll then happen at once. */
    private final ScheduledExecutorService scheduler;
    private final Time time;
    /** {@link PartitionLog}'s lock: the writer's. */
    private final Object lock;
    /** The log's: a flush runs only while it is open; what an I/O error in a flush or a deletion does to the log. */
    private final LogLifecycle lifecycle;
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

    /** Written under the lock, after the data it covers. */
    private volatile long logEndOffset;
    /** Written under the lock; at most the log end offset once a change is complete. */
    private volatile long recoveryPoint;
    /** Records appended since the last flush; under the lock. */
    private long unflushedRecords;
    /** Written under the lock; read lock-free by {@link #flushIfDue}. */
    private volatile long lastFlushMs;

    LogSegments(TopicPartition topicPartition, Path dir, Supplier<LogConfig> config, LogEnvironment env,
                Object lock, LogLifecycle lifecycle) {
        this.topicPartition = topicPartition;
        this.dir = dir;
        this.config = config;
        this.scheduler = env.scheduler();
        this.flushTimes = env.flushTimes();
        this.time = env.time();
        this.lock = lock;
        this.lifecycle = lifecycle;
        this.lastFlushMs = time.milliseconds();
    }

    /** Takes the offsets {@link LogLoader} derived from the segments it loaded. Writer only. */
    void loaded(long logEndOffset, long recoveryPoint) {
        this.logEndOffset = logEndOffset;
        this.recoveryPoint = recoveryPoint;
    }

    long logEndOffset() {
        return logEndOffset;
    }

    long recoveryPoint() {
        return recoveryPoint;
    }

    /**
     * Records {@code recordCount} records appended to the active segment, up to {@code nextOffset} exclusive, and
     * flushes if {@code flush.messages} records are unflushed now. Writer only.
     */
    void appended(long nextOffset, long recordCount) {
        logEndOffset = nextOffset;
        unflushedRecords += recordCount;
        if (unflushedRecords >= config.get().flushMessages) {
            flushUpTo(logEndOffset);
        }
    }

    /** Adds a segment opened from disk (the loader). */
    void add(LogSegment segment) {
        segments.put(segment.baseOffset(), segment);
    }

    /** Takes a segment out of the log without touching its files (the loader, which deletes them itself). */
    void remove(LogSegment segment) {
        segments.remove(segment.baseOffset());
    }

    /** Forgets every segment without touching its files, and the unflushed records (before a load). Writer only. */
    void clear() {
        segments.clear();
        unflushedRecords = 0;
    }

    boolean isEmpty() {
        return segments.isEmpty();
    }

    boolean contains(long baseOffset) {
        return segments.containsKey(baseOffset);
    }

    /** Whether {@code segment} is still in the log, not deleted or replaced since it was looked up. */
    boolean holds(LogSegment segment) {
        return segments.get(segment.baseOffset()) == segment;
    }

    LogSegment active() {
        return segments.lastEntry().getValue();
    }

    long firstBaseOffset() {
        return segments.firstKey();
    }

    /** The segment holding {@code offset} and every later one, oldest first: a live view. */
    Collection<LogSegment> from(long offset) {
        Long first = segments.floorKey(offset);
        return (first == null ? segments : segments.tailMap(first, true)).values();
    }

    /** The segments holding offsets in [{@code from}, {@code upTo}), oldest first, at this instant. */
    List<LogSegment> covering(long from, long upTo) {
        Long first = segments.floorKey(from);
        return new ArrayList<>((first == null ? segments : segments.tailMap(first, true)).headMap(upTo).values());
    }

    /** The segments at this instant, oldest first; the last one is the active segment. */
    List<LogSegment> snapshot() {
        return new ArrayList<>(segments.values());
    }

    int count() {
        return segments.size();
    }

    /** Base offsets of the segments, oldest first. */
    List<Long> baseOffsets() {
        return new ArrayList<>(new TreeMap<>(segments).keySet());
    }

    long sizeInBytes() {
        long total = 0;
        for (LogSegment segment : segments.values()) {
            total += segment.size();
        }
        return total;
    }

    /**
     * Starts a new active segment at {@code newBaseOffset}, unless the active one is empty and starts there already;
     * the old one is fsynced. Writer only. All or nothing: the new segment is opened first (the step that needs file
     * descriptors), and if {@code beforeSwitch} (the producer snapshot) or the old segment's final index entry or
     * trim fails after that, the new segment is deleted again and the old one stays active, its indexes grown back if
     * they were trimmed already, to be rolled at the next append.
     */
    LogSegment roll(long newBaseOffset, IoAction beforeSwitch) throws IOException {
        LogSegment active = active();
        if (active.size() == 0 && active.baseOffset() == newBaseOffset) {
            return active;
        }
        if (segments.containsKey(newBaseOffset)) {
            throw new IllegalStateException("segment with base offset " + newBaseOffset + " already exists in " + dir);
        }
        LogConfig current = config.get();
        LogSegment fresh = LogSegment.open(dir, newBaseOffset, current, current.preallocate, "");
        try {
            beforeSwitch.run();
            active.onBecomeInactive();
        } catch (IOException | RuntimeException e) {
            try {
                fresh.deleteIfExists();
            } catch (IOException cleanupFailure) {
                e.addSuppressed(cleanupFailure);
            }
            try {
                active.onBecomeActive(); // nothing to do unless onBecomeInactive trimmed an index
            } catch (IOException | RuntimeException regrowFailure) {
                e.addSuppressed(regrowFailure);
            }
            throw e;
        }
        segments.put(newBaseOffset, fresh);
        log.debug("{}: rolled a new segment at offset {}", topicPartition, newBaseOffset);
        // fsync what the old segment holds so that recovery after a crash starts at the new segment. On the
        // scheduler, not under the lock: fsync of up to segment.bytes of dirty pages can take seconds, and appends
        // to the new segment need not wait for it.
        if (scheduler != null) {
            scheduler.execute(() -> {
                try {
                    flushUpTo(newBaseOffset);
                } catch (KafkaStorageException e) {
                    log.warn("{}: flush after roll failed: {}", topicPartition, e.getMessage());
                }
            });
        } else {
            flushUpTo(newBaseOffset);
        }
        return fresh;
    }

    /** fsyncs everything appended so far and moves the recovery point to the log end offset. */
    void flush() {
        if (lifecycle.is(State.OPEN)) {
            flushUpTo(logEndOffset);
        }
    }

    /** Flushes if {@code flush.ms} has passed since the last flush. */
    void flushIfDue() {
        long now = time.milliseconds();
        if (now - lastFlushMs >= config.get().flushMs) {
            flush();
        }
    }

    /**
     * fsyncs the segments holding offsets in [recovery point, {@code upTo}) and moves the recovery point. Takes the
     * lock, but runs the fsync outside it so that appends go on meanwhile; a segment deleted or replaced
     * concurrently is skipped.
     */
    void flushUpTo(long upTo) {
        List<LogSegment> toFlush;
        synchronized (lock) {
            if (upTo <= recoveryPoint || !lifecycle.is(State.OPEN)) {
                return;
            }
            toFlush = covering(recoveryPoint, upTo);
            unflushedRecords = 0;
        }
        long flushStart = System.nanoTime();
        for (LogSegment segment : toFlush) {
            try {
                segment.flush();
            } catch (IOException e) {
                if (!holds(segment)) {
                    continue;
                }
                synchronized (lock) {
                    // Never a resource error, whatever the message: see PartitionLog's class comment on fsync.
                    throw lifecycle.offline("flush up to offset " + upTo, e);
                }
            }
        }
        if (!toFlush.isEmpty()) {
            flushTimes.accept(System.nanoTime() - flushStart);
        }
        synchronized (lock) {
            if (upTo > recoveryPoint) {
                recoveryPoint = Math.min(upTo, logEndOffset);
            }
            lastFlushMs = time.milliseconds();
        }
    }

    /**
     * Reads from {@code startOffset}, below {@code limit}, from the segment holding it or, if it holds nothing there
     * any more (compacted away), the next ones; empty if no segment has anything. Lock-free.
     */
    LogReadInfo read(long startOffset, int maxBytes, long limit, boolean minOneBatch) {
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
        while (entry != null) {
            LogSegment segment = entry.getValue();
            Long nextBase = segments.higherKey(entry.getKey());
            long maxPosition = nextBase == null || limit < nextBase ? segment.limitPosition(limit) : segment.size();
            LogReadInfo info = segment.read(startOffset, maxBytes, maxPosition, minOneBatch);
            if (info != null) {
                return info;
            }
            entry = nextBase == null ? null : segments.ceilingEntry(nextBase);
        }
        return new LogReadInfo(startOffset, MemoryRecords.EMPTY);
    }

    /** The first record at or above {@code logStartOffset} whose timestamp is at least {@code timestamp}. Lock-free. */
    Optional<TimestampAndOffset> firstAtOrAfter(long timestamp, long logStartOffset) {
        for (LogSegment segment : segments.values()) {
            if (segment.maxTimestampSoFar() < timestamp) {
                continue;
            }
            Optional<TimestampAndOffset> found = segment.findOffsetByTimestamp(timestamp, logStartOffset);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** The record with the largest timestamp, at or above {@code logStartOffset}. Lock-free. */
    Optional<TimestampAndOffset> maxTimestampRecord(long logStartOffset) {
        LogSegment best = null;
        for (LogSegment segment : segments.values()) {
            if (best == null || segment.maxTimestampSoFar() > best.maxTimestampSoFar()) {
                best = segment;
            }
        }
        if (best == null || best.maxTimestampSoFar() < 0) {
            return Optional.empty();
        }
        return best.findOffsetByTimestamp(best.maxTimestampSoFar(), logStartOffset);
    }

    /** A test on one of the oldest segments, given the base offset of the one after it. */
    @FunctionalInterface
    interface SegmentPredicate {
        boolean test(LogSegment segment, long nextBaseOffset) throws IOException;
    }

    /**
     * Deletes the oldest segments, in order, as long as {@code predicate} holds, never the active segment: one by
     * one ({@link #delete}), so that a failure stops with every segment either gone or still served. A resource error
     * stops early without an error to the caller: the rest is below the log start offset and goes at the next
     * retention pass. Writer only.
     *
     * @return the number of segments deleted
     */
    int deleteOldest(SegmentPredicate predicate, String reason) {
        List<LogSegment> deletable;
        try {
            deletable = oldestWhile(predicate);
        } catch (IOException e) {
            throw lifecycle.storageError("retention check", e);
        }
        int deleted = 0;
        try {
            for (LogSegment segment : deletable) {
                delete(segment);
                deleted++;
            }
        } catch (IOException e) {
            if (!StorageFault.isResourceExhausted(e)) {
                throw lifecycle.offline("deleting segments " + reason, e);
            }
            log.warn("{}: deleted {} of {} segment(s) {}; the rest waits for the next retention pass: {}",
                    topicPartition, deleted, deletable.size(), reason, e.getMessage());
        }
        return deleted;
    }

    private List<LogSegment> oldestWhile(SegmentPredicate predicate) throws IOException {
        List<LogSegment> result = new ArrayList<>();
        for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
            Long next = segments.higherKey(entry.getKey());
            if (next == null || !predicate.test(entry.getValue(), next)) {
                break;
            }
            result.add(entry.getValue());
        }
        return result;
    }

    /**
     * Takes {@code segment} out of the log and deletes its files ({@link #scheduleDeletion}). Writer only. If the
     * files cannot be renamed the segment goes back into the log (a rename is all or nothing), so that a failure
     * leaves it either gone or still served.
     */
    void delete(LogSegment segment) throws IOException {
        segments.remove(segment.baseOffset());
        try {
            scheduleDeletion(segment);
        } catch (IOException e) {
            segments.put(segment.baseOffset(), segment);
            throw e;
        }
    }

    /**
     * Deletes every segment above {@code offset} and cuts the one holding it there, which becomes the active
     * segment; a segment starting at {@code offset} goes too, unless it is the first. The log end offset becomes the
     * next offset of the new active segment. Writer only.
     *
     * @return the new log end offset
     */
    long truncateTo(long offset) throws IOException {
        List<LogSegment> above = new ArrayList<>(segments.tailMap(offset, false).values());
        LogSegment floor = segments.floorEntry(offset).getValue();
        if (floor.baseOffset() == offset && floor != segments.firstEntry().getValue()) {
            above.add(0, floor);
            floor = segments.lowerEntry(offset).getValue();
        }
        for (LogSegment segment : above) {
            segments.remove(segment.baseOffset());
            scheduleDeletion(segment);
        }
        floor.truncateTo(offset);
        floor.onBecomeActive();
        logEndOffset = floor.readNextOffset();
        return logEndOffset;
    }

    /**
     * Lowers the recovery point to the log end offset after a truncation, once the log's own state is cut back too.
     * Writer only.
     */
    void lowerRecoveryPointToEnd() {
        recoveryPoint = Math.min(recoveryPoint, logEndOffset);
    }

    /**
     * Deletes every segment and starts a single empty one at {@code offset}, where the log now ends. Writer only.
     */
    void truncateFullyAndStartAt(long offset) throws IOException {
        List<LogSegment> all = new ArrayList<>(segments.values());
        segments.clear();
        for (LogSegment segment : all) {
            scheduleDeletion(segment);
        }
        LogConfig current = config.get();
        segments.put(offset, LogSegment.open(dir, offset, current, current.preallocate, ""));
        logEndOffset = offset;
    }

    /** The recovery point of a log truncated fully at {@code offset}: nothing below it to recover. Writer only. */
    void startRecoveryAt(long offset) {
        recoveryPoint = offset;
    }

    /**
     * Whether every segment a cleaning pass read is still in the log, not active, and of the size it had then (see
     * {@link PartitionLog#replaceSegments}); logs which one is not. Writer only, for the answer to hold for a swap.
     */
    boolean unchangedSince(Map<LogSegment, Integer> readByPass, List<LogSegment> oldSegments) {
        LogSegment active = active();
        for (Map.Entry<LogSegment, Integer> read : readByPass.entrySet()) {
            LogSegment segment = read.getKey();
            if (!holds(segment) || segment == active || segment.size() != read.getValue()) {
                log.info("{}: segment {} changed since the cleaner read it ({} bytes); not replacing {}",
                        topicPartition, segment, read.getValue(), oldSegments);
                return false;
            }
        }
        return true;
    }

    /**
     * Swaps {@code cleaned} in for {@code oldSegments} ({@link PartitionLog#replaceSegments}), in a crash-safe order:
     * {@code .cleaned} renamed {@code .swap} (from then on {@link LogLoader} completes the swap from the {@code .swap}
     * files alone), the cleaned segment put in the first old one's place in one step, the later old ones taken out,
     * every old file renamed {@code .deleted} or deleted, the {@code .swap} suffix removed. Readers never see a gap:
     * the cleaned segment takes the first old segment's place in the map before the later ones leave it. Writer only.
     */
    void replace(LogSegment cleaned, List<LogSegment> oldSegments) throws IOException {
        cleaned.changeFileSuffixes(LogSegment.CLEANED_SUFFIX, LogSegment.SWAP_SUFFIX);
        segments.put(cleaned.baseOffset(), cleaned);
        for (LogSegment old : oldSegments) {
            if (old.baseOffset() != cleaned.baseOffset()) {
                segments.remove(old.baseOffset(), old);
            }
        }
        // Every old file is out of the way before the swap takes the first one's name.
        for (LogSegment old : oldSegments) {
            scheduleDeletion(old);
        }
        cleaned.changeFileSuffixes(LogSegment.SWAP_SUFFIX, "");
    }

    /**
     * Renames a segment's files to {@code .deleted} and deletes them after {@code file.delete.delay.ms}, so that
     * reads already under way finish first.
     */
    private void scheduleDeletion(LogSegment segment) throws IOException {
        long delayMs = config.get().fileDeleteDelayMs;
        if (scheduler == null || delayMs == 0) {
            segment.deleteIfExists();
            return;
        }
        segment.changeFileSuffixes("", LogSegment.DELETED_SUFFIX);
        scheduler.schedule(() -> {
            try {
                segment.deleteIfExists();
            } catch (IOException e) {
                log.warn("{}: could not delete {}", topicPartition, segment, e);
            }
        }, delayMs, TimeUnit.MILLISECONDS);
    }

    /** Closes every segment's files (a clean close). Writer only. */
    void close() throws IOException {
        for (LogSegment segment : segments.values()) {
            segment.close();
        }
    }

    /** Releases every segment's file handles without flushing or trimming; idempotent. Writer only. */
    void closeHandlers() {
        for (LogSegment segment : segments.values()) {
            segment.closeHandlers();
        }
    }

    /** Deletes every segment's files at once and forgets the segments (topic deletion). Writer only. */
    void deleteAll() throws IOException {
        for (LogSegment segment : segments.values()) {
            segment.deleteIfExists();
        }
        segments.clear();
    }
}
