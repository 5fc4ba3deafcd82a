package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's view of the cluster, kept current from ZooKeeper watches: live brokers, the controller, topics with
 * their ids, partitions with replicas, leader, leader epoch and ISR, and topic config overrides.
 *
 * <p>Reads {@code /brokers} (registrations, assignments, partition states, shutdown and offline-replica markers),
 * {@code /config/topics} and {@code /controller} through Curator {@link CuratorCache}s. Every watch event schedules a
 * rebuild of an immutable {@link MetadataSnapshot} on one update thread; events that arrive while a rebuild is pending
 * fold into it, so a burst of thousands of state changes (a broker failing over all its partitions) costs a few
 * rebuilds, not thousands. Parsed znodes are memoized by modification zxid, so a rebuild re-parses only what changed.
 *
 * <p>Threads: {@link #snapshot()} is a volatile read, for request handlers on any thread. Listeners and the futures
 * of {@link #when} run on the update thread, the single writer of the snapshot.
 */
public final class MetadataCache implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MetadataCache.class);

    private enum State { NEW, LOADING, RUNNING, CLOSED }

    private record Waiter(Predicate<MetadataSnapshot> condition, CompletableFuture<MetadataSnapshot> future) {
    }

    /** A parsed znode and the zxid of the change it was parsed from. */
    private record Parsed(long mzxid, Object value) {
    }

    private final CuratorCache brokersCache;
    private final CuratorCache configCache;
    private final CuratorCache controllerCache;
    private final ExecutorService updater;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final AtomicBoolean rebuildPending = new AtomicBoolean();

    /** Written by the update thread only. */
    private volatile MetadataSnapshot snapshot = MetadataSnapshot.EMPTY;

    // Touched by the update thread only.
    private final List<MetadataListener> listeners = new ArrayList<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private final Map<String, Parsed> parsed = new HashMap<>();

    MetadataCache(ZkConnection connection, int brokerId) {
        CuratorFramework zk = connection.curator();
        this.brokersCache = CuratorCache.build(zk, ZkPaths.BROKERS);
        this.configCache = CuratorCache.build(zk, ZkPaths.CONFIG);
        this.controllerCache = CuratorCache.build(zk, ZkPaths.CONTROLLER, CuratorCache.Options.SINGLE_NODE_CACHE);
        this.updater = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "metadata-cache-" + brokerId);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Loads everything ZooKeeper holds and builds the first snapshot; returns once it is readable, so that a
     * restarted broker knows every topic before it serves a request.
     *
     * @throws ClusterException if the initial load does not finish within {@code timeoutMs}
     */
    void start(long timeoutMs) {
        if (!state.compareAndSet(State.NEW, State.LOADING)) {
            throw new IllegalStateException("metadata cache already started or closed: " + state.get());
        }
        List<CuratorCache> caches = List.of(brokersCache, configCache, controllerCache);
        CountDownLatch loaded = new CountDownLatch(caches.size());
        for (CuratorCache cache : caches) {
            cache.listenable().addListener(CuratorCacheListener.builder()
                    .forAll((type, before, after) -> scheduleRebuild())
                    .forInitialized(loaded::countDown)
                    .build());
            cache.start();
        }
        try {
            if (!loaded.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new ClusterException("the cluster metadata was not loaded from ZooKeeper within " + timeoutMs
                        + " ms");
            }
            state.compareAndSet(State.LOADING, State.RUNNING);
            rebuildPending.set(true);
            updater.submit(this::rebuild).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw ClusterException.wrap("loading the cluster metadata", e);
        }
        log.info("Metadata loaded: {}", snapshot);
    }

    /** The latest snapshot; never null. */
    public MetadataSnapshot snapshot() {
        return snapshot;
    }

    /**
     * Adds a listener. Its first call, on the update thread, carries the whole current state as a change from
     * {@link MetadataSnapshot#EMPTY}; every later change follows in order.
     */
    public void addListener(MetadataListener listener) {
        Objects.requireNonNull(listener, "listener");
        onUpdater(() -> {
            listeners.add(listener);
            MetadataChange initial = diff(MetadataSnapshot.EMPTY, snapshot);
            if (!initial.isEmpty()) {
                notify(listener, initial);
            }
        });
    }

    /** Removes a listener; it may hear of a change already being delivered. */
    public void removeListener(MetadataListener listener) {
        onUpdater(() -> listeners.remove(listener));
    }

    /**
     * Completes, on the update thread, with the first snapshot that satisfies {@code condition}: the current one or
     * a later one. Callers bound the wait with {@link CompletableFuture#orTimeout}. Fails when the cache closes.
     */
    public CompletableFuture<MetadataSnapshot> when(Predicate<MetadataSnapshot> condition) {
        CompletableFuture<MetadataSnapshot> future = new CompletableFuture<>();
        Waiter waiter = new Waiter(condition, future);
        if (satisfied(waiter, snapshot)) {
            return future;
        }
        try {
            updater.execute(() -> {
                if (!satisfied(waiter, snapshot)) {
                    waiters.add(waiter);
                }
            });
            // A caller's timeout completes the future; forget the waiter then rather than at the next change.
            future.whenComplete((result, error) -> onUpdater(() -> waiters.remove(waiter)));
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(new IllegalStateException("metadata cache closed"));
        }
        return future;
    }

    private void scheduleRebuild() {
        if (state.get() == State.RUNNING && rebuildPending.compareAndSet(false, true)) {
            onUpdater(this::rebuild);
        }
    }

    private void rebuild() {
        if (!rebuildPending.getAndSet(false) || state.get() != State.RUNNING) {
            return;
        }
        MetadataSnapshot previous = snapshot;
        MetadataSnapshot current = build();
        if (state.get() != State.RUNNING) {
            // close() ran during the build: closing a CuratorCache empties it, so this snapshot may lack every
            // topic, and listeners would take that for a deletion of all of them (seen at broker shutdown as the
            // partition-state applier deleting logs, refused only because the log manager had closed first).
            return;
        }
        MetadataChange change = diff(previous, current);
        if (change.isEmpty()) {
            return;
        }
        snapshot = current;
        for (MetadataListener listener : List.copyOf(listeners)) {
            notify(listener, change);
        }
        waiters.removeIf(waiter -> satisfied(waiter, current));
    }

    /** Completes the waiter if {@code snapshot} satisfies it (or its condition fails); true if it is done. */
    private static boolean satisfied(Waiter waiter, MetadataSnapshot snapshot) {
        if (waiter.future().isDone()) {
            return true;
        }
        try {
            if (waiter.condition().test(snapshot)) {
                waiter.future().complete(snapshot);
                return true;
            }
            return false;
        } catch (RuntimeException e) {
            waiter.future().completeExceptionally(e);
            return true;
        }
    }

    private MetadataSnapshot build() {
        Set<String> seen = new HashSet<>();
        Map<Integer, BrokerInfo> brokers = new HashMap<>();
        Map<String, TopicAssignment> assignments = new HashMap<>();
        Map<TopicPartition, ChildData> states = new HashMap<>();
        Map<Integer, Long> shutdownMarkers = new HashMap<>();
        Map<Integer, ZkJson.OfflineReplicaMarker> offlineMarkers = new HashMap<>();
        brokersCache.stream().forEach(node -> {
            // /brokers/ids/<id>, /brokers/topics/<t>, /brokers/topics/<t>/partitions/<p>/state; others are ignored
            String[] parts = node.getPath().split("/");
            if (parts.length == 4 && parts[2].equals("ids")) {
                BrokerInfo broker = parse(node, seen, data -> ZkJson.parseBrokerRegistration(node.getPath(), data));
                if (broker != null) {
                    // The broker epoch: the registration's creation zxid, new for every run of the broker.
                    brokers.put(broker.id(), broker.withEpoch(node.getStat().getCzxid()));
                }
            } else if (parts.length == 4 && parts[2].equals("topics")) {
                TopicAssignment assignment = parse(node, seen,
                        data -> ZkJson.parseTopicAssignment(node.getPath(), data));
                if (assignment != null) {
                    assignments.put(parts[3], assignment);
                }
            } else if (parts.length == 4 && parts[2].equals(ZkPaths.name(ZkPaths.SHUTTING_DOWN))) {
                Long epoch = parse(node, seen, data -> ZkJson.parseShutdownMarker(node.getPath(), data));
                if (epoch != null) {
                    try {
                        shutdownMarkers.put(Integer.parseInt(parts[3]), epoch);
                    } catch (NumberFormatException e) {
                        log.warn("Ignoring {}: not a broker id", node.getPath());
                    }
                }
            } else if (parts.length == 4 && parts[2].equals(ZkPaths.name(ZkPaths.OFFLINE_REPLICAS))) {
                ZkJson.OfflineReplicaMarker marker = parse(node, seen,
                        data -> ZkJson.parseOfflineReplicas(node.getPath(), data));
                if (marker != null) {
                    try {
                        offlineMarkers.put(Integer.parseInt(parts[3]), marker);
                    } catch (NumberFormatException e) {
                        log.warn("Ignoring {}: not a broker id", node.getPath());
                    }
                }
            } else if (parts.length == 7 && parts[2].equals("topics") && parts[4].equals("partitions")
                    && parts[6].equals("state")) {
                try {
                    states.put(new TopicPartition(parts[3], Integer.parseInt(parts[5])), node);
                } catch (NumberFormatException e) {
                    log.warn("Ignoring {}: not a partition number", node.getPath());
                }
            }
        });
        Map<String, Map<String, String>> configs = new HashMap<>();
        Map<String, Map<String, String>> brokerConfigs = new HashMap<>();
        configCache.stream().forEach(node -> {
            // /config/topics/<topic> and /config/brokers/<entity>; both hold {"version":1,"config":{...}}
            String[] parts = node.getPath().split("/");
            if (parts.length == 4 && (parts[2].equals("topics") || parts[2].equals("brokers"))) {
                Map<String, String> overrides = parse(node, seen,
                        data -> ZkJson.parseTopicConfig(node.getPath(), data));
                if (overrides != null) {
                    (parts[2].equals("topics") ? configs : brokerConfigs).put(parts[3], overrides);
                }
            }
        });
        int controllerId = controllerCache.get(ZkPaths.CONTROLLER)
                .map(node -> parse(node, seen, data -> ZkJson.parseControllerId(node.getPath(), data)))
                .orElse(MetadataSnapshot.NO_CONTROLLER);

        Map<String, TopicMetadata> topics = new HashMap<>();
        for (Map.Entry<String, TopicAssignment> entry : assignments.entrySet()) {
            String name = entry.getKey();
            TopicAssignment assignment = entry.getValue();
            SortedMap<Integer, PartitionMetadata> partitions = new TreeMap<>();
            for (Map.Entry<Integer, List<Integer>> p : assignment.partitions().entrySet()) {
                TopicPartition tp = new TopicPartition(name, p.getKey());
                ChildData stateNode = states.get(tp);
                LeaderAndIsr state = stateNode == null ? null
                        : parse(stateNode, seen, data -> ZkJson.parsePartitionState(stateNode.getPath(), data));
                List<Integer> adding = assignment.adding(p.getKey());
                List<Integer> removing = assignment.removing(p.getKey());
                partitions.put(p.getKey(), state == null
                        ? PartitionMetadata.withoutState(assignment.topicId(), tp, p.getValue(), adding, removing)
                        : PartitionMetadata.of(assignment.topicId(), tp, p.getValue(), state,
                        stateNode.getStat().getVersion(), stateNode.getStat().getMzxid(), adding, removing));
            }
            topics.put(name, new TopicMetadata(name, assignment.topicId(), partitions,
                    configs.getOrDefault(name, Map.of())));
        }
        parsed.keySet().retainAll(seen);
        // A marker of an earlier run (its session not yet expired) does not make the current run shut down.
        Set<Integer> shuttingDown = new TreeSet<>();
        shutdownMarkers.forEach((id, epoch) -> {
            BrokerInfo broker = brokers.get(id);
            if (broker != null && broker.epoch() == epoch) {
                shuttingDown.add(id);
            }
        });
        // Likewise a report of lost replicas: a restarted broker reports again what is lost in its new run.
        Map<Integer, Set<TopicPartition>> offlineReplicas = new HashMap<>();
        offlineMarkers.forEach((id, marker) -> {
            BrokerInfo broker = brokers.get(id);
            if (broker != null && broker.epoch() == marker.brokerEpoch()
                    && !marker.replicas().partitions().isEmpty()) {
                offlineReplicas.put(id, marker.replicas().partitions());
            }
        });
        return new MetadataSnapshot(brokers, controllerId, topics, brokerConfigs, shuttingDown, offlineReplicas);
    }

    /** The parsed value of a znode, from the memo when the znode has not changed; null if it cannot be read. */
    @SuppressWarnings("unchecked")
    private <T> T parse(ChildData node, Set<String> seen, Function<byte[], T> parser) {
        String path = node.getPath();
        seen.add(path);
        long mzxid = node.getStat() == null ? -1 : node.getStat().getMzxid();
        Parsed memo = parsed.get(path);
        if (memo != null && memo.mzxid() == mzxid) {
            return (T) memo.value();
        }
        T value;
        try {
            value = parser.apply(node.getData());
        } catch (RuntimeException e) {
            // Logged once per version of the znode, since the memo keeps the failure too.
            log.warn("Ignoring unreadable znode {}: {}", path, e.getMessage());
            value = null;
        }
        parsed.put(path, new Parsed(mzxid, value));
        return value;
    }

    static MetadataChange diff(MetadataSnapshot previous, MetadataSnapshot current) {
        List<PartitionChange> changes = new ArrayList<>();
        Set<String> configChanged = new TreeSet<>();
        Set<String> names = new TreeSet<>(previous.topics().keySet());
        names.addAll(current.topics().keySet());
        for (String name : names) {
            TopicMetadata before = previous.topics().get(name);
            TopicMetadata after = current.topics().get(name);
            Map<Integer, PartitionMetadata> beforeParts = before == null ? Map.of() : before.partitions();
            Map<Integer, PartitionMetadata> afterParts = after == null ? Map.of() : after.partitions();
            Set<Integer> partitions = new TreeSet<>(beforeParts.keySet());
            partitions.addAll(afterParts.keySet());
            for (int p : partitions) {
                PartitionMetadata b = beforeParts.get(p);
                PartitionMetadata a = afterParts.get(p);
                if (!Objects.equals(b, a)) {
                    changes.add(new PartitionChange(b, a));
                }
            }
            Map<String, String> beforeConfig = before == null ? Map.of() : before.configOverrides();
            Map<String, String> afterConfig = after == null ? Map.of() : after.configOverrides();
            if (!beforeConfig.equals(afterConfig)) {
                configChanged.add(name);
            }
        }
        return new MetadataChange(previous, current, changes, configChanged);
    }

    private static void notify(MetadataListener listener, MetadataChange change) {
        try {
            listener.onMetadataChange(change);
        } catch (RuntimeException e) {
            log.error("Metadata listener {} failed on a change of {} partitions", listener,
                    change.partitionChanges().size(), e);
        }
    }

    private void onUpdater(Runnable task) {
        try {
            updater.execute(task);
        } catch (RejectedExecutionException e) {
            // closed: nothing more is delivered
        }
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.CLOSED) {
            return;
        }
        brokersCache.close();
        configCache.close();
        controllerCache.close();
        onUpdater(() -> {
            for (Waiter waiter : waiters) {
                waiter.future().completeExceptionally(new IllegalStateException("metadata cache closed"));
            }
            waiters.clear();
            listeners.clear();
        });
        updater.shutdown();
        try {
            if (!updater.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("The metadata cache's update thread did not stop within 5 s");
                updater.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            updater.shutdownNow();
        }
    }
}
