package io.tributary.jms.kafka;

/**
 * A pass-through Kafka client property that JMS semantics own was configured: the consumer group, the commit mode,
 * where a new group starts, the record (de)serializers or a transactional id. Such a property is refused rather
 * than applied (it would silently change what the JMS provider and the resource adapter promise) or silently
 * overridden (the setting would be ignored).
 */
public final class OwnedPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String reason;

    OwnedPropertyException(String property, String reason) {
        super("Kafka property '" + property + "' cannot be set: " + reason);
        this.property = property;
        this.reason = reason;
    }

    /** The property as configured, prefix included ({@code consumer.group.id}). */
    public String property() {
        return property;
    }

    /** Why Tributary decides it, for messages that name the property their own way. */
    public String reason() {
        return reason;
    }
}
