package io.tributary.broker.security;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a principal may perform an operation on a resource, with Kafka's ACL semantics: super users may do
 * everything; a resource no ACL matches is open only if {@code allow.everyone.if.no.acl.found}; otherwise a matching
 * DENY wins over any ALLOW, and an ALLOW of the operation itself, of one that implies it (Read, Write, Delete and
 * Alter imply Describe; AlterConfigs implies DescribeConfigs) or of All grants it. An ACL matches a resource when its
 * pattern is LITERAL with the same name or the wildcard {@code *}, or PREFIXED with a prefix of the name; it applies to
 * a request when its principal is the requester's or {@code User:*} and its host is the client's address or {@code *}.
 *
 * <p>The ACLs are a concurrent map from resource pattern to an immutable set of entries, each set replaced whole by
 * {@link #update} (called by the ZooKeeper ACL store: its cache listener and, after a write, the writing thread), so
 * that {@link #authorize}, called on request-handler threads, never waits for ZooKeeper or a lock, and loading
 * {@code n} patterns at start-up costs {@code n} map updates, not {@code n} copies of the map.
 *
 * <p>Denials are logged at INFO on the {@code kafka.authorizer.logger} logger, as Kafka does, once per principal,
 * operation and resource in each {@link #DENIAL_LOG_INTERVAL_MS} (a client retrying a refused produce would otherwise
 * write a line per retry); grants at DEBUG.
 */
public final class AclAuthorizer {

    private static final Logger authorizerLog = LoggerFactory.getLogger("kafka.authorizer.logger");

    /** A denial is logged again after this long: one line per burst of retries, not per retry. */
    static final long DENIAL_LOG_INTERVAL_MS = 60_000;
    /** Beyond this many remembered denials the memory is cleared; a hostile client cannot grow it without bound. */
    private static final int MAX_REMEMBERED_DENIALS = 10_000;

    public static final String WILDCARD = ResourcePattern.WILDCARD_RESOURCE;
    private static final String WILDCARD_PRINCIPAL = "User:*";
    private static final String WILDCARD_HOST = "*";

    private final AuthorizerConfig config;
    private final Time time;
    /** The ACLs by resource pattern; each set immutable, never empty. Written by {@link #update} only. */
    private final Map<ResourcePattern, Set<AccessControlEntry>> acls = new ConcurrentHashMap<>();
    /** When each denial was last logged, by "principal operation resource". */
    private final Map<String, Long> lastDenialLogged = new ConcurrentHashMap<>();

    public AclAuthorizer(AuthorizerConfig config, Time time) {
        this.config = config;
        this.time = time;
    }

    /** Replaces the ACLs of the given patterns (an empty set removes them). */
    public void update(Map<ResourcePattern, Set<AccessControlEntry>> changes) {
        changes.forEach((pattern, entries) -> {
            if (entries.isEmpty()) {
                acls.remove(pattern);
            } else {
                acls.put(pattern, Set.copyOf(entries));
            }
        });
    }

    /** Every ACL, as bindings. */
    public List<AclBinding> bindings() {
        List<AclBinding> result = new ArrayList<>();
        acls.forEach((pattern, entries) -> entries.forEach(entry -> result.add(new AclBinding(pattern, entry))));
        return result;
    }

    /** The ACLs of one pattern, empty if it has none. */
    public Set<AccessControlEntry> acls(ResourcePattern pattern) {
        return acls.getOrDefault(pattern, Set.of());
    }

    /**
     * Whether {@code principal} connecting from {@code host} may perform {@code operation} on the resource; a denial
     * is logged, for the request is refused because of it.
     */
    public boolean authorize(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type,
                             String name) {
        boolean allowed = decide(principal, host, operation, type, name);
        log(allowed, principal, host, operation, type, name);
        return allowed;
    }

    /**
     * As {@link #authorize}, without logging a denial: for what only narrows an answer (the topics of an all-topics
     * Metadata, the groups of ListGroups) or has another way to be allowed (Create on the cluster, then the topic).
     */
    public boolean isAllowed(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type,
                             String name) {
        return decide(principal, host, operation, type, name);
    }

    /**
     * Whether the principal may write to some topic: a super user, or an ALLOW of Write (or All) on any topic pattern
     * for it or {@code User:*} from its host, with no DENY of Write on every topic ({@code *}). An idempotent producer
     * needs this, or IdempotentWrite on the cluster, to get a producer id, as in Kafka 3+.
     */
    public boolean mayWriteSomeTopic(KafkaPrincipal principal, InetAddress host) {
        if (config.superUsers().contains(principal)) {
            return true;
        }
        String principalName = principal.toString();
        String address = host.getHostAddress();
        boolean allow = false;
        for (Map.Entry<ResourcePattern, Set<AccessControlEntry>> acl : acls.entrySet()) {
            if (acl.getKey().resourceType() != ResourceType.TOPIC) {
                continue;
            }
            boolean everyTopic = acl.getKey().name().equals(WILDCARD)
                    && acl.getKey().patternType() == PatternType.LITERAL;
            for (AccessControlEntry entry : acl.getValue()) {
                if (!appliesTo(entry, principalName, address)
                        || (entry.operation() != AclOperation.WRITE && entry.operation() != AclOperation.ALL)) {
                    continue;
                }
                if (entry.permissionType() == AclPermissionType.DENY && everyTopic) {
                    return false;
                }
                allow |= entry.permissionType() == AclPermissionType.ALLOW;
            }
        }
        return allow;
    }

    private boolean decide(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type,
                           String name) {
        if (config.superUsers().contains(principal)) {
            return true;
        }
        List<AccessControlEntry> matching = matching(type, name);
        if (matching.isEmpty()) {
            return config.allowEveryoneIfNoAclFound();
        }
        String principalName = principal.toString();
        String address = host.getHostAddress();
        Set<AclOperation> granting = implying(operation);
        boolean allow = false;
        for (AccessControlEntry entry : matching) {
            if (!appliesTo(entry, principalName, address)) {
                continue;
            }
            if (entry.permissionType() == AclPermissionType.DENY) {
                // A DENY matches its own operation or All, never the operations its operation would imply.
                if (entry.operation() == operation || entry.operation() == AclOperation.ALL) {
                    return false;
                }
            } else if (entry.permissionType() == AclPermissionType.ALLOW && granting.contains(entry.operation())) {
                allow = true;
            }
        }
        return allow;
    }

    /** The ACLs whose pattern matches the resource: its literal name, the wildcard, and each prefixed prefix. */
    private List<AccessControlEntry> matching(ResourceType type, String name) {
        List<AccessControlEntry> result = new ArrayList<>();
        addAll(result, acls.get(new ResourcePattern(type, name, PatternType.LITERAL)));
        if (!name.equals(WILDCARD)) {
            addAll(result, acls.get(new ResourcePattern(type, WILDCARD, PatternType.LITERAL)));
        }
        // One lookup per prefix length: names are short (at most 249 characters for topics) and lookups are hashes.
        for (int end = 1; end <= name.length(); end++) {
            addAll(result, acls.get(new ResourcePattern(type, name.substring(0, end), PatternType.PREFIXED)));
        }
        return result;
    }

    private static void addAll(List<AccessControlEntry> to, Collection<AccessControlEntry> entries) {
        if (entries != null) {
            to.addAll(entries);
        }
    }

    private static boolean appliesTo(AccessControlEntry entry, String principal, String address) {
        return (entry.principal().equals(principal) || entry.principal().equals(WILDCARD_PRINCIPAL))
                && (entry.host().equals(WILDCARD_HOST) || entry.host().equals(address));
    }

    /** The operations whose ALLOW grants {@code operation}. */
    static Set<AclOperation> implying(AclOperation operation) {
        return switch (operation) {
            case DESCRIBE -> Set.of(AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE,
                    AclOperation.DELETE, AclOperation.ALTER, AclOperation.ALL);
            case DESCRIBE_CONFIGS -> Set.of(AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
                    AclOperation.ALL);
            default -> Set.of(operation, AclOperation.ALL);
        };
    }

    private void log(boolean allowed, KafkaPrincipal principal, InetAddress host, AclOperation operation,
                     ResourceType type, String name) {
        if (allowed) {
            if (authorizerLog.isDebugEnabled()) {
                authorizerLog.debug(line(principal, "Allowed", host, operation, type, name));
            }
            return;
        }
        if (!authorizerLog.isInfoEnabled()) {
            return;
        }
        String key = principal + " " + operation + " " + type + ":" + name;
        long now = time.milliseconds();
        Long last = lastDenialLogged.get(key);
        if (last != null && now - last < DENIAL_LOG_INTERVAL_MS) {
            return;
        }
        if (lastDenialLogged.size() >= MAX_REMEMBERED_DENIALS) {
            lastDenialLogged.clear();
        }
        lastDenialLogged.put(key, now);
        authorizerLog.info(line(principal, "Denied", host, operation, type, name));
    }

    private static String line(KafkaPrincipal principal, String verdict, InetAddress host, AclOperation operation,
                               ResourceType type, String name) {
        return "Principal = " + principal + " is " + verdict + " Operation = " + pascal(operation.name())
                + " from host = " + host.getHostAddress() + " on resource = " + pascal(type.name()) + ":LITERAL:"
                + name;
    }

    /** Kafka's names in logs and znodes: {@code DESCRIBE_CONFIGS} → {@code DescribeConfigs}. */
    public static String pascal(String enumName) {
        StringBuilder result = new StringBuilder();
        for (String word : enumName.split("_")) {
            result.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return result.toString();
    }
}
