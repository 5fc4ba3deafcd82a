package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns every partition log of a broker across its {@code log.dirs}: loads them at start-up, creates and deletes
 * them, runs retention, flush, checkpoint and compaction schedules, and takes a log directory offline after a disk
 * failure without touching the others.
 *
 * <p>I/O errors are judged by {@link StorageFault}. A disk failure takes the directory offline for the rest of the
 * run: its logs leave the manager, the partitions they held are <em>lost</em> ({@link #lostPartitions()}: no log is
 * created for them elsewhere, since this broker no longer has their data), and the listeners hear of it (the broker
 * gives up those replicas). A resource that comes back (file descriptors, disk space) never takes a running directory
 * offline: a checkpoint that cannot be written is written at the next interval, a log suspended by one is reloaded
 * every second until it succeeds ({@link PartitionLog#reloadIfSuspended}). At start-up, before anything is served
 * from it, a directory that cannot be loaded is offline whatever the error, as before.
 *
 * <p>Files in each log directory besides the partition directories: {@code .lock} (held while the broker runs, so
 * two brokers cannot share a directory), {@code .tributary_cleanshutdown} (written after every log was flushed and
 * closed; its absence at start-up means the logs must be recovered), {@code recovery-point-offset-checkpoint} and
 * {@code log-start-offset-checkpoint} ({@link CheckpointFile}s of {@code "topic partition offset"} lines). A
 * partition directory renamed to {@code <topic>-<partition>.<millis>-delete} is being deleted.
 *
 * <p>Lifecycle: {@link #startup()} once, then {@link #close()} (clean: flush, checkpoints, markers) or
 * {@link #closeWithoutCleanShutdown()} (hard stop, as a crash). Log directories are loaded concurrently, each on its
 * own pool of {@code num.recovery.threads.per.data.dir} threads ({@link LogDirLoader}), and a directory's logs are
 * served all or none. The directory locks are {@link LogDirLocks}'s, the offset checkpoints
 * {@link LogDirCheckpoints}'s.
 *
 * <p>Threads: any thread may look up, create or delete logs (a concurrent map; creation and deletion are
 * serialised by {@link #lock}); the scheduled tasks run on the manager's scheduler thread, compaction on the
 * {@link LogCleaner}'s.
 */
public final class LogManager implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    static final String CLEAN_SHUTDOWN_FILE = ".tributary_cleanshutdown";
    static final String LOCK_FILE = ".lock";
    static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
    static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";
    static final String DELETE_DIR_SUFFIX = "-delete";
    /** Kafka's {@code producer.id.expiration.check.interval.ms} default. */
    private static final long PRODUCER_EXPIRATION_CHECK_MS = 600_000L;
    /**
     * How often suspended logs try to reload. A second: a log is unavailable while it waits, and a failed attempt
     * costs one directory listing and a few opens.
     */
    private static final long RELOAD_INTERVAL_MS = 1_000L;

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

    static {
        StorageFault.preload();
    }

    private final Config config;
    private final Time time;
    private final ScheduledThreadPoolExecutor scheduler;
    private final LogEnvironment env;
    private final Object lock = new Object();
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final Set<Path> offlineDirs = ConcurrentHashMap.newKeySet();
    /** The partitions whose logs were in each offline directory, as far as known. */
    private final Map<Path, Set<TopicPartition>> lostPartitions = new ConcurrentHashMap<>();
    /** The directories this manager locked at start-up (online or not). */
    private final LogDirLocks dirLocks = new LogDirLocks();
    private final LogDirCheckpoints checkpoints;
    private final LogDirLoader loader;
    private final List<BiConsumer<Path, Set<TopicPartition>>> offlineListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final LogCleaner cleaner;
    private volatile State state = State.CREATED;

    public LogManager(Config config, Time time) {
        this(config, time, nanos -> { });
    }

    /** A log manager whose logs report the duration of every flush to {@code flushTimes} (nanoseconds). */
    public LogManager(Config config, Time time, java.util.function.LongConsumer flushTimes) {
        this.config = config;
        this.time = time;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-log-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        // Delayed segment deletions (file.delete.delay.ms, a minute by default) must not hold up close(): their files
        // keep the .deleted suffix and the next start-up removes them.
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.env = new LogEnvironment(time, scheduler, this::markOffline, config.producerIdExpirationMs(),
                flushTimes);
        this.cleaner = new LogCleaner(config.cleaner(), this::cleanableLogs, time);
        // Only directories this manager loaded: an empty checkpoint over another manager's (or a failed start-up's)
        // would lose log start offsets.
        this.checkpoints = new LogDirCheckpoints(config.logDirs(),
                dir -> !offlineDirs.contains(dir) && dirLocks.holds(dir), logs.values(), this::markOffline);
        this.loader = new LogDirLoader(config.recoveryThreadsPerDir(), env, time);
    }

    /** {@link #startup(Function)} with every log on the default log configuration. */
    public void startup() throws IOException {
        startup(topic -> config.defaultLogConfig());
    }

    /**
     * Locks every log directory, loads all of them at once ({@code num.recovery.threads.per.data.dir} threads each),
     * then starts the schedules. A directory that fails with an I/O error is offline from the start; its logs are
     * closed again and none of them is served.
     *
     * @param topicConfigs the configuration of each topic's logs (broker defaults plus the topic's overrides), as
     *                     the broker knows it before it loads anything: a compacted topic loaded with the default
     *                     {@code cleanup.policy=delete} would lose segments to the first retention run
     * @throws IOException if a directory is in use by another log manager (another broker, or another instance in
     *                     this process), or if every directory is offline; nothing stays locked or open then
     */
    public void startup(Function<String, LogConfig> topicConfigs) throws IOException {
        if (state != State.CREATED) {
            throw new IllegalStateException("log manager is " + state + "; it can be started once");
        }
        Map<Path, IOException> failures = new LinkedHashMap<>();
        for (Path dir : config.logDirs()) {
            try {
                dirLocks.lock(dir);
            } catch (LogDirLocks.LogDirInUseException e) {
                abandonStartup();
                throw e;
            } catch (IOException e) {
                failures.put(dir, e);
            }
        }
        List<LogDirLoader.DirLoad> loads = new ArrayList<>();
        for (Path dir : config.logDirs()) {
            if (dirLocks.holds(dir)) {
                try {
                    loads.add(loader.start(dir, topicConfigs));
                } catch (IOException e) {
                    failures.put(dir, e);
                }
            }
        }
        for (LogDirLoader.DirLoad load : loads) {
            try {
                finishLoading(load);
            } catch (IOException e) {
                failures.put(load.dir(), e);
            }
        }
        for (Map.Entry<Path, IOException> failure : failures.entrySet()) {
            log.error("Log directory {} is offline: {}{}", failure.getKey(), failure.getValue().getMessage(),
                    StorageFault.isResourceExhausted(failure.getValue())
                            ? " (free space or raise the open file limit, then restart the broker)" : "",
                    failure.getValue());
            offlineDirs.add(failure.getKey());
            lostPartitions.computeIfAbsent(failure.getKey(), dir -> ConcurrentHashMap.newKeySet())
                    .addAll(partitionsNamedIn(failure.getKey()));
        }
        if (offlineDirs.containsAll(config.logDirs())) {
            abandonStartup();
            IOException e = new IOException("every log directory is offline: " + failures.entrySet().stream()
                    .map(failure -> failure.getKey() + " (" + failure.getValue().getMessage() + ")").toList());
            failures.values().forEach(e::addSuppressed);
            throw e;
        }
        scheduler.scheduleWithFixedDelay(this::runRetention, config.retentionCheckIntervalMs(),
                config.retentionCheckIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::flushDueLogs, config.flushCheckIntervalMs(),
                config.flushCheckIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::checkpointAll, config.checkpointIntervalMs(),
                config.checkpointIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::removeExpiredProducers, PRODUCER_EXPIRATION_CHECK_MS,
                PRODUCER_EXPIRATION_CHECK_MS, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::reloadSuspendedLogs, RELOAD_INTERVAL_MS, RELOAD_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
        cleaner.start();
        state = State.RUNNING;
    }

    /**
     * The partitions a directory that failed at start-up holds, as far as its listing can still be read: they are
     * lost for this run. A directory that cannot even be listed names none; its partitions' logs may then be created
     * afresh in another directory and filled from their leaders.
     */
    private static Set<TopicPartition> partitionsNamedIn(Path dir) {
        Set<TopicPartition> named = new java.util.HashSet<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                PartitionDirName.parse(child.getFileName().toString()).ifPresent(named::add);
            }
        } catch (IOException | RuntimeException e) {
            log.error("Cannot list the offline log directory {} ({}): its partitions are not known to be lost", dir,
                    e.toString());
        }
        return Set.copyOf(named);
    }

    /** A failed start-up: every log loaded is closed without writing anything, every lock released. */
    private void abandonStartup() {
        state = State.CLOSED;
        scheduler.shutdownNow();
        for (PartitionLog partitionLog : logs.values()) {
            partitionLog.closeHandlers();
        }
        logs.clear();
        dirLocks.releaseAll();
    }

    /**
     * Waits for a directory's logs and publishes them all, or, if one fails to load or is already loaded from
     * another directory, closes them all and throws.
     */
    private void finishLoading(LogDirLoader.DirLoad load) throws IOException {
        LogDirLoader.Loaded result = loader.await(load);
        List<PartitionLog> loaded = result.logs();
        IOException failure = result.failure();
        synchronized (lock) {
            if (failure == null) {
                for (PartitionLog partitionLog : loaded) {
                    PartitionLog other = logs.get(partitionLog.topicPartition());
                    if (other != null) {
                        failure = new IOException("partition " + partitionLog.topicPartition() + " has logs in both "
                                + other.dir() + " and " + partitionLog.dir());
                        break;
                    }
                }
            }
            if (failure != null) {
                for (PartitionLog partitionLog : loaded) {
                    partitionLog.closeHandlers();
                }
                throw failure;
            }
            for (PartitionLog partitionLog : loaded) {
                logs.put(partitionLog.topicPartition(), partitionLog);
            }
        }
        // From here on a crash must trigger recovery again.
        Files.deleteIfExists(load.dir().resolve(CLEAN_SHUTDOWN_FILE));
        load.progress().done(loaded.size());
    }

    /** The log of a partition, if this broker has it in an online directory. */
    public Optional<PartitionLog> getLog(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    /**
     * The log of a partition, created with {@code logConfig} in the online directory with the fewest partitions if
     * it does not exist yet.
     *
     * @throws KafkaStorageException      if the partition's log was in a directory that is offline now (its data is
     *                                    lost to this broker, so no empty log replaces it), or a disk failure
     * @throws StorageResourceException if the log cannot be created for want of file descriptors or space; retry
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
            for (Map.Entry<Path, Set<TopicPartition>> lost : lostPartitions.entrySet()) {
                if (lost.getValue().contains(tp)) {
                    throw new KafkaStorageException("the log of " + tp + " is in " + lost.getKey()
                            + ", which is offline");
                }
            }
            Path dir = leastLoadedDir();
            try {
                PartitionLog created = PartitionLog.open(dir.resolve(PartitionDirName.of(tp)), tp, logConfig,
                        new LoadState(0L, 0L, true), env);
                logs.put(tp, created);
                log.info("Created log for {} in {}", tp, dir);
                return created;
            } catch (IOException e) {
                if (StorageFault.isResourceExhausted(e)) {
                    // The replica manager logs it, and tries again.
                    log.debug("Cannot create the log of {} in {} yet: {}", tp, dir, e.getMessage());
                    throw new StorageResourceException("cannot create the log of " + tp + " in " + dir + " yet: "
                            + e.getMessage(), e);
                }
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
        ensureRunning();
        synchronized (lock) {
            for (Set<TopicPartition> lost : lostPartitions.values()) {
                // A deleted topic's partition is not lost any more: a topic created again with its name gets a log.
                lost.remove(tp);
            }
            PartitionLog removed = logs.remove(tp);
            if (removed == null) {
                return;
            }
            cleaner.abort(tp);
            // Nothing is flushed or snapshotted: the files go, and on a full disk that is how space comes back.
            removed.closeForDeletion();
            Path renamed = removed.dir().resolveSibling(removed.dir().getFileName() + "."
                    + time.milliseconds() + DELETE_DIR_SUFFIX);
            try {
                Files.move(removed.dir(), renamed);
            } catch (IOException e) {
                if (!StorageFault.isResourceExhausted(e)) {
                    // Left in place, the directory would bring the deleted log back at the next start.
                    markOffline(removed.dir().getParent(), e);
                    throw new KafkaStorageException("cannot delete the log of " + tp + " in " + removed.dir(), e);
                }
                // A rename can need a directory block on a full disk; deleting needs none. At once, under the lock:
                // a log created again under the same name must not lose its files to a deletion still under way.
                log.warn("Cannot rename {} for deletion ({}); deleting it in place", removed.dir(), e.getMessage());
                try {
                    deleteRecursively(removed.dir());
                } catch (IOException deleteFailure) {
                    markOffline(removed.dir().getParent(), deleteFailure);
                    throw new KafkaStorageException("cannot delete the log of " + tp + " in " + removed.dir(),
                            deleteFailure);
                }
                log.info("Deleted log for {}", tp);
                return;
            }
            Path doomed = renamed;
            scheduler.execute(() -> {
                try {
                    deleteRecursively(doomed);
                } catch (IOException e) {
                    log.warn("Could not delete {}", doomed, e);
                }
            });
            log.info("Deleted log for {}", tp);
        }
    }

    /** Every log in an online directory. */
    public Collection<PartitionLog> allLogs() {
        return List.copyOf(logs.values());
    }

    public Set<Path> offlineDirs() {
        return Set.copyOf(offlineDirs);
    }

    /** Whether every log directory is offline: nothing can be served. */
    public boolean allDirsOffline() {
        return offlineDirs.containsAll(config.logDirs());
    }

    /**
     * The partitions whose logs are in offline directories (those of directories that failed at start-up as far as
     * their listing could be read): this broker has lost their data for the rest of its run.
     */
    public Set<TopicPartition> lostPartitions() {
        Set<TopicPartition> all = new java.util.HashSet<>();
        lostPartitions.values().forEach(all::addAll);
        return Set.copyOf(all);
    }

    /**
     * Runs {@code listener} with the directory and the partitions it held each time a directory goes offline (the
     * broker gives those replicas up), on the thread that met the failure, after the directory's logs were closed.
     * That thread may hold the lock of the log that failed (and its partition's): a listener hands the work over to
     * a thread of its own.
     */
    public void addOfflineDirListener(BiConsumer<Path, Set<TopicPartition>> listener) {
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

    /** The reload task: every suspended log tries to load itself from disk again. */
    private void reloadSuspendedLogs() {
        for (PartitionLog partitionLog : logs.values()) {
            if (partitionLog.isSuspended()) {
                try {
                    partitionLog.reloadIfSuspended();
                } catch (RuntimeException e) {
                    log.error("Reloading {} failed", partitionLog.topicPartition(), e);
                }
            }
        }
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

    /** Writes the recovery-point, log-start-offset and high-watermark checkpoints of every online directory. */
    public void checkpointAll() {
        checkpoints.write(true);
    }

    /**
     * Writes the high-watermark checkpoint ({@code replication-offset-checkpoint}) of every online directory, on its
     * own schedule ({@code replica.high.watermark.checkpoint.interval.ms}): a restarted replica starts from it.
     */
    public void checkpointHighWatermarks() {
        checkpoints.write(false);
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

    /**
     * Takes {@code dir} offline after a disk failure: its logs leave the manager and their partitions are lost, the
     * other directories carry on. A resource error (which {@link PartitionLog} and this class handle themselves)
     * never gets here.
     */
    void markOffline(Path dir, IOException cause) {
        // No lock of the manager's: the caller holds the lock of the log that failed, and deleteLog() takes the
        // manager's lock before a log's. The first caller for a directory does the work; later ones return at once.
        if (!offlineDirs.add(dir)) {
            return;
        }
        log.error("Log directory {} is now offline after an I/O error: {}", dir, cause.getMessage(), cause);
        Set<TopicPartition> lost = lostPartitions.computeIfAbsent(dir, key -> ConcurrentHashMap.newKeySet());
        for (PartitionLog partitionLog : List.copyOf(logs.values())) {
            if (partitionLog.dir().getParent().equals(dir)) {
                lost.add(partitionLog.topicPartition());
                logs.remove(partitionLog.topicPartition());
                cleaner.abort(partitionLog.topicPartition());
                partitionLog.closeHandlers();
            }
        }
        log.error("Partitions lost with {}: {}{}", dir, lost.stream().map(TopicPartition::toString).sorted().toList(),
                allDirsOffline() ? "; every log directory is offline" : "");
        for (BiConsumer<Path, Set<TopicPartition>> listener : offlineListeners) {
            try {
                listener.accept(dir, Set.copyOf(lost));
            } catch (RuntimeException e) {
                log.error("A listener of offline log directories failed on {}", dir, e);
            }
        }
    }

    /**
     * Stops the schedules, flushes and closes every log, writes checkpoints and the clean-shutdown markers, releases
     * the directory locks; idempotent. Segment files waiting for {@code file.delete.delay.ms} are not waited for:
     * they keep their {@code .deleted} name and the next start-up deletes them.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
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
        Set<Path> unclean = new java.util.HashSet<>();
        for (PartitionLog partitionLog : logs.values()) {
            try {
                partitionLog.close();
            } catch (StorageResourceException e) {
                // Flushed and closed, but not all of it cleanly (no snapshot, untrimmed indexes, or suspended):
                // the next start-up recovers the directory instead of trusting it.
                log.warn("Closing {} was incomplete: {}", partitionLog.topicPartition(), e.getMessage());
                unclean.add(partitionLog.dir().getParent());
            } catch (KafkaStorageException e) {
                log.error("Closing {} failed", partitionLog.topicPartition(), e);
            }
        }
        checkpointAll();
        for (Path dir : dirLocks.dirs()) {
            if (!offlineDirs.contains(dir) && !unclean.contains(dir)) {
                try {
                    Files.writeString(dir.resolve(CLEAN_SHUTDOWN_FILE), "");
                } catch (IOException e) {
                    log.error("Could not mark {} as cleanly shut down", dir, e);
                }
            }
        }
        dirLocks.releaseAll();
        logs.clear();
    }

    /**
     * Stops at once, as after a fatal error: schedules stopped, file handles and directory locks released, but
     * nothing flushed and no checkpoint or clean-shutdown marker written, so that the next start-up recovers every log
     * from its last checkpointed recovery point, as after a crash. The broker uses it for a hard stop, when writing
     * more could make things worse (its disks report errors, or it must leave the cluster without delay); idempotent.
     */
    public void closeWithoutCleanShutdown() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        cleaner.close();
        scheduler.shutdownNow();
        for (PartitionLog partitionLog : logs.values()) {
            partitionLog.closeHandlers();
        }
        dirLocks.releaseAll();
        logs.clear();
    }

    private void ensureRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("log manager is " + state);
        }
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
