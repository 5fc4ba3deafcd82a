package io.tributary.broker.cluster;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's work during one term (one controller epoch): it makes every partition's stored state agree with
 * the live brokers, and carries out topic deletions.
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
 * <p>Threads: reconciliations run on one controller thread; watches only schedule them. {@link #close()} stops the
 * thread; idempotent.
 */
final class Controller implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Controller.class);

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
                .filter(p -> elector.decide(p.replicas(), p.leaderAndIsr(), p.stateZxid(), brokers, unclean,
                        fence.epoch()).isPresent())
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
            if (replicas != null) {
                electPartition(new TopicPartition(cached.name(), partition), replicas, fresh.get().zkVersion(), brokers,
                        unclean);
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
