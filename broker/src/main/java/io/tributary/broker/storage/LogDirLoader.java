package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the partition logs of one log directory at start-up: reads its clean-shutdown marker and offset checkpoints
 * ({@link LogDirCheckpoints}), deletes partition directories left {@code -delete} by a topic deletion, and opens
 * every {@code <topic>-<partition>} directory ({@link PartitionLog#open}) on a pool of
 * {@code num.recovery.threads.per.data.dir} threads of its own, reporting progress every 10 s and a summary at the end
 * ({@link Progress}). Publishing the logs is the {@link LogManager}'s: a directory's logs are served all or none.
 *
 * <p>Threads: {@link #start} and {@link #await} are called by the thread that starts the log manager; the logs open
 * on the directory's pool, which {@link #await} shuts down.
 */
final class LogDirLoader {

    private static final Logger log = LoggerFactory.getLogger(LogDirLoader.class);

    /** One directory being loaded: its partition logs opening on its own pool. */
    record DirLoad(Path dir, boolean clean, ExecutorService pool, List<Future<PartitionLog>> futures,
                   long startedMs, Progress progress) {
    }

    /** The logs of a directory that opened, and the first failure among the others (with the rest suppressed). */
    record Loaded(List<PartitionLog> logs, IOException failure) {
    }

    private final int recoveryThreadsPerDir;
    private final LogEnvironment env;
    private final Time time;

    LogDirLoader(int recoveryThreadsPerDir, LogEnvironment env, Time time) {
        this.recoveryThreadsPerDir = recoveryThreadsPerDir;
        this.env = env;
        this.time = time;
    }

    /** Starts opening the logs of {@code dir}, each with its topic's configuration. */
    DirLoad start(Path dir, Function<String, LogConfig> topicConfigs) throws IOException {
        boolean clean = Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
        LogDirCheckpoints.Offsets checkpoints = LogDirCheckpoints.read(dir);
        List<Path> partitionDirs = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path child : children) {
                String name = child.getFileName().toString();
                if (name.endsWith(LogManager.DELETE_DIR_SUFFIX)) {
                    LogManager.deleteRecursively(child);
                } else if (PartitionDirName.parse(name).isPresent()) {
                    partitionDirs.add(child);
                } else {
                    log.warn("Ignoring {}: not a partition log directory", child);
                }
            }
        }
        long started = time.milliseconds();
        // A directory without logs has nothing to recover, whatever the marker says (e.g. the very first start).
        // Small data loads in a moment: one summary line at the end is enough, unless there is recovery to do.
        if (!clean && !partitionDirs.isEmpty()) {
            log.info("Loading {} partition logs from {} (unclean shutdown: recovering)", partitionDirs.size(), dir);
        } else {
            log.debug("Loading {} partition logs from {}", partitionDirs.size(), dir);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, recoveryThreadsPerDir), runnable -> {
            Thread thread = new Thread(runnable, "tributary-log-loader-" + dir.getFileName());
            thread.setDaemon(true);
            return thread;
        });
        Progress progress = new Progress(dir, partitionDirs.size(), started,
                partitionDirs.isEmpty() ? "" : clean ? " (clean shutdown)" : " (unclean shutdown: recovered)");
        List<Future<PartitionLog>> futures = new ArrayList<>();
        for (Path partitionDir : partitionDirs) {
            TopicPartition tp = PartitionDirName.parse(partitionDir.getFileName().toString()).orElseThrow();
            LoadState loadState = new LoadState(
                    checkpoints.logStartOffsets().getOrDefault(tp, 0L),
                    checkpoints.recoveryPoints().getOrDefault(tp, 0L),
                    checkpoints.highWatermarks().getOrDefault(tp, 0L), clean);
            futures.add(pool.submit(() -> {
                PartitionLog partitionLog = PartitionLog.open(partitionDir, tp, topicConfigs.apply(tp.topic()),
                        loadState, env);
                progress.loaded(partitionLog.size());
                return partitionLog;
            }));
        }
        return new DirLoad(dir, clean, pool, futures, started, progress);
    }

    /** Waits for every log of a directory and shuts its pool down. */
    Loaded await(DirLoad load) {
        List<PartitionLog> loaded = new ArrayList<>();
        IOException failure = null;
        try {
            for (Future<PartitionLog> future : load.futures()) {
                try {
                    loaded.add(future.get());
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    IOException io = cause instanceof IOException ioe ? ioe
                            : new IOException("loading " + load.dir() + " failed: " + cause, cause);
                    if (failure == null) {
                        failure = io;
                    } else {
                        failure.addSuppressed(io);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = new IOException("interrupted while loading " + load.dir(), e);
        } finally {
            load.pool().shutdownNow();
        }
        return new Loaded(loaded, failure);
    }

    /**
     * The loading progress of one directory: {@code Loaded X of Y partitions in <dir> (Z MB, W MB/s)} every
     * {@link #REPORT_INTERVAL_MS} while it lasts, and one summary line at the end. Updated by the directory's loader
     * threads (synchronized: once per partition log).
     */
    final class Progress {
        /** 10 s: often enough to show a long recovery moving, rare enough not to flood the log of a large one. */
        static final long REPORT_INTERVAL_MS = 10_000;

        private final Path dir;
        private final int total;
        private final long startedMs;
        /** How the directory was left, for the summary line. */
        private final String shutdown;
        private int done;
        private long bytes;
        private long lastReportMs;

        private Progress(Path dir, int total, long startedMs, String shutdown) {
            this.dir = dir;
            this.shutdown = shutdown;
            this.total = total;
            this.startedMs = startedMs;
            this.lastReportMs = startedMs;
        }

        synchronized void loaded(long logBytes) {
            done++;
            bytes += logBytes;
            long now = time.milliseconds();
            if (now - lastReportMs >= REPORT_INTERVAL_MS && done < total) {
                lastReportMs = now;
                log.info("Loaded {} of {} partitions in {} ({})", done, total, dir, volume(now));
            }
        }

        /** The summary line, once the directory's logs are published; {@code opened} is how many there are. */
        synchronized void done(int opened) {
            long now = time.milliseconds();
            log.info("Loaded {} of {} partitions in {} ({}) in {} ms{}", opened, total, dir, volume(now),
                    now - startedMs, shutdown);
        }

        private String volume(long now) {
            double megabytes = bytes / (1024.0 * 1024.0);
            double seconds = Math.max(1, now - startedMs) / 1000.0;
            return String.format(java.util.Locale.ROOT, "%.1f MB, %.1f MB/s", megabytes, megabytes / seconds);
        }
    }
}
