package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.broker.security.AclAuthorizer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * ACLs in ZooKeeper, in the layout of Kafka's ZooKeeper mode: LITERAL patterns at
 * {@code /kafka-acl/<ResourceType>/<name>}, PREFIXED ones at {@code /kafka-acl-extended/prefixed/<ResourceType>/<name>}
 * ({@code ResourceType} as Kafka spells it: {@code Topic}, {@code Group}, {@code Cluster}, {@code TransactionalId}),
 * each holding
 * {@code {"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}}.
 *
 * <p>Every broker watches both trees with a Curator {@link CuratorCache} and hands each change to its
 * {@link AclAuthorizer}, so that authorization never waits for ZooKeeper and a change made through any broker reaches
 * the others within a ZooKeeper round trip. (Kafka's ZooKeeper-mode brokers learned of changes through sequential
 * {@code /kafka-acl-changes} notifications instead; watching the ACL znodes directly needs no such log, and none is
 * written.)
 *
 * <p>Threads: {@link #add} and {@link #delete} block on ZooKeeper and run on the admin thread; each applies its
 * change to the local authorizer at once, so that the broker's own clients see it without waiting for the watch.
 * The cache's listener thread is the other writer of the authorizer's ACLs. {@link #close()} is idempotent.
 */
public final class AclStore implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AclStore.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int MAX_ATTEMPTS = 10;

    private enum State { NEW, RUNNING, CLOSED }

    private final CuratorFramework zk;
    private final AclAuthorizer authorizer;
    private final CuratorCache literal;
    private final CuratorCache prefixed;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

    public AclStore(CuratorFramework zk, AclAuthorizer authorizer) {
        this.zk = zk;
        this.authorizer = authorizer;
        this.literal = CuratorCache.build(zk, ZkPaths.ACLS_LITERAL);
        this.prefixed = CuratorCache.build(zk, ZkPaths.ACLS_PREFIXED);
    }

    /** Loads every ACL into the authorizer and follows changes. */
    void start(long timeoutMs) {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("ACL store already started or closed: " + state.get());
        }
        ZkCacheLoading.startAndAwait(List.of(literal, prefixed), this::update, this::remove, timeoutMs, "the ACLs");
        log.info("Loaded {} ACLs", authorizer.bindings().size());
    }

    private void update(ChildData node) {
        ResourcePattern pattern = patternOf(node.getPath());
        if (pattern == null) {
            return;
        }
        try {
            authorizer.update(Map.of(pattern, parse(node.getData())));
        } catch (RuntimeException e) {
            // A hand-edited znode that does not parse: its resource is treated as having no ACLs until it is fixed.
            authorizer.update(Map.of(pattern, Set.of()));
            log.warn("Ignoring the ACLs at {}: {}", node.getPath(), e.toString());
        }
    }

    private void remove(ChildData node) {
        ResourcePattern pattern = patternOf(node.getPath());
        if (pattern != null) {
            authorizer.update(Map.of(pattern, Set.of()));
        }
    }

    /** The pattern a znode stands for, or null for the roots and the resource-type parents. */
    static ResourcePattern patternOf(String path) {
        PatternType patternType;
        String rest;
        if (path.startsWith(ZkPaths.ACLS_PREFIXED + "/")) {
            patternType = PatternType.PREFIXED;
            rest = path.substring(ZkPaths.ACLS_PREFIXED.length() + 1);
        } else if (path.startsWith(ZkPaths.ACLS_LITERAL + "/")) {
            patternType = PatternType.LITERAL;
            rest = path.substring(ZkPaths.ACLS_LITERAL.length() + 1);
        } else {
            return null;
        }
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            return null;
        }
        ResourceType type = resourceType(rest.substring(0, slash));
        return type == null ? null : new ResourcePattern(type, rest.substring(slash + 1), patternType);
    }

    private static ResourceType resourceType(String zkName) {
        for (ResourceType type : ResourceType.values()) {
            if (type != ResourceType.ANY && type != ResourceType.UNKNOWN
                    && AclAuthorizer.pascal(type.name()).equals(zkName)) {
                return type;
            }
        }
        return null;
    }

    static String path(ResourcePattern pattern) {
        String root = pattern.patternType() == PatternType.PREFIXED ? ZkPaths.ACLS_PREFIXED : ZkPaths.ACLS_LITERAL;
        return root + "/" + AclAuthorizer.pascal(pattern.resourceType().name()) + "/" + pattern.name();
    }

    static Set<AccessControlEntry> parse(byte[] data) {
        try {
            JsonNode root = MAPPER.readTree(data);
            Set<AccessControlEntry> entries = new LinkedHashSet<>();
            for (JsonNode acl : root.path("acls")) {
                entries.add(new AccessControlEntry(acl.path("principal").asText(), acl.path("host").asText("*"),
                        fromPascal(AclOperation.values(), acl.path("operation").asText(), AclOperation.UNKNOWN),
                        fromPascal(AclPermissionType.values(), acl.path("permissionType").asText(),
                                AclPermissionType.UNKNOWN)));
            }
            return entries;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not ACL JSON: " + e.getMessage(), e);
        }
    }

    /** Kafka's znode spelling ({@code IdempotentWrite}, {@code Allow}) back to the enum; {@code unknown} if none. */
    private static <E extends Enum<E>> E fromPascal(E[] values, String name, E unknown) {
        for (E value : values) {
            if (AclAuthorizer.pascal(value.name()).equalsIgnoreCase(name) || value.name().equalsIgnoreCase(name)) {
                return value;
            }
        }
        return unknown;
    }

    /**
     * Whether a pattern's name can be a znode name: no '/', nothing ZooKeeper refuses in a path (control characters,
     * some Unicode ranges, "." and ".." as a whole name).
     */
    public static boolean isStorable(ResourcePattern pattern) {
        if (pattern.name().isEmpty() || pattern.name().contains("/")) {
            return false;
        }
        try {
            org.apache.zookeeper.common.PathUtils.validatePath(path(pattern));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static byte[] json(Set<AccessControlEntry> entries) {
        ObjectNode root = MAPPER.createObjectNode().put("version", 1);
        ArrayNode acls = root.putArray("acls");
        for (AccessControlEntry entry : entries) {
            acls.addObject().put("principal", entry.principal())
                    .put("permissionType", AclAuthorizer.pascal(entry.permissionType().name()))
                    .put("operation", AclAuthorizer.pascal(entry.operation().name()))
                    .put("host", entry.host());
        }
        return root.toString().getBytes(UTF_8);
    }

    /** Adds the ACLs (those already present are kept once). Blocks on ZooKeeper: not for an event loop. */
    public void add(List<AclBinding> bindings) {
        Map<ResourcePattern, List<AccessControlEntry>> byPattern = new LinkedHashMap<>();
        for (AclBinding binding : bindings) {
            byPattern.computeIfAbsent(binding.pattern(), p -> new ArrayList<>()).add(binding.entry());
        }
        byPattern.forEach((pattern, entries) -> change(pattern, current -> {
            current.addAll(entries);
            return current;
        }));
        log.info("Added the ACLs {}", bindings);
    }

    /**
     * Deletes every ACL each filter matches, as found in this broker's cache. Blocks on ZooKeeper.
     *
     * @return for each filter, in order, the ACLs it deleted
     */
    public List<List<AclBinding>> delete(List<AclBindingFilter> filters) {
        List<List<AclBinding>> deleted = new ArrayList<>();
        Map<ResourcePattern, Set<AccessControlEntry>> removals = new HashMap<>();
        List<AclBinding> all = authorizer.bindings();
        for (AclBindingFilter filter : filters) {
            List<AclBinding> matched = all.stream().filter(filter::matches).toList();
            deleted.add(matched);
            matched.forEach(b -> removals.computeIfAbsent(b.pattern(), p -> new LinkedHashSet<>()).add(b.entry()));
        }
        removals.forEach((pattern, entries) -> change(pattern, current -> {
            current.removeAll(entries);
            return current;
        }));
        if (!removals.isEmpty()) {
            log.info("Deleted the ACLs {}", deleted);
        }
        return deleted;
    }

    /** Changes one pattern's ACLs with conditional writes, deleting its znode when none are left. */
    private void change(ResourcePattern pattern, UnaryOperator<Set<AccessControlEntry>> change) {
        String path = path(pattern);
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            try {
                Optional<Stat> stat = Optional.ofNullable(zk.checkExists().forPath(path));
                Set<AccessControlEntry> current = new LinkedHashSet<>();
                Stat read = new Stat();
                if (stat.isPresent()) {
                    current.addAll(parse(zk.getData().storingStatIn(read).forPath(path)));
                }
                Set<AccessControlEntry> after = change.apply(current);
                if (stat.isEmpty()) {
                    if (after.isEmpty()) {
                        authorizer.update(Map.of(pattern, Set.of()));
                        return;
                    }
                    zk.create().creatingParentsIfNeeded().forPath(path, json(after));
                } else if (after.isEmpty()) {
                    zk.delete().withVersion(read.getVersion()).forPath(path);
                } else {
                    zk.setData().withVersion(read.getVersion()).forPath(path, json(after));
                }
                authorizer.update(Map.of(pattern, after));
                return;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException
                     | KeeperException.NodeExistsException e) {
                // another broker changed the same pattern in between: read again
            } catch (Exception e) {
                throw ClusterException.wrap("writing the ACLs at " + path, e);
            }
        }
        throw new ClusterException("the ACLs at " + path + " kept changing during " + MAX_ATTEMPTS
                + " attempts to change them");
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.RUNNING) {
            literal.close();
            prefixed.close();
        }
    }
}
