package io.tributary.broker.share;

import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import io.tributary.broker.replication.InternalTopicLog;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.share.ShareStateFormat.Snapshot;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share coordinator (KIP-932) of the share-partitions whose {@code __share_group_state} partition this broker
 * leads: it keeps the durable {@link ShareState} of each share-partition, written and read by the share-partition's
 * leader (ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState; through a {@link ShareStatePersister}).
 *
 * <p>A share-partition belongs to partition {@code abs(key.hashCode()) % partitions} of {@code __share_group_state},
 * its key being {@link ShareKey#coordinatorKey()} ({@code groupId:topicId:partition}, Kafka's placement). When this
 * broker becomes that partition's leader it reads the partition ({@code COORDINATOR_LOAD_IN_PROGRESS} meanwhile);
 * when leadership moves away it drops the partition's states ({@code NOT_COORDINATOR}).
 *
 * <p>Every change is written to the partition with acks=all, as a whole snapshot ({@link ShareStateFormat}), before
 * it takes effect in memory. The operations of one share-partition run one after another, each once the previous
 * one's write is done, so the log and memory see them in the same order.
 *
 * <p>Fencing: each share-partition remembers the highest leader epoch that has read or written it. A read or write
 * with an older epoch fails with FENCED_LEADER_EPOCH. A read with a newer epoch first writes the state again with
 * that epoch (durably, so that a later coordinator fences the old leader too); a share-partition without a state
 * remembers it in memory only (there is nothing an old leader could overwrite but a state of its own, and the new
 * leader writes one soon). A write whose state epoch is older than the stored one fails with FENCED_STATE_EPOCH, as
 * Kafka's does; so does a write after a deletion that no read has followed (a leader still holding the deleted
 * state must load afresh rather than bring it back).
 *
 * <p>Threads: the public methods from any thread (request handlers, the local persister); write completions and
 * loading on the coordinator's own thread. Each share-partition's {@code Entry} is guarded by its monitor.
 */
public final class ShareCoordinator implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(ShareCoordinator.class);

    /** A failed load is retried after this long while this broker still leads the partition. */
    private static final long LOAD_RETRY_BACKOFF_MS = 500;
    /** No leader epoch seen yet. */
    private static final int NO_EPOCH = -1;

    /**
     * One share-partition in a partition led here. Entries are kept after a deletion (with no state): an
     * operation queued behind the deletion must find the same entry.
     */
    private static final class Entry {
        /** The state as last written, or null. */
        ShareState state;
        /** The snapshot epoch of the last snapshot written (uint16, wrapping), or -1. */
        int snapshotEpoch = -1;
        /** The highest leader epoch that read or wrote this share-partition: older ones are fenced. */
        int leaderEpoch = NO_EPOCH;
        /**
         * The highest state epoch this coordinator has seen for the share-partition, kept across a deletion so that
         * a state initialized after it fences a leader still holding the deleted one (in memory only: a coordinator
         * that loads the partition later starts from the states it finds).
         */
        int highestStateEpoch = -1;
        /**
         * The state was deleted (by an administrator) and no leader has read the share-partition since: a write now
         * comes from a leader still holding the deleted state, and is refused (FENCED_STATE_EPOCH) so that it loads
         * afresh instead of bringing the state back. In memory only, like {@link #highestStateEpoch}.
         */
        boolean deletedSinceRead;
        /** Completes when the last operation queued for this share-partition is done. */
        CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

        int nextSnapshotEpoch() {
            return (snapshotEpoch + 1) & ShareStateFormat.MAX_SNAPSHOT_EPOCH;
        }
    }

    /** A {@code __share_group_state} partition this broker leads, at one leader epoch. */
    private static final class LogPartition {
        final int partition;
        final int leaderEpoch;
        final Map<ShareKey, Entry> entries = new ConcurrentHashMap<>();
        volatile boolean loaded;

        LogPartition(int partition, int leaderEpoch) {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
        }
    }

    private record Lookup(Errors error, LogPartition partition) {
    }

    private final ShareStateLog stateLog;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final Time time;
    /** Shut down by {@link #close()} when the coordinator created it. */
    private final ScheduledThreadPoolExecutor ownScheduler;
    private final Map<Integer, LogPartition> owned = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The partition count of {@code __share_group_state}: the topic's once it exists, else the configured one. */
    private volatile int partitionCount;

    /**
     * @param executor  runs write completions and loads (the coordinator's thread; a test may run them inline)
     * @param scheduler runs delayed load retries
     */
    ShareCoordinator(ShareCoordinatorConfig config, ShareStateLog stateLog, Executor executor,
                     ScheduledExecutorService scheduler, Time time) {
        this(config, stateLog, executor, scheduler, time, null);
    }

    private ShareCoordinator(ShareCoordinatorConfig config, ShareStateLog stateLog, Executor executor,
                             ScheduledExecutorService scheduler, Time time, ScheduledThreadPoolExecutor ownScheduler) {
        this.stateLog = stateLog;
        this.executor = executor;
        this.scheduler = scheduler;
        this.time = time;
        this.ownScheduler = ownScheduler;
        this.partitionCount = config.stateTopicNumPartitions();
    }

    /** The broker's coordinator: writes and reads {@code __share_group_state} through the replica manager. */
    public static ShareCoordinator create(ShareCoordinatorConfig config, ReplicaManager replicaManager, Time time) {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-share-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        return new ShareCoordinator(config, new ReplicatedShareStateLog(new InternalTopicLog(replicaManager, time)),
                scheduler, scheduler, time, scheduler);
    }

    /** The {@code __share_group_state} partition of a share-partition (Kafka's placement). */
    public int partitionFor(ShareKey key) {
        return partitionFor(key, partitionCount);
    }

    /** The partition of {@code key} in a {@code __share_group_state} of {@code partitions} partitions. */
    public static int partitionFor(ShareKey key, int partitions) {
        return Utils.abs(key.coordinatorKey().hashCode()) % partitions;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leadership

    /**
     * The partitions of {@code __share_group_state} this broker leads now, each with its leader epoch, and the
     * topic's partition count (0 while it does not exist). Newly led partitions (or led at a new epoch) are loaded;
     * the others are dropped. Called by the broker's coordinator elections, one call at a time.
     */
    public synchronized void onLeadershipChange(Map<Integer, Integer> ledPartitionEpochs, int topicPartitions) {
        if (closed.get()) {
            return;
        }
        if (topicPartitions > 0) {
            partitionCount = topicPartitions;
        }
        for (LogPartition partition : List.copyOf(owned.values())) {
            Integer epoch = ledPartitionEpochs.get(partition.partition);
            if (epoch == null || epoch != partition.leaderEpoch) {
                resign(partition);
            }
        }
        for (Map.Entry<Integer, Integer> led : ledPartitionEpochs.entrySet()) {
            if (!owned.containsKey(led.getKey())) {
                LogPartition partition = new LogPartition(led.getKey(), led.getValue());
                owned.put(partition.partition, partition);
                executor.execute(() -> load(partition));
            }
        }
    }

    private void resign(LogPartition partition) {
        owned.remove(partition.partition, partition);
        log.info("No longer the share coordinator for partition {} of {} (leader epoch {}): dropped {} "
                + "share-partitions", partition.partition, ShareCoordinatorConfig.STATE_TOPIC,
                partition.leaderEpoch, partition.entries.size());
    }

    private boolean isCurrent(LogPartition partition) {
        return owned.get(partition.partition) == partition && !closed.get();
    }

    private void load(LogPartition partition) {
        if (!isCurrent(partition)) {
            return;
        }
        long started = time.milliseconds();
        Map<ShareKey, Snapshot> loaded;
        try {
            loaded = stateLog.load(partition.partition, () -> isCurrent(partition));
        } catch (RuntimeException e) {
            // Its share-partitions stay unavailable (COORDINATOR_LOAD_IN_PROGRESS) until a load succeeds or
            // leadership moves.
            log.error("Loading partition {} of {} failed; retrying in {} ms", partition.partition,
                    ShareCoordinatorConfig.STATE_TOPIC, LOAD_RETRY_BACKOFF_MS, e);
            scheduler.schedule(() -> executor.execute(() -> load(partition)), LOAD_RETRY_BACKOFF_MS,
                    TimeUnit.MILLISECONDS);
            return;
        }
        for (Map.Entry<ShareKey, Snapshot> snapshot : loaded.entrySet()) {
            Entry entry = new Entry();
            entry.state = snapshot.getValue().state();
            entry.snapshotEpoch = snapshot.getValue().snapshotEpoch();
            entry.leaderEpoch = entry.state.leaderEpoch();
            entry.highestStateEpoch = entry.state.stateEpoch();
            partition.entries.put(snapshot.getKey(), entry);
        }
        if (!isCurrent(partition)) {
            return;
        }
        partition.loaded = true;
        log.info("Loaded {} share-partition states from partition {} of {} (leader epoch {}) in {} ms",
                loaded.size(), partition.partition, ShareCoordinatorConfig.STATE_TOPIC, partition.leaderEpoch,
                time.milliseconds() - started);
    }

    private Lookup lookup(ShareKey key) {
        if (closed.get()) {
            return new Lookup(Errors.NOT_COORDINATOR, null);
        }
        LogPartition partition = owned.get(partitionFor(key));
        if (partition == null) {
            return new Lookup(Errors.NOT_COORDINATOR, null);
        }
        if (!partition.loaded) {
            return new Lookup(Errors.COORDINATOR_LOAD_IN_PROGRESS, null);
        }
        return new Lookup(Errors.NONE, partition);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Requests

    /**
     * Reads the state of {@code key} for the share-partition leader at {@code leaderEpoch}; see the class comment
     * for fencing. The state answered carries {@code leaderEpoch}.
     */
    public CompletableFuture<ReadResult> read(ShareKey key, int leaderEpoch) {
        Lookup lookup = lookup(key);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(ReadResult.failed(lookup.error(), null));
        }
        LogPartition partition = lookup.partition();
        Entry entry = partition.entries.computeIfAbsent(key, k -> new Entry());
        return inTurn(entry, () -> {
            ShareState state;
            int snapshotEpoch;
            synchronized (entry) {
                if (leaderEpoch < entry.leaderEpoch) {
                    return CompletableFuture.completedFuture(ReadResult.failed(Errors.FENCED_LEADER_EPOCH,
                            "Leader epoch " + leaderEpoch + " is older than " + entry.leaderEpoch + " of " + key));
                }
                entry.deletedSinceRead = false;
                if (entry.state == null || entry.state.leaderEpoch() == leaderEpoch) {
                    entry.leaderEpoch = leaderEpoch;
                    return CompletableFuture.completedFuture(new ReadResult(Errors.NONE, null,
                            Optional.ofNullable(entry.state)));
                }
                state = new ShareState(entry.state.stateEpoch(), leaderEpoch, entry.state.startOffset(),
                        entry.state.batches());
                snapshotEpoch = entry.nextSnapshotEpoch();
            }
            return append(partition, key, entry, snapshotEpoch, state).thenApply(error -> error == Errors.NONE
                    ? new ReadResult(Errors.NONE, null, Optional.of(state))
                    : ReadResult.failed(error, null));
        }, error -> ReadResult.failed(error, null));
    }

    /** Replaces the state of {@code key} with {@code state} once it is written; see the class comment for fencing. */
    public CompletableFuture<Errors> write(ShareKey key, ShareState state) {
        Lookup lookup = lookup(key);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(lookup.error());
        }
        LogPartition partition = lookup.partition();
        Entry entry = partition.entries.computeIfAbsent(key, k -> new Entry());
        return inTurn(entry, () -> {
            int snapshotEpoch;
            synchronized (entry) {
                if (state.leaderEpoch() < entry.leaderEpoch) {
                    return CompletableFuture.completedFuture(Errors.FENCED_LEADER_EPOCH);
                }
                if (entry.state != null && state.stateEpoch() < entry.state.stateEpoch()
                        || entry.state == null && entry.deletedSinceRead) {
                    return CompletableFuture.completedFuture(Errors.FENCED_STATE_EPOCH);
                }
                snapshotEpoch = entry.nextSnapshotEpoch();
            }
            return append(partition, key, entry, snapshotEpoch, state);
        }, error -> error);
    }

    /**
     * Reads the state of {@code key} for an administrator (ReadShareGroupStateSummary): unlike {@link #read} it
     * fences no leader and writes nothing. The state answered keeps the leader epoch it was written with.
     */
    public CompletableFuture<ReadResult> readSummary(ShareKey key) {
        Lookup lookup = lookup(key);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(ReadResult.failed(lookup.error(), null));
        }
        Entry entry = lookup.partition().entries.get(key);
        if (entry == null) {
            return CompletableFuture.completedFuture(new ReadResult(Errors.NONE, null, Optional.empty()));
        }
        // In turn, so that a summary read after an alteration was answered sees it.
        return inTurn(entry, () -> {
            synchronized (entry) {
                return CompletableFuture.completedFuture(new ReadResult(Errors.NONE, null,
                        Optional.ofNullable(entry.state)));
            }
        }, error -> ReadResult.failed(error, null));
    }

    /**
     * Replaces the state of {@code key} with a fresh one starting at {@code startOffset}, without in-flight records,
     * (InitializeShareGroupState: an administrator altered the offsets of an empty group). Its state epoch is
     * {@code stateEpoch}, or one past the highest seen if that is not newer (Kafka's coordinator answers
     * FENCED_STATE_EPOCH there instead; the only caller, the admin path, always wants its reset to win). A
     * share-partition leader still holding the old state then has its next write fenced (FENCED_STATE_EPOCH) and
     * loads the new one. The leader epoch stays the highest seen, so older leaders stay fenced.
     */
    public CompletableFuture<Errors> initialize(ShareKey key, int stateEpoch, long startOffset) {
        Lookup lookup = lookup(key);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(lookup.error());
        }
        LogPartition partition = lookup.partition();
        Entry entry = partition.entries.computeIfAbsent(key, k -> new Entry());
        return inTurn(entry, () -> {
            ShareState state;
            int snapshotEpoch;
            synchronized (entry) {
                int epoch = Math.max(stateEpoch, entry.highestStateEpoch + 1);
                state = new ShareState(epoch, Math.max(entry.leaderEpoch, 0), startOffset, List.of());
                snapshotEpoch = entry.nextSnapshotEpoch();
            }
            return append(partition, key, entry, snapshotEpoch, state);
        }, error -> error);
    }

    /** Removes the state of {@code key} (a tombstone) and what it fenced. */
    public CompletableFuture<Errors> delete(ShareKey key) {
        Lookup lookup = lookup(key);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(lookup.error());
        }
        LogPartition partition = lookup.partition();
        Entry entry = partition.entries.get(key);
        if (entry == null) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        return inTurn(entry, () -> {
            synchronized (entry) {
                if (entry.state == null) {
                    entry.leaderEpoch = NO_EPOCH;
                    return CompletableFuture.completedFuture(Errors.NONE);
                }
            }
            return append(partition, key, entry, -1, null);
        }, error -> error);
    }

    /**
     * Appends a snapshot ({@code state} null: a tombstone) of {@code key}, then applies it to {@code entry} if the
     * append succeeded and this broker still coordinates the partition. Completes on the coordinator's thread.
     */
    private CompletableFuture<Errors> append(LogPartition partition, ShareKey key, Entry entry, int snapshotEpoch,
                                             ShareState state) {
        return stateLog.append(partition.partition, key, snapshotEpoch, state).thenApplyAsync(appendError -> {
            if (appendError != Errors.NONE) {
                return InternalTopicLog.coordinatorError(appendError);
            }
            if (!isCurrent(partition)) {
                // Replicated, but the next coordinator may have loaded the partition before this record.
                return Errors.NOT_COORDINATOR;
            }
            synchronized (entry) {
                entry.state = state;
                if (state == null) {
                    entry.snapshotEpoch = -1;
                    entry.leaderEpoch = NO_EPOCH;
                    entry.deletedSinceRead = true;
                } else {
                    entry.deletedSinceRead = false;
                    entry.snapshotEpoch = snapshotEpoch;
                    entry.leaderEpoch = Math.max(entry.leaderEpoch, state.leaderEpoch());
                    entry.highestStateEpoch = Math.max(entry.highestStateEpoch, state.stateEpoch());
                }
            }
            return Errors.NONE;
        }, executor);
    }

    /**
     * Runs {@code operation} once every operation queued before it on {@code entry} is done, so that the appends of
     * one share-partition are made, and applied, in order. The operation runs outside the entry's monitor (an append
     * must not wait for the replica manager while holding it). A failure of the operation itself is answered as
     * UNKNOWN_SERVER_ERROR through {@code failed} (NOT_COORDINATOR once the coordinator is closed).
     */
    private <T> CompletableFuture<T> inTurn(Entry entry, Supplier<CompletableFuture<T>> operation,
                                            Function<Errors, T> failed) {
        CompletableFuture<Void> previous;
        CompletableFuture<Void> mine = new CompletableFuture<>();
        synchronized (entry) {
            previous = entry.tail;
            entry.tail = mine;
        }
        CompletableFuture<T> result = previous.thenCompose(ignored -> operation.get())
                .exceptionally(failure -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof RejectedExecutionException) {
                        return failed.apply(Errors.NOT_COORDINATOR); // closed while the append was in flight
                    }
                    log.error("A share coordinator operation failed", cause);
                    return failed.apply(Errors.UNKNOWN_SERVER_ERROR);
                });
        result.whenComplete((value, failure) -> mine.complete(null));
        return result;
    }

    /** Drops every partition; requests are answered NOT_COORDINATOR afterwards. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (this) {
            for (LogPartition partition : List.copyOf(owned.values())) {
                resign(partition);
            }
        }
        if (ownScheduler != null) {
            ownScheduler.shutdownNow();
        }
    }
}
