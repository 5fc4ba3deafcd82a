package io.tributary.broker.quota;

import java.util.Map;

/**
 * Every configured client quota, and which one applies to a client: an immutable snapshot of the quota znodes,
 * replaced whole when one changes.
 *
 * <p>Precedence, as Kafka documents it (the first entity that has the quota wins):
 * <ol>
 *   <li>{@code /config/users/<user>/clients/<client-id>}</li>
 *   <li>{@code /config/users/<user>/clients/<default>}</li>
 *   <li>{@code /config/users/<user>}</li>
 *   <li>{@code /config/users/<default>/clients/<client-id>}</li>
 *   <li>{@code /config/users/<default>/clients/<default>}</li>
 *   <li>{@code /config/users/<default>}</li>
 *   <li>{@code /config/clients/<client-id>}</li>
 *   <li>{@code /config/clients/<default>}</li>
 * </ol>
 * A quota from a default entity is still per client: each user (or client id) it covers has that rate to itself.
 * The metric tags say which clients share a measurement: the user and/or client id of the matching entity, with the
 * part the entity lacks left empty, as Kafka tags them.
 *
 * @param values entity → quota key → value
 */
public record ClientQuotas(Map<QuotaEntity, Map<String, Double>> values) {

    public static final ClientQuotas NONE = new ClientQuotas(Map.of());

    /** The quota that applies, with the tags of the clients it is measured over. */
    public record Applied(double bound, String userTag, String clientIdTag) {
    }

    public ClientQuotas {
        values = Map.copyOf(values);
    }

    /**
     * The quota of {@code type} for a client, or null if none applies.
     *
     * @param user     the principal's name, sanitized ({@code ANONYMOUS} for unauthenticated clients)
     * @param clientId the client id, sanitized
     */
    public Applied resolve(QuotaType type, String user, String clientId) {
        String d = QuotaEntity.DEFAULT;
        Double bound;
        if ((bound = find(type, user, clientId)) != null || (bound = find(type, user, d)) != null) {
            return new Applied(bound, user, clientId);
        }
        if ((bound = find(type, user, null)) != null) {
            return new Applied(bound, user, "");
        }
        if ((bound = find(type, d, clientId)) != null || (bound = find(type, d, d)) != null) {
            return new Applied(bound, user, clientId);
        }
        if ((bound = find(type, d, null)) != null) {
            return new Applied(bound, user, "");
        }
        if ((bound = find(type, null, clientId)) != null || (bound = find(type, null, d)) != null) {
            return new Applied(bound, "", clientId);
        }
        return null;
    }

    private Double find(QuotaType type, String user, String clientId) {
        Map<String, Double> config = values.get(new QuotaEntity(user, clientId));
        return config == null ? null : config.get(type.key());
    }
}
