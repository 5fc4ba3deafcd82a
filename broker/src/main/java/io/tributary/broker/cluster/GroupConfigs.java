package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import io.tributary.broker.share.ShareConfig;
import io.tributary.broker.share.ShareGroupSettings;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.utils.ZKPaths;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group configurations (KIP-848, KIP-932) on every broker: stored in ZooKeeper as
 * {@code /config/groups/<groupId>} = {@code {"version":1,"config":{...}}} (the layout of a topic's overrides, {@link
 * ZkJson}), watched by a Curator {@link CuratorCache}, and kept parsed ({@link GroupConfigDef.Effective}) per group,
 * so that {@link #settings(String)} (called by share-partition leaders on every ShareFetch) and the coordinator's
 * timeouts are one map lookup. Changes (IncrementalAlterConfigs) are read-change-write loops with a conditional
 * write, as {@link BrokerConfigAdmin}'s. A group needs no configuration, and a configuration needs no group.
 *
 * <p>Threads: reads from any thread; the cache's listener (Curator's thread) is the one writer of the parsed map;
 * {@link #alter} does ZooKeeper I/O and runs on the admin thread. Lifecycle: {@link #start} once, {@link #close}
 * idempotent.
 */
public final class GroupConfigs implements ShareGroupSettings.Source, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GroupConfigs.class);

    private enum State { NEW, RUNNING, CLOSED }

    /** A group's stored configuration and what it means. */
    private record Entry(Map<String, String> stored, GroupConfigDef.Effective effective) {
    }

    /** A caller of {@link #whenApplied} waiting for the cache to show {@code expected}. */
    private record Waiter(String groupId, Map<String, String> expected, CompletableFuture<Void> future) {
    }

    private final GroupConfigDef definition;
    private final TopicStore store;
    private final CuratorCache cache;
    /** Written by the cache's listener only. */
    private final Map<String, Entry> groups = new ConcurrentHashMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

    GroupConfigs(CuratorFramework zk, TopicStore store, ShareConfig shareConfig) {
        this.definition = new GroupConfigDef(shareConfig);
        this.store = store;
        this.cache = CuratorCache.build(zk, ZkPaths.CONFIG_GROUPS);
    }

    /** Loads every group's configuration and follows changes. */
    void start(long timeoutMs) {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("group configs already started or closed: " + state.get());
        }
        ZkCacheLoading.startAndAwait(List.of(cache), this::update, this::remove, timeoutMs,
                "the group configurations");
        log.info("Loaded the configurations of {} groups", groups.size());
    }

    public GroupConfigDef definition() {
        return definition;
    }

    /** The share settings of a group: its configuration over the broker's defaults. */
    @Override
    public ShareGroupSettings settings(String groupId) {
        return effective(groupId).share();
    }

    /** A group's effective settings. */
    public GroupConfigDef.Effective effective(String groupId) {
        Entry entry = groupId == null ? null : groups.get(groupId);
        return entry == null ? definition.defaults() : entry.effective();
    }

    /** The keys a group sets, as this broker's cache holds them (empty if none). */
    public Map<String, String> stored(String groupId) {
        Entry entry = groups.get(groupId);
        return entry == null ? Map.of() : entry.stored();
    }

    /**
     * Applies {@code change} to the group's stored configuration, validates the result ({@link
     * GroupConfigDef#parse}) and writes it unless {@code validateOnly}. ZooKeeper I/O: the admin thread.
     *
     * @return the configuration after the change
     * @throws InvalidConfigurationException naming the key at fault
     * @throws InvalidRequestException       for a group id that cannot name a znode
     */
    public Map<String, String> alter(String groupId, UnaryOperator<Map<String, String>> change,
                                     boolean validateOnly) {
        checkStorable(groupId);
        Map<String, String> after = store.alterConfigAt(ZkPaths.groupConfig(groupId), current -> {
            Map<String, String> next = change.apply(current);
            definition.parse(next);
            return next;
        }, validateOnly, "the configuration of group " + groupId);
        if (!validateOnly) {
            log.info("Configuration of group {} is now {}", groupId, after);
        }
        return after;
    }

    /** Completes once this broker's cache holds {@code expected} for the group (callers bound the wait). */
    public CompletableFuture<Void> whenApplied(String groupId, Map<String, String> expected) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        synchronized (waiters) {
            if (stored(groupId).equals(expected)) {
                future.complete(null);
            } else {
                waiters.add(new Waiter(groupId, Map.copyOf(expected), future));
            }
        }
        return future;
    }

    /**
     * ZooKeeper node names cannot hold every string a group id may be ("/", "." and ".."): such groups cannot be
     * configured here (Kafka keeps group configurations in its metadata log, without this limit).
     */
    private static void checkStorable(String groupId) {
        if (groupId == null || groupId.isEmpty() || groupId.contains("/") || groupId.equals(".")
                || groupId.equals("..") || groupId.indexOf('\u0000') >= 0) {
            throw new InvalidRequestException("Group '" + groupId + "' cannot be configured: a configurable group "
                    + "id is not empty, not '.' or '..', and has no '/'");
        }
    }

    private void update(ChildData node) {
        String groupId = groupIdOf(node);
        if (groupId == null) {
            return;
        }
        Map<String, String> stored;
        try {
            stored = Map.copyOf(ZkJson.parseTopicConfig(node.getPath(), node.getData()));
        } catch (ClusterException e) {
            log.error("Ignoring the configuration of group {}: {}", groupId, e.getMessage());
            return;
        }
        GroupConfigDef.Effective effective;
        try {
            effective = definition.parse(stored);
        } catch (InvalidConfigurationException e) {
            // Validated when written: only a hand-edited znode or changed broker bounds get here.
            log.error("Group {} gets the default settings: its configuration {} is invalid: {}", groupId, stored,
                    e.getMessage());
            effective = definition.defaults();
        }
        groups.put(groupId, new Entry(stored, effective));
        notifyWaiters(groupId);
    }

    private void remove(ChildData node) {
        String groupId = groupIdOf(node);
        if (groupId != null) {
            groups.remove(groupId);
            notifyWaiters(groupId);
        }
    }

    private void notifyWaiters(String groupId) {
        synchronized (waiters) {
            Iterator<Waiter> it = waiters.iterator();
            while (it.hasNext()) {
                Waiter waiter = it.next();
                if (waiter.future().isDone()) {
                    it.remove();
                } else if (waiter.groupId().equals(groupId) && stored(groupId).equals(waiter.expected())) {
                    waiter.future().complete(null);
                    it.remove();
                }
            }
        }
    }

    /** The group of a child of {@code /config/groups}, or null for the parent itself. */
    private static String groupIdOf(ChildData node) {
        String parent = ZKPaths.getPathAndNode(node.getPath()).getPath();
        return parent.equals(ZkPaths.CONFIG_GROUPS) ? ZKPaths.getNodeFromPath(node.getPath()) : null;
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.CLOSED) {
            return;
        }
        cache.close();
        synchronized (waiters) {
            waiters.forEach(w -> w.future().completeExceptionally(new IllegalStateException("group configs closed")));
            waiters.clear();
        }
    }
}
