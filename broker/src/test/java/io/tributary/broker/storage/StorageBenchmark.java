package io.tributary.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;

/**
 * Measures a {@link PartitionLog}'s append and read throughput against the raw sequential {@link FileChannel}
 * throughput of the same disk, in the same run, so that the ratio says how much of the physical limit the log
 * reaches. A program, not a test: {@code broker/bin/storage-benchmark} runs it; {@code mvn verify} never does.
 *
 * <p>Workload: 1 KiB record values, 16 records per batch (16,589 bytes with the v2 headers), no compression, no producer id (a non-idempotent
 * producer: the same prebuilt batches are appended again and again, which an idempotent producer's sequence check
 * would refuse). A pool of {@value #POOL_BATCHES} distinct batches with random values is built once; each append
 * wraps a {@link ByteBuffer#duplicate() duplicate} of one of them in a new {@link MemoryRecords}, which copies no
 * byte. The log rewrites the batch header (base offset, leader epoch) in place, and that header is rewritten on every
 * append, so reusing the bytes is correct. The harness cost of this is measured and printed ("harness feed").
 *
 * <p>First an untimed warm-up (about 330 MB through every path, no fsync) lets the JIT compile the paths. Then each
 * round runs three sides in rotated order (the machine is shared and noisy; rotating spreads drift over all
 * sides): raw, log with default {@link LogConfig} ({@code segment.bytes} 1 GiB) and log with a smaller
 * {@code segment.bytes} (256 MiB by default, to show rolls). A side writes then reads the same byte count:
 * <ul>
 *   <li>raw write: sequential {@link FileChannel#write} of direct buffers holding the same bytes as the batches, one
 *       buffer per batch so both sides make the same number of writes of the same size, then {@code force(true)};
 *   <li>log append: {@link PartitionLog#appendAsLeader} of every batch, then {@link PartitionLog#flush()};
 *   <li>raw read: sequential {@link FileChannel#read} into one 1 MiB direct buffer;
 *   <li>log read: {@link PartitionLog#read} of up to 1 MiB from offset 0 to the end, each returned
 *       {@link FileRecords} slice copied into one 1 MiB direct buffer, the next offset taken from its last whole batch.
 * </ul>
 * A read phase is the fastest of {@value #READ_PASSES} passes over the data.
 * The fsync is inside the timed interval on both sides. Before every timed phase the page cache is written back
 * ({@code sync}) so that no phase pays for an earlier one's dirty pages; with {@code --drop-caches} the page cache is
 * also emptied before each read pass, otherwise reads come from memory.
 *
 * <p>Then, unless {@code --no-breakdown}, the append path is taken apart without fsync (page cache only, so CPU cost
 * is not hidden behind the disk): CRC check, {@link BatchValidator}, {@link FileRecords#append},
 * {@link LogSegment#append} (adds the indexes) and {@link PartitionLog#appendAsLeader}, each against raw writes of
 * direct and of heap buffers.
 *
 * <p>Output: plain text tables on standard output; MB is 10^6 bytes. Everything runs on the calling thread. Every file
 * is created in a fresh directory (under {@code --dir} if given, else under {@code /tmp}) that is deleted at the end.
 */
public final class StorageBenchmark {

    private static final int RECORD_VALUE_BYTES = 1024;
    private static final int RECORDS_PER_BATCH = 16;
    /** 64 distinct batches, about 1 MiB: distinct bytes without a heap that grows with {@code --bytes}. */
    private static final int POOL_BATCHES = 64;
    private static final int READ_BYTES = 1024 * 1024;
    private static final int LEADER_EPOCH = 0;
    private static final TopicPartition TOPIC_PARTITION = new TopicPartition("bench", 0);
    private static final double MB = 1_000_000.0;
    /**
     * Untimed appends and reads before the first round: about 330 MB, enough for C2 to compile the append and read
     * paths (without it, in a 64 MiB trial, the first log side ran at 29% of raw and the next one, warmer, at 52%).
     */
    private static final long WARM_UP_BATCHES = 20_000;
    private static final int BREAKDOWN_RUNS = 5;
    private static final int READ_PASSES = 3;
    private static final String DEFAULT_SEGMENTS = "segment.bytes=1 GiB (default)";

    private final Options options;
    private final Path workDir;
    /** The batches, heap buffers as a produce request would hand them over; headers rewritten by every append. */
    private final ByteBuffer[] batches;
    /** The same bytes in direct buffers, for the raw writes. */
    private final ByteBuffer[] directBatches;
    private final int batchBytes;
    private final long batchCount;
    private final long totalBytes;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BYTES);

    private StorageBenchmark(Options options, Path workDir) {
        this.options = options;
        this.workDir = workDir;
        this.batches = buildBatches();
        this.batchBytes = batches[0].remaining();
        this.directBatches = new ByteBuffer[batches.length];
        for (int i = 0; i < batches.length; i++) {
            if (batches[i].remaining() != batchBytes) {
                throw new IllegalStateException("batches differ in size: " + batchBytes + " and " + batches[i].remaining());
            }
            directBatches[i] = ByteBuffer.allocateDirect(batchBytes).put(batches[i].duplicate()).flip();
        }
        this.batchCount = (options.bytes + batchBytes - 1) / batchBytes;
        this.totalBytes = batchCount * batchBytes;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (options == null) {
            return;
        }
        Files.createDirectories(options.parentDir);
        Path workDir = Files.createTempDirectory(options.parentDir, "tributary-storage-benchmark-");
        try {
            new StorageBenchmark(options, workDir).run(args);
        } finally {
            deleteRecursively(workDir);
        }
    }

    private void run(String[] args) throws IOException, InterruptedException {
        long usable = Files.getFileStore(workDir).getUsableSpace();
        // One side's files exist at a time (each side deletes its files), plus the indexes and some slack.
        if (usable < totalBytes + totalBytes / 4 + (256L << 20)) {
            throw new IllegalStateException("only " + usable / (1 << 20) + " MiB free in " + workDir + "; need about "
                    + (totalBytes + totalBytes / 4) / (1 << 20) + " MiB for --bytes " + options.bytes);
        }
        printHeader(args, usable);

        List<Side> sides = new ArrayList<>();
        sides.add(Side.raw());
        sides.add(Side.log(DEFAULT_SEGMENTS, LogConfig.defaults()));
        if (options.altSegmentBytes > 0) {
            sides.add(Side.log("segment.bytes=" + humanBytes(options.altSegmentBytes),
                    LogConfig.parse(Map.of(LogConfig.SEGMENT_BYTES, options.altSegmentBytes))));
        }

        warmUp();
        List<Map<String, Result>> rounds = new ArrayList<>();
        for (int round = 0; round < options.rounds; round++) {
            List<Side> order = new ArrayList<>(sides);
            Collections.rotate(order, -round);
            System.out.printf(Locale.ROOT, "%nRound %d of %d, order: %s%n", round + 1, options.rounds,
                    String.join(" -> ", order.stream().map(Side::name).toList()));
            Map<String, Result> results = new LinkedHashMap<>();
            for (Side side : order) {
                Path sideDir = workDir.resolve("round-" + (round + 1) + "-" + side.slug());
                Files.createDirectories(sideDir);
                try {
                    if (side.config == null) {
                        results.putAll(runRaw(sideDir));
                    } else {
                        results.putAll(runLog(sideDir, side));
                    }
                } finally {
                    deleteRecursively(sideDir);
                }
            }
            printRound(results);
            rounds.add(results);
        }
        printSummary(rounds);
        if (options.breakdown) {
            runBreakdown();
        }
        printJvm();
    }

    /** Which way a side writes: straight to a file ({@code config == null}) or through a partition log. */
    private record Side(String name, LogConfig config) {
        static Side raw() {
            return new Side("raw FileChannel", null);
        }

        static Side log(String what, LogConfig config) {
            return new Side("log " + what, config);
        }

        String slug() {
            return config == null ? "raw" : "log-" + config.segmentBytes;
        }

        String writePhase() {
            return config == null ? "raw write+fsync" : "log append+flush, " + name.substring("log ".length());
        }

        String readPhase() {
            return config == null ? "raw read" : "log read, " + name.substring("log ".length());
        }
    }

    private Map<String, Result> runRaw(Path dir) throws IOException, InterruptedException {
        Path file = dir.resolve("raw.data");
        Side side = Side.raw();
        Map<String, Result> results = new LinkedHashMap<>();
        results.put(side.writePhase(), rawWrite(side.writePhase(), file, directBatches, batchCount, true));
        results.put(side.readPhase(), fastestRead(() -> rawRead(side.readPhase(), file)));
        return results;
    }

    private Map<String, Result> runLog(Path dir, Side side) throws IOException, InterruptedException {
        Map<String, Result> results = new LinkedHashMap<>();
        try (PartitionLog log = openLog(dir, side.config)) {
            results.put(side.writePhase(), logAppend(side.writePhase(), log, batchCount, true));
            results.put(side.readPhase(), fastestRead(() -> logRead(side.readPhase(), log)));
        }
        return results;
    }

    /** One pass of a read phase. */
    @FunctionalInterface
    private interface ReadPass {
        Result run() throws IOException;
    }

    /**
     * Runs a read phase {@link #READ_PASSES} times and keeps the fastest pass: a pass from the page cache takes about
     * 0.2 s per GiB here, short enough for any other process on the 2 shared cores to halve one pass's figure (single
     * passes gave the log 56% of raw in one round and 119% in the next).
     */
    private Result fastestRead(ReadPass pass) throws IOException, InterruptedException {
        Result fastest = null;
        for (int i = 0; i < READ_PASSES; i++) {
            beforeRead();
            Result result = pass.run();
            if (fastest == null || result.nanos < fastest.nanos) {
                fastest = result;
            }
        }
        return fastest.withNote("fastest of " + READ_PASSES + " passes");
    }

    /**
     * The log runs as in the broker: with a scheduler, so that the fsync of a rolled segment happens in the background
     * (the final flush() still waits for every byte, inside the timed interval).
     */
    private static final java.util.concurrent.ScheduledExecutorService SCHEDULER =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "benchmark-log-scheduler");
                thread.setDaemon(true);
                return thread;
            });

    private static PartitionLog openLog(Path dir, LogConfig config) throws IOException {
        LogEnvironment env = new LogEnvironment(Time.SYSTEM, SCHEDULER, LogDirFailureHandler.IGNORE,
                LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS);
        return PartitionLog.open(dir.resolve(PartitionDirName.of(TOPIC_PARTITION)), TOPIC_PARTITION,
                config.withOverrides(java.util.Map.of(LogConfig.FILE_DELETE_DELAY_MS, 0L)),
                LoadState.UNKNOWN, env);
    }

    private Result rawWrite(String phase, Path file, ByteBuffer[] sources, long count, boolean fsync)
            throws IOException, InterruptedException {
        settle();
        Probe probe = Probe.start();
        long fsyncStart;
        long slowest = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long last = System.nanoTime();
            for (long i = 0; i < count; i++) {
                ByteBuffer buffer = sources[(int) (i % sources.length)].duplicate();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                long now = System.nanoTime();
                slowest = Math.max(slowest, now - last);
                last = now;
            }
            fsyncStart = System.nanoTime();
            if (fsync) {
                // FileRecords.flush() is force(true) too: data and metadata.
                channel.force(true);
            }
        }
        long size = Files.size(file);
        if (size != count * batchBytes) {
            throw new IllegalStateException(file + " has " + size + " bytes after writing " + count * batchBytes);
        }
        return probe.finish(phase, size, 0, fsyncStart).withNote(slowestCall("write", slowest));
    }

    private Result rawRead(String phase, Path file) throws IOException {
        long expected = Files.size(file);
        Probe probe = Probe.start();
        long read = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int n;
            do {
                readBuffer.clear();
                n = channel.read(readBuffer);
                if (n > 0) {
                    read += n;
                }
            } while (n >= 0);
        }
        if (read != expected) {
            throw new IllegalStateException("read " + read + " bytes of " + expected + " from " + file);
        }
        return probe.finish(phase, read, 0, -1);
    }

    /** Appends every batch; with {@code flush}, fsyncs at the end inside the timed interval. */
    private Result logAppend(String phase, PartitionLog log, long count, boolean flush)
            throws IOException, InterruptedException {
        settle();
        Probe probe = Probe.start();
        long slowest = 0;
        long last = System.nanoTime();
        for (long i = 0; i < count; i++) {
            log.appendAsLeader(MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate()),
                    LEADER_EPOCH);
            long now = System.nanoTime();
            slowest = Math.max(slowest, now - last);
            last = now;
        }
        long fsyncStart = System.nanoTime();
        if (flush) {
            log.flush();
        }
        Result result = probe.finish(phase, count * batchBytes, count * RECORDS_PER_BATCH, fsyncStart);
        if (log.logEndOffset() != count * RECORDS_PER_BATCH || log.size() != count * batchBytes) {
            throw new IllegalStateException("log ends at offset " + log.logEndOffset() + " with " + log.size()
                    + " bytes after appending " + count + " batches of " + batchBytes + " bytes");
        }
        int rolls = log.numberOfSegments() - 1;
        return result.withNote(slowestCall("append", slowest) + "; " + log.numberOfSegments() + " segment(s)"
                + (rolls > 0 ? ", " + rolls + " roll(s), rolled segments fsynced in the background" : ""));
    }

    /**
     * Reads the whole log as a consumer fetching 1 MiB at a time would, and moves every byte into memory. A slice
     * usually ends in part of a batch: the next read starts at that batch again, and those bytes are read twice but
     * counted once (the log pays for them).
     */
    private Result logRead(String phase, PartitionLog log) throws IOException {
        Probe probe = Probe.start();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        long bytes = 0;
        long records = 0;
        while (offset < end) {
            LogReadInfo info = log.read(offset, READ_BYTES, Long.MAX_VALUE, true);
            if (!(info.records() instanceof FileRecords slice)) {
                throw new IllegalStateException("read at offset " + offset + " returned " + info.records());
            }
            if (slice.sizeInBytes() > readBuffer.capacity()) {
                throw new IllegalStateException("read at offset " + offset + " returned " + slice.sizeInBytes()
                        + " bytes, more than the " + readBuffer.capacity() + " asked for");
            }
            readBuffer.clear().limit(slice.sizeInBytes());
            // readInto reads until the buffer is full: the limit keeps it inside the slice.
            slice.readInto(readBuffer, 0);
            long next = offset;
            for (MutableRecordBatch batch : MemoryRecords.readableRecords(readBuffer).batches()) {
                next = batch.nextOffset();
                bytes += batch.sizeInBytes();
                records += batch.nextOffset() - batch.baseOffset();
            }
            if (next == offset) {
                throw new IllegalStateException("read at offset " + offset + " returned no whole batch");
            }
            offset = next;
        }
        if (bytes != log.size() || records != end) {
            throw new IllegalStateException("read " + bytes + " bytes and " + records + " records; the log has "
                    + log.size() + " bytes and " + end + " records");
        }
        return probe.finish(phase, bytes, records, -1);
    }

    /** Runs every measured path untimed, without fsync, and deletes what it wrote. */
    private void warmUp() throws IOException, InterruptedException {
        Path dir = workDir.resolve("warm-up");
        Files.createDirectories(dir);
        try {
            Path file = dir.resolve("raw.data");
            rawWrite("warm-up", file, directBatches, WARM_UP_BATCHES, false);
            rawRead("warm-up", file);
            Files.delete(file);
            PartitionLog log = openLog(dir, LogConfig.defaults());
            try {
                logAppend("warm-up", log, WARM_UP_BATCHES, false);
                logRead("warm-up", log);
            } finally {
                log.delete();
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    /**
     * Each part of the append path over the same batches, page cache only, interleaved, {@link #BREAKDOWN_RUNS} (or
     * {@code --rounds}, if more) times; the fastest run per part. These loops are CPU-bound, and on a shared machine
     * noise only ever adds time, so the minimum is the estimate least disturbed by it (medians of 3 gave negative
     * differences between parts in trials). The file-writing parts run in an order rotated per run: run last every
     * time, PartitionLog.appendAsLeader once showed 5.6 µs per batch more than LogSegment.append, and rotated, none.
     * CPU-only parts (feed, CRC, validation) touch no file.
     */
    private void runBreakdown() throws IOException, InterruptedException {
        // No roll inside the measurement for --bytes below 2 GiB: a roll fsyncs the old segment.
        LogConfig noRoll = LogConfig.parse(Map.of(LogConfig.SEGMENT_BYTES, Integer.MAX_VALUE));
        Map<String, List<Result>> parts = new LinkedHashMap<>();
        int runs = Math.max(BREAKDOWN_RUNS, options.rounds);
        for (int round = 0; round < runs; round++) {
            Path dir = workDir.resolve("breakdown-" + (round + 1));
            Files.createDirectories(dir);
            try {
                add(parts, feed());
                add(parts, crcOnly());
                add(parts, validateOnly());
                List<Part> writers = new ArrayList<>(List.of(
                        () -> rawWriteAndDelete("raw write, direct buffers", dir.resolve("direct.data"), directBatches),
                        () -> rawWriteAndDelete("raw write, heap buffers", dir.resolve("heap.data"), batches),
                        () -> fileRecordsAppend(dir.resolve("file-records.data")),
                        () -> segmentAppend(dir.resolve("segment"), noRoll),
                        () -> logAppendAndDelete(dir.resolve("log"), noRoll)));
                // Rotated like the rounds: whichever part runs first or last in a run gets no lasting advantage.
                Collections.rotate(writers, -round);
                for (Part writer : writers) {
                    add(parts, writer.run());
                }
            } finally {
                deleteRecursively(dir);
            }
        }
        Map<String, Result> best = new LinkedHashMap<>();
        parts.forEach((name, results) -> best.put(name,
                results.stream().min(Comparator.comparingLong(Result::nanos)).orElseThrow()));

        System.out.printf(Locale.ROOT, "%nAppend path breakdown: page cache only (no fsync), fastest of %d runs, %s in "
                + "%,d batches of %,d B%n", runs, humanBytes(totalBytes), batchCount, batchBytes);
        System.out.printf(Locale.ROOT, "%-48s %9s %10s %12s  %s%n", "part", "MB/s", "ns/batch", "records/s", "GC");
        for (Result r : best.values()) {
            System.out.printf(Locale.ROOT, "%-48s %9.0f %10.0f %12s  %s%n", r.phase, r.mbPerSecond(),
                    r.nanos / (double) batchCount, r.records == 0 ? "-" : String.format(Locale.ROOT, "%,.0f",
                            r.recordsPerSecond()), r.gc);
        }
        double full = nsPerBatch(best, "PartitionLog.appendAsLeader");
        double validate = nsPerBatch(best, "BatchValidator.validateForLeader");
        double crc = nsPerBatch(best, "CRC32C only (RecordBatch.ensureValid)");
        double segment = nsPerBatch(best, "LogSegment.append (file + indexes)");
        double file = nsPerBatch(best, "FileRecords.append");
        double rawDirect = nsPerBatch(best, "raw write, direct buffers");
        double rawHeap = nsPerBatch(best, "raw write, heap buffers");
        double feed = nsPerBatch(best, "harness feed (duplicate + wrap)");
        System.out.printf(Locale.ROOT, "%nWhere appendAsLeader's %.0f ns per batch go (differences between the "
                + "rows above, so approximate):%n", full);
        share("write(2) of the bytes into the page cache (raw, direct)", rawDirect, full);
        share("heap -> direct copy the JDK makes for a heap buffer", rawHeap - rawDirect, full);
        share("FileRecords.append beyond the raw heap write", file - rawHeap, full);
        share("offset + time index (LogSegment.append - FileRecords.append)", segment - file, full);
        share("CRC32C check", crc, full);
        share("rest of BatchValidator (batch iteration, checks)", validate - crc, full);
        share("PartitionLog bookkeeping (lock, offsets, epoch, producer state)", full - segment - validate - feed,
                full);
        share("harness feed", feed, full);
        System.out.println("  (a negative row means that part costs less than the run-to-run noise of the rows it is "
                + "the difference of)");
    }

    /** One part of the breakdown. */
    @FunctionalInterface
    private interface Part {
        Result run() throws IOException, InterruptedException;
    }

    private Result rawWriteAndDelete(String phase, Path file, ByteBuffer[] sources)
            throws IOException, InterruptedException {
        try {
            return rawWrite(phase, file, sources, batchCount, false);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private Result logAppendAndDelete(Path dir, LogConfig config) throws IOException, InterruptedException {
        PartitionLog log = openLog(dir, config);
        try {
            return logAppend("PartitionLog.appendAsLeader", log, batchCount, false);
        } finally {
            // delete(), not close(): close() would fsync the gigabyte that this measurement left unflushed.
            log.delete();
        }
    }

    /** The longest single call of a write loop: a producer waits that long for its acknowledgement. */
    private static String slowestCall(String what, long nanos) {
        return String.format(Locale.ROOT, "slowest %s %.1f ms", what, nanos / 1e6);
    }

    private static void add(Map<String, List<Result>> parts, Result result) {
        parts.computeIfAbsent(result.phase, k -> new ArrayList<>()).add(result);
    }

    private double nsPerBatch(Map<String, Result> results, String phase) {
        return results.get(phase).nanos / (double) batchCount;
    }

    private static void share(String what, double ns, double total) {
        System.out.printf(Locale.ROOT, "  %-66s %8.0f ns  %5.1f%%%n", what, ns, 100.0 * ns / total);
    }

    private Result feed() {
        Probe probe = Probe.start();
        long sink = 0;
        for (long i = 0; i < batchCount; i++) {
            sink += MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate()).sizeInBytes();
        }
        return probe.finish("harness feed (duplicate + wrap)", sink, 0, -1);
    }

    private Result crcOnly() {
        Probe probe = Probe.start();
        for (long i = 0; i < batchCount; i++) {
            MemoryRecords records = MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate());
            records.batchIterator().next().ensureValid();
        }
        return probe.finish("CRC32C only (RecordBatch.ensureValid)", totalBytes, 0, -1);
    }

    private Result validateOnly() {
        LogConfig config = LogConfig.defaults();
        Probe probe = Probe.start();
        long records = 0;
        for (long i = 0; i < batchCount; i++) {
            MemoryRecords batch = MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate());
            records += BatchValidator.validateForLeader("bench-0", batch, config, System.currentTimeMillis())
                    .recordCount();
        }
        return probe.finish("BatchValidator.validateForLeader", totalBytes, records, -1);
    }

    private Result fileRecordsAppend(Path file) throws IOException, InterruptedException {
        settle();
        Probe probe = Probe.start();
        FileRecords records = FileRecords.open(file.toFile());
        try {
            for (long i = 0; i < batchCount; i++) {
                records.append(MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate()));
            }
            return probe.finish("FileRecords.append", totalBytes, batchCount * RECORDS_PER_BATCH, -1);
        } finally {
            // Not close(): it would fsync what this measurement left unflushed.
            records.deleteIfExists();
        }
    }

    /** LogSegment.append needs offsets assigned: they are set here as PartitionLog would, and timed with it. */
    private Result segmentAppend(Path dir, LogConfig config) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        settle();
        LogSegment segment = LogSegment.open(dir, 0, config, false, "");
        try {
            Probe probe = Probe.start();
            long next = 0;
            for (long i = 0; i < batchCount; i++) {
                MemoryRecords records = MemoryRecords.readableRecords(batches[(int) (i % batches.length)].duplicate());
                MutableRecordBatch batch = records.batchIterator().next();
                batch.setLastOffset(next + RECORDS_PER_BATCH - 1);
                batch.setPartitionLeaderEpoch(LEADER_EPOCH);
                next += RECORDS_PER_BATCH;
                segment.append(next - 1, records);
            }
            return probe.finish("LogSegment.append (file + indexes)", totalBytes, next, -1);
        } finally {
            // Not close(): it would fsync what this measurement left unflushed.
            segment.deleteIfExists();
        }
    }

    private static ByteBuffer[] buildBatches() {
        Random random = new Random(42);
        long timestamp = System.currentTimeMillis();
        ByteBuffer[] pool = new ByteBuffer[POOL_BATCHES];
        for (int b = 0; b < POOL_BATCHES; b++) {
            SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                byte[] value = new byte[RECORD_VALUE_BYTES];
                random.nextBytes(value);
                records[r] = new SimpleRecord(timestamp, null, value);
            }
            MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records);
            if (batch.batchIterator().next().producerId() != RecordBatch.NO_PRODUCER_ID) {
                throw new IllegalStateException("benchmark batches must not carry a producer id");
            }
            pool[b] = batch.buffer();
        }
        return pool;
    }

    /**
     * Writes back every dirty page of the machine (sync(1)) so that the next phase does not pay for an earlier
     * one's; the JDK offers fsync per file only.
     */
    private static void settle() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (sync.waitFor() != 0) {
            throw new IOException("sync exited with " + sync.exitValue());
        }
    }

    private void beforeRead() throws IOException, InterruptedException {
        settle();
        if (options.dropCaches) {
            // 3: page cache, dentries and inodes. Needs root; the data was fsynced, so nothing is lost.
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        }
    }

    private void printHeader(String[] args, long usable) {
        System.out.println("Tributary storage benchmark");
        String script = System.getenv("STORAGE_BENCHMARK_COMMAND");
        if (script != null) {
            System.out.println("command:      " + script);
        }
        System.out.println("JVM command:  " + System.getProperty("sun.java.command", "?"));
        System.out.println("program args: " + (args.length == 0 ? "(none)" : String.join(" ", args)));
        System.out.printf(Locale.ROOT, "directory:    %s (%,d MiB free)%n", workDir, usable >> 20);
        System.out.printf(Locale.ROOT, "load average: %.2f at the start (other processes share the CPUs and the disk)%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "workload:     %,d batches x %,d B = %,d B (%s); %d records of %d B values "
                        + "per batch, Compression.NONE, no producer id; pool of %d distinct batches%n",
                batchCount, batchBytes, totalBytes, humanBytes(totalBytes), RECORDS_PER_BATCH, RECORD_VALUE_BYTES,
                POOL_BATCHES);
        System.out.printf(Locale.ROOT, "raw baseline: FileChannel.write of %,d B direct buffers (one per batch, same "
                + "bytes), force(true) at the end; reads of %,d B into a direct buffer, fastest of %d passes%n",
                batchBytes, READ_BYTES, READ_PASSES);
        System.out.println("timing:       writes include the final fsync; sync(1) before every timed phase; MB = 10^6 B");
        System.out.println("page cache:   " + (options.dropCaches
                ? "dropped before every read pass (--drop-caches): reads come from the disk"
                : "NOT dropped: reads come from the page cache (the file was just written) and measure the read "
                        + "path's CPU cost, not the disk; use --drop-caches to read from the disk"));
    }

    private void printRound(Map<String, Result> results) {
        System.out.printf(Locale.ROOT, "%-48s %8s %8s %9s %8s %12s  %-22s %s%n", "phase", "seconds", "fsync s",
                "MB/s", "vs raw", "records/s", "GC during", "note");
        Result rawWrite = results.get(Side.raw().writePhase());
        Result rawRead = results.get(Side.raw().readPhase());
        for (Result r : results.values()) {
            Result raw = r.phase.contains("read") ? rawRead : rawWrite;
            System.out.printf(Locale.ROOT, "%-48s %8.3f %8s %9.1f %7.1f%% %12s  %-22s %s%n", r.phase, r.seconds(),
                    r.fsyncNanos < 0 ? "-" : String.format(Locale.ROOT, "%.3f", r.fsyncNanos / 1e9),
                    r.mbPerSecond(), 100 * r.mbPerSecond() / raw.mbPerSecond(),
                    r.records == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", r.recordsPerSecond()), r.gc,
                    r.note == null ? "" : r.note);
        }
    }

    private void printSummary(List<Map<String, Result>> rounds) {
        System.out.printf(Locale.ROOT, "%nSummary: median over %d round(s); ratio = median of the per-round ratios "
                + "to the raw phase of the same round%n", rounds.size());
        System.out.printf(Locale.ROOT, "%-48s %9s %9s %9s  %s%n", "phase", "MB/s", "vs raw", "records/s",
                "per-round ratios");
        String rawWrite = Side.raw().writePhase();
        String rawRead = Side.raw().readPhase();
        double appendRatio = Double.NaN;
        for (String phase : rounds.get(0).keySet().stream().sorted(Comparator.comparing(
                (String p) -> !p.startsWith("raw")).thenComparing(p -> p.contains("read"))).toList()) {
            String raw = phase.contains("read") ? rawRead : rawWrite;
            double[] mbs = rounds.stream().mapToDouble(r -> r.get(phase).mbPerSecond()).toArray();
            double[] recs = rounds.stream().mapToDouble(r -> r.get(phase).recordsPerSecond()).toArray();
            double[] ratios = rounds.stream()
                    .mapToDouble(r -> r.get(phase).mbPerSecond() / r.get(raw).mbPerSecond()).toArray();
            System.out.printf(Locale.ROOT, "%-48s %9.1f %8.1f%% %9s  %s%n", phase, median(mbs), 100 * median(ratios),
                    phase.startsWith("raw") ? "-" : String.format(Locale.ROOT, "%,.0f", median(recs)),
                    String.join(" ", Arrays.stream(ratios)
                            .mapToObj(x -> String.format(Locale.ROOT, "%.1f%%", 100 * x)).toList()));
            if (phase.equals(Side.log(DEFAULT_SEGMENTS, LogConfig.defaults()).writePhase())) {
                appendRatio = median(ratios);
            }
        }
        System.out.printf(Locale.ROOT, "%nGoal: log append >= 80%% of raw write (default config): median ratio %.1f%% "
                + "-> %s%n", 100 * appendRatio, appendRatio >= 0.8 ? "MET" : "NOT MET");
    }

    private void printJvm() {
        Runtime runtime = Runtime.getRuntime();
        System.out.printf(Locale.ROOT, "%nLoad average at the end: %.2f%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "JVM: %s %s; GC: %s; heap used %,d MiB of max %,d MiB; "
                        + "%d CPUs visible; JVM options: %s%n",
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName).toList()),
                (runtime.totalMemory() - runtime.freeMemory()) >> 20, runtime.maxMemory() >> 20,
                runtime.availableProcessors(),
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    }

    /** The clock and GC counters at the start of a phase. */
    private record Probe(long startNanos, long gcCount, long gcMillis) {
        static Probe start() {
            long[] gc = gcTotals();
            return new Probe(System.nanoTime(), gc[0], gc[1]);
        }

        /** @param fsyncStartNanos when the final fsync started, or -1 if the phase has none */
        Result finish(String phase, long bytes, long records, long fsyncStartNanos) {
            long end = System.nanoTime();
            long[] gc = gcTotals();
            Runtime runtime = Runtime.getRuntime();
            String gcText = String.format(Locale.ROOT, "%d GCs %d ms, heap %d MiB", gc[0] - gcCount,
                    gc[1] - gcMillis, (runtime.totalMemory() - runtime.freeMemory()) >> 20);
            return new Result(phase, bytes, records, end - startNanos,
                    fsyncStartNanos < 0 ? -1 : end - fsyncStartNanos, gcText, null);
        }

        private static long[] gcTotals() {
            long count = 0;
            long millis = 0;
            for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
                count += Math.max(0, bean.getCollectionCount());
                millis += Math.max(0, bean.getCollectionTime());
            }
            return new long[] {count, millis};
        }
    }

    /** One measured phase; {@code fsyncNanos} is -1 where the phase has no fsync, {@code records} 0 for raw I/O. */
    private record Result(String phase, long bytes, long records, long nanos, long fsyncNanos, String gc,
                          String note) {
        double seconds() {
            return nanos / 1e9;
        }

        double mbPerSecond() {
            return bytes / MB / seconds();
        }

        double recordsPerSecond() {
            return records / seconds();
        }

        Result withNote(String text) {
            return new Result(phase, bytes, records, nanos, fsyncNanos, gc, text);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String humanBytes(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The parsed command line; see {@link #USAGE}. */
    private record Options(long bytes, Path parentDir, int rounds, int altSegmentBytes, boolean dropCaches,
                           boolean breakdown) {

        static final String USAGE = String.join("\n",
                "usage: storage-benchmark [--bytes SIZE] [--dir DIR] [--rounds N] [--alt-segment-bytes SIZE]",
                "                         [--drop-caches] [--no-breakdown]",
                "  --bytes SIZE              bytes to append and read per phase (default 1g; k, m, g suffixes; "
                        + "at least 16m)",
                "  --dir DIR                 a fresh directory is made in DIR and deleted at the end (default /tmp)",
                "  --rounds N                rounds of raw / log / log with --alt-segment-bytes (default 3)",
                "  --alt-segment-bytes SIZE  segment.bytes of the second log side, to show rolls (default 256m; "
                        + "0: no such side)",
                "  --drop-caches             empty the page cache before each read pass (root; Linux)",
                "  --no-breakdown            skip the page-cache breakdown of the append path");

        /** @return null after printing the usage for --help */
        static Options parse(String[] args) {
            long bytes = 1L << 30;
            Path dir = Path.of("/tmp");
            int rounds = 3;
            long altSegmentBytes = 256L << 20;
            boolean dropCaches = false;
            boolean breakdown = true;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--bytes" -> bytes = parseSize(value(args, ++i));
                    case "--dir" -> dir = Path.of(value(args, ++i));
                    case "--rounds" -> rounds = Integer.parseInt(value(args, ++i));
                    case "--alt-segment-bytes" -> altSegmentBytes = parseSize(value(args, ++i));
                    case "--drop-caches" -> dropCaches = true;
                    case "--no-breakdown" -> breakdown = false;
                    case "--help", "-h" -> {
                        System.out.println(USAGE);
                        return null;
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'\n" + USAGE);
                }
            }
            if (bytes < (16L << 20)) {
                throw new IllegalArgumentException("--bytes must be at least 16m, got " + bytes);
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
            }
            if (altSegmentBytes < 0 || altSegmentBytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("--alt-segment-bytes must be 0..2147483647, got " + altSegmentBytes);
            }
            return new Options(bytes, dir, rounds, (int) altSegmentBytes, dropCaches, breakdown);
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value\n" + USAGE);
            }
            return args[i];
        }

        static long parseSize(String text) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            long unit = 1;
            char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
            switch (last) {
                case 'k' -> unit = 1L << 10;
                case 'm' -> unit = 1L << 20;
                case 'g' -> unit = 1L << 30;
                default -> {
                }
            }
            String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
            try {
                return Math.multiplyExact(Long.parseLong(digits), unit);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 1g, 256m, 1073741824)", e);
            }
        }
    }
}
