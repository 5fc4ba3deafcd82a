package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For one partition, the first offset written under each leader epoch. A leader uses it to answer OffsetForLeaderEpoch
 * (and a fetch's last-fetched-epoch check): "where did epoch N end in my log?". A follower uses the answer to cut off a
 * suffix of its log that the new leader never had, and keeps its own cache in step as it truncates and appends.
 *
 * <p>Only epochs that have records are kept, so both the epochs and their start offsets strictly increase from one
 * entry to the next; each entry owns the offsets up to the next entry's start, the latest up to the log end.
 *
 * <p>On disk: {@code <partitionDir>/leader-epoch-checkpoint}, a {@link CheckpointFile} of version 0 with one line
 * {@code "epoch startOffset"} per entry, oldest first, e.g. {@code "0\n2\n0 0\n3 1570\n"}. Every change is written
 * through before the method returns.
 *
 * <p>Threads: the query methods ({@link #latestEpoch()}, {@link #earliestEpoch()}, {@link #latestEntry()},
 * {@link #entries()}, {@link #endOffsetFor(int, long)}) may be called from any thread (fetch and OffsetForLeaderEpoch
 * handlers) and take the read lock. The changing methods ({@link #assign}, {@link #truncateFromEnd},
 * {@link #truncateFromStart}, {@link #clearAndFlush}) are called by the partition log's single writer under the log's
 * lock, and take the write lock. The write lock is held while the checkpoint is forced to disk; that happens only when
 * the epoch history changes (a leader change, a truncation, an advance of the log start), not per appended batch, so
 * readers wait for it rarely.
 *
 * <p>Failures: a changing method that cannot persist throws {@link IOException} and leaves the in-memory cache as it
 * was. The file then holds the old entries, or the new ones if only the final directory sync failed; the caller is
 * expected to take the log directory offline, as for any failed write to it.
 */
public final class LeaderEpochCache {

    static final String CHECKPOINT_FILE_NAME = "leader-epoch-checkpoint";

    private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);
    private static final int CHECKPOINT_VERSION = 0;

    /**
     * The answer to "where did this epoch end": the largest epoch at or below the requested one that this log has, and
     * the offset just past its last record. {@link #UNDEFINED} when this log cannot tell.
     */
    public record EpochEndOffset(int epoch, long endOffset) {

        /** The wire protocol's "unknown" answer: {@code UNDEFINED_EPOCH} and {@code UNDEFINED_EPOCH_OFFSET}. */
        public static final EpochEndOffset UNDEFINED = new EpochEndOffset(
                OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH, OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET);
    }

    private final TopicPartition topicPartition;
    private final CheckpointFile<EpochEntry> checkpoint;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    /**
     * Epoch to entry. Written only by the log's writer while holding the write lock, and only after the checkpoint has
     * been persisted, by swapping in a new map; a published map is never modified. Copying on each change is cheap:
     * there is one entry per leader epoch that wrote data and is still in the log, typically a few dozen.
     */
    private NavigableMap<Integer, EpochEntry> epochs;

    /**
     * Loads the cache from {@code checkpointFile}, or starts empty if the file does not exist.
     *
     * @throws CorruptCheckpointException if the file is malformed, or its entries do not strictly increase in both
     *                                    epoch and start offset
     * @throws IOException                if the file cannot be read
     */
    LeaderEpochCache(TopicPartition topicPartition, Path checkpointFile) throws IOException {
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.checkpoint = new CheckpointFile<>(checkpointFile, CHECKPOINT_VERSION,
                entry -> entry.epoch() + " " + entry.startOffset(), LeaderEpochCache::parseLine);
        this.epochs = load(checkpointFile, checkpoint.read());
    }

    private static EpochEntry parseLine(String line) {
        String[] fields = CheckpointFile.fields(line, 2);
        return new EpochEntry(Integer.parseInt(fields[0]), Long.parseLong(fields[1]));
    }

    private static NavigableMap<Integer, EpochEntry> load(Path file, List<EpochEntry> entries)
            throws CorruptCheckpointException {
        NavigableMap<Integer, EpochEntry> loaded = new TreeMap<>();
        EpochEntry previous = null;
        for (EpochEntry entry : entries) {
            if (previous != null
                    && (entry.epoch() <= previous.epoch() || entry.startOffset() <= previous.startOffset())) {
                throw new CorruptCheckpointException(file, "entry " + entry + " follows " + previous
                        + ", but epochs and start offsets must both increase");
            }
            loaded.put(entry.epoch(), entry);
            previous = entry;
        }
        return Collections.unmodifiableNavigableMap(loaded);
    }

    /**
     * Records that a batch of {@code epoch} is being appended at {@code startOffset}, by a leader or a follower. Called
     * for every batch; only the first batch of a new epoch changes anything:
     * <ul>
     * <li>{@code epoch} is the latest epoch: nothing to do, unless {@code startOffset} is before that epoch's recorded
     * start, in which case the start moves back to it (the log evidently holds the epoch from there).</li>
     * <li>{@code epoch} is newer: entries starting at or after {@code startOffset} are removed (the log no longer holds
     * their records, or they had none), then the new entry is added and persisted.</li>
     * <li>{@code epoch} is older than the latest: ignored with a warning. A log appends epochs in increasing order once
     * it has been truncated to the divergence point, so this means the caller skipped {@link #truncateFromEnd}.</li>
     * </ul>
     *
     * @throws IllegalArgumentException if {@code epoch} or {@code startOffset} is negative
     * @throws IOException              if the checkpoint cannot be written; the cache is then unchanged
     */
    void assign(int epoch, long startOffset) throws IOException {
        EpochEntry entry = new EpochEntry(epoch, startOffset);
        // Every appended batch comes through here; decide the common "same epoch" case under the shared lock.
        lock.readLock().lock();
        try {
            if (isCoveredByLatest(entry)) {
                return;
            }
        } finally {
            lock.readLock().unlock();
        }

        lock.writeLock().lock();
        try {
            if (isCoveredByLatest(entry)) {
                return;
            }
            EpochEntry latest = epochs.isEmpty() ? null : epochs.lastEntry().getValue();
            if (latest != null && epoch < latest.epoch()) {
                log.warn("{}: ignoring leader epoch {} at offset {}, older than the latest epoch {} (from offset {}); "
                        + "the log should have been truncated first", topicPartition, epoch, startOffset,
                        latest.epoch(), latest.startOffset());
                return;
            }
            NavigableMap<Integer, EpochEntry> next = new TreeMap<>();
            List<EpochEntry> removed = new ArrayList<>();
            for (EpochEntry existing : epochs.values()) {
                if (existing.startOffset() < startOffset) {
                    next.put(existing.epoch(), existing);
                } else {
                    removed.add(existing);
                }
            }
            next.put(epoch, entry);
            publish(next);
            logAssigned(entry, removed);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private boolean isCoveredByLatest(EpochEntry entry) {
        if (epochs.isEmpty()) {
            return false;
        }
        EpochEntry latest = epochs.lastEntry().getValue();
        return entry.epoch() == latest.epoch() && entry.startOffset() >= latest.startOffset();
    }

    private void logAssigned(EpochEntry entry, List<EpochEntry> removed) {
        // An entry that started exactly where the new epoch starts had no records (a log start moved up to the log
        // end), so dropping it is routine. Dropping one that had records means the log held a suffix it should have
        // truncated before appending the new epoch.
        boolean droppedRecords = removed.stream().anyMatch(e -> e.startOffset() != entry.startOffset());
        if (droppedRecords) {
            log.warn("{}: leader epoch {} starts at offset {}, which removed later-starting entries {}",
                    topicPartition, entry.epoch(), entry.startOffset(), removed);
        } else {
            log.debug("{}: leader epoch {} starts at offset {}", topicPartition, entry.epoch(), entry.startOffset());
        }
    }

    public OptionalInt latestEpoch() {
        lock.readLock().lock();
        try {
            return epochs.isEmpty() ? OptionalInt.empty() : OptionalInt.of(epochs.lastKey());
        } finally {
            lock.readLock().unlock();
        }
    }

    public OptionalInt earliestEpoch() {
        lock.readLock().lock();
        try {
            return epochs.isEmpty() ? OptionalInt.empty() : OptionalInt.of(epochs.firstKey());
        } finally {
            lock.readLock().unlock();
        }
    }

    public Optional<EpochEntry> latestEntry() {
        lock.readLock().lock();
        try {
            return epochs.isEmpty() ? Optional.empty() : Optional.of(epochs.lastEntry().getValue());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The epoch under which {@code offset} was written: the latest entry starting at or before it. */
    public OptionalInt epochForOffset(long offset) {
        lock.readLock().lock();
        try {
            EpochEntry found = null;
            for (EpochEntry entry : epochs.values()) {
                if (entry.startOffset() > offset) {
                    break;
                }
                found = entry;
            }
            return found == null ? OptionalInt.empty() : OptionalInt.of(found.epoch());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** All entries, oldest epoch first, as an immutable snapshot. */
    public List<EpochEntry> entries() {
        lock.readLock().lock();
        try {
            return List.copyOf(epochs.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Where {@code requestedEpoch} ended in this log, as OffsetForLeaderEpoch answers it:
     * <ul>
     * <li>the latest epoch: it has not ended, so {@code (latest, logEndOffset)};</li>
     * <li>an older epoch this log has: {@code (requestedEpoch, start of the next epoch)};</li>
     * <li>an epoch between two that this log has (the gap of an epoch in which nothing was written here):
     * {@code (largest epoch below it, start of the next epoch)};</li>
     * <li>an epoch older than every entry: {@code (requestedEpoch, start of the earliest entry)};</li>
     * <li>{@link EpochEndOffset#UNDEFINED} if the cache is empty, the epoch is newer than the latest, or the request
     * carries no epoch ({@code UNDEFINED_EPOCH}, -1).</li>
     * </ul>
     */
    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        lock.readLock().lock();
        try {
            if (requestedEpoch < 0 || epochs.isEmpty()) {
                return EpochEndOffset.UNDEFINED;
            }
            int latest = epochs.lastKey();
            if (requestedEpoch == latest) {
                return new EpochEndOffset(latest, logEndOffset);
            }
            if (requestedEpoch > latest) {
                // The requester has seen an epoch this log has not; we cannot say where it ended.
                return EpochEndOffset.UNDEFINED;
            }
            // requestedEpoch < latest, so some entry follows it.
            long nextStart = epochs.higherEntry(requestedEpoch).getValue().startOffset();
            Map.Entry<Integer, EpochEntry> floor = epochs.floorEntry(requestedEpoch);
            if (floor == null) {
                // Older than all we keep: the log's head, with the history of that epoch, was removed (retention,
                // DeleteRecords) or never replicated here. Whatever that epoch wrote ended by the earliest entry's
                // start, so that bound is the useful answer: a follower truncates to at most there and resumes, and a
                // consumer validating its position gets a real offset. UNDEFINED would instead send a follower back
                // to truncating at its high watermark and make a consumer reset its position.
                return new EpochEndOffset(requestedEpoch, nextStart);
            }
            return new EpochEndOffset(floor.getKey(), nextStart);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Forgets the epochs that start at or after {@code endOffset}, because the log has been truncated to end there.
     * Writes the checkpoint only if something was removed.
     *
     * @throws IllegalArgumentException if {@code endOffset} is negative
     * @throws IOException              if the checkpoint cannot be written; the cache is then unchanged
     */
    void truncateFromEnd(long endOffset) throws IOException {
        if (endOffset < 0) {
            throw new IllegalArgumentException(topicPartition + ": end offset must be >= 0 but was " + endOffset);
        }
        lock.writeLock().lock();
        try {
            if (epochs.isEmpty() || epochs.lastEntry().getValue().startOffset() < endOffset) {
                return;
            }
            NavigableMap<Integer, EpochEntry> next = new TreeMap<>();
            List<EpochEntry> removed = new ArrayList<>();
            for (EpochEntry entry : epochs.values()) {
                if (entry.startOffset() < endOffset) {
                    next.put(entry.epoch(), entry);
                } else {
                    removed.add(entry);
                }
            }
            publish(next);
            log.info("{}: log truncated to end offset {}; removed leader epoch entries {}", topicPartition, endOffset,
                    removed);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Forgets the history before {@code startOffset}, because the log now starts there. The entry whose epoch covers
     * {@code startOffset} (the last one starting at or before it) is kept, with its start moved up to
     * {@code startOffset}; entries before it are removed. Entries starting after {@code startOffset} are untouched.
     * Writes the checkpoint only if something changed.
     *
     * @throws IllegalArgumentException if {@code startOffset} is negative
     * @throws IOException              if the checkpoint cannot be written; the cache is then unchanged
     */
    void truncateFromStart(long startOffset) throws IOException {
        if (startOffset < 0) {
            throw new IllegalArgumentException(topicPartition + ": start offset must be >= 0 but was " + startOffset);
        }
        lock.writeLock().lock();
        try {
            EpochEntry covering = null;
            for (EpochEntry entry : epochs.values()) {
                if (entry.startOffset() > startOffset) {
                    break;
                }
                covering = entry;
            }
            boolean nothingBefore = covering == null
                    || (covering.epoch() == epochs.firstKey() && covering.startOffset() == startOffset);
            if (nothingBefore) {
                return;
            }
            NavigableMap<Integer, EpochEntry> next = new TreeMap<>(epochs.tailMap(covering.epoch(), false));
            next.put(covering.epoch(), new EpochEntry(covering.epoch(), startOffset));
            publish(next);
            log.debug("{}: log start moved to {}; leader epoch entries now {}", topicPartition, startOffset,
                    next.values());
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Forgets every epoch and writes an empty checkpoint, for a log that has been emptied and restarted at a new
     * offset. The next appended batch starts the history again through {@link #assign}.
     *
     * @throws IOException if the checkpoint cannot be written; the cache is then unchanged
     */
    void clearAndFlush() throws IOException {
        lock.writeLock().lock();
        try {
            publish(new TreeMap<>());
            log.info("{}: cleared all leader epoch entries", topicPartition);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Persists {@code next}, then makes it the cache's state; must hold the write lock. */
    private void publish(NavigableMap<Integer, EpochEntry> next) throws IOException {
        checkpoint.write(next.values());
        epochs = Collections.unmodifiableNavigableMap(next);
    }

    @Override
    public String toString() {
        return "LeaderEpochCache(" + topicPartition + ", " + entries() + ")";
    }
}
