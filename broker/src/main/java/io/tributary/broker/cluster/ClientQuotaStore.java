package io.tributary.broker.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.broker.quota.ClientQuotas;
import io.tributary.broker.quota.QuotaEntity;
import io.tributary.broker.quota.QuotaType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client quotas in ZooKeeper, in Kafka's ZooKeeper-mode layout: {@code /config/users/<user>},
 * {@code /config/users/<user>/clients/<client-id>} and {@code /config/clients/<client-id>}, names sanitized
 * (URL-encoded) and {@code <default>} for the default entity, each holding
 * {@code {"version":1,"config":{"producer_byte_rate":"1024","request_percentage":"200.0"}}}. A user's znode is the
 * one that also holds the user's SCRAM credentials ({@link ScramCredentialStore}): every change is a conditional
 * read-change-write of the whole config that keeps the keys it does not own, so neither clobbers the other.
 *
 * <p>Every broker watches {@code /config/users} and {@code /config/clients} with Curator {@link CuratorCache}s (as
 * the SCRAM credentials and ACLs are followed) and keeps an immutable {@link ClientQuotas} snapshot for the request
 * path; a change made on any broker reaches the others within a ZooKeeper round trip.
 *
 * <p>Threads: {@link #quotas} from any thread; the caches' listeners and {@link #alter} (which applies its change at
 * once on the broker that made it) write the snapshot. {@link #close()} is idempotent.
 */
public final class ClientQuotaStore implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClientQuotaStore.class);

    private static final String CONFIG_CLIENTS = "/config/clients";
    private static final String CLIENTS = "clients";

    private enum State { NEW, RUNNING, CLOSED }

    private final CuratorFramework zk;
    private final TopicStore store;
    private final List<CuratorCache> caches;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final Map<QuotaEntity, Map<String, Double>> entities = new ConcurrentHashMap<>();
    /** Rebuilt from {@link #entities} after every change; read on every produce and fetch. */
    private volatile ClientQuotas snapshot = ClientQuotas.NONE;

    ClientQuotaStore(CuratorFramework zk, TopicStore store) {
        this.zk = zk;
        this.store = store;
        this.caches = List.of(CuratorCache.build(zk, ZkPaths.CONFIG_USERS), CuratorCache.build(zk, CONFIG_CLIENTS));
    }

    /** Loads every quota and follows changes. */
    void start(long timeoutMs) {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("client quota store already started or closed: " + state.get());
        }
        try {
            zk.create().creatingParentsIfNeeded().forPath(CONFIG_CLIENTS);
        } catch (KeeperException.NodeExistsException e) {
            // created by an earlier broker
        } catch (Exception e) {
            throw ClusterException.wrap("creating " + CONFIG_CLIENTS, e);
        }
        ZkCacheLoading.startAndAwait(caches, this::update, this::remove, timeoutMs, "the client quotas");
        log.info("Loaded the client quotas of {} entities", snapshot.values().size());
    }

    /** The quotas now. */
    public ClientQuotas quotas() {
        return snapshot;
    }

    private void update(ChildData node) {
        QuotaEntity entity = entityOf(node.getPath());
        if (entity == null) {
            return;
        }
        try {
            put(entity, node.getData() == null || node.getData().length == 0 ? Map.of()
                    : ZkJson.parseTopicConfig(node.getPath(), node.getData()));
        } catch (RuntimeException e) {
            entities.remove(entity);
            refresh();
            log.warn("Ignoring the client quotas at {}: {}", node.getPath(), e.toString());
        }
    }

    private void remove(ChildData node) {
        QuotaEntity entity = entityOf(node.getPath());
        if (entity != null && entities.remove(entity) != null) {
            refresh();
        }
    }

    private void put(QuotaEntity entity, Map<String, String> config) {
        Map<String, Double> quotas = new HashMap<>();
        config.forEach((key, value) -> {
            if (QuotaType.forKey(key) != null && value != null) {
                try {
                    quotas.put(key, Double.parseDouble(value));
                } catch (NumberFormatException e) {
                    log.warn("Ignoring the client quota {}={} of {}: not a number", key, value, entity);
                }
            }
        });
        if (quotas.isEmpty()) {
            entities.remove(entity);
        } else {
            entities.put(entity, Map.copyOf(quotas));
        }
        refresh();
    }

    private synchronized void refresh() {
        snapshot = new ClientQuotas(entities);
    }

    /** The entity of a quota znode, or null for a parent ({@code /config/users}, {@code .../clients}). */
    static QuotaEntity entityOf(String path) {
        String[] parts = path.split("/");
        // "", "config", "users" | "clients", name [, "clients", name]
        if (parts.length == 4 && parts[2].equals("clients")) {
            return QuotaEntity.client(parts[3]);
        }
        if (parts.length == 4 && parts[2].equals("users")) {
            return QuotaEntity.user(parts[3]);
        }
        if (parts.length == 6 && parts[2].equals("users") && parts[4].equals(CLIENTS)) {
            return new QuotaEntity(parts[3], parts[5]);
        }
        return null;
    }

    /** The znode of an entity's config. */
    static String pathOf(QuotaEntity entity) {
        if (entity.user() == null) {
            return CONFIG_CLIENTS + "/" + entity.clientId();
        }
        String user = ZkPaths.CONFIG_USERS + "/" + entity.user();
        return entity.clientId() == null ? user : user + "/" + CLIENTS + "/" + entity.clientId();
    }

    /**
     * Sets and removes quotas of one entity with a conditional write, keeping every other key of its znode (a
     * user's SCRAM credentials). With {@code validateOnly} nothing is written. Blocks on ZooKeeper: not for an
     * event loop or a request-handler thread.
     *
     * @param set    key → value, already validated
     * @param remove keys to remove
     */
    public void alter(QuotaEntity entity, Map<String, String> set, Set<String> remove, boolean validateOnly) {
        String path = pathOf(entity);
        if (!validateOnly && entity.user() != null && entity.clientId() != null) {
            ensureParents(ZkPaths.CONFIG_USERS + "/" + entity.user());
        }
        Map<String, String> after = store.alterConfigAt(path, config -> {
            remove.forEach(config::remove);
            config.putAll(set);
            return config;
        }, validateOnly, "the client quotas of " + entity);
        if (!validateOnly) {
            put(entity, after);
            log.info("Altered the client quotas of {}: set {}, removed {}", entity, set, remove);
        }
    }

    /**
     * A user's znode, with an empty config if it has none, and its {@code clients} child, before a quota of that
     * user and a client id is written below them: parents created bare would hold no JSON for the readers of the
     * user's znode.
     */
    private void ensureParents(String userPath) {
        try {
            if (zk.checkExists().forPath(userPath) == null) {
                store.alterConfigAt(userPath, config -> config, false, "the config of " + userPath);
            }
            zk.create().forPath(userPath + "/" + CLIENTS);
        } catch (KeeperException.NodeExistsException e) {
            // there already
        } catch (ClusterException e) {
            throw e;
        } catch (Exception e) {
            throw ClusterException.wrap("creating " + userPath + "/" + CLIENTS, e);
        }
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.RUNNING) {
            caches.forEach(CuratorCache::close);
        }
    }
}
