package io.tributary.jms.kafka;

/**
 * How a JMS consumer or a message-driven bean reads its topic, and the consumer group that keeps its position
 * (docs/architecture.md, "JMS on the log"). The JMS provider and the resource adapter both name groups here, so
 * that a JMS client and an MDB of the same queue or subscription share one position:
 * <ul>
 *   <li>queue {@code Q}: group {@code Q}, shared by every receiver of the queue, from the earliest offset when the
 *       group is new;</li>
 *   <li>non-durable, unshared topic subscription: no group, every partition assigned, from the end of the log;</li>
 *   <li>durable subscription {@code name} of client id {@code C}: group {@code jms.durable.C.name}, from the end of
 *       the log when it is created, then from its committed offsets;</li>
 *   <li>shared durable subscription {@code name}: group {@code jms.shared-durable.[C.]name}, likewise;</li>
 *   <li>shared non-durable subscription {@code name}: group {@code jms.shared.[C.]name}, from the end of the log,
 *       deleted with its last consumer.</li>
 * </ul>
 *
 * <p>In the provider's {@code subscriptionMode=share} (the default) the group of a shared subscription, durable or
 * not, is a share group of the same name, and its definition is kept apart
 * ({@link SubscriptionAdmin#storedDefinition}); the resource adapter's subscriptions are consumer groups.
 *
 * <p>A durable subscription's offsets are committed with {@link #offsetMetadata()}, its
 * {@link SubscriptionDefinition}, so that either side sees a subscription created again with another topic,
 * selector or {@code noLocal}.
 *
 * <p>Immutable; any thread.
 *
 * @param groupId        the consumer group, or null for an unshared non-durable subscription
 * @param name           the subscription name, or null (a queue, an unshared non-durable subscription)
 * @param offsetMetadata the metadata committed with every offset: the {@link SubscriptionDefinition} of a durable
 *                       or (from the provider) shared non-durable subscription, empty for the others
 */
public record Subscription(Kind kind, String topic, String groupId, String name, String offsetMetadata) {

    public enum Kind { QUEUE, NON_DURABLE, DURABLE, SHARED, SHARED_DURABLE }

    public static Subscription queue(String topic) {
        return new Subscription(Kind.QUEUE, topic, topic, null, "");
    }

    public static Subscription nonDurable(String topic) {
        return new Subscription(Kind.NON_DURABLE, topic, null, null, "");
    }

    /** An unshared durable subscription; the caller has checked that there is a client id. */
    public static Subscription durable(String topic, String clientId, String name, String selector,
                                       boolean noLocal) {
        return new Subscription(Kind.DURABLE, topic, durableGroupId(clientId, name), name,
                SubscriptionDefinition.of(topic, selector, noLocal));
    }

    /** @param clientId the client id, or null: the subscription is then the cluster's, not one client's */
    public static Subscription sharedDurable(String topic, String clientId, String name, String selector) {
        return new Subscription(Kind.SHARED_DURABLE, topic, sharedDurableGroupId(clientId, name), name,
                SubscriptionDefinition.of(topic, selector, false));
    }

    /**
     * A shared non-durable subscription that commits no definition: joined as it is, whatever topic and selector
     * its other consumers have (the resource adapter's message-driven beans).
     *
     * @param clientId the client id, or null
     */
    public static Subscription shared(String topic, String clientId, String name) {
        return new Subscription(Kind.SHARED, topic, sharedGroupId(clientId, name), name, "");
    }

    /**
     * A shared non-durable subscription whose offsets carry its definition (topic and selector), so that a consumer
     * created with another one while it has active consumers is seen and refused.
     *
     * @param clientId the client id, or null
     */
    public static Subscription shared(String topic, String clientId, String name, String selector) {
        return new Subscription(Kind.SHARED, topic, sharedGroupId(clientId, name), name,
                SubscriptionDefinition.of(topic, selector, false));
    }

    public static String sharedGroupId(String clientId, String name) {
        return "jms.shared." + scope(clientId) + name;
    }

    public static String durableGroupId(String clientId, String name) {
        return "jms.durable." + clientId + "." + name;
    }

    public static String sharedDurableGroupId(String clientId, String name) {
        return "jms.shared-durable." + scope(clientId) + name;
    }

    private static String scope(String clientId) {
        return clientId == null ? "" : clientId + ".";
    }

    /** Where the group starts when it has no committed offsets: {@code earliest} for a queue, else {@code latest}. */
    public String resetPolicy() {
        return kind == Kind.QUEUE ? "earliest" : "latest";
    }

    public boolean hasGroup() {
        return groupId != null;
    }

    public boolean isDurable() {
        return kind == Kind.DURABLE || kind == Kind.SHARED_DURABLE;
    }

    /** Whether the position must be fixed when the consumer is created (subscriptions start "now"). */
    public boolean startsAtCreation() {
        return kind != Kind.QUEUE;
    }

    /** Whether committed offset metadata shows this durable subscription defined otherwise. */
    public boolean definedOtherwiseThan(String committedMetadata) {
        return SubscriptionDefinition.differs(committedMetadata, offsetMetadata);
    }

    /** For logs: "durable subscription jms.durable.C.audit to topic prices". */
    public String describe() {
        return switch (kind) {
            case QUEUE -> "queue " + topic;
            case NON_DURABLE -> "non-durable subscription to topic " + topic;
            case SHARED -> "shared subscription " + groupId + " to topic " + topic;
            case DURABLE -> "durable subscription " + groupId + " to topic " + topic;
            case SHARED_DURABLE -> "shared durable subscription " + groupId + " to topic " + topic;
        };
    }
}
