package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.FileRecords.LogOffsetPosition;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment of a partition log: the record batches from {@link #baseOffset()} up to the next segment's base offset.
 *
 * <p>On disk: {@code <base offset, 20 digits>.log} holds the record batches (magic v2) back to back, exactly as the
 * log validated them; {@code .index} ({@link OffsetIndex}) and {@code .timeindex} ({@link TimeIndex}) are sparse
 * indexes derived from it, and {@code .txnindex} ({@link TransactionIndex}) lists the aborted transactions whose
 * marker is in the segment (only segments with one have the file). The {@code .log} file is the only source of truth: {@link #open} rebuilds an index that is
 * missing or fails its sanity check (its last entries only, see {@link AbstractIndex}), and {@link #recover} rebuilds
 * both while checking every batch.
 *
 * <p>Threads: one appending thread at a time (the owning {@link PartitionLog} holds its lock for {@link #append},
 * {@link #truncateTo}, {@link #recover} and roll). {@link #read}, {@link #findOffsetByTimestamp} and the size
 * accessors run on any thread; {@link FileRecords} publishes its size after the bytes are written, so a reader sees
 * whole batches only.
 */
final class LogSegment implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(LogSegment.class);

    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String TXN_INDEX_SUFFIX = ".txnindex";
    /** Suffix a segment gets when it is scheduled for deletion; deleted after {@code file.delete.delay.ms}. */
    static final String DELETED_SUFFIX = ".deleted";
    /** Suffix of a segment the cleaner is still writing; discarded at start-up. */
    static final String CLEANED_SUFFIX = ".cleaned";
    /** Suffix of a finished cleaned segment that replaces older ones; the swap is completed at start-up. */
    static final String SWAP_SUFFIX = ".swap";

    private final long baseOffset;
    private final FileRecords records;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final TransactionIndex txnIndex;
    private final int indexIntervalBytes;

    /** Bytes appended since the last index entry; the appending thread only. */
    private int bytesSinceLastIndexEntry;
    /** Largest timestamp in the segment and the offset of the record that has it; written by the appending thread. */
    private volatile long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;
    /** Max timestamp of the first batch, the reference for {@code segment.ms}; NO_TIMESTAMP until known. */
    private volatile long rollingBasedTimestamp = RecordBatch.NO_TIMESTAMP;
    /**
     * The last batch appended, published after its bytes; null before the first append and after truncation or
     * recovery. A consumer at the end of the log reads exactly there, so {@link #translateOffset} and
     * {@link #limitPosition} answer from it instead of reading batch headers back from the file.
     */
    private volatile LastAppend lastAppend;

    private record LastAppend(long baseOffset, long lastOffset, int position, int size) {
        int end() {
            return position + size;
        }
    }

    private LogSegment(long baseOffset, FileRecords records, OffsetIndex offsetIndex, TimeIndex timeIndex,
                       TransactionIndex txnIndex, int indexIntervalBytes) {
        this.baseOffset = baseOffset;
        this.records = records;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.txnIndex = txnIndex;
        this.indexIntervalBytes = indexIntervalBytes;
    }

    static String filenamePrefix(long offset) {
        return String.format("%020d", offset);
    }

    static Path file(Path dir, long baseOffset, String suffix) {
        return dir.resolve(filenamePrefix(baseOffset) + suffix);
    }

    /** What {@link #open} makes of the index files of a segment found on disk. */
    enum Indexes {
        /**
         * Use them if their last entries pass the sanity check and point inside the log, else rebuild them from the
         * log: the files of a clean shutdown and of segments below the recovery point, which were trimmed to their
         * entries at roll or close and flushed.
         */
        CHECK,
        /**
         * Delete them unread and start empty ones: the caller {@link #recover}s the segment next, which rebuilds them.
         * For the segments a crash recovery scans; the active one's files are preallocated and were never trimmed.
         */
        DISCARD
    }

    /** {@link #open(Path, long, LogConfig, boolean, String, Indexes)} checking the index files it finds. */
    static LogSegment open(Path dir, long baseOffset, LogConfig config, boolean preallocate, String fileSuffix)
            throws IOException {
        return open(dir, baseOffset, config, preallocate, fileSuffix, Indexes.CHECK);
    }

    /**
     * Opens (or creates) the segment with this base offset in {@code dir}. {@code fileSuffix} is appended to every
     * file name ("" for live segments, {@link #CLEANED_SUFFIX} for one the cleaner writes). Index files of an
     * existing segment are checked or discarded as {@code indexes} says; an index that is rebuilt here is trimmed
     * to its entries, as for a segment that is not active (the caller grows the active segment's).
     */
    static LogSegment open(Path dir, long baseOffset, LogConfig config, boolean preallocate, String fileSuffix,
                           Indexes indexes) throws IOException {
        Path logFile = dir.resolve(filenamePrefix(baseOffset) + LOG_SUFFIX + fileSuffix);
        Path indexFile = dir.resolve(filenamePrefix(baseOffset) + INDEX_SUFFIX + fileSuffix);
        Path timeIndexFile = dir.resolve(filenamePrefix(baseOffset) + TIME_INDEX_SUFFIX + fileSuffix);
        Path txnIndexFile = dir.resolve(filenamePrefix(baseOffset) + TXN_INDEX_SUFFIX + fileSuffix);
        boolean exists = Files.exists(logFile);
        if (!exists || indexes == Indexes.DISCARD) {
            // A new segment's leftover, or one recovery rebuilds through the producer-state replay.
            Files.deleteIfExists(txnIndexFile);
        }
        FileRecords records = FileRecords.open(logFile.toFile(), exists, config.segmentBytes,
                preallocate && !exists);
        OffsetIndex offsetIndex = null;
        TimeIndex timeIndex = null;
        boolean opened = false;
        try {
            boolean rebuild = false;
            if (exists && indexes == Indexes.DISCARD) {
                Files.deleteIfExists(indexFile);
                Files.deleteIfExists(timeIndexFile);
            } else if (exists && (!Files.exists(indexFile) || !Files.exists(timeIndexFile))) {
                log.warn("Index of segment {} is missing; rebuilding it from the log", logFile);
                rebuild = true;
            }
            try {
                offsetIndex = new OffsetIndex(indexFile, baseOffset, config.segmentIndexBytes);
                timeIndex = new TimeIndex(timeIndexFile, baseOffset, config.segmentIndexBytes);
            } catch (CorruptIndexException e) {
                log.warn("{}; rebuilding the indexes of {} from the log", e.getMessage(), logFile);
                if (offsetIndex != null) {
                    offsetIndex.closeWithoutTrim();
                }
                Files.deleteIfExists(indexFile);
                Files.deleteIfExists(timeIndexFile);
                offsetIndex = new OffsetIndex(indexFile, baseOffset, config.segmentIndexBytes);
                timeIndex = new TimeIndex(timeIndexFile, baseOffset, config.segmentIndexBytes);
                rebuild = true;
            }
            TransactionIndex txnIndex;
            try {
                txnIndex = TransactionIndex.open(txnIndexFile);
            } catch (CorruptIndexException e) {
                // Aborted transactions of this segment are then unknown to read_committed readers until the next
                // recovery; a version other than 0 is not something Tributary or Kafka writes.
                log.warn("{}; ignoring it", e.getMessage());
                Files.deleteIfExists(txnIndexFile);
                txnIndex = TransactionIndex.open(txnIndexFile);
            }
            LogSegment segment = new LogSegment(baseOffset, records, offsetIndex, timeIndex, txnIndex,
                    config.indexIntervalBytes);
            if (exists && indexes == Indexes.CHECK) {
                if (!rebuild && !segment.indexesPointInsideLog()) {
                    log.warn("Index of segment {} points past the end of the log; rebuilding it", logFile);
                    rebuild = true;
                }
                if (rebuild) {
                    segment.rebuildIndexes();
                    offsetIndex.trimToValidSize();
                    timeIndex.trimToValidSize();
                } else {
                    TimeIndex.TimestampOffset last = timeIndex.lastEntry();
                    segment.maxTimestampSoFar = last.timestamp();
                    segment.offsetOfMaxTimestampSoFar = last.offset();
                    segment.rollingBasedTimestamp = segment.firstBatchMaxTimestamp();
                }
            }
            opened = true;
            return segment;
        } finally {
            if (!opened) {
                // Out of file descriptors (EMFILE) halfway, say: nothing stays open, and a segment this call created
                // leaves no files behind for the next start-up to take for an empty segment.
                closeQuietly(records, offsetIndex, timeIndex);
                if (!exists) {
                    deleteQuietly(logFile, indexFile, timeIndexFile);
                }
            }
        }
    }

    private static void closeQuietly(FileRecords records, AbstractIndex... indexes) {
        for (AbstractIndex index : indexes) {
            if (index != null) {
                index.closeWithoutTrim();
            }
        }
        try {
            records.channel().close();
        } catch (IOException e) {
            log.debug("Closing {} after a failed open failed too", records.file(), e);
        }
    }

    private static void deleteQuietly(Path... files) {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                log.warn("Could not delete {} after a failed open: {}", file, e.toString());
            }
        }
    }

    /**
     * The {@code segment.ms} reference of a segment found on disk, as {@link #append} set it: the first batch's max
     * timestamp. Without it a reopened active segment would never roll by time.
     */
    private long firstBatchMaxTimestamp() {
        try {
            for (FileChannelRecordBatch batch : records.batches()) {
                return batch.maxTimestamp();
            }
        } catch (KafkaException e) {
            // Not a readable batch: recovery, if it runs, cuts it and takes the timestamp from what remains.
            log.warn("Segment {}: cannot read the first batch ({})", records.file(), e.getMessage());
        }
        return RecordBatch.NO_TIMESTAMP;
    }

    private boolean indexesPointInsideLog() {
        return offsetIndex.lastPosition() < records.sizeInBytes()
                && (offsetIndex.entries() == 0 || offsetIndex.lastOffset() >= baseOffset)
                && timeIndex.lastEntry().offset() >= baseOffset;
    }

    long baseOffset() {
        return baseOffset;
    }

    int size() {
        return records.sizeInBytes();
    }

    FileRecords records() {
        return records;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    /** The aborted transactions whose ABORT marker is in this segment. */
    TransactionIndex txnIndex() {
        return txnIndex;
    }

    long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    /** The largest timestamp in this segment, or its last-modified time if it holds no timestamps. */
    long largestTimestamp() throws IOException {
        long max = maxTimestampSoFar;
        return max >= 0 ? max : Files.getLastModifiedTime(records.file().toPath()).toMillis();
    }

    /**
     * Appends batches whose offsets are already assigned. A write that fails leaves the segment as it was. The
     * appending thread only.
     *
     * @param largestOffset the last offset among {@code batches}
     * @throws IOException if the write fails, or an index cannot allocate the page of its next entry
     *                     ({@link AbstractIndex}); the segment (file, indexes, timestamps) is then as it was before the
     *                     call, unless cutting off the partial write failed too, whose error is thrown instead
     */
    void append(long largestOffset, MemoryRecords batches) throws IOException {
        if (batches.sizeInBytes() == 0) {
            return;
        }
        if (largestOffset - baseOffset > Integer.MAX_VALUE || largestOffset < baseOffset) {
            throw new IllegalArgumentException("offset " + largestOffset + " does not fit segment " + records.file());
        }
        int start = records.sizeInBytes();
        long rollingBefore = rollingBasedTimestamp;
        long maxTimestampBefore = maxTimestampSoFar;
        long offsetOfMaxTimestampBefore = offsetOfMaxTimestampSoFar;
        int bytesSinceIndexBefore = bytesSinceLastIndexEntry;
        int offsetEntriesBefore = offsetIndex.entries();
        int timeEntriesBefore = timeIndex.entries();
        int position = start;
        MutableRecordBatch last = null;
        try {
            if (position == 0) {
                rollingBasedTimestamp = batches.batches().iterator().next().maxTimestamp();
            }
            records.append(batches);
            for (MutableRecordBatch batch : batches.batches()) {
                indexBatch(batch, position);
                position += batch.sizeInBytes();
                last = batch;
            }
        } catch (IOException e) {
            // A full disk (ENOSPC) can fail the write halfway through a batch. The torn bytes are cut off again, so
            // that no later append lands behind them and no reader or recovery meets them.
            try {
                records.truncateTo(start);
                offsetIndex.truncateToEntries(offsetEntriesBefore);
                timeIndex.truncateToEntries(timeEntriesBefore);
            } catch (IOException | RuntimeException undoFailure) {
                undoFailure.addSuppressed(e);
                throw undoFailure instanceof IOException io ? io
                        : new IOException("cannot cut the failed append off " + records.file(), undoFailure);
            }
            rollingBasedTimestamp = rollingBefore;
            maxTimestampSoFar = maxTimestampBefore;
            offsetOfMaxTimestampSoFar = offsetOfMaxTimestampBefore;
            bytesSinceLastIndexEntry = bytesSinceIndexBefore;
            throw e;
        }
        lastAppend = new LastAppend(last.baseOffset(), last.lastOffset(), position - last.sizeInBytes(),
                last.sizeInBytes());
    }

    /** Index maintenance for one batch at {@code position}, shared by append, recovery and rebuilding. */
    private void indexBatch(RecordBatch batch, int position) throws IOException {
        if (batch.maxTimestamp() > maxTimestampSoFar) {
            maxTimestampSoFar = batch.maxTimestamp();
            offsetOfMaxTimestampSoFar = batch.lastOffset();
        }
        // A full index takes no more entries rather than failing the append: the index is sparse, so a batch without
        // an entry only lengthens a scan. It happens when one append brings more batches than the index has room
        // left for (a follower's fetch), or when recovery runs with a smaller segment.index.bytes than the segment
        // was written with; the log rolls at its next append.
        if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull() && !timeIndex.isFull()) {
            offsetIndex.append(batch.lastOffset(), position);
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batch.sizeInBytes();
    }

    /**
     * The first batch whose last offset is at least {@code offset}, searching from the index's lower bound; null if
     * the segment holds no such batch.
     */
    LogOffsetPosition translateOffset(long offset) {
        LastAppend last = lastAppend;
        if (last != null && offset >= last.baseOffset() && offset <= last.lastOffset()) {
            return new LogOffsetPosition(last.lastOffset(), last.position(), last.size());
        }
        OffsetIndex.OffsetPosition start = offsetIndex.lookup(offset);
        return records.searchForOffsetFromPosition(offset, start.position());
    }

    /**
     * Where a read that must not reach {@code offset} ends: the position of the first batch whose last offset is at
     * least {@code offset}, or the segment's size if there is none. Safe while the appending thread appends: a batch
     * appended meanwhile is never inside the bound unless it is below {@code offset}.
     */
    int limitPosition(long offset) {
        LastAppend last = lastAppend;
        if (last != null && offset > last.lastOffset()) {
            // Every batch up to last.end() is below offset; any batch after it is appended later.
            return last.end();
        }
        int size = records.sizeInBytes(); // before the search: a batch appended after this is outside the bound
        LogOffsetPosition found = translateOffset(offset);
        return found == null ? size : found.position;
    }

    /**
     * Reads from the batch that holds {@code startOffset}, at most {@code maxSize} bytes and never past
     * {@code maxPosition}. The result is a slice of the segment file (sendable without copying); it may end in a
     * partial batch, which clients discard. With {@code minOneBatch} the first batch is returned whole even if it is
     * larger than {@code maxSize}, so that a consumer can always make progress; without it, a first batch larger than
     * {@code maxSize} gives no records at all.
     *
     * @return null if no batch in this segment reaches {@code startOffset}
     */
    LogReadInfo read(long startOffset, int maxSize, long maxPosition, boolean minOneBatch) {
        if (maxSize < 0) {
            throw new IllegalArgumentException("invalid max size " + maxSize + " for read of " + records.file());
        }
        LogOffsetPosition start = translateOffset(startOffset);
        if (start == null) {
            return null;
        }
        int adjustedMax = minOneBatch ? Math.max(maxSize, start.size) : maxSize;
        if (adjustedMax < start.size) {
            // Part of the first batch is of no use to a client, and the Java consumer fails on it ("Received a
            // non-empty fetch response from the server, but no complete records were found"): a partition after
            // the first of a fetch, with a batch over max.partition.fetch.bytes, stopped the consumer. Nothing is
            // returned instead, as Kafka does; the batch goes whole once the partition comes first in a fetch.
            return new LogReadInfo(startOffset, MemoryRecords.EMPTY);
        }
        long limit = Math.min(maxPosition, records.sizeInBytes());
        int fetchSize = (int) Math.max(0, Math.min(limit - start.position, adjustedMax));
        return new LogReadInfo(startOffset, records.slice(start.position, fetchSize));
    }

    /** The next offset after the last batch of this segment, or the base offset if it is empty. */
    long readNextOffset() {
        int lastIndexed = Math.max(0, offsetIndex.lastPosition());
        long next = baseOffset;
        for (FileChannelRecordBatch batch : records.batchesFrom(lastIndexed)) {
            next = batch.nextOffset();
        }
        return next;
    }

    /**
     * The first record at or after {@code startingOffset} whose timestamp is at least {@code timestamp}.
     */
    Optional<TimestampAndOffset> findOffsetByTimestamp(long timestamp, long startingOffset) {
        TimeIndex.TimestampOffset before = timeIndex.lookupBefore(timestamp);
        int position = offsetIndex.lookup(Math.max(before.offset(), startingOffset)).position();
        // The last argument caps the decompressed size of one record, it is not a buffer size: the records are in the
        // log already, so any record the log accepted must be readable (Kafka's default is no cap either).
        return Optional.ofNullable(records.searchForTimestamp(timestamp, position, startingOffset,
                Records.SOFT_MAX_ARRAY_LENGTH));
    }

    /** Whether the next {@code size} bytes ending at {@code lastOffset} with this max timestamp need a new segment. */
    boolean shouldRoll(int size, long maxTimestamp, long lastOffset, LogConfig config) {
        boolean full = records.sizeInBytes() > config.segmentBytes - size;
        boolean old = records.sizeInBytes() > 0 && rollingBasedTimestamp >= 0
                && maxTimestamp - rollingBasedTimestamp > config.segmentMs;
        return full || old || offsetIndex.isFull() || timeIndex.isFull()
                || lastOffset - baseOffset > Integer.MAX_VALUE;
    }

    /** Age of the segment for {@code segment.ms} when no new record arrives: measured against {@code nowMs}. */
    boolean olderThan(long nowMs, long segmentMs) {
        return records.sizeInBytes() > 0 && rollingBasedTimestamp >= 0 && nowMs - rollingBasedTimestamp > segmentMs;
    }

    /**
     * Scans every batch, checks its magic, CRC and offsets, rebuilds both indexes (grown to their maximum size), and
     * cuts the file at the first byte that is not a valid batch. {@code onBatch} sees each valid batch in order
     * (producer state, epoch cache).
     *
     * @return the number of bytes cut from the end of the file
     */
    int recover(Consumer<RecordBatch> onBatch) throws IOException {
        // Room for every entry, also in indexes trimmed at a roll; the caller trims a segment that is not active.
        onBecomeActive();
        int validBytes = indexValidBatches(onBatch);
        int truncated = records.sizeInBytes() - validBytes;
        if (truncated > 0) {
            log.warn("Segment {}: cut {} bytes of invalid data at position {}", records.file(), truncated, validBytes);
            records.truncateTo(validBytes);
        }
        return truncated;
    }

    /**
     * Rebuilds both indexes from the log, for an index that is missing or failed its checks. Only the valid batches
     * at the start are indexed, as by {@link #recover}, but nothing is cut: an index rebuilt while a crashed log is
     * opened must not fail on the damage that recovery is about to cut away.
     */
    private void rebuildIndexes() throws IOException {
        int validBytes = indexValidBatches(batch -> { });
        if (validBytes < records.sizeInBytes()) {
            log.warn("Segment {}: indexed only the first {} of {} bytes, the rest is not valid record batches",
                    records.file(), validBytes, records.sizeInBytes());
        }
        offsetIndex.flush();
        timeIndex.flush();
    }

    /**
     * Rebuilds both indexes and the timestamps from the batches at the start of the file that are valid: magic v2,
     * a correct CRC, and offsets that grow within the segment's range.
     *
     * @return the number of bytes those batches take, the position of the first invalid byte
     */
    private int indexValidBatches(Consumer<RecordBatch> onBatch) throws IOException {
        lastAppend = null;
        offsetIndex.reset();
        timeIndex.reset();
        bytesSinceLastIndexEntry = 0;
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        rollingBasedTimestamp = RecordBatch.NO_TIMESTAMP;
        int validBytes = 0;
        long lastOffset = baseOffset - 1;
        try {
            for (FileChannelRecordBatch batch : records.batches()) {
                if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
                    log.warn("Segment {}: batch at position {} has magic {}", records.file(), validBytes,
                            batch.magic());
                    break;
                }
                batch.ensureValid();
                if (batch.baseOffset() <= lastOffset || batch.lastOffset() < batch.baseOffset()
                        || batch.lastOffset() - baseOffset > Integer.MAX_VALUE) {
                    log.warn("Segment {}: batch at position {} has offsets {}..{} after offset {}",
                            records.file(), validBytes, batch.baseOffset(), batch.lastOffset(), lastOffset);
                    break;
                }
                if (validBytes == 0) {
                    rollingBasedTimestamp = batch.maxTimestamp();
                }
                try {
                    indexBatch(batch, validBytes);
                } catch (IOException e) {
                    dropIndexEntries(e);
                }
                onBatch.accept(batch);
                validBytes += batch.sizeInBytes();
                lastOffset = batch.lastOffset();
            }
        } catch (KafkaException e) {
            // CorruptRecordException (a bad CRC or size) is an InvalidRecordException; other parsing failures of
            // garbage bytes surface as KafkaException.
            log.warn("Segment {}: invalid batch at position {} ({})", records.file(), validBytes, e.getMessage());
        }
        if (maxTimestampSoFar >= 0) {
            try {
                timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
            } catch (IOException e) {
                dropIndexEntries(e);
            }
        }
        return validBytes;
    }

    /**
     * A rebuild whose index could not allocate the page of an entry (a full disk, no file descriptor): the batches
     * are in the log already and nothing is refused, so both indexes take no more entries and are rebuilt when the
     * segment is next opened ({@link AbstractIndex#markIncomplete}). The timestamps are still taken from every batch.
     *
     * @throws IOException {@code failure} if it is a disk failure ({@link StorageFault})
     */
    private void dropIndexEntries(IOException failure) throws IOException {
        if (!StorageFault.isResourceExhausted(failure)) {
            throw failure;
        }
        if (!offsetIndex.isIncomplete() || !timeIndex.isIncomplete()) {
            log.warn("Segment {}: no storage for its index entries ({}); its indexes take no more entries, which only "
                    + "makes lookups scan further, and are rebuilt from the log when it is next opened",
                    records.file(), failure.getMessage());
        }
        offsetIndex.markIncomplete();
        timeIndex.markIncomplete();
    }

    /**
     * Removes every batch from the one holding {@code offset} on (a batch is never split), and their index entries.
     *
     * @return the number of bytes removed
     */
    int truncateTo(long offset) throws IOException {
        lastAppend = null;
        LogOffsetPosition mapping = translateOffset(offset);
        offsetIndex.truncateTo(offset);
        timeIndex.truncateTo(offset);
        if (mapping == null) {
            return 0;
        }
        int removed = records.truncateTo(mapping.position);
        txnIndex.truncateTo(offset);
        if (records.sizeInBytes() == 0) {
            rollingBasedTimestamp = RecordBatch.NO_TIMESTAMP;
        }
        bytesSinceLastIndexEntry = 0;
        // The indexes are shorter now: take the largest timestamp and index cadence again from what remains. The
        // time index's last entry covers the batches up to its offset; the scan starts at or before the batch that
        // holds it, which is where the last offset index entry points unless one of the indexes dropped entries for
        // want of storage (AbstractIndex).
        TimeIndex.TimestampOffset last = timeIndex.lastEntry();
        maxTimestampSoFar = last.timestamp();
        offsetOfMaxTimestampSoFar = last.offset();
        int lastIndexed = Math.max(0, offsetIndex.lastPosition());
        int timeCovered = offsetIndex.lookup(last.offset()).position();
        for (FileChannelRecordBatch batch : records.batchesFrom(Math.min(lastIndexed, timeCovered))) {
            if (batch.maxTimestamp() > maxTimestampSoFar) {
                maxTimestampSoFar = batch.maxTimestamp();
                offsetOfMaxTimestampSoFar = batch.lastOffset();
            }
            if (batch.position() >= lastIndexed) {
                bytesSinceLastIndexEntry += batch.sizeInBytes();
            }
        }
        return removed;
    }

    /**
     * Called when this segment becomes the active one again (at load, after a truncation into it, after a roll that
     * failed): its indexes, trimmed when it stopped being active, grow back to {@code segment.index.bytes} (sparse,
     * so no space is needed) to take new entries.
     */
    void onBecomeActive() throws IOException {
        offsetIndex.growToMaximum();
        timeIndex.growToMaximum();
    }

    /** Called when a newer segment becomes active: final time index entry, files trimmed to their contents. */
    void onBecomeInactive() throws IOException {
        if (maxTimestampSoFar >= 0) {
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
        }
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
        records.trim();
    }

    void flush() throws IOException {
        records.flush();
        offsetIndex.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    /** Renames every file of this segment to end in {@code suffix} instead of {@code oldSuffix}. */
    void changeFileSuffixes(String oldSuffix, String suffix) throws IOException {
        records.renameTo(swapSuffix(records.file().toPath(), oldSuffix, suffix).toFile());
        offsetIndex.renameTo(swapSuffix(offsetIndex.file(), oldSuffix, suffix));
        timeIndex.renameTo(swapSuffix(timeIndex.file(), oldSuffix, suffix));
        txnIndex.renameTo(swapSuffix(txnIndex.file(), oldSuffix, suffix));
    }

    private static Path swapSuffix(Path file, String oldSuffix, String suffix) {
        String name = file.getFileName().toString();
        if (!name.endsWith(oldSuffix)) {
            throw new IllegalArgumentException("file " + file + " does not end in '" + oldSuffix + "'");
        }
        return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + suffix);
    }

    /** Closes and deletes every file of the segment; idempotent. */
    void deleteIfExists() throws IOException {
        IOException failure = null;
        try {
            records.deleteIfExists();
        } catch (IOException e) {
            failure = e;
        }
        offsetIndex.deleteIfExists();
        timeIndex.deleteIfExists();
        txnIndex.deleteIfExists();
        if (failure != null) {
            throw failure;
        }
    }

    /** Flushes, trims and closes the files; idempotent. */
    @Override
    public void close() throws IOException {
        if (maxTimestampSoFar >= 0) {
            try {
                timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
            } catch (IllegalStateException alreadyClosedOrFull) {
                // Closed twice, or the index is full: the entry is an optimisation, recovery does without it.
            }
        }
        offsetIndex.close();
        timeIndex.close();
        if (records.channel().isOpen()) {
            records.trim();
        }
        records.close();
    }

    /** Releases file handles without flushing, after an I/O error; idempotent. */
    void closeHandlers() {
        offsetIndex.closeWithoutTrim();
        timeIndex.closeWithoutTrim();
        try {
            records.channel().close();
        } catch (IOException e) {
            log.debug("Closing {} after an I/O error failed too", records.file(), e);
        }
    }

    @Override
    public String toString() {
        return "LogSegment(" + records.file() + ", size=" + records.sizeInBytes() + ")";
    }
}
