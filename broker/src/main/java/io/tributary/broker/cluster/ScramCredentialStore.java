package io.tributary.broker.cluster;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.broker.security.ScramCredentials;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.utils.ZKPaths;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.utils.internals.Sanitizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SCRAM credentials in ZooKeeper, where Kafka kept them before KRaft: {@code /config/users/<user>} (the user name
 * URL-encoded, as Kafka's {@code Sanitizer} does) holding
 * {@code {"version":1,"config":{"SCRAM-SHA-256":"salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=4096"}}},
 * one key per mechanism, in kafka-clients' {@link ScramCredentialUtils} format. Only the salt and the derived keys are
 * stored, never the password.
 *
 * <p>Every broker watches {@code /config/users} with a Curator {@link CuratorCache} and keeps the parsed credentials
 * in memory, so that authentication ({@link #lookup}, on a network event loop) never waits for ZooKeeper; a change
 * made on any broker reaches the others within a ZooKeeper round trip. (Kafka 3.x brokers learned of changes through
 * {@code /config/changes} notifications instead; watching the users' znodes directly needs no such log.)
 *
 * <p>Threads: {@link #lookup} and {@link #describe} from any thread; the cache's listener is the writer of
 * {@link #users}, and so is {@link #alter} on the broker that made a change, which applies it at once so that its
 * own clients see it without waiting for the watch. {@link #close()} is idempotent.
 */
public final class ScramCredentialStore implements ScramCredentials, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScramCredentialStore.class);

    private enum State { NEW, RUNNING, CLOSED }

    private final TopicStore store;
    private final CuratorCache cache;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    /** User name → mechanism → credential; each inner map is immutable and replaced whole. */
    private final Map<String, Map<ScramMechanism, ScramCredential>> users = new ConcurrentHashMap<>();

    ScramCredentialStore(CuratorFramework zk, TopicStore store) {
        this.store = store;
        this.cache = CuratorCache.build(zk, ZkPaths.CONFIG_USERS);
    }

    /** Loads every user's credentials and follows changes. */
    void start(long timeoutMs) {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("SCRAM credential store already started or closed: " + state.get());
        }
        ZkCacheLoading.startAndAwait(List.of(cache), this::update, this::remove, timeoutMs, "the SCRAM credentials");
        log.info("Loaded the SCRAM credentials of {} users", users.size());
    }

    private void update(ChildData node) {
        String user = userOf(node.getPath());
        if (user == null) {
            return;
        }
        try {
            users.put(user, parse(ZkJson.parseTopicConfig(node.getPath(), node.getData())));
        } catch (RuntimeException e) {
            // A hand-edited znode that does not parse: the user cannot authenticate with SCRAM until it is fixed.
            users.remove(user);
            log.warn("Ignoring the SCRAM credentials at {}: {}", node.getPath(), e.toString());
        }
    }

    private void remove(ChildData node) {
        String user = userOf(node.getPath());
        if (user != null) {
            users.remove(user);
        }
    }

    /**
     * The user whose znode this is, or null for the parent itself and for the znodes below a user's
     * ({@code /config/users/<user>/clients/<client-id>}: client quotas, no credentials).
     */
    private static String userOf(String path) {
        if (!path.startsWith(ZkPaths.CONFIG_USERS + "/") || !ZKPaths.getPathAndNode(path).getPath()
                .equals(ZkPaths.CONFIG_USERS)) {
            return null;
        }
        return Sanitizer.desanitize(ZKPaths.getNodeFromPath(path));
    }

    /** The credentials of the mechanisms this broker knows; other keys (quotas, say) are left alone. */
    private static Map<ScramMechanism, ScramCredential> parse(Map<String, String> config) {
        Map<ScramMechanism, ScramCredential> credentials = new HashMap<>();
        for (Map.Entry<String, String> entry : config.entrySet()) {
            ScramMechanism mechanism = ScramMechanism.forMechanismName(entry.getKey());
            if (mechanism != null) {
                credentials.put(mechanism, ScramCredentialUtils.credentialFromString(entry.getValue()));
            }
        }
        return Map.copyOf(credentials);
    }

    @Override
    public ScramCredential lookup(String user, ScramMechanism mechanism) {
        Map<ScramMechanism, ScramCredential> credentials = users.get(user);
        return credentials == null ? null : credentials.get(mechanism);
    }

    /** Every user with a SCRAM credential, and the iterations of each of its mechanisms, by user name. */
    public Map<String, Map<ScramMechanism, Integer>> describe() {
        Map<String, Map<ScramMechanism, Integer>> result = new TreeMap<>();
        users.forEach((user, credentials) -> {
            if (!credentials.isEmpty()) {
                Map<ScramMechanism, Integer> iterations = new TreeMap<>();
                credentials.forEach((mechanism, credential) -> iterations.put(mechanism, credential.iterations()));
                result.put(user, Collections.unmodifiableMap(iterations));
            }
        });
        return Collections.unmodifiableMap(result);
    }

    /**
     * Sets ({@code credential} not null) or deletes one credential of a user, with a conditional write (so that
     * concurrent changes from two brokers never lose one another). Blocks on ZooKeeper: not for an event loop.
     *
     * @return false if a deletion found no such credential
     */
    public boolean alter(String user, ScramMechanism mechanism, ScramCredential credential) {
        String path = ZKPaths.makePath(ZkPaths.CONFIG_USERS, Sanitizer.sanitize(user));
        boolean[] found = {true};
        Map<String, String> after = store.alterConfigAt(path, config -> {
            if (credential != null) {
                config.put(mechanism.mechanismName(), ScramCredentialUtils.credentialToString(credential));
            } else {
                found[0] = config.remove(mechanism.mechanismName()) != null;
            }
            return config;
        }, false, "the SCRAM credentials of user " + user);
        users.put(user, parse(after));
        log.info("{} the {} credential of user {}", credential != null ? "Set" : found[0] ? "Deleted" : "Found no",
                mechanism.mechanismName(), user);
        return found[0];
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.RUNNING) {
            cache.close();
        }
    }
}
