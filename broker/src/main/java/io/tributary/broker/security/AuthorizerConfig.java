package io.tributary.broker.security;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.internals.SecurityUtils;

/**
 * The authorization part of the broker configuration, under Kafka's names: {@code authorizer.class.name},
 * {@code super.users} ({@code User:admin;User:broker}) and {@code allow.everyone.if.no.acl.found}. Parsed once, at
 * start-up; an authorizer class other than Kafka's ZooKeeper-mode {@code kafka.security.authorizer.AclAuthorizer} or
 * Tributary's {@link AclAuthorizer} is refused with a {@link ConfigException} naming the property, because Tributary
 * loads no plug-in authorizers and silently authorizing nothing would be worse. Immutable.
 */
public final class AuthorizerConfig {

    public static final String AUTHORIZER_CLASS_NAME = "authorizer.class.name";
    public static final String SUPER_USERS = "super.users";
    public static final String ALLOW_EVERYONE_IF_NO_ACL_FOUND = "allow.everyone.if.no.acl.found";

    /** The class name Kafka's ZooKeeper-mode brokers were configured with; existing configurations keep working. */
    public static final String KAFKA_ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer";
    public static final String TRIBUTARY_ACL_AUTHORIZER = AclAuthorizer.class.getName();

    /** No authorization: every authenticated principal may do everything, as before ACLs existed. */
    public static final AuthorizerConfig DISABLED = new AuthorizerConfig(false, Set.of(), false);

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(AUTHORIZER_CLASS_NAME, Type.STRING, "", Importance.HIGH,
                    "The authorizer: " + KAFKA_ACL_AUTHORIZER + " or " + TRIBUTARY_ACL_AUTHORIZER
                            + " enables ACLs; empty for none.")
            .define(SUPER_USERS, Type.STRING, "", Importance.MEDIUM,
                    "Principals allowed everything, separated by ';': User:admin;User:broker.")
            .define(ALLOW_EVERYONE_IF_NO_ACL_FOUND, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Whether a resource without any ACL is open to everyone.");

    private final boolean enabled;
    private final Set<KafkaPrincipal> superUsers;
    private final boolean allowEveryoneIfNoAclFound;

    private AuthorizerConfig(boolean enabled, Set<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAclFound) {
        this.enabled = enabled;
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
    }

    public static AuthorizerConfig of(Set<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAclFound) {
        return new AuthorizerConfig(true, superUsers, allowEveryoneIfNoAclFound);
    }

    /**
     * The authorization settings among broker properties; other names are ignored.
     *
     * @throws ConfigException naming the property for an unknown authorizer or a malformed super user
     */
    public static AuthorizerConfig parse(Map<String, ?> properties) {
        Map<String, Object> own = new java.util.HashMap<>();
        for (String name : DEFINITION.names()) {
            if (properties.containsKey(name)) {
                own.put(name, properties.get(name));
            }
        }
        Map<String, Object> values = DEFINITION.parse(own);
        String className = ((String) values.get(AUTHORIZER_CLASS_NAME)).trim();
        if (className.isEmpty()) {
            return DISABLED;
        }
        if (!className.equals(KAFKA_ACL_AUTHORIZER) && !className.equals(TRIBUTARY_ACL_AUTHORIZER)) {
            throw new ConfigException(AUTHORIZER_CLASS_NAME, className, "Tributary's only authorizer is its ACL "
                    + "authorizer: " + KAFKA_ACL_AUTHORIZER + " or " + TRIBUTARY_ACL_AUTHORIZER);
        }
        Set<KafkaPrincipal> superUsers = new LinkedHashSet<>();
        for (String entry : ((String) values.get(SUPER_USERS)).split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            try {
                superUsers.add(SecurityUtils.parseKafkaPrincipal(entry.trim()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SUPER_USERS, entry, "expected PrincipalType:name, such as User:admin");
            }
        }
        return new AuthorizerConfig(true, superUsers, (Boolean) values.get(ALLOW_EVERYONE_IF_NO_ACL_FOUND));
    }

    public static Set<String> names() {
        return DEFINITION.names();
    }

    /** Whether requests are authorized at all. */
    public boolean enabled() {
        return enabled;
    }

    public Set<KafkaPrincipal> superUsers() {
        return superUsers;
    }

    public boolean allowEveryoneIfNoAclFound() {
        return allowEveryoneIfNoAclFound;
    }
}
