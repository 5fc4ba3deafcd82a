package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction ({@code cleanup.policy=compact}): keeps, in the part of a log before the active segment, only the latest
 * record of each key, with offsets unchanged, and drops tombstones (records with a null value) once
 * {@code delete.retention.ms} has passed since the cleaner first saw them.
 *
 * <p>One pass over a log: (1) the cleanable range runs from the first uncleaned ("dirty") offset to the base offset
 * of the active segment, stopping earlier at a segment younger than {@code min.compaction.lag.ms}; (2) a map from
 * key to its latest offset is built over that range, exactly (full key bytes, no hashing, so no collision can ever
 * drop a live record), bounded by {@code log.cleaner.dedupe.buffer.size}: if the map fills, only the range it covers
 * is cleaned this pass; (3) the segments from the log start up to the end of that range are rewritten in groups that
 * fit {@code segment.bytes}, each into a {@code .cleaned} segment that replaces the group through a crash-safe
 * {@code .swap} rename ({@link PartitionLog#replaceSegments}). A tombstone's first pass stamps the batch's delete
 * horizon (record batch v2 field) with now + {@code delete.retention.ms}; a later pass after that time drops it.
 *
 * <p>Threads: one background thread, {@code tributary-log-cleaner}; it holds a log's lock only for the final swap, and
 * its reads and writes are throttled to {@code log.cleaner.io.max.bytes.per.second} so it cannot starve appends.
 * {@link #cleanOnce()} runs one pass on the caller's thread (tests, tools).
 */
public final class LogCleaner implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    private static final int DECOMPRESSION_CHUNK_BYTES = 16 * 1024;
    /** Approximate heap cost of one key-map entry beyond the key bytes (HashMap node, ByteBuffer, Long). */
    private static final int MAP_ENTRY_OVERHEAD = 96;

    /** Broker-level settings, Kafka's {@code log.cleaner.*} names and defaults. */
    public record Config(boolean enabled, double ioMaxBytesPerSecond, long backoffMs, long dedupeBufferSize,
                         int readBufferSize) {
        public static Config defaults() {
            return new Config(true, Double.MAX_VALUE, 15_000L, 128L * 1024 * 1024, 1024 * 1024);
        }
    }

    private final Config config;
    private final Supplier<List<PartitionLog>> logs;
    private final Time time;
    /** First uncleaned offset per log; in memory only: after a restart the first pass re-reads the clean part. */
    private final Map<TopicPartition, Long> firstDirtyOffsets = new ConcurrentHashMap<>();
    private final Set<TopicPartition> aborted = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    private Thread thread;

    LogCleaner(Config config, Supplier<List<PartitionLog>> logs, Time time) {
        this.config = config;
        this.logs = logs;
        this.time = time;
    }

    void start() {
        if (!config.enabled()) {
            return;
        }
        running = true;
        thread = new Thread(this::runLoop, "tributary-log-cleaner");
        thread.setDaemon(true);
        thread.start();
    }

    private void runLoop() {
        while (running) {
            boolean cleaned = false;
            try {
                cleaned = cleanOnce();
            } catch (RuntimeException e) {
                log.error("Log cleaner pass failed", e);
            }
            if (!cleaned) {
                synchronized (this) {
                    try {
                        wait(config.backoffMs());
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
        firstDirtyOffsets.remove(tp);
    }

    /**
     * Cleans the compacted log with the highest dirty ratio at or above its {@code min.cleanable.dirty.ratio}.
     *
     * @return whether a log was cleaned
     */
    public boolean cleanOnce() {
        PartitionLog best = null;
        double bestRatio = -1;
        for (PartitionLog candidate : logs.get()) {
            double ratio = dirtyRatio(candidate);
            if (ratio >= candidate.config().minCleanableDirtyRatio && ratio > bestRatio && ratio > 0) {
                best = candidate;
                bestRatio = ratio;
            }
        }
        if (best == null) {
            return false;
        }
        clean(best);
        return true;
    }

    private double dirtyRatio(PartitionLog partitionLog) {
        long firstDirty = firstDirtyOffset(partitionLog);
        long cleanable = cleanableEndOffset(partitionLog, firstDirty);
        long cleanBytes = 0;
        long dirtyBytes = 0;
        for (LogSegment segment : partitionLog.segmentsSnapshot()) {
            if (segment.baseOffset() >= cleanable) {
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

    private long firstDirtyOffset(PartitionLog partitionLog) {
        long stored = firstDirtyOffsets.getOrDefault(partitionLog.topicPartition(), 0L);
        return Math.max(stored, partitionLog.logStartOffset());
    }

    /** The base offset of the first segment that may not be cleaned: the active one, or one too young. */
    private long cleanableEndOffset(PartitionLog partitionLog, long firstDirty) {
        List<LogSegment> segments = partitionLog.segmentsSnapshot();
        long end = segments.get(segments.size() - 1).baseOffset();
        long lagMs = partitionLog.config().minCompactionLagMs;
        if (lagMs > 0) {
            long now = time.milliseconds();
            for (LogSegment segment : segments) {
                if (segment.baseOffset() >= firstDirty && now - segment.maxTimestampSoFar() < lagMs) {
                    return Math.min(end, segment.baseOffset());
                }
            }
        }
        return end;
    }

    /** One pass over one log; see the class comment. Public for tests and tools. */
    public void clean(PartitionLog partitionLog) {
        TopicPartition tp = partitionLog.topicPartition();
        aborted.remove(tp);
        long firstDirty = firstDirtyOffset(partitionLog);
        long cleanableEnd = cleanableEndOffset(partitionLog, firstDirty);
        if (cleanableEnd <= firstDirty) {
            return;
        }
        Throttler throttler = new Throttler(config.ioMaxBytesPerSecond(), time);
        long started = time.milliseconds();
        try {
            KeyMap keys = new KeyMap(config.dedupeBufferSize());
            long mappedEnd = buildKeyMap(partitionLog, firstDirty, cleanableEnd, keys, throttler);
            long now = time.milliseconds();
            LogConfig logConfig = partitionLog.config();
            long bytesBefore = 0;
            long bytesAfter = 0;
            for (List<LogSegment> group : groupSegments(partitionLog, mappedEnd, logConfig)) {
                if (aborted.contains(tp)) {
                    log.info("Cleaning of {} aborted", tp);
                    return;
                }
                LogSegment cleaned = cleanGroup(partitionLog, group, keys, now, logConfig, throttler);
                for (LogSegment old : group) {
                    bytesBefore += old.size();
                }
                bytesAfter += cleaned.size();
                try {
                    partitionLog.replaceSegments(cleaned, group);
                } catch (IllegalStateException changed) {
                    log.info("{} changed during cleaning ({}); dropping this pass", tp, changed.getMessage());
                    cleaned.deleteIfExists();
                    return;
                }
            }
            firstDirtyOffsets.put(tp, mappedEnd);
            log.info("Cleaned {} up to offset {}: {} -> {} bytes in {} ms", tp, mappedEnd, bytesBefore, bytesAfter,
                    time.milliseconds() - started);
        } catch (IOException e) {
            log.error("Cleaning {} failed", tp, e);
        } catch (KafkaStorageException e) {
            log.warn("Cleaning {} stopped: {}", tp, e.getMessage());
        }
    }

    /**
     * Maps each key in [firstDirty, cleanableEnd) to its latest offset; stops at a batch boundary if the map fills.
     *
     * @return the end (exclusive) of the range the map covers
     */
    private long buildKeyMap(PartitionLog partitionLog, long firstDirty, long cleanableEnd, KeyMap keys,
                             Throttler throttler) {
        long mappedEnd = firstDirty;
        for (LogSegment segment : partitionLog.segmentsSnapshot()) {
            if (segment.baseOffset() >= cleanableEnd) {
                break;
            }
            for (FileChannelRecordBatch batch : segment.records().batches()) {
                if (batch.lastOffset() < firstDirty) {
                    continue;
                }
                if (keys.isFull()) {
                    return mappedEnd;
                }
                if (!batch.isControlBatch()) {
                    try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING,
                            DECOMPRESSION_CHUNK_BYTES)) {
                        while (records.hasNext()) {
                            Record record = records.next();
                            if (record.hasKey()) {
                                keys.put(record.key(), record.offset());
                            }
                        }
                    }
                }
                mappedEnd = batch.nextOffset();
                throttler.maybeThrottle(batch.sizeInBytes());
            }
        }
        return Math.min(mappedEnd, cleanableEnd);
    }

    /** Consecutive segments from the log start below {@code end}, grouped so each group fits one segment. */
    private static List<List<LogSegment>> groupSegments(PartitionLog partitionLog, long end, LogConfig logConfig) {
        List<LogSegment> segments = partitionLog.segmentsSnapshot();
        List<List<LogSegment>> groups = new ArrayList<>();
        List<LogSegment> current = new ArrayList<>();
        long currentSize = 0;
        for (int i = 0; i < segments.size() - 1; i++) {
            LogSegment segment = segments.get(i);
            long segmentEnd = segments.get(i + 1).baseOffset();
            if (segmentEnd > end) {
                break;
            }
            boolean fits = !current.isEmpty() && currentSize + segment.size() <= logConfig.segmentBytes
                    && segmentEnd - current.get(0).baseOffset() <= Integer.MAX_VALUE;
            if (!current.isEmpty() && !fits) {
                groups.add(current);
                current = new ArrayList<>();
                currentSize = 0;
            }
            current.add(segment);
            currentSize += segment.size();
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    private LogSegment cleanGroup(PartitionLog partitionLog, List<LogSegment> group, KeyMap keys, long now,
                                  LogConfig logConfig, Throttler throttler) throws IOException {
        long baseOffset = group.get(0).baseOffset();
        java.nio.file.Path dir = partitionLog.dir();
        for (String suffix : new String[] {LogSegment.LOG_SUFFIX, LogSegment.INDEX_SUFFIX,
                LogSegment.TIME_INDEX_SUFFIX}) {
            Files.deleteIfExists(LogSegment.file(dir, baseOffset, suffix + LogSegment.CLEANED_SUFFIX));
        }
        LogSegment cleaned = LogSegment.open(dir, baseOffset, logConfig, false, LogSegment.CLEANED_SUFFIX);
        try {
            RetainLatest filter = new RetainLatest(keys, now, logConfig.deleteRetentionMs);
            ByteBuffer readBuffer = ByteBuffer.allocate(config.readBufferSize());
            ByteBuffer writeBuffer = ByteBuffer.allocate(config.readBufferSize());
            for (LogSegment old : group) {
                int position = 0;
                while (position < old.size()) {
                    readBuffer.clear();
                    old.records().readInto(readBuffer, position);
                    MemoryRecords chunk = MemoryRecords.readableRecords(readBuffer);
                    int chunkBytes = 0;
                    for (RecordBatch batch : chunk.batches()) {
                        chunkBytes += batch.sizeInBytes();
                    }
                    if (chunkBytes == 0) {
                        // A batch larger than the buffer: grow to hold it (bounded by max.message.bytes in practice).
                        int needed = readBuffer.capacity() * 2;
                        readBuffer = ByteBuffer.allocate(needed);
                        writeBuffer = ByteBuffer.allocate(needed);
                        continue;
                    }
                    writeBuffer.clear();
                    MemoryRecords.FilterResult result = chunk.filterTo(filter, writeBuffer, BufferSupplier.NO_CACHING,
                            DECOMPRESSION_CHUNK_BYTES);
                    // filterTo may have grown the output buffer for an uncompressible batch.
                    ByteBuffer output = result.outputBuffer();
                    output.flip();
                    if (output.hasRemaining()) {
                        cleaned.append(result.maxOffset(), MemoryRecords.readableRecords(output));
                    }
                    if (output != writeBuffer && output.capacity() > writeBuffer.capacity()) {
                        writeBuffer = ByteBuffer.allocate(output.capacity());
                    }
                    position += chunkBytes;
                    throttler.maybeThrottle(chunkBytes + (long) output.limit());
                }
            }
            cleaned.onBecomeInactive();
            cleaned.flush();
            return cleaned;
        } catch (IOException | RuntimeException e) {
            cleaned.deleteIfExists();
            throw e;
        }
    }

    /** Keeps a record if it is the latest of its key and, for a tombstone, its delete horizon has not passed. */
    private static final class RetainLatest extends MemoryRecords.RecordFilter {
        private final KeyMap keys;

        RetainLatest(KeyMap keys, long now, long deleteRetentionMs) {
            super(now, deleteRetentionMs);
            this.keys = keys;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            // Control batches (transaction markers) are kept as they are; Tributary writes none yet.
            return new BatchRetentionResult(batch.isControlBatch() ? BatchRetention.RETAIN_EMPTY
                    : BatchRetention.DELETE_EMPTY, false);
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            if (!record.hasKey()) {
                return false;
            }
            Long latest = keys.get(record.key());
            if (latest != null && record.offset() < latest) {
                return false;
            }
            if (!record.hasValue()) {
                // A tombstone survives until the horizon stamped on its batch at the first pass has gone by.
                return batch.deleteHorizonMs().isEmpty() || currentTime < batch.deleteHorizonMs().getAsLong();
            }
            return true;
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

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            synchronized (this) {
                notifyAll();
            }
            thread.interrupt();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
