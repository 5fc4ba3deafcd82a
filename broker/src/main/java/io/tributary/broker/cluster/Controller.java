package io.tributary.broker.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.storage.LogConfig;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's work during one term (one controller epoch): it makes every partition's stored state agree with
 * the live brokers (elections by {@link PartitionLeaderElector}), finishes reassignments whose new replicas caught up
 * ({@link ReassignmentPlanner}), carries out topic deletions, answers ElectLeaders and AlterPartitionReassignments
 * ({@link #electLeaders}, {@link #alterReassignments}), and with {@code auto.leader.rebalance.enable} gives leaderships
 * back to preferred replicas every {@code leader.imbalance.check.interval.seconds} ({@link LeaderBalance}).
 *
 * <p>Level-triggered rather than event-by-event: any change of the metadata (a broker registered or gone, a topic
 * created or extended, a state written) or of {@code /admin/delete_topics} schedules one reconciliation, and changes
 * arriving meanwhile fold into the next one. A reconciliation
 * <ol>
 * <li>deletes each topic with a pending request under {@code /admin/delete_topics}: its partition states, assignment
 * and overrides, then the request, in one transaction;</li>
 * <li>gives an id to any topic without one (written by an old Kafka);</li>
 * <li>asks {@link PartitionLeaderElector} about every partition, using the metadata cache as a cheap first look, and
 * for each partition that needs a change re-reads its state and its topic from ZooKeeper, decides again on the fresh
 * data and writes conditionally on the versions read. A lost race is re-read and decided again.</li>
 * </ol>
 * Every write is fenced by the controller epoch ({@link ControllerFence}); a fenced write stops this controller and
 * hands the term back to the {@link ControllerElection}. Because every decision is re-derived from the state in
 * ZooKeeper, a new controller needs no hand-over: its first reconciliation picks up where the last one stopped.
 *
 * <p>Threads: reconciliations, requests and the balance check run on one controller thread; watches only schedule
 * them, requests return futures. {@link #close()} stops the thread; idempotent.
 */
final class Controller implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Controller.class);
    /** Kafka's {@code state.change.logger}: the controller's leader and ISR decisions, with the epochs. */
    private static final Logger STATE_CHANGE = LoggerFactory.getLogger("state.change.logger");

    /** Pause before reconciling again after a ZooKeeper error. */
    private static final long RETRY_BACKOFF_MS = 1_000;

    /** Attempts at one partition or topic whose znodes other writers keep changing, before leaving it to the next
     * reconciliation (which the other writer's change triggers anyway). */
    private static final int MAX_CONFLICT_RETRIES = 5;

    /** A write found a newer controller epoch. */
    private static final class FencedException extends RuntimeException {
        FencedException(String what) {
            super(what, null, false, false);
        }
    }

    private final BrokerConfig config;
    private final MetadataCache metadata;
    private final TopicStore topics;
    private final PartitionStateStore states;
    private final PartitionLeaderElector elector;
    private final ControllerFence fence;
    private final Runnable resign;
    private final CuratorCache deletionRequests;
    private final ScheduledExecutorService thread;
    private final MetadataListener metadataListener = change -> scheduleReconcile();
    private final AtomicBoolean reconcilePending = new AtomicBoolean();
    private volatile boolean running;

    Controller(BrokerConfig config, ZkConnection connection, MetadataCache metadata, TopicStore topics,
               PartitionStateStore states, ControllerFence fence, Runnable resign) {
        this.config = config;
        this.metadata = metadata;
        this.topics = topics;
        this.states = states;
        this.elector = new PartitionLeaderElector();
        this.fence = fence;
        this.resign = resign;
        this.deletionRequests = CuratorCache.build(connection.curator(), ZkPaths.DELETE_TOPICS);
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "controller-" + config.brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts watching and reconciling; the first reconciliation is scheduled at once. */
    Controller start() {
        running = true;
        deletionRequests.listenable().addListener(CuratorCacheListener.builder()
                .forAll((type, before, after) -> scheduleReconcile())
                .build());
        deletionRequests.start();
        metadata.addListener(metadataListener);
        scheduleReconcile();
        if (config.autoLeaderRebalanceEnable) {
            thread.scheduleWithFixedDelay(this::checkLeaderBalance, config.leaderImbalanceCheckIntervalMs,
                    config.leaderImbalanceCheckIntervalMs, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    int epoch() {
        return fence.epoch();
    }

    private void scheduleReconcile() {
        if (running && reconcilePending.compareAndSet(false, true)) {
            schedule(0);
        }
    }

    private void schedule(long delayMs) {
        try {
            thread.schedule(this::reconcile, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private void reconcile() {
        reconcilePending.set(false);
        if (!running) {
            return;
        }
        try {
            MetadataSnapshot snapshot = metadata.snapshot();
            PartitionLeaderElector.Brokers brokers = PartitionLeaderElector.Brokers.of(snapshot);
            LogConfig defaults = TopicConfigs.brokerDefaults(config, snapshot);
            Set<String> deleting = pendingDeletions();
            for (String topic : deleting) {
                deleteTopic(topic);
            }
            for (TopicMetadata topic : snapshot.topics().values()) {
                if (!running) {
                    return;
                }
                if (!deleting.contains(topic.name())) {
                    boolean unclean = uncleanElection(defaults, topic);
                    reconcileTopic(topic, brokers, unclean);
                }
            }
        } catch (FencedException e) {
            log.warn("Controller epoch {} is over: {}", fence.epoch(), e.getMessage());
            running = false;
            resign.run();
        } catch (ClusterException e) {
            if (running) {
                log.warn("Controller (epoch {}) reconciliation failed; retrying in {} ms: {}", fence.epoch(),
                        RETRY_BACKOFF_MS, e.getMessage());
                reconcilePending.set(true);
                schedule(RETRY_BACKOFF_MS);
            }
        } catch (RuntimeException e) {
            log.error("Controller (epoch {}) reconciliation failed; retrying in {} ms", fence.epoch(),
                    RETRY_BACKOFF_MS, e);
            reconcilePending.set(true);
            schedule(RETRY_BACKOFF_MS);
        }
    }

    private Set<String> pendingDeletions() {
        Set<String> names = new TreeSet<>();
        deletionRequests.stream()
                .map(ChildData::getPath)
                .filter(path -> path.startsWith(ZkPaths.DELETE_TOPICS + "/"))
                .forEach(path -> names.add(ZkPaths.name(path)));
        return names;
    }

    private void deleteTopic(String topic) {
        if (!config.deleteTopicEnable) {
            log.warn("Dropping the request to delete topic {}: delete.topic.enable=false on the controller", topic);
            topics.dropDeletionRequest(topic);
            return;
        }
        for (int attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
            switch (topics.deleteFenced(topic, fence)) {
                case COMMITTED -> {
                    log.info("Deleted topic {} (controller epoch {})", topic, fence.epoch());
                    return;
                }
                case FENCED -> throw new FencedException("fenced while deleting topic " + topic);
                case CONFLICT -> {
                    // a partition was added meanwhile: list again
                }
            }
        }
        log.warn("Deleting topic {} kept conflicting with other writers; trying again later", topic);
    }

    /** The topic's {@code unclean.leader.election.enable}: its override, else the (dynamic) broker default. */
    private static boolean uncleanElection(LogConfig defaults, TopicMetadata topic) {
        try {
            return TopicConfigs.topicConfig(defaults, Optional.of(topic)).uncleanLeaderElectionEnable;
        } catch (ConfigException e) {
            log.error("Topic {} has an unreadable configuration ({}); electing leaders cleanly", topic.name(),
                    e.getMessage());
            return false;
        }
    }

    private void reconcileTopic(TopicMetadata cached, PartitionLeaderElector.Brokers brokers, boolean unclean) {
        List<Integer> candidates = cached.partitions().values().stream()
                .filter(p -> elector.decide(p.replicas(), p.leaderAndIsr(), p.stateZxid(),
                        brokers.forPartition(p.topicPartition()), unclean, fence.epoch()).isPresent()
                        || ReassignmentPlanner.complete(placement(p), p.leaderAndIsr(), p.stateZxid(),
                        brokers.forPartition(p.topicPartition()), fence.epoch()).isPresent())
                .map(p -> p.topicPartition().partition())
                .toList();
        boolean needsId = cached.topicId().equals(Uuid.ZERO_UUID);
        if (candidates.isEmpty() && !needsId) {
            return;
        }
        Optional<TopicStore.Versioned<TopicAssignment>> fresh = topics.readAssignment(cached.name());
        if (fresh.isEmpty()) {
            return;
        }
        if (fresh.get().value().topicId().equals(Uuid.ZERO_UUID)) {
            fresh = giveTopicId(cached.name(), fresh.get());
            if (fresh.isEmpty()) {
                return;
            }
        }
        TopicAssignment assignment = fresh.get().value();
        for (int partition : candidates) {
            List<Integer> replicas = assignment.partitions().get(partition);
            if (replicas == null) {
                continue;
            }
            TopicPartition tp = new TopicPartition(cached.name(), partition);
            PartitionLeaderElector.Brokers partitionBrokers = brokers.forPartition(tp);
            if (!assignment.adding(partition).isEmpty() || !assignment.removing(partition).isEmpty()) {
                if (completeReassignment(tp, fresh.get(), partitionBrokers)) {
                    // The assignment changed: the next reconciliation (triggered by that write) sees it.
                    return;
                }
            }
            electPartition(tp, replicas, fresh.get().zkVersion(), partitionBrokers, unclean);
        }
    }

    private static ReassignmentPlanner.Placement placement(PartitionMetadata partition) {
        return new ReassignmentPlanner.Placement(partition.replicas(), partition.addingReplicas(),
                partition.removingReplicas());
    }

    private static ReassignmentPlanner.Placement placement(TopicAssignment assignment, int partition) {
        return new ReassignmentPlanner.Placement(assignment.partitions().get(partition), assignment.adding(partition),
                assignment.removing(partition));
    }

    /**
     * Finishes a reassignment whose target replicas are all in sync: the new state (leader moved into the target if
     * needed, removed replicas out of the ISR) and the final assignment, in one fenced transaction.
     *
     * @return whether it was finished
     */
    private boolean completeReassignment(TopicPartition tp, TopicStore.Versioned<TopicAssignment> assignment,
                                         PartitionLeaderElector.Brokers brokers) {
        Optional<PartitionStateStore.VersionedState> stored = states.read(tp);
        if (stored.isEmpty()) {
            return false;
        }
        Optional<ReassignmentPlanner.Completion> completion = ReassignmentPlanner.complete(
                placement(assignment.value(), tp.partition()), stored.get().state(), stored.get().zxid(), brokers,
                fence.epoch());
        if (completion.isEmpty()) {
            return false;
        }
        ReassignmentPlanner.Placement done = completion.get().placement();
        TopicAssignment next = assignment.value().withPartition(tp.partition(), done.replicas(), List.of(), List.of());
        switch (topics.completeReassignmentFenced(tp, next, assignment.zkVersion(), completion.get().state(),
                stored.get().zkVersion(), fence)) {
            case COMMITTED -> {
                log.info("{}: reassignment complete: replicas {}, leader {}, ISR {} (controller epoch {})", tp,
                        done.replicas(), completion.get().state().leader(), completion.get().state().isr(),
                        fence.epoch());
                return true;
            }
            case FENCED -> throw new FencedException("fenced while completing the reassignment of " + tp);
            default -> {
                return false;
            }
        }
    }

    private Optional<TopicStore.Versioned<TopicAssignment>> giveTopicId(String topic,
                                                                        TopicStore.Versioned<TopicAssignment> current) {
        Uuid id = Uuid.randomUuid();
        switch (topics.updateAssignmentFenced(topic, current.value().withTopicId(id), current.zkVersion(), fence)) {
            case COMMITTED -> {
                log.info("Gave topic {} the id {}", topic, id);
                return topics.readAssignment(topic);
            }
            case FENCED -> throw new FencedException("fenced while giving topic " + topic + " an id");
            default -> {
                return Optional.empty();
            }
        }
    }

    private void electPartition(TopicPartition tp, List<Integer> replicas, int topicZkVersion,
                                PartitionLeaderElector.Brokers brokers, boolean unclean) {
        for (int attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
            Optional<PartitionStateStore.VersionedState> stored = states.read(tp);
            LeaderAndIsr before = stored.map(PartitionStateStore.VersionedState::state).orElse(null);
            long stateZxid = stored.map(PartitionStateStore.VersionedState::zxid).orElse(-1L);
            Optional<LeaderAndIsr> decision = elector.decide(replicas, before, stateZxid, brokers, unclean,
                    fence.epoch());
            if (decision.isEmpty()) {
                return;
            }
            LeaderAndIsr after = decision.get();
            ControllerFence.Outcome outcome = stored.isEmpty()
                    ? states.createFenced(tp, after, topicZkVersion, fence)
                    : states.updateFenced(tp, after, stored.get().zkVersion(), fence);
            switch (outcome) {
                case COMMITTED -> {
                    logTransition(tp, before, after, brokers.liveEpochs().keySet());
                    return;
                }
                case FENCED -> throw new FencedException("fenced while writing the state of " + tp);
                case CONFLICT -> {
                    // another writer (a leader changing the ISR, the topic changing): read again
                }
            }
        }
        log.warn("The state of {} kept changing under the controller; trying again later", tp);
    }

    private void logTransition(TopicPartition tp, LeaderAndIsr before, LeaderAndIsr after, Set<Integer> live) {
        STATE_CHANGE.info("[Controller epoch={}] {}: leader {} -> {}, leader epoch {}, ISR {} -> {}",
                fence.epoch(), tp, before == null ? "none" : before.leader(), after.leader(), after.leaderEpoch(),
                before == null ? "[]" : before.isr(), after.isr());
        if (before == null) {
            log.info("{}: initial leader {}, ISR {} (controller epoch {})", tp, after.leader(), after.isr(),
                    fence.epoch());
        } else if (before.leader() != after.leader()) {
            log.info("{}: leader {} -> {}, leader epoch {}, ISR {} (live brokers {}, controller epoch {})", tp,
                    before.leader(), after.leader(), after.leaderEpoch(), after.isr(), live, fence.epoch());
        } else {
            log.info("{}: ISR {} -> {} (live brokers {}, controller epoch {})", tp, before.isr(), after.isr(), live,
                    fence.epoch());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Requests (ElectLeaders, AlterPartitionReassignments) and the leader balance check, on the controller thread

    /**
     * Elects leaders on request: the preferred replica of each partition, or with {@code unclean} a leader for each
     * partition that has none, from outside the ISR if no ISR member is live. With no partitions named, every
     * partition (preferred only). Completes with each partition's outcome; fails with NotControllerException if this
     * controller's term ends first.
     */
    CompletableFuture<Map<TopicPartition, ApiError>> electLeaders(boolean unclean,
                                                                Optional<Set<TopicPartition>> partitions) {
        return onControllerThread(() -> {
            MetadataSnapshot snapshot = metadata.snapshot();
            PartitionLeaderElector.Brokers brokers = PartitionLeaderElector.Brokers.of(snapshot);
            Set<TopicPartition> wanted = partitions.orElseGet(() -> allPartitions(snapshot));
            Map<TopicPartition, ApiError> results = new LinkedHashMap<>();
            for (TopicPartition tp : wanted) {
                results.put(tp, electOnRequest(tp, unclean, snapshot, brokers));
            }
            return results;
        });
    }

    private static Set<TopicPartition> allPartitions(MetadataSnapshot snapshot) {
        Set<TopicPartition> all = new java.util.LinkedHashSet<>();
        for (TopicMetadata topic : snapshot.topics().values()) {
            for (PartitionMetadata partition : topic.partitions().values()) {
                all.add(partition.topicPartition());
            }
        }
        return all;
    }

    private ApiError electOnRequest(TopicPartition tp, boolean unclean, MetadataSnapshot snapshot,
                                    PartitionLeaderElector.Brokers allBrokers) {
        PartitionLeaderElector.Brokers brokers = allBrokers.forPartition(tp);
        Optional<PartitionMetadata> cached = snapshot.partition(tp);
        if (cached.isEmpty()) {
            return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "No partition " + tp);
        }
        List<Integer> replicas = cached.get().replicas();
        for (int attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
            Optional<PartitionStateStore.VersionedState> stored = states.read(tp);
            if (stored.isEmpty()) {
                return new ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, tp + " has no state yet");
            }
            LeaderAndIsr before = stored.get().state();
            Optional<LeaderAndIsr> decision;
            if (unclean) {
                if (before.hasLeader() && brokers.isEligible(before.leader())) {
                    return new ApiError(Errors.ELECTION_NOT_NEEDED, tp + " has a leader: " + before.leader());
                }
                decision = elector.decide(replicas, before, stored.get().zxid(), brokers, true, fence.epoch())
                        .filter(LeaderAndIsr::hasLeader);
                if (decision.isEmpty()) {
                    return new ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, "No replica of " + tp + " is live");
                }
            } else {
                if (!replicas.isEmpty() && before.leader() == replicas.get(0)) {
                    return new ApiError(Errors.ELECTION_NOT_NEEDED, "The preferred replica " + replicas.get(0)
                            + " leads " + tp + " already");
                }
                decision = elector.preferred(replicas, before, stored.get().zxid(), brokers, fence.epoch());
                if (decision.isEmpty()) {
                    return new ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE, "The preferred replica of " + tp
                            + " (" + (replicas.isEmpty() ? "none" : replicas.get(0)) + ") is not live or not in "
                            + "sync (ISR " + before.isr() + ")");
                }
            }
            switch (states.updateFenced(tp, decision.get(), stored.get().zkVersion(), fence)) {
                case COMMITTED -> {
                    logTransition(tp, before, decision.get(), brokers.liveEpochs().keySet());
                    return ApiError.NONE;
                }
                case FENCED -> throw new FencedException("fenced while electing a leader of " + tp);
                case CONFLICT -> {
                    // a leader changed the ISR meanwhile: read again
                }
            }
        }
        return new ApiError(Errors.REQUEST_TIMED_OUT, "The state of " + tp + " kept changing; try again");
    }

    /**
     * Starts, changes or (with an empty target) cancels reassignments (AlterPartitionReassignments). Each target is
     * checked (not empty, no duplicates, only registered brokers) and written to the topic's assignment; the
     * reconciliations carry it out (see {@link ReassignmentPlanner}).
     */
    CompletableFuture<Map<TopicPartition, ApiError>> alterReassignments(
            Map<TopicPartition, Optional<List<Integer>>> targets) {
        return onControllerThread(() -> {
            MetadataSnapshot snapshot = metadata.snapshot();
            Map<TopicPartition, ApiError> results = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, Optional<List<Integer>>> entry : targets.entrySet()) {
                results.put(entry.getKey(), reassign(entry.getKey(), entry.getValue(), snapshot));
            }
            return results;
        });
    }

    private ApiError reassign(TopicPartition tp, Optional<List<Integer>> target, MetadataSnapshot snapshot) {
        if (target.isPresent()) {
            List<Integer> replicas = target.get();
            if (replicas.isEmpty()) {
                return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The target replicas of " + tp
                        + " are empty");
            }
            if (new java.util.HashSet<>(replicas).size() != replicas.size()) {
                return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The target replicas of " + tp + " "
                        + replicas + " name a broker twice");
            }
            for (int replica : replicas) {
                if (!snapshot.isLive(replica)) {
                    return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "Broker " + replica + " of the target "
                            + replicas + " of " + tp + " is not registered");
                }
            }
        }
        for (int attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
            Optional<TopicStore.Versioned<TopicAssignment>> fresh = topics.readAssignment(tp.topic());
            if (fresh.isEmpty() || !fresh.get().value().partitions().containsKey(tp.partition())) {
                return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "No partition " + tp);
            }
            ReassignmentPlanner.Placement current = placement(fresh.get().value(), tp.partition());
            ReassignmentPlanner.Placement next;
            if (target.isPresent()) {
                next = ReassignmentPlanner.start(current, target.get());
            } else if (current.isReassigning()) {
                next = ReassignmentPlanner.cancel(current);
            } else {
                return new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS, "No reassignment of " + tp
                        + " is in progress");
            }
            if (next.equals(current)) {
                return ApiError.NONE;
            }
            TopicAssignment assignment = fresh.get().value().withPartition(tp.partition(), next.replicas(),
                    next.adding(), next.removing());
            switch (topics.updateAssignmentFenced(tp.topic(), assignment, fresh.get().zkVersion(), fence)) {
                case COMMITTED -> {
                    log.info("{}: reassignment {} -> {} (adding {}, removing {}; controller epoch {})", tp,
                            current.original(), next.target(), next.adding(), next.removing(), fence.epoch());
                    return ApiError.NONE;
                }
                case FENCED -> throw new FencedException("fenced while reassigning " + tp);
                case CONFLICT -> {
                    // the topic changed meanwhile: read again
                }
            }
        }
        return new ApiError(Errors.REQUEST_TIMED_OUT, "The assignment of " + tp + " kept changing; try again");
    }

    /** {@code auto.leader.rebalance.enable}: preferred elections for the brokers whose imbalance is too high. */
    private void checkLeaderBalance() {
        if (!running) {
            return;
        }
        try {
            MetadataSnapshot snapshot = metadata.snapshot();
            List<TopicPartition> moves = LeaderBalance.partitionsToRebalance(snapshot,
                    config.leaderImbalancePerBrokerPercentage);
            if (moves.isEmpty()) {
                return;
            }
            PartitionLeaderElector.Brokers brokers = PartitionLeaderElector.Brokers.of(snapshot);
            int moved = 0;
            for (TopicPartition tp : moves) {
                if (electOnRequest(tp, false, snapshot, brokers) == ApiError.NONE) {
                    moved++;
                }
            }
            log.info("Leader balance: moved {} of {} partitions back to their preferred replica", moved,
                    moves.size());
        } catch (FencedException e) {
            log.warn("Controller epoch {} is over: {}", fence.epoch(), e.getMessage());
            running = false;
            resign.run();
        } catch (RuntimeException e) {
            log.warn("Leader balance check failed: {}", e.toString());
        }
    }

    /** Runs {@code work} on the controller thread; a fenced controller fails it with NotControllerException. */
    private <T> CompletableFuture<T> onControllerThread(java.util.function.Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            thread.execute(() -> {
                if (!running) {
                    result.completeExceptionally(new NotControllerException("broker " + config.brokerId
                            + " is no longer the controller"));
                    return;
                }
                try {
                    result.complete(work.get());
                } catch (FencedException e) {
                    log.warn("Controller epoch {} is over: {}", fence.epoch(), e.getMessage());
                    running = false;
                    resign.run();
                    result.completeExceptionally(new NotControllerException("broker " + config.brokerId
                            + " is no longer the controller"));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new NotControllerException("broker " + config.brokerId
                    + " is no longer the controller"));
        }
        return result;
    }

    @Override
    public void close() {
        if (!running && thread.isShutdown()) {
            return;
        }
        running = false;
        metadata.removeListener(metadataListener);
        deletionRequests.close();
        thread.shutdown();
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("Controller (epoch {}) did not finish its reconciliation within 10 s", fence.epoch());
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thread.shutdownNow();
        }
    }
}
