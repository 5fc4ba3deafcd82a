package io.tributary.broker.replication;

import java.io.Closeable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.codahale.metrics.Meter;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.metrics.BrokerTopicStats;
import io.tributary.broker.replication.DelayedFetches.ReadOutcome;
import io.tributary.broker.storage.AbortedTxn;
import io.tributary.broker.storage.ActiveProducer;
import io.tributary.broker.storage.AppendOrigin;
import io.tributary.broker.storage.LeaderEpochCache;
import io.tributary.broker.storage.LogAppendInfo;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.storage.LogReadInfo;
import io.tributary.broker.storage.PartitionLog;
import io.tributary.broker.storage.StorageResourceException;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords.TimestampAndOffset;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker hosts and the operations on them that requests need: produce (with acks 0, 1 and all),
 * fetch (with long polling, for consumers and for followers), ListOffsets, DeleteRecords and OffsetForLeaderEpoch.
 * Roles come from the controller through {@link #applyPartitionState}, and are re-evaluated whenever this broker's
 * epoch changes ({@link #onBrokerEpoch}): without a registration, the broker has no role at all.
 *
 * <p>Replication: followed partitions are fetched by {@link ReplicaFetcher}s ({@link ReplicaFetcherManager}); a
 * follower's fetch here reports its position to the leading {@link Partition}, which moves the high watermark and
 * proposes ISR changes. Every {@code replica.lag.time.max.ms / 2} the leaders look for followers that fell behind;
 * every {@code replica.high.watermark.checkpoint.interval.ms} the high watermarks are checkpointed.
 *
 * <p>Waiting operations (acks=all produce, long-poll fetch) never block a thread: they are futures completed when
 * the high watermark moves or data arrives (on the thread that caused it), or by a timeout on the delayed-operation
 * scheduler. Parked fetches are {@link DelayedFetches}'s.
 *
 * <p>Storage errors: a partition whose log was lost with a failed log directory is <em>offline</em> for the rest of
 * the run ({@link LogManager#lostPartitions()}): its role ends at once (acks=all waiters fail, fetchers stop), requests
 * get KAFKA_STORAGE_ERROR, and states the controller writes for it are ignored until it has elected another leader
 * (the broker reports the loss; see {@code cluster.OfflineReplicaReporter}). A state that cannot be applied for want
 * of a resource (no file descriptor to create the log, a full disk for the leader-epoch checkpoint) is applied again
 * every second until it succeeds, so a transient EMFILE during an election does not leave the partition without its
 * leader.
 *
 * <p>Threads: request methods may be called from any request-handler thread; partitions are in a concurrent map and
 * each {@link Partition} serialises its own state. Role changes ({@link #applyPartitionState}, {@link #stopReplica},
 * {@link #onBrokerEpoch}) are serialised by a state-change lock.
 */
public final class ReplicaManager implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    /** How often states that failed for want of a resource are applied again. */
    private static final long STATE_RETRY_MS = 1_000;

    /** Prefix of Kafka's {@code kafka.server:type=ReplicaManager} metric names; the name follows. */
    private static final String REPLICA_MANAGER = "kafka.server:type=ReplicaManager,name=";
    /** Kafka's {@code kafka.log:type=Log} gauges of each hosted partition. */
    private static final List<String> LOG_GAUGES = List.of("Size", "LogEndOffset", "LogStartOffset",
            "NumLogSegments");

    /** A controller state not applied yet for want of a resource; retried by {@link #retryStates}. */
    private record PendingState(Uuid topicId, Partition.State state, LogConfig config) {
    }

    static {
        // Loaded now rather than at the first resource error, when no file descriptor may be left to read it with
        // (see the storage package's StorageFault.preload).
        java.util.Objects.requireNonNull(PendingState.class);
    }

    private final int localBrokerId;
    private final LogManager logManager;
    private final ReplicationConfig config;
    private final ReplicaRegistry registry;
    private final IsrChangeWriter isrWriter;
    private final ReplicaFetcherManager fetchers;
    private final Time time;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final BrokerMetrics metrics;
    /** Kafka's BrokerTopicMetrics, marked by produce and fetch. */
    private final BrokerTopicStats topicStats;
    private final Meter isrShrinks;
    private final Meter isrExpands;
    /** Partitions whose log was lost with a failed log directory; written under the state-change lock. */
    private final Set<TopicPartition> offline = ConcurrentHashMap.newKeySet();

    /** Written under the state-change lock. */
    private final Map<TopicPartition, PendingState> pendingStates = new ConcurrentHashMap<>();
    /** Serialises role changes: the metadata thread's states and the registration thread's broker epochs. */
    private final Object stateChangeLock = new Object();
    /** This broker's epoch; {@link BrokerInfo#NO_EPOCH} while it is not registered. Written under the lock. */
    private volatile long brokerEpoch;
    /** Timeouts of acks=all produces and sweeps of long-poll fetches. */
    private final ScheduledExecutorService delayed;
    private final DelayedFetches delayedFetches;
    /** ISR expiration and high-watermark checkpoints: file and ZooKeeper work kept off the delayed-operations thread. */
    private final ScheduledExecutorService scheduler;

    /**
     * A replica manager for a broker in a cluster: it has no role until {@link #onBrokerEpoch} gives it its
     * registration's epoch.
     */
    public ReplicaManager(int localBrokerId, LogManager logManager, ReplicationConfig config,
                          ReplicaRegistry registry, IsrChangeWriter isrWriter, Time time) {
        this(localBrokerId, logManager, config, registry, isrWriter, time, BrokerInfo.NO_EPOCH,
                BrokerMetrics.detached());
    }

    /**
     * As {@link #ReplicaManager(int, LogManager, ReplicationConfig, ReplicaRegistry, IsrChangeWriter, Time)},
     * publishing Kafka's {@code ReplicaManager}, {@code BrokerTopicMetrics} and {@code Log} metrics in
     * {@code metrics}.
     */
    public ReplicaManager(int localBrokerId, LogManager logManager, ReplicationConfig config,
                          ReplicaRegistry registry, IsrChangeWriter isrWriter, Time time, BrokerMetrics metrics) {
        this(localBrokerId, logManager, config, registry, isrWriter, time, BrokerInfo.NO_EPOCH, metrics);
    }

    /**
     * A replica manager of a broker on its own, registered from the start and never replicating (unit tests of the
     * layers above): every partition it leads has only itself as replica.
     */
    public ReplicaManager(int localBrokerId, LogManager logManager, Time time) {
        this(localBrokerId, logManager, ReplicationConfig.defaults(), new ReplicaRegistry() {
            @Override
            public Optional<BrokerInfo> broker(int brokerId) {
                return Optional.empty();
            }

            @Override
            public boolean isEligible(int brokerId) {
                return false;
            }
        }, (partition, proposed, version) -> { }, time, 0L, BrokerMetrics.detached());
    }

    private ReplicaManager(int localBrokerId, LogManager logManager, ReplicationConfig config,
                           ReplicaRegistry registry, IsrChangeWriter isrWriter, Time time, long initialBrokerEpoch,
                           BrokerMetrics metrics) {
        this.localBrokerId = localBrokerId;
        this.metrics = metrics;
        this.topicStats = new BrokerTopicStats(metrics);
        this.isrShrinks = metrics.meter(REPLICA_MANAGER + "IsrShrinksPerSec");
        this.isrExpands = metrics.meter(REPLICA_MANAGER + "IsrExpandsPerSec");
        metrics.gauge(REPLICA_MANAGER + "PartitionCount", partitions::size);
        metrics.gauge(REPLICA_MANAGER + "LeaderCount", () -> countLeaders(partition -> true));
        metrics.gauge(REPLICA_MANAGER + "UnderReplicatedPartitions", () -> countLeaders(
                partition -> partition.state().isr().size() < partition.state().replicas().size()));
        metrics.gauge(REPLICA_MANAGER + "UnderMinIsrPartitionCount", () -> countLeaders(
                partition -> partition.state().isr().size() < partition.log().config().minInsyncReplicas));
        metrics.gauge(REPLICA_MANAGER + "AtMinIsrPartitionCount", () -> countLeaders(
                partition -> partition.state().isr().size() == partition.log().config().minInsyncReplicas));
        metrics.gauge(REPLICA_MANAGER + "OfflineReplicaCount", offline::size);
        this.logManager = logManager;
        this.config = config;
        this.registry = registry;
        this.isrWriter = isrWriter;
        this.time = time;
        this.brokerEpoch = initialBrokerEpoch;
        this.fetchers = new ReplicaFetcherManager(localBrokerId, config, registry, () -> brokerEpoch, time);
        this.delayed = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tributary-delayed-operations");
            thread.setDaemon(true);
            return thread;
        });
        this.delayedFetches = new DelayedFetches(this::readAll, delayed);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "replica-manager-scheduler-" + localBrokerId);
            thread.setDaemon(true);
            return thread;
        });
        // Kafka's isr-expiration task runs at half the lag limit: a follower leaves the ISR between one and 1.5
        // limits after it stopped catching up.
        long expirationIntervalMs = Math.max(10, config.replicaLagTimeMaxMs() / 2);
        scheduler.scheduleWithFixedDelay(this::shrinkIsrs, expirationIntervalMs, expirationIntervalMs,
                TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::checkpointHighWatermarks, config.highWatermarkCheckpointMs(),
                config.highWatermarkCheckpointMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::retryStates, STATE_RETRY_MS, STATE_RETRY_MS, TimeUnit.MILLISECONDS);
        // Called on the thread that met the failure, which may hold a partition's monitor and its log's lock: the
        // roles change on the scheduler instead.
        logManager.addOfflineDirListener((dir, lost) -> {
            try {
                scheduler.execute(() -> takeOffline(lost, "its log directory " + dir + " failed"));
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // shutting down
            }
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Roles

    /**
     * Takes the controller's state of a partition this broker is a replica of: creates the log if needed and
     * becomes leader, follower, or neither (see {@link Partition}).
     */
    public void applyPartitionState(TopicPartition tp, Uuid topicId, Partition.State state, LogConfig config) {
        synchronized (stateChangeLock) {
            if (offline.contains(tp)) {
                log.debug("Broker {} ignores the state of {}: its replica is offline", localBrokerId, tp);
                return;
            }
            boolean retry = pendingStates.remove(tp) != null;
            try {
                Partition partition = partitions.get(tp);
                if (partition == null) {
                    // Only this thread (under the state-change lock) adds partitions.
                    PartitionLog partitionLog = logManager.getOrCreateLog(tp, config);
                    partition = new Partition(tp, topicId, localBrokerId, partitionLog, state, registry, isrWriter,
                            () -> delayedFetches.onNewData(tp), this::onIsrSizeChange);
                    partitions.put(tp, partition);
                    addLogGauges(tp, partitionLog);
                }
                partition.log().updateConfig(config);
                Partition.RoleChange change = partition.applyState(topicId, state, brokerEpoch, time.milliseconds());
                afterRoleChange(partition, change);
                if (retry) {
                    log.info("Broker {} took its role in {} after waiting for a resource", localBrokerId, tp);
                }
            } catch (StorageResourceException e) {
                pendingStates.put(tp, new PendingState(topicId, state, config));
                if (!retry) {
                    log.warn("Broker {} cannot take its role in {} yet ({}); trying again every {} ms", localBrokerId,
                            tp, e.getMessage(), STATE_RETRY_MS);
                }
            } catch (KafkaStorageException e) {
                if (!logManager.lostPartitions().contains(tp)) {
                    throw e;
                }
                takeOffline(Set.of(tp), e.getMessage());
            }
        }
    }

    /** Applies again, every {@link #STATE_RETRY_MS}, the states that failed for want of a resource. */
    private void retryStates() {
        for (Map.Entry<TopicPartition, PendingState> entry : pendingStates.entrySet()) {
            try {
                synchronized (stateChangeLock) {
                    PendingState pending = entry.getValue();
                    if (pendingStates.remove(entry.getKey(), pending)) {
                        // Re-queued by applyPartitionState if it fails again.
                        applyPartitionState(entry.getKey(), pending.topicId(), pending.state(), pending.config());
                    }
                }
            } catch (RuntimeException e) {
                log.error("Applying the state of {} failed", entry.getKey(), e);
            }
        }
    }

    /**
     * Gives up the replicas whose logs were lost: no role, no fetching, acks=all waiters fail, every later request and
     * controller state finds them offline.
     */
    private void takeOffline(Set<TopicPartition> lost, String reason) {
        synchronized (stateChangeLock) {
            for (TopicPartition tp : lost) {
                offline.add(tp);
                pendingStates.remove(tp);
                fetchers.unfollow(tp);
                Partition removed = partitions.remove(tp);
                removeLogGauges(tp);
                if (removed != null) {
                    removed.failPending(new KafkaStorageException("The replica of " + tp + " on broker "
                            + localBrokerId + " is offline: " + reason));
                    log.warn("Broker {} gives up its replica of {} ({} at leader epoch {}): {}", localBrokerId, tp,
                            removed.role().name().toLowerCase(java.util.Locale.ROOT), removed.roleEpoch(), reason);
                }
            }
            lost.stream().map(TopicPartition::topic).distinct().forEach(this::removeTopicStatsIfNotLed);
        }
        // Long polls parked on these partitions answer KAFKA_STORAGE_ERROR at once.
        lost.forEach(delayedFetches::onNewData);
    }

    /** Partitions whose replica here was lost with a failed log directory. */
    public Set<TopicPartition> offlinePartitions() {
        return Set.copyOf(offline);
    }

    public boolean isOffline(TopicPartition tp) {
        return offline.contains(tp);
    }

    /**
     * This broker's epoch changed: registered (a new epoch) or registration lost ({@link BrokerInfo#NO_EPOCH}).
     * Every partition takes its role again; with no epoch, every leadership ends at once and acks=all waiters fail.
     */
    public void onBrokerEpoch(long epoch) {
        synchronized (stateChangeLock) {
            if (epoch == brokerEpoch) {
                return;
            }
            brokerEpoch = epoch;
            for (Partition partition : partitions.values()) {
                try {
                    Partition.RoleChange change = partition.applyState(partition.topicId(), partition.state(), epoch,
                            time.milliseconds());
                    afterRoleChange(partition, change);
                } catch (StorageResourceException e) {
                    pendingStates.put(partition.topicPartition(), new PendingState(partition.topicId(),
                            partition.state(), partition.log().config()));
                    log.warn("Broker {} cannot take its role in {} yet ({}); trying again every {} ms", localBrokerId,
                            partition.topicPartition(), e.getMessage(), STATE_RETRY_MS);
                } catch (KafkaStorageException e) {
                    log.warn("Broker {} cannot take its role in {}: {}", localBrokerId, partition.topicPartition(),
                            e.getMessage());
                }
            }
        }
    }

    /** This broker's epoch as the replica manager last heard it. */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    /** Caller holds the state-change lock. */
    private void afterRoleChange(Partition partition, Partition.RoleChange change) {
        TopicPartition tp = partition.topicPartition();
        if (change.after() == Partition.Role.FOLLOWER) {
            fetchers.follow(partition, partition.state().leaderId(), change.leaderEpoch());
        } else {
            fetchers.unfollow(tp);
        }
        if (change.changed()) {
            Partition.STATE_CHANGE.info("[Broker id={}] {}: {} at leader epoch {} (leader {}, ISR {}, controller "
                    + "epoch {})", localBrokerId, tp, change.after(), change.leaderEpoch(),
                    partition.state().leaderId(), partition.state().isr(), partition.state().controllerEpoch());
            log.info("Broker {} is now {} of {} at leader epoch {} (leader {}, ISR {})", localBrokerId,
                    change.after().name().toLowerCase(java.util.Locale.ROOT), tp, change.leaderEpoch(),
                    partition.state().leaderId(), partition.state().isr());
            // Long polls parked here re-read and answer NOT_LEADER_OR_FOLLOWER (or new data) at once.
            delayedFetches.onNewData(tp);
            if (change.after() != Partition.Role.LEADER) {
                removeTopicStatsIfNotLed(tp.topic());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Metrics

    private int countLeaders(Predicate<Partition> condition) {
        int count = 0;
        for (Partition partition : partitions.values()) {
            if (partition.isLeader() && condition.test(partition)) {
                count++;
            }
        }
        return count;
    }

    /** A leader's committed ISR changed size: Kafka's IsrShrinksPerSec and IsrExpandsPerSec. */
    private void onIsrSizeChange(int before, int after) {
        if (after < before) {
            isrShrinks.mark();
        } else if (after > before) {
            isrExpands.mark();
        }
    }

    private static String logGaugeName(TopicPartition tp, String name) {
        return BrokerMetrics.name("kafka.log", "Log", name, "topic", tp.topic(),
                "partition", Integer.toString(tp.partition()));
    }

    private void addLogGauges(TopicPartition tp, PartitionLog partitionLog) {
        metrics.gauge(logGaugeName(tp, "Size"), partitionLog::size);
        metrics.gauge(logGaugeName(tp, "LogEndOffset"), partitionLog::logEndOffset);
        metrics.gauge(logGaugeName(tp, "LogStartOffset"), partitionLog::logStartOffset);
        metrics.gauge(logGaugeName(tp, "NumLogSegments"), partitionLog::numberOfSegments);
    }

    private void removeLogGauges(TopicPartition tp) {
        for (String name : LOG_GAUGES) {
            metrics.remove(logGaugeName(tp, name));
        }
    }

    /**
     * Removes a topic's BrokerTopicMetrics once this broker leads none of its partitions (deleted, or its leadership
     * moved), as Kafka does. Caller holds the state-change lock; a scan of the hosted partitions, on role changes only.
     */
    private void removeTopicStatsIfNotLed(String topic) {
        for (Partition partition : partitions.values()) {
            if (partition.isLeader() && partition.topicPartition().topic().equals(topic)) {
                return;
            }
        }
        topicStats.removeTopic(topic);
    }

    /**
     * The meters a request for {@code tp} counts in: its topic's if this broker hosts the partition, else only the
     * all-topics ones, so that no client can create beans for topics that do not exist here.
     */
    private BrokerTopicStats.Meters metersOf(TopicPartition tp) {
        return partitions.containsKey(tp) ? topicStats.topic(tp.topic()) : topicStats.allTopics();
    }

    /** Kafka's BrokerTopicMetrics of this broker. */
    public BrokerTopicStats topicStats() {
        return topicStats;
    }

    /** The ISR expiration task: every leader drops the followers that fell behind. */
    private void shrinkIsrs() {
        long now = time.milliseconds();
        for (Partition partition : partitions.values()) {
            try {
                partition.maybeShrinkIsr(now, config.replicaLagTimeMaxMs());
            } catch (RuntimeException e) {
                log.error("Checking the ISR of {} failed", partition.topicPartition(), e);
            }
        }
    }

    private void checkpointHighWatermarks() {
        try {
            logManager.checkpointHighWatermarks();
        } catch (RuntimeException e) {
            log.error("Checkpointing the high watermarks failed", e);
        }
    }

    /** A topic-level config change for a hosted partition. */
    public void updateConfig(TopicPartition tp, LogConfig config) {
        Partition partition = partitions.get(tp);
        if (partition != null) {
            partition.log().updateConfig(config);
        }
    }

    /** Stops hosting a partition; with {@code delete} its log is deleted too (topic deletion, reassignment). */
    public void stopReplica(TopicPartition tp, boolean delete) {
        synchronized (stateChangeLock) {
            pendingStates.remove(tp);
            if (delete) {
                // Its topic is gone (or its replica moved away): nothing of it is lost any more.
                offline.remove(tp);
            }
            fetchers.unfollow(tp);
            Partition removed = partitions.remove(tp);
            removeLogGauges(tp);
            if (removed != null) {
                removed.failPending(new NotLeaderOrFollowerException(tp + " is no longer hosted by broker "
                        + localBrokerId));
            }
            removeTopicStatsIfNotLed(tp.topic());
            if (delete) {
                logManager.deleteLog(tp);
            }
        }
        delayedFetches.onNewData(tp);
    }

    public Optional<Partition> partition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    public Set<TopicPartition> hostedPartitions() {
        return Set.copyOf(partitions.keySet());
    }

    private Partition hostedPartition(TopicPartition tp) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            if (offline.contains(tp)) {
                throw new KafkaStorageException("The replica of " + tp + " on broker " + localBrokerId
                        + " is offline: its log directory failed");
            }
            throw new UnknownTopicOrPartitionException("Broker " + localBrokerId + " does not host " + tp);
        }
        return partition;
    }

    private Partition leaderPartition(TopicPartition tp) {
        Partition partition = hostedPartition(tp);
        if (!partition.isLeader()) {
            throw new NotLeaderOrFollowerException("Broker " + localBrokerId + " is not the leader of " + tp);
        }
        return partition;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Produce

    /**
     * Appends to each partition as leader. With {@code acks=-1} the result for a partition is ready when the high
     * watermark has passed its records, or fails with REQUEST_TIMED_OUT after {@code timeoutMs}.
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> appendRecords(
            Map<TopicPartition, MemoryRecords> entries, short acks, long timeoutMs) {
        return appendRecords(entries, acks, timeoutMs, AppendOrigin.CLIENT);
    }

    /**
     * Appends to each partition as leader on behalf of {@code origin} (see {@link AppendOrigin}); otherwise as
     * {@link #appendRecords(Map, short, long)}.
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> appendRecords(
            Map<TopicPartition, MemoryRecords> entries, short acks, long timeoutMs, AppendOrigin origin) {
        Map<TopicPartition, ProduceResult> results = new LinkedHashMap<>();
        Map<TopicPartition, CompletableFuture<Void>> waits = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, MemoryRecords> entry : entries.entrySet()) {
            TopicPartition tp = entry.getKey();
            BrokerTopicStats.Meters meters = metersOf(tp);
            meters.produceRequest();
            try {
                Partition partition = leaderPartition(tp);
                LogAppendInfo info = partition.appendAsLeader(entry.getValue(), acks, origin);
                meters.appended(info.recordCount(), info.validBytes());
                results.put(tp, new ProduceResult(Errors.NONE, null, info.firstOffset(), info.logAppendTimeMs(),
                        info.logStartOffset()));
                // A duplicate (an idempotent retry) waits too: its first attempt may not be replicated yet.
                if (acks == -1 && (info.recordCount() > 0 || info.duplicate())) {
                    waits.put(tp, partition.awaitHighWatermark(info.lastOffset() + 1));
                }
            } catch (ApiException e) {
                if (!isExpectedProduceError(e)) {
                    meters.produceFailed();
                }
                results.put(tp, ProduceResult.error(Errors.forException(e), e.getMessage()));
            } catch (RuntimeException e) {
                meters.produceFailed();
                log.error("Unexpected error appending to {}", tp, e);
                results.put(tp, ProduceResult.error(Errors.forException(e), e.getMessage()));
            }
        }
        // A leader alone in its ISR has moved the high watermark during the append: nothing to wait for, and no
        // timeout task to schedule and cancel for every request (the common single-broker case).
        waits.values().removeIf(wait -> wait.isDone() && !wait.isCompletedExceptionally());
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(results);
        }
        CompletableFuture<Map<TopicPartition, ProduceResult>> done = new CompletableFuture<>();
        CompletableFuture<Void> all = CompletableFuture.allOf(waits.values().toArray(new CompletableFuture[0]));
        ScheduledFuture<?> timeout = delayed.schedule(() -> all.completeExceptionally(
                new TimeoutException("acks=all timed out")), timeoutMs, TimeUnit.MILLISECONDS);
        all.whenComplete((ignored, failure) -> {
            timeout.cancel(false);
            Map<TopicPartition, ProduceResult> finalResults = new LinkedHashMap<>(results);
            for (Map.Entry<TopicPartition, CompletableFuture<Void>> wait : waits.entrySet()) {
                CompletableFuture<Void> future = wait.getValue();
                if (future.isCompletedExceptionally() || !future.isDone()) {
                    Throwable cause = future.isDone() ? future.handle((v, t) -> t).join() : null;
                    Errors error = cause == null ? Errors.REQUEST_TIMED_OUT : Errors.forException(cause);
                    finalResults.put(wait.getKey(), ProduceResult.error(error,
                            cause == null ? "acks=all not reached within " + timeoutMs + " ms" : cause.getMessage()));
                }
            }
            done.complete(finalResults);
        });
        return done;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetch

    /**
     * Reads every requested partition; if fewer than {@code minBytes} are available and nothing failed, waits up to
     * {@code maxWaitMs} for more, then reads again.
     */
    public CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> fetch(
            FetchParams params, LinkedHashMap<TopicPartition, FetchPartitionRequest> requests) {
        ReadOutcome first = readAll(params, requests, true);
        if (params.maxWaitMs() <= 0 || first.bytes() >= params.minBytes() || first.anyError() || requests.isEmpty()) {
            countBytesOut(params, first.results());
            return CompletableFuture.completedFuture(first.results());
        }
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> parked =
                delayedFetches.park(params, requests);
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> counted = parked.thenApply(results -> {
            countBytesOut(params, results);
            return results;
        });
        // Cancelling the caller's future (a share fetch woken otherwise) takes the parked read off its partitions.
        counted.whenComplete((results, failure) -> {
            if (counted.isCancelled()) {
                parked.cancel(false);
            }
        });
        return counted;
    }

    /** Kafka's BytesOutPerSec: the record bytes a consumer fetch returns (a follower's are replication). */
    private void countBytesOut(FetchParams params, Map<TopicPartition, FetchPartitionResult> results) {
        if (params.isFromFollower()) {
            return;
        }
        for (Map.Entry<TopicPartition, FetchPartitionResult> result : results.entrySet()) {
            int bytes = result.getValue().records().sizeInBytes();
            if (bytes > 0) {
                topicStats.topic(result.getKey().topic()).bytesOut(bytes);
            }
        }
    }

    /**
     * Errors that say where a partition is (or that its disk failed) rather than that a request failed; Kafka does
     * not count them in FailedProduceRequestsPerSec and FailedFetchRequestsPerSec.
     */
    private static boolean isExpectedError(ApiException e) {
        return e instanceof NotLeaderOrFollowerException || e instanceof UnknownTopicOrPartitionException
                || e instanceof org.apache.kafka.common.errors.FencedLeaderEpochException
                || e instanceof org.apache.kafka.common.errors.UnknownLeaderEpochException
                || e instanceof KafkaStorageException;
    }

    /** As {@link #isExpectedError}, and records Kafka also leaves uncounted: too large or corrupt. */
    private static boolean isExpectedProduceError(ApiException e) {
        return isExpectedError(e) || e instanceof org.apache.kafka.common.errors.RecordTooLargeException
                || e instanceof org.apache.kafka.common.errors.RecordBatchTooLargeException
                || e instanceof org.apache.kafka.common.errors.CorruptRecordException;
    }

    /** How many long-poll fetches are parked (tests). */
    int parkedFetchCount() {
        return delayedFetches.parkedCount();
    }

    /** Reads every requested partition of a fetch; see {@link DelayedFetches.Reader#read}. */
    private ReadOutcome readAll(FetchParams params, LinkedHashMap<TopicPartition, FetchPartitionRequest> requests,
                                boolean arrival) {
        LinkedHashMap<TopicPartition, FetchPartitionResult> results = new LinkedHashMap<>();
        long bytes = 0;
        boolean anyError = false;
        int remaining = params.maxBytes();
        for (Map.Entry<TopicPartition, FetchPartitionRequest> entry : requests.entrySet()) {
            FetchPartitionResult result = readPartition(params, entry.getKey(), entry.getValue(),
                    Math.max(0, remaining), bytes == 0, arrival);
            results.put(entry.getKey(), result);
            if (result.error() != Errors.NONE || result.divergingEpoch() != null) {
                anyError = true;
            }
            int size = result.records().sizeInBytes();
            bytes += size;
            remaining -= size;
        }
        return new ReadOutcome(results, bytes, anyError);
    }

    private FetchPartitionResult readPartition(FetchParams params, TopicPartition tp, FetchPartitionRequest request,
                                               int responseBytesLeft, boolean minOneBatch, boolean arrival) {
        BrokerTopicStats.Meters meters = arrival ? metersOf(tp) : null;
        if (meters != null) {
            meters.fetchRequest();
        }
        try {
            Partition partition = hostedPartition(tp);
            partition.checkLeaderEpoch(request.currentLeaderEpoch());
            if (!partition.isLeader()) {
                throw new NotLeaderOrFollowerException("Broker " + localBrokerId + " is not the leader of " + tp);
            }
            PartitionLog partitionLog = partition.log();
            if (params.isFromFollower() && arrival) {
                Optional<LeaderEpochCache.EpochEndOffset> diverging = partition.onFollowerFetch(params.replicaId(),
                        params.replicaEpoch(), request.fetchOffset(), request.lastFetchedEpoch(),
                        time.milliseconds());
                if (diverging.isPresent()) {
                    return FetchPartitionResult.diverging(partitionLog.highWatermark(), partitionLog.logStartOffset(),
                            diverging.get());
                }
            }
            // The LSO first: it is at most the HW read after it, so the response never shows an LSO above its HW.
            long lastStableOffset = partitionLog.lastStableOffset();
            long highWatermark = partitionLog.highWatermark();
            boolean readCommitted = !params.isFromFollower() && params.isolation() == IsolationLevel.READ_COMMITTED;
            long maxOffset = params.isFromFollower() ? partitionLog.logEndOffset()
                    : readCommitted ? lastStableOffset : highWatermark;
            int maxBytes = Math.min(request.maxBytes(), responseBytesLeft);
            LogReadInfo info = partitionLog.read(request.fetchOffset(), maxBytes, maxOffset, minOneBatch);
            Records records = info.records();
            // Bounded by the LSO rather than by the last batch read, as Kafka bounds it by a segment: finding the last
            // batch would read every batch header of the response again, and the consumer ignores a transaction that
            // starts after the records it got.
            List<AbortedTxn> aborted = readCommitted && records.sizeInBytes() > 0
                    ? partitionLog.abortedTransactions(request.fetchOffset(), maxOffset)
                    : null;
            return new FetchPartitionResult(Errors.NONE, null, highWatermark, lastStableOffset,
                    partitionLog.logStartOffset(), records, null, aborted);
        } catch (OffsetOutOfRangeException e) {
            if (meters != null) {
                meters.fetchFailed();
            }
            return offsetOutOfRange(tp, e);
        } catch (ApiException e) {
            if (meters != null && !isExpectedError(e)) {
                meters.fetchFailed();
            }
            return FetchPartitionResult.error(Errors.forException(e), e.getMessage());
        } catch (RuntimeException e) {
            if (meters != null) {
                meters.fetchFailed();
            }
            log.error("Unexpected error reading {}", tp, e);
            return FetchPartitionResult.error(Errors.forException(e), e.getMessage());
        }
    }

    private FetchPartitionResult offsetOutOfRange(TopicPartition tp, OffsetOutOfRangeException e) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return FetchPartitionResult.error(Errors.OFFSET_OUT_OF_RANGE, e.getMessage());
        }
        PartitionLog partitionLog = partition.log();
        return new FetchPartitionResult(Errors.OFFSET_OUT_OF_RANGE, e.getMessage(), partitionLog.highWatermark(),
                partitionLog.lastStableOffset(), partitionLog.logStartOffset(), MemoryRecords.EMPTY, null);
    }

    // ---------------------------------------------------------------------------------------------------------
    // ListOffsets, DeleteRecords, OffsetForLeaderEpoch

    /**
     * ListOffsets for one partition: earliest (and earliest-local), latest (the high watermark for consumers, or the
     * log end offset for read_uncommitted replicas), max timestamp, or the first offset with a timestamp at or after
     * the given one. Offsets at or past the high watermark are not revealed to consumers.
     */
    public OffsetResult listOffset(TopicPartition tp, long timestamp, IsolationLevel isolation,
                                   int currentLeaderEpoch, int replicaId) {
        try {
            Partition partition = leaderPartition(tp);
            partition.checkLeaderEpoch(currentLeaderEpoch);
            PartitionLog partitionLog = partition.log();
            long visibleEnd = replicaId >= 0 ? partitionLog.logEndOffset() : partition.establishedHighWatermark();
            if (replicaId < 0 && isolation == IsolationLevel.READ_COMMITTED) {
                visibleEnd = Math.min(visibleEnd, partitionLog.lastStableOffset());
            }
            int epoch = partition.state().leaderEpoch();
            if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
                return new OffsetResult(Errors.NONE, null, -1L, visibleEnd, epoch);
            }
            if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                    || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
                long start = partitionLog.logStartOffset();
                int startEpoch = partitionLog.leaderEpochCache().epochForOffset(start).orElse(epoch);
                return new OffsetResult(Errors.NONE, null, -1L, start, startEpoch);
            }
            if (timestamp < 0 && timestamp != ListOffsetsRequest.MAX_TIMESTAMP) {
                return OffsetResult.error(Errors.UNSUPPORTED_VERSION, "ListOffsets timestamp " + timestamp
                        + " is not supported");
            }
            Optional<TimestampAndOffset> found = partitionLog.offsetForTimestamp(timestamp);
            if (found.isEmpty() || found.get().offset >= visibleEnd) {
                return new OffsetResult(Errors.NONE, null, -1L, -1L, -1);
            }
            TimestampAndOffset hit = found.get();
            return new OffsetResult(Errors.NONE, null, hit.timestamp, hit.offset, hit.leaderEpoch.orElse(-1));
        } catch (ApiException e) {
            return OffsetResult.error(Errors.forException(e), e.getMessage());
        }
    }

    /**
     * DescribeProducers for one partition: the producers the leader's producer state knows.
     *
     * @throws NotLeaderOrFollowerException     if this broker does not lead the partition
     * @throws UnknownTopicOrPartitionException if it does not host it
     */
    public List<ActiveProducer> activeProducers(TopicPartition tp) {
        return leaderPartition(tp).log().activeProducers();
    }

    /**
     * DeleteRecords: moves the log start offset to {@code offset} ({@code -1} means the high watermark).
     *
     * @return the new low watermark (log start offset)
     */
    public long deleteRecords(TopicPartition tp, long offset) {
        Partition partition = leaderPartition(tp);
        PartitionLog partitionLog = partition.log();
        long target = offset == -1L ? partitionLog.highWatermark() : offset;
        if (target < 0 || target > partitionLog.highWatermark()) {
            throw new OffsetOutOfRangeException("Cannot delete records of " + tp + " before offset " + offset
                    + ": the high watermark is " + partitionLog.highWatermark());
        }
        return partitionLog.deleteRecordsBefore(target);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        fetchers.close();
        delayed.shutdownNow();
        for (Partition partition : partitions.values()) {
            partition.failPending(new KafkaStorageException("broker " + localBrokerId + " is shutting down"));
        }
    }
}
