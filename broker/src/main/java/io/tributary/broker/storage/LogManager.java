package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns every partition log of a broker across its {@code log.dirs}: loads them at start-up, creates and deletes
 * them, runs retention, flush, checkpoint and compaction schedules, and takes a log directory offline after an I/O
 * error without touching the others.
 *
 * <p>Files in each log directory besides the partition directories: {@code .lock} (held while the broker runs, so
 * two brokers cannot share a directory), {@code .tributary_cleanshutdown} (written after every log was flushed and
 * closed; its absence at start-up means the logs must be recovered), {@code recovery-point-offset-checkpoint} and
 * {@code log-start-offset-checkpoint} ({@link CheckpointFile}s of {@code "topic partition offset"} lines). A
 * partition directory renamed to {@code <topic>-<partition>.<millis>-delete} is being deleted.
 *
 * <p>Threads: any thread may look up, create or delete logs (a concurrent map; creation and deletion are
 * serialised by {@link #lock}); the scheduled tasks run on the manager's scheduler thread.
 */
public final class LogManager implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    static final String CLEAN_SHUTDOWN_FILE = ".tributary_cleanshutdown";
    static final String LOCK_FILE = ".lock";
    static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
    static final String DELETE_DIR_SUFFIX = "-delete";
    /** Kafka's {@code producer.id.expiration.check.interval.ms} default. */
    private static final long PRODUCER_EXPIRATION_CHECK_MS = 600_000L;

    /** Broker-level settings of the log manager, with Kafka's names and defaults in {@link #defaults}. */
    public record Config(List<Path> logDirs,
                         LogConfig defaultLogConfig,
                         long retentionCheckIntervalMs,        // log.retention.check.interval.ms
                         long flushCheckIntervalMs,            // log.flush.scheduler.interval.ms
                         long checkpointIntervalMs,            // log.flush.offset.checkpoint.interval.ms
                         int recoveryThreadsPerDir,            // num.recovery.threads.per.data.dir
                         long producerIdExpirationMs,          // producer.id.expiration.ms
                         LogCleaner.Config cleaner) {

        public static Config defaults(List<Path> logDirs) {
            return new Config(logDirs, LogConfig.defaults(), 300_000L, 1_000L, 60_000L, 2,
                    LogEnvironment.DEFAULT_PRODUCER_ID_EXPIRATION_MS, LogCleaner.Config.defaults());
        }
    }

    private enum State { CREATED, RUNNING, CLOSED }

    private final Config config;
    private final Time time;
    private final ScheduledThreadPoolExecutor scheduler;
    private final LogEnvironment env;
    private final Object lock = new Object();
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final Set<Path> offlineDirs = ConcurrentHashMap.newKeySet();
    private final Map<Path, FileChannel> dirLocks = new HashMap<>();
    private final List<Consumer<Path>> offlineListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final LogCleaner cleaner;
    private volatile State state = State.CREATED;

    public LogManager(Config config, Time time) {
        this.config = config;
        this.time = time;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-log-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.env = new LogEnvironment(time, scheduler, this::markOffline, config.producerIdExpirationMs());
        this.cleaner = new LogCleaner(config.cleaner(), this::cleanableLogs, time);
    }

    /** Locks and loads every log directory, then starts the schedules. */
    public void startup() throws IOException {
        if (state != State.CREATED) {
            throw new IllegalStateException("log manager already started");
        }
        for (Path dir : config.logDirs()) {
            try {
                openDir(dir);
            } catch (IOException e) {
                log.error("Log directory {} is offline: {}", dir, e.getMessage(), e);
                offlineDirs.add(dir);
            }
        }
        if (offlineDirs.containsAll(config.logDirs())) {
            throw new IOException("every log directory is offline: " + config.logDirs());
        }
        scheduler.scheduleWithFixedDelay(this::runRetention, config.retentionCheckIntervalMs(),
                config.retentionCheckIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::flushDueLogs, config.flushCheckIntervalMs(),
                config.flushCheckIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::checkpointAll, config.checkpointIntervalMs(),
                config.checkpointIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::removeExpiredProducers, PRODUCER_EXPIRATION_CHECK_MS,
                PRODUCER_EXPIRATION_CHECK_MS, TimeUnit.MILLISECONDS);
        cleaner.start();
        state = State.RUNNING;
    }

    private void openDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock fileLock = lockChannel.tryLock();
        if (fileLock == null) {
            lockChannel.close();
            throw new IOException("log directory " + dir + " is locked by another process");
        }
        dirLocks.put(dir, lockChannel);
        Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        Map<TopicPartition, Long> recoveryPoints = offsetCheckpoint(dir, RECOVERY_POINT_CHECKPOINT).readMap();
        Map<TopicPartition, Long> startOffsets = offsetCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT).readMap();
        List<Path> partitionDirs = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path child : children) {
                String name = child.getFileName().toString();
                if (name.endsWith(DELETE_DIR_SUFFIX)) {
                    deleteRecursively(child);
                } else if (PartitionLog.parseDirName(name).isPresent()) {
                    partitionDirs.add(child);
                } else {
                    log.warn("Ignoring {}: not a partition log directory", child);
                }
            }
        }
        loadLogs(dir, partitionDirs, clean, recoveryPoints, startOffsets);
        // From here on a crash must trigger recovery again.
        Files.deleteIfExists(marker);
    }

    private void loadLogs(Path dir, List<Path> partitionDirs, boolean clean, Map<TopicPartition, Long> recoveryPoints,
                          Map<TopicPartition, Long> startOffsets) throws IOException {
        long started = time.milliseconds();
        log.info("Loading {} partition logs from {} ({} shutdown)", partitionDirs.size(), dir,
                clean ? "clean" : "unclean");
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, config.recoveryThreadsPerDir()), runnable -> {
            Thread thread = new Thread(runnable, "tributary-log-loader-" + dir.getFileName());
            thread.setDaemon(true);
            return thread;
        });
        AtomicInteger loaded = new AtomicInteger();
        long[] lastReport = {started};
        try {
            List<Future<PartitionLog>> futures = new ArrayList<>();
            for (Path partitionDir : partitionDirs) {
                TopicPartition tp = PartitionLog.parseDirName(partitionDir.getFileName().toString()).orElseThrow();
                PartitionLog.LoadState loadState = new PartitionLog.LoadState(
                        startOffsets.getOrDefault(tp, 0L), recoveryPoints.getOrDefault(tp, 0L), clean);
                futures.add(pool.submit(() -> {
                    PartitionLog partitionLog = PartitionLog.open(partitionDir, tp, config.defaultLogConfig(),
                            loadState, env);
                    int done = loaded.incrementAndGet();
                    reportProgress(dir, done, partitionDirs.size(), lastReport);
                    return partitionLog;
                }));
            }
            for (Future<PartitionLog> future : futures) {
                PartitionLog partitionLog = future.get();
                PartitionLog previous = logs.putIfAbsent(partitionLog.topicPartition(), partitionLog);
                if (previous != null) {
                    throw new IOException("partition " + partitionLog.topicPartition() + " has logs in both "
                            + previous.dir() + " and " + partitionLog.dir());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while loading " + dir, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io : new IOException("loading " + dir + " failed", cause);
        } finally {
            pool.shutdownNow();
        }
        log.info("Loaded {} partition logs from {} in {} ms", partitionDirs.size(), dir,
                time.milliseconds() - started);
    }

    private void reportProgress(Path dir, int done, int total, long[] lastReport) {
        long now = time.milliseconds();
        synchronized (lastReport) {
            // A report every 10 s (and at the end) tells an operator that a long recovery is moving.
            if (now - lastReport[0] >= 10_000 || done == total) {
                lastReport[0] = now;
                log.info("Log loading in {}: {}/{} partitions ({}%)", dir, done, total, done * 100 / total);
            }
        }
    }

    /** The log of a partition, if this broker has it in an online directory. */
    public Optional<PartitionLog> getLog(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    /**
     * The log of a partition, created with {@code logConfig} in the online directory with the fewest partitions if
     * it does not exist yet.
     */
    public PartitionLog getOrCreateLog(TopicPartition tp, LogConfig logConfig) {
        ensureRunning();
        PartitionLog existing = logs.get(tp);
        if (existing != null) {
            return existing;
        }
        synchronized (lock) {
            existing = logs.get(tp);
            if (existing != null) {
                return existing;
            }
            Path dir = leastLoadedDir();
            try {
                PartitionLog created = PartitionLog.open(dir.resolve(PartitionLog.dirName(tp)), tp, logConfig,
                        new PartitionLog.LoadState(0L, 0L, true), env);
                logs.put(tp, created);
                log.info("Created log for {} in {}", tp, dir);
                return created;
            } catch (IOException e) {
                markOffline(dir, e);
                throw new KafkaStorageException("cannot create the log of " + tp + " in " + dir, e);
            }
        }
    }

    private Path leastLoadedDir() {
        Map<Path, Integer> counts = new LinkedHashMap<>();
        for (Path dir : config.logDirs()) {
            if (!offlineDirs.contains(dir)) {
                counts.put(dir, 0);
            }
        }
        if (counts.isEmpty()) {
            throw new KafkaStorageException("no log directory is online: " + config.logDirs());
        }
        for (PartitionLog partitionLog : logs.values()) {
            counts.computeIfPresent(partitionLog.dir().getParent(), (dir, count) -> count + 1);
        }
        return counts.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /**
     * Deletes a partition's log: it disappears from the manager at once, its directory is renamed
     * {@code <name>.<millis>-delete} and removed in the background.
     */
    public void deleteLog(TopicPartition tp) {
        synchronized (lock) {
            PartitionLog removed = logs.remove(tp);
            if (removed == null) {
                return;
            }
            cleaner.abort(tp);
            try {
                removed.close();
                Path renamed = removed.dir().resolveSibling(removed.dir().getFileName() + "."
                        + time.milliseconds() + DELETE_DIR_SUFFIX);
                Files.move(removed.dir(), renamed);
                scheduler.execute(() -> {
                    try {
                        deleteRecursively(renamed);
                    } catch (IOException e) {
                        log.warn("Could not delete {}", renamed, e);
                    }
                });
                log.info("Deleted log for {}", tp);
            } catch (IOException | KafkaStorageException e) {
                log.error("Deleting the log of {} failed", tp, e);
            }
        }
    }

    /** Every log in an online directory. */
    public Collection<PartitionLog> allLogs() {
        return List.copyOf(logs.values());
    }

    public Set<Path> offlineDirs() {
        return Set.copyOf(offlineDirs);
    }

    /** Runs {@code listener} with the directory each time one goes offline (the broker reports it to the cluster). */
    public void addOfflineDirListener(Consumer<Path> listener) {
        offlineListeners.add(listener);
    }

    /** One retention pass over every log (the scheduled task; callable directly). */
    public int runRetention() {
        int deleted = 0;
        for (PartitionLog partitionLog : logs.values()) {
            try {
                deleted += partitionLog.deleteOldSegments();
            } catch (KafkaStorageException e) {
                log.warn("Retention of {} failed: {}", partitionLog.topicPartition(), e.getMessage());
            }
        }
        return deleted;
    }

    private void removeExpiredProducers() {
        for (PartitionLog partitionLog : logs.values()) {
            try {
                partitionLog.removeExpiredProducers();
            } catch (RuntimeException e) {
                log.warn("Producer expiry of {} failed: {}", partitionLog.topicPartition(), e.getMessage());
            }
        }
    }

    private void flushDueLogs() {
        for (PartitionLog partitionLog : logs.values()) {
            try {
                partitionLog.flushIfDue();
            } catch (KafkaStorageException e) {
                log.warn("Flush of {} failed: {}", partitionLog.topicPartition(), e.getMessage());
            }
        }
    }

    /** Writes the recovery-point and log-start-offset checkpoints of every online directory. */
    public void checkpointAll() {
        for (Path dir : config.logDirs()) {
            if (offlineDirs.contains(dir)) {
                continue;
            }
            Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
            Map<TopicPartition, Long> startOffsets = new HashMap<>();
            for (PartitionLog partitionLog : logs.values()) {
                if (partitionLog.dir().getParent().equals(dir)) {
                    recoveryPoints.put(partitionLog.topicPartition(), partitionLog.recoveryPoint());
                    startOffsets.put(partitionLog.topicPartition(), partitionLog.logStartOffset());
                }
            }
            try {
                offsetCheckpoint(dir, RECOVERY_POINT_CHECKPOINT).writeMap(recoveryPoints);
                offsetCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT).writeMap(startOffsets);
            } catch (IOException e) {
                markOffline(dir, e);
            }
        }
    }

    /** The logs the cleaner may compact: those with {@code cleanup.policy} compact in online directories. */
    private List<PartitionLog> cleanableLogs() {
        List<PartitionLog> result = new ArrayList<>();
        for (PartitionLog partitionLog : logs.values()) {
            if (partitionLog.config().compact()) {
                result.add(partitionLog);
            }
        }
        return result;
    }

    public LogCleaner cleaner() {
        return cleaner;
    }

    /** Takes {@code dir} offline after an I/O error: its logs leave the manager, the other directories carry on. */
    void markOffline(Path dir, IOException cause) {
        if (!offlineDirs.add(dir)) {
            return;
        }
        log.error("Log directory {} is now offline after an I/O error: {}", dir, cause.getMessage());
        for (PartitionLog partitionLog : List.copyOf(logs.values())) {
            if (partitionLog.dir().getParent().equals(dir)) {
                logs.remove(partitionLog.topicPartition());
                cleaner.abort(partitionLog.topicPartition());
                partitionLog.closeHandlers();
            }
        }
        for (Consumer<Path> listener : offlineListeners) {
            listener.accept(dir);
        }
    }

    /** Stops the schedules, flushes and closes every log, writes checkpoints and the clean-shutdown markers. */
    @Override
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        cleaner.close();
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            scheduler.shutdownNow();
        }
        for (PartitionLog partitionLog : logs.values()) {
            try {
                partitionLog.close();
            } catch (KafkaStorageException e) {
                log.error("Closing {} failed", partitionLog.topicPartition(), e);
            }
        }
        checkpointAll();
        for (Path dir : config.logDirs()) {
            if (!offlineDirs.contains(dir) && dirLocks.containsKey(dir)) {
                try {
                    Files.writeString(dir.resolve(CLEAN_SHUTDOWN_FILE), "");
                } catch (IOException e) {
                    log.error("Could not mark {} as cleanly shut down", dir, e);
                }
            }
        }
        for (FileChannel channel : dirLocks.values()) {
            try {
                channel.close();
            } catch (IOException e) {
                log.warn("Could not release a log directory lock", e);
            }
        }
        logs.clear();
    }

    private void ensureRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("log manager is " + state);
        }
    }

    private static OffsetCheckpoint offsetCheckpoint(Path dir, String name) {
        return new OffsetCheckpoint(dir.resolve(name));
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
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
