package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction ({@code cleanup.policy=compact}): keeps, in the part of a log before the active segment, only the latest
 * record of each key, with offsets unchanged, and drops tombstones (records with a null value) once
 * {@code delete.retention.ms} has passed since the cleaner first kept them.
 *
 * <p>One pass over a log works on one snapshot of its segments:
 * <ol>
 * <li>The cleanable range runs from the first uncleaned ("dirty") offset to the first segment that may not be
 * cleaned: the active segment, the segment holding the high watermark (records above it may still be truncated
 * away, and had they removed older values those values would be lost with them), or a segment younger than
 * {@code min.compaction.lag.ms}.
 * <li>A map from key to latest offset is built over that range, exactly (full key bytes, no hashing, so no
 * collision can drop a live record), bounded by {@code log.cleaner.dedupe.buffer.size}; if it fills, the pass cleans
 * only up to the batch where it stopped.
 * <li>Every segment below that offset, from the log start, is rewritten in groups that fit {@code segment.bytes},
 * each into a {@code .cleaned} segment that replaces the group through a crash-safe {@code .swap} rename
 * ({@link PartitionLog#replaceSegments}). Records past the mapped range are copied unchanged. The last batch of a
 * group is kept even if emptied, so that a cleaned segment ends at the group's end offset: that is how
 * {@link PartitionLog#open} knows which old segments an interrupted swap replaces.
 * </ol>
 * Transactions: nothing at or above the last stable offset's segment is cleaned, the records of aborted transactions
 * (found through the transaction indexes) are dropped and never mapped, and transaction markers are kept, as are the
 * transaction-index entries of the cleaned segments.
 * A tombstone's first pass stamps its batch's delete horizon (record batch v2 field) with now +
 * {@code delete.retention.ms}; a later pass at or after that time drops it. A log whose clean part holds a
 * tombstone past its horizon gets a pass even with nothing dirty (an empty key map: only such tombstones go). A swap
 * is refused if any segment the pass read has changed since (truncation, retention, DeleteRecords); the pass then
 * stops, and the next one starts over from what the log holds.
 *
 * <p>Progress (the first dirty offset of each log) is kept in memory: after a restart, the first pass re-reads
 * everything. It is also forgotten when the segment that held it leaves the log or shrinks, i.e. after a truncation
 * below it, since the offsets there may then hold records no key map has seen.
 *
 * <p>Threads: one background thread, {@code tributary-log-cleaner}, or the caller of {@link #cleanOnce()} /
 * {@link #clean(PartitionLog)} (tests, tools), never both for the same log. A pass holds the log's lock only for each
 * swap, and its reads and writes are throttled to {@code log.cleaner.io.max.bytes.per.second} so that it cannot
 * starve appends and fetches of disk bandwidth. {@link #abort} and {@link #close} may be called from any thread; a
 * pass under way stops at its next chunk of I/O.
 */
public final class LogCleaner implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    /**
     * Largest decompressed record body the cleaner reads: no limit of its own. Every record in a log passed
     * validation at append; a lower limit here would make one large record stop the log's compaction for good.
     */
    private static final int MAX_RECORD_BODY_BYTES = Records.SOFT_MAX_ARRAY_LENGTH;
    /** Approximate heap cost of one key-map entry beyond the key bytes (HashMap node, ByteBuffer, Long). */
    private static final int MAP_ENTRY_OVERHEAD = 96;

    /** Broker-level settings, Kafka's {@code log.cleaner.*} names and defaults. */
    public record Config(boolean enabled, double ioMaxBytesPerSecond, long backoffMs, long dedupeBufferSize,
                         int readBufferSize) {
        public Config {
            if (ioMaxBytesPerSecond <= 0 || backoffMs < 0 || dedupeBufferSize <= 0 || readBufferSize <= 0) {
                throw new IllegalArgumentException("invalid log cleaner settings: io.max.bytes.per.second="
                        + ioMaxBytesPerSecond + ", backoff.ms=" + backoffMs + ", dedupe.buffer.size="
                        + dedupeBufferSize + ", io.buffer.size=" + readBufferSize);
            }
        }

        public static Config defaults() {
            return new Config(true, Double.MAX_VALUE, 15_000L, 128L * 1024 * 1024, 1024 * 1024);
        }
    }

    private enum State { CREATED, RUNNING, CLOSED }

    /**
     * How far a log has been cleaned: every offset below {@code firstDirtyOffset} was deduplicated against the key
     * map of some pass. {@code anchor} is the segment that held that offset at the end of the pass, then
     * {@code anchorSize} bytes long; if it has left the log or shrunk (truncation, full truncation), the offsets
     * around it may now hold new records never mapped, and the next pass starts over from the log start.
     * {@code earliestDeleteHorizonMs} is the earliest delete horizon of a tombstone kept in the clean part: from then
     * on the log is worth a pass even with nothing dirty.
     */
    private record Progress(long firstDirtyOffset, LogSegment anchor, int anchorSize, long earliestDeleteHorizonMs) {
    }

    private final Config config;
    private final Supplier<List<PartitionLog>> logs;
    private final Time time;
    /** In memory only: after a restart the first pass of each log re-reads its clean part. */
    private final Map<TopicPartition, Progress> progress = new ConcurrentHashMap<>();
    private final Set<TopicPartition> aborted = ConcurrentHashMap.newKeySet();
    private volatile State state = State.CREATED;
    /** Written by {@link #start}, read by {@link #close}; both synchronised on this. */
    private Thread thread;

    LogCleaner(Config config, Supplier<List<PartitionLog>> logs, Time time) {
        this.config = config;
        this.logs = logs;
        this.time = time;
    }

    /** Starts the background thread (if {@code log.cleaner.enable}); once only. */
    synchronized void start() {
        if (state != State.CREATED) {
            throw new IllegalStateException("log cleaner is " + state + "; it can be started once");
        }
        state = State.RUNNING;
        if (!config.enabled()) {
            return;
        }
        thread = new Thread(this::runLoop, "tributary-log-cleaner");
        thread.setDaemon(true);
        thread.start();
    }

    private void runLoop() {
        while (state == State.RUNNING) {
            boolean cleaned = false;
            try {
                cleaned = cleanOnce();
            } catch (RuntimeException e) {
                if (state == State.RUNNING) {
                    log.error("Log cleaner pass failed", e);
                }
            }
            if (!cleaned) {
                synchronized (this) {
                    try {
                        if (state == State.RUNNING) {
                            wait(Math.max(1, config.backoffMs()));
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    /** Stops a cleaning of {@code tp} under way (log deleted or directory offline) and forgets its progress. */
    void abort(TopicPartition tp) {
        aborted.add(tp);
        progress.remove(tp);
    }

    /**
     * Cleans the compacted log with the highest dirty ratio at or above its {@code min.cleanable.dirty.ratio} or, if
     * there is none, a log whose clean part holds a tombstone past its delete horizon.
     *
     * @return whether a pass was completed (false also when it failed, so that the background thread backs off)
     * @throws IllegalStateException if the cleaner is closed
     */
    public boolean cleanOnce() {
        ensureNotClosed();
        List<PartitionLog> candidates = logs.get();
        PartitionLog best = null;
        double bestRatio = 0;
        for (PartitionLog candidate : candidates) {
            if (!candidate.config().compact()) {
                continue;
            }
            double ratio = dirtyRatio(candidate);
            if (ratio >= candidate.config().minCleanableDirtyRatio && ratio > bestRatio) {
                best = candidate;
                bestRatio = ratio;
            }
        }
        if (best == null) {
            long now = time.milliseconds();
            for (PartitionLog candidate : candidates) {
                Progress cleaned = validProgress(candidate, candidate.segmentsSnapshot());
                if (candidate.config().compact() && cleaned != null && cleaned.earliestDeleteHorizonMs() <= now) {
                    best = candidate;
                    break;
                }
            }
        }
        return best != null && clean(best);
    }

    private double dirtyRatio(PartitionLog partitionLog) {
        List<LogSegment> segments = partitionLog.segmentsSnapshot();
        long firstDirty = firstDirtyOffset(partitionLog, segments);
        long cleanableEnd = cleanableEndOffset(partitionLog, segments, firstDirty);
        long cleanBytes = 0;
        long dirtyBytes = 0;
        for (LogSegment segment : segments) {
            if (segment.baseOffset() >= cleanableEnd) {
                break;
            }
            if (segment.baseOffset() < firstDirty) {
                cleanBytes += segment.size();
            } else {
                dirtyBytes += segment.size();
            }
        }
        long total = cleanBytes + dirtyBytes;
        return total == 0 ? 0 : (double) dirtyBytes / total;
    }

    private long firstDirtyOffset(PartitionLog partitionLog, List<LogSegment> segments) {
        Progress cleaned = validProgress(partitionLog, segments);
        long logStart = partitionLog.logStartOffset();
        return cleaned == null ? logStart : Math.max(cleaned.firstDirtyOffset(), logStart);
    }

    /** The log's progress, unless there is none or its anchor segment has left the log or shrunk since. */
    private Progress validProgress(PartitionLog partitionLog, List<LogSegment> segments) {
        Progress cleaned = progress.get(partitionLog.topicPartition());
        if (cleaned == null) {
            return null;
        }
        for (LogSegment segment : segments) {
            if (segment == cleaned.anchor()) {
                return segment.size() >= cleaned.anchorSize() ? cleaned : null;
            }
        }
        return null;
    }

    /**
     * The base offset of the first segment a pass may not touch: the active one, the one holding the last stable
     * offset (at most the high watermark: records above it may still be truncated away, and a transaction not decided
     * yet may still be aborted), or the first dirty one younger than {@code min.compaction.lag.ms}.
     */
    private long cleanableEndOffset(PartitionLog partitionLog, List<LogSegment> segments, long firstDirty) {
        long lastStableOffset = partitionLog.lastStableOffset();
        long end = segments.get(0).baseOffset();
        for (LogSegment segment : segments) {
            if (segment.baseOffset() > lastStableOffset) {
                break;
            }
            end = segment.baseOffset();
        }
        long lagMs = partitionLog.config().minCompactionLagMs;
        if (lagMs > 0) {
            long now = time.milliseconds();
            for (LogSegment segment : segments) {
                if (segment.baseOffset() >= end) {
                    break;
                }
                if (segment.baseOffset() >= firstDirty && now - segment.maxTimestampSoFar() < lagMs) {
                    return segment.baseOffset();
                }
            }
        }
        return end;
    }

    /**
     * One pass over one log; see the class comment. A log whose {@code cleanup.policy} does not include compact is
     * left alone. Failures are logged, not thrown: an I/O error has already taken the log offline, and a log that
     * changed under the pass is cleaned by the next one.
     *
     * @return whether the pass was completed
     * @throws IllegalStateException if the cleaner is closed
     */
    public boolean clean(PartitionLog partitionLog) {
        ensureNotClosed();
        if (!partitionLog.config().compact()) {
            return false;
        }
        TopicPartition tp = partitionLog.topicPartition();
        aborted.remove(tp);
        // Taken before the snapshot: a truncation after it, even one that leaves every segment the same size, makes
        // the swap refuse this pass.
        long truncations = partitionLog.truncationCount();
        List<LogSegment> segments = partitionLog.segmentsSnapshot();
        Progress previous = validProgress(partitionLog, segments);
        long firstDirty = firstDirtyOffset(partitionLog, segments);
        long cleanableEnd = cleanableEndOffset(partitionLog, segments, firstDirty);
        boolean dirty = cleanableEnd > firstDirty;
        if (!dirty && (previous == null || previous.earliestDeleteHorizonMs() > time.milliseconds())) {
            return false;
        }
        // Everything the pass may read, with the sizes it reads: a swap is valid only while none of it has changed.
        Map<LogSegment, Integer> input = new IdentityHashMap<>();
        for (int i = 0; i < segments.size() - 1; i++) {
            if (segments.get(i).baseOffset() < Math.max(cleanableEnd, firstDirty)) {
                input.put(segments.get(i), segments.get(i).size());
            }
        }
        long started = time.milliseconds();
        Throttler throttler = new Throttler(config.ioMaxBytesPerSecond(), time, () -> isAborted(tp));
        try (BufferSupplier decompression = BufferSupplier.create()) {
            KeyMap keys = new KeyMap(config.dedupeBufferSize());
            AbortedRanges aborted = new AbortedRanges(partitionLog.abortedTransactions(
                    segments.get(0).baseOffset(), Math.max(cleanableEnd, firstDirty)));
            // With nothing dirty, the pass only drops the tombstones of the clean part whose horizon has passed.
            long mappedEnd = dirty
                    ? buildKeyMap(tp, segments, firstDirty, cleanableEnd, keys, aborted, throttler, decompression)
                    : firstDirty;
            long now = time.milliseconds();
            LogConfig logConfig = partitionLog.config();
            LogSegment anchor = segmentHolding(segments, mappedEnd);
            long earliestDeleteHorizon = Long.MAX_VALUE;
            long bytesBefore = 0;
            long bytesAfter = 0;
            for (List<LogSegment> group : groupSegments(segments, input, mappedEnd, logConfig)) {
                RetainLatest filter = new RetainLatest(keys, aborted, now, logConfig.deleteRetentionMs,
                        group.get(group.size() - 1).readNextOffset());
                LogSegment cleaned = cleanGroup(tp, partitionLog.dir(), group, input, filter, mappedEnd, logConfig,
                        throttler, decompression);
                earliestDeleteHorizon = Math.min(earliestDeleteHorizon, filter.earliestDeleteHorizonMs);
                boolean swapped = false;
                try {
                    swapped = partitionLog.replaceSegments(cleaned, group, input, truncations);
                } finally {
                    if (!swapped) {
                        cleaned.deleteIfExists();
                    }
                }
                if (!swapped) {
                    log.info("{} changed during cleaning; dropping this pass", tp);
                    return false;
                }
                for (LogSegment old : group) {
                    bytesBefore += input.remove(old);
                    if (old == anchor) {
                        anchor = cleaned;
                    }
                }
                input.put(cleaned, cleaned.size());
                bytesAfter += cleaned.size();
            }
            progress.put(tp, new Progress(mappedEnd, anchor, anchor.size(), earliestDeleteHorizon));
            log.info("Cleaned {} up to offset {}: {} -> {} bytes in {} ms", tp, mappedEnd, bytesBefore, bytesAfter,
                    time.milliseconds() - started);
            return true;
        } catch (CleaningAborted e) {
            log.info("Cleaning of {} stopped: {}", tp, e.getMessage());
        } catch (KafkaStorageException e) {
            log.warn("Cleaning {} stopped: {}", tp, e.getMessage());
        } catch (IOException | KafkaException e) {
            if (e instanceof ClosedChannelException || e.getCause() instanceof ClosedChannelException) {
                // Retention, DeleteRecords or truncation deleted a segment the pass was reading.
                log.info("{}: a segment was deleted during cleaning; dropping this pass", tp);
            } else if (StorageFault.isResourceExhausted(e)) {
                // A full disk or no file descriptor for the cleaned segment (deleted again): the next pass retries.
                log.warn("Cleaning {} stopped: {}", tp, e.getMessage());
            } else {
                log.error("Cleaning {} failed", tp, e);
            }
        }
        return false;
    }

    /**
     * Maps each key in [firstDirty, cleanableEnd) to its latest offset; stops at a batch boundary if the map fills.
     *
     * @return the end (exclusive) of the range the map covers
     */
    private long buildKeyMap(TopicPartition tp, List<LogSegment> segments, long firstDirty, long cleanableEnd,
                             KeyMap keys, AbortedRanges aborted, Throttler throttler, BufferSupplier decompression)
            throws CleaningAborted {
        for (int i = 0; i < segments.size() - 1; i++) {
            LogSegment segment = segments.get(i);
            if (segment.baseOffset() >= cleanableEnd) {
                break;
            }
            if (segments.get(i + 1).baseOffset() <= firstDirty) {
                continue;
            }
            for (FileChannelRecordBatch batch : segment.records().batches()) {
                if (batch.lastOffset() < firstDirty) {
                    continue;
                }
                if (keys.isFull()) {
                    return batch.baseOffset();
                }
                // An aborted record is no record of its key: mapping it would drop the committed value before it.
                if (!batch.isControlBatch() && !aborted.holds(batch)) {
                    try (CloseableIterator<Record> records = batch.streamingIterator(decompression,
                            MAX_RECORD_BODY_BYTES)) {
                        while (records.hasNext()) {
                            Record record = records.next();
                            if (record.hasKey()) {
                                keys.put(record.key(), record.offset());
                            }
                        }
                    }
                }
                throttler.maybeThrottle(batch.sizeInBytes());
                checkNotAborted(tp);
            }
        }
        return cleanableEnd;
    }

    private static LogSegment segmentHolding(List<LogSegment> segments, long offset) {
        LogSegment holder = segments.get(0);
        for (LogSegment segment : segments) {
            if (segment.baseOffset() > offset) {
                break;
            }
            holder = segment;
        }
        return holder;
    }

    /** Consecutive segments from the log start that begin below {@code end}, grouped so each group fits one segment. */
    private static List<List<LogSegment>> groupSegments(List<LogSegment> segments, Map<LogSegment, Integer> sizes,
                                                        long end, LogConfig logConfig) {
        List<List<LogSegment>> groups = new ArrayList<>();
        List<LogSegment> current = new ArrayList<>();
        long currentSize = 0;
        for (int i = 0; i < segments.size() - 1; i++) {
            LogSegment segment = segments.get(i);
            if (segment.baseOffset() >= end) {
                break;
            }
            int size = sizes.get(segment);
            long segmentEnd = segments.get(i + 1).baseOffset();
            boolean fits = currentSize + size <= logConfig.segmentBytes
                    && segmentEnd - (current.isEmpty() ? segment.baseOffset() : current.get(0).baseOffset())
                            <= Integer.MAX_VALUE;
            if (!current.isEmpty() && !fits) {
                groups.add(current);
                current = new ArrayList<>();
                currentSize = 0;
            }
            current.add(segment);
            currentSize += size;
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    /** Writes the cleaned copy of {@code group} as a {@code .cleaned} segment with the group's base offset. */
    private LogSegment cleanGroup(TopicPartition tp, Path dir, List<LogSegment> group, Map<LogSegment, Integer> sizes,
                                  RetainLatest filter, long mappedEnd, LogConfig logConfig, Throttler throttler,
                                  BufferSupplier decompression) throws IOException, CleaningAborted {
        long baseOffset = group.get(0).baseOffset();
        for (String suffix : new String[] {LogSegment.LOG_SUFFIX, LogSegment.INDEX_SUFFIX,
                LogSegment.TIME_INDEX_SUFFIX, LogSegment.TXN_INDEX_SUFFIX}) {
            Files.deleteIfExists(LogSegment.file(dir, baseOffset, suffix + LogSegment.CLEANED_SUFFIX));
        }
        LogSegment cleaned = LogSegment.open(dir, baseOffset, logConfig, false, LogSegment.CLEANED_SUFFIX);
        boolean complete = false;
        try {
            ByteBuffer readBuffer = ByteBuffer.allocate(config.readBufferSize());
            ByteBuffer writeBuffer = ByteBuffer.allocate(config.readBufferSize());
            for (LogSegment old : group) {
                int size = sizes.get(old);
                int position = 0;
                while (position < size) {
                    checkNotAborted(tp);
                    readBuffer.clear();
                    int wanted = Math.min(readBuffer.capacity(), size - position);
                    readBuffer.limit(wanted);
                    old.records().readInto(readBuffer, position);
                    if (readBuffer.remaining() < wanted) {
                        throw new CleaningAborted("segment " + old + " shrank during cleaning");
                    }
                    int mappedBytes = 0;
                    int unmappedBytes = 0;
                    long lastOffset = -1;
                    for (RecordBatch batch : MemoryRecords.readableRecords(readBuffer).batches()) {
                        if (batch.baseOffset() < mappedEnd) {
                            mappedBytes += batch.sizeInBytes();
                        } else {
                            unmappedBytes += batch.sizeInBytes();
                            lastOffset = batch.lastOffset();
                        }
                    }
                    if (mappedBytes + unmappedBytes == 0) {
                        // A batch larger than the buffer: grow to hold it, but not past the segment's end, which
                        // only a corrupt size field would ask for.
                        Integer batchSize = MemoryRecords.readableRecords(readBuffer).firstBatchSize();
                        if (batchSize == null || batchSize > size - position) {
                            throw new CorruptRecordException("batch at position " + position + " of " + old
                                    + " claims " + batchSize + " bytes, past the end of the segment (" + size + ")");
                        }
                        readBuffer = ByteBuffer.allocate(batchSize);
                        continue;
                    }
                    if (mappedBytes > 0) {
                        MemoryRecords chunk = MemoryRecords.readableRecords(readBuffer.duplicate().limit(mappedBytes)
                                .slice());
                        writeBuffer.clear();
                        MemoryRecords.FilterResult result = chunk.filterTo(filter, writeBuffer, decompression,
                                MAX_RECORD_BODY_BYTES);
                        ByteBuffer output = result.outputBuffer();
                        output.flip();
                        if (output.hasRemaining()) {
                            cleaned.append(result.maxOffset(), MemoryRecords.readableRecords(output));
                        }
                        if (output.capacity() > writeBuffer.capacity()) {
                            writeBuffer = output;
                        }
                        // filterTo returns early after a batch that outgrew the output buffer (a rewritten batch can
                        // be larger than the original: a new delete horizon changes every timestamp delta), so the
                        // next chunk starts after what it actually read.
                        position += result.bytesRead();
                        throttler.maybeThrottle(result.bytesRead() + (long) output.limit());
                    } else {
                        // Past the mapped range: no later record of these keys is known yet, so keep them as they are.
                        cleaned.append(lastOffset, MemoryRecords.readableRecords(readBuffer.duplicate()
                                .limit(unmappedBytes).slice()));
                        position += unmappedBytes;
                        throttler.maybeThrottle(2L * unmappedBytes);
                    }
                }
            }
            // Every marker is kept, so every aborted transaction of the group stays listed for read_committed readers
            // (its data is gone, which they skip anyway).
            for (LogSegment old : group) {
                for (AbortedTxn txn : old.txnIndex().entries()) {
                    cleaned.txnIndex().append(txn);
                }
            }
            cleaned.onBecomeInactive();
            cleaned.flush();
            complete = true;
            return cleaned;
        } finally {
            if (!complete) {
                cleaned.deleteIfExists();
            }
        }
    }

    private boolean isAborted(TopicPartition tp) {
        return state == State.CLOSED || aborted.contains(tp);
    }

    private void checkNotAborted(TopicPartition tp) throws CleaningAborted {
        if (isAborted(tp)) {
            throw new CleaningAborted(state == State.CLOSED ? "the cleaner is closing" : "aborted");
        }
    }

    private void ensureNotClosed() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("log cleaner is closed");
        }
    }

    /** A pass stopped by {@link #abort} or {@link #close}, or by a change to the log it cannot work around. */
    private static final class CleaningAborted extends Exception {
        CleaningAborted(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * Keeps a record if it is the latest of its key and, for a tombstone, its delete horizon has not passed; drops the
     * records of aborted transactions; keeps transaction markers as they are. Keeps the batch that ends the group even
     * if it is emptied.
     */
    private static final class RetainLatest extends MemoryRecords.RecordFilter {
        private final KeyMap keys;
        private final AbortedRanges aborted;
        private final long groupEnd;
        /** The earliest delete horizon among the tombstones kept, stamped now or before. */
        long earliestDeleteHorizonMs = Long.MAX_VALUE;
        /** Whether the batch being filtered belongs to an aborted transaction; set per batch, before its records. */
        private boolean batchAborted;

        RetainLatest(KeyMap keys, AbortedRanges aborted, long now, long deleteRetentionMs, long groupEnd) {
            super(now, deleteRetentionMs);
            this.keys = keys;
            this.aborted = aborted;
            this.groupEnd = groupEnd;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            // Markers are never removed (docs/storage-format.md): a marker gone while its transaction's data or its
            // transaction-index entry remains would leave readers and the producer-state replay with a transaction
            // that never ends.
            batchAborted = !batch.isControlBatch() && aborted.holds(batch);
            boolean keep = batch.isControlBatch() || batch.nextOffset() >= groupEnd;
            return new BatchRetentionResult(keep ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY, false);
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            if (batch.isControlBatch()) {
                return true; // a marker's key is its type, not a key of the topic's
            }
            if (batchAborted || !record.hasKey()) {
                return false;
            }
            Long latest = keys.get(record.key());
            if (latest != null && record.offset() < latest) {
                return false;
            }
            if (!record.hasValue()) {
                // A tombstone survives until the horizon stamped on its batch at the first pass has gone by.
                long horizon = batch.deleteHorizonMs().orElse(currentTime + deleteRetentionMs);
                if (batch.deleteHorizonMs().isPresent() && currentTime >= horizon) {
                    return false;
                }
                earliestDeleteHorizonMs = Math.min(earliestDeleteHorizonMs, horizon);
            }
            return true;
        }
    }

    /**
     * The aborted transactions of the part of a log a pass reads, by producer: a transactional batch of producer P at
     * offset o is aborted data if an aborted transaction of P spans o (from its first offset to its ABORT marker). A
     * producer has one transaction at a time on a partition, so the spans of one producer do not overlap.
     */
    private static final class AbortedRanges {
        private final Map<Long, List<AbortedTxn>> byProducer = new HashMap<>();

        AbortedRanges(List<AbortedTxn> aborted) {
            for (AbortedTxn txn : aborted) {
                byProducer.computeIfAbsent(txn.producerId(), id -> new ArrayList<>()).add(txn);
            }
        }

        boolean holds(RecordBatch batch) {
            if (!batch.isTransactional()) {
                return false;
            }
            List<AbortedTxn> spans = byProducer.get(batch.producerId());
            if (spans == null) {
                return false;
            }
            for (AbortedTxn txn : spans) {
                if (batch.baseOffset() >= txn.firstOffset() && batch.baseOffset() < txn.lastOffset()) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Key bytes to latest offset, bounded by an estimate of its heap use. */
    private static final class KeyMap {
        private final long capacityBytes;
        private final Map<ByteBuffer, Long> offsets = new HashMap<>();
        private long usedBytes;

        KeyMap(long capacityBytes) {
            this.capacityBytes = capacityBytes;
        }

        void put(ByteBuffer key, long offset) {
            ByteBuffer copy = ByteBuffer.allocate(key.remaining());
            copy.put(key.duplicate()).flip();
            if (offsets.put(copy, offset) == null) {
                usedBytes += copy.capacity() + MAP_ENTRY_OVERHEAD;
            }
        }

        Long get(ByteBuffer key) {
            return offsets.get(key);
        }

        boolean isFull() {
            return usedBytes >= capacityBytes;
        }
    }

    /**
     * Stops the background thread, and any pass under way at its next chunk of I/O or throttle slice; idempotent.
     * The thread is not interrupted: an interrupt during file I/O would close the channel of a live segment it is
     * reading (see {@link Throttler}).
     */
    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            state = State.CLOSED;
            notifyAll();
            running = thread;
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                log.warn("The log cleaner thread has not stopped after 10 s; it stops at its next chunk of I/O");
            }
        }
    }
}
