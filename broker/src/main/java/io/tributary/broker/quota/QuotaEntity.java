package io.tributary.broker.quota;

import java.util.Objects;

/**
 * What a client quota is configured for: a user, a client id, or both, each a name or the default. The names are the
 * ZooKeeper znode names, as Kafka's ZooKeeper mode has them: a user is URL-encoded (Kafka's {@code Sanitizer}), a
 * client id likewise, and {@link #DEFAULT} ({@code <default>}) names the default entity (a real user or client id
 * {@code <default>} is encoded as {@code %3Cdefault%3E}, so the two never meet). A null part is absent. Immutable.
 *
 * @param user     the sanitized user name, {@link #DEFAULT}, or null if the entity has no user part
 * @param clientId the sanitized client id, {@link #DEFAULT}, or null if the entity has no client-id part
 */
public record QuotaEntity(String user, String clientId) {

    /** The znode name of the default user or client id. */
    public static final String DEFAULT = "<default>";

    public QuotaEntity {
        if (user == null && clientId == null) {
            throw new IllegalArgumentException("a quota entity names a user, a client id or both");
        }
    }

    public static QuotaEntity user(String sanitizedUser) {
        return new QuotaEntity(Objects.requireNonNull(sanitizedUser), null);
    }

    public static QuotaEntity client(String sanitizedClientId) {
        return new QuotaEntity(null, Objects.requireNonNull(sanitizedClientId));
    }

    @Override
    public String toString() {
        return (user != null ? "user " + user : "") + (user != null && clientId != null ? ", " : "")
                + (clientId != null ? "client-id " + clientId : "");
    }
}
