package io.tributary.jms;

/**
 * How a JMS consumer reads its topic, and the consumer group that keeps its position (README, "JMS on the log"):
 * <ul>
 *   <li>queue {@code Q}: group {@code Q}, shared by every receiver of the queue, from the earliest offset;</li>
 *   <li>non-durable topic subscription: no group, assigned every partition, from the end of the log;</li>
 *   <li>durable subscription {@code name} of client {@code C}: group {@code jms.durable.C.name}, from the end of
 *       the log when it is created, then from its committed offsets;</li>
 *   <li>shared durable subscription {@code name}: group {@code jms.shared-durable.[C.]name};</li>
 *   <li>shared non-durable subscription {@code name}: group {@code jms.shared.[C.]name}, removed with its last
 *       consumer.</li>
 * </ul>
 *
 * <p>A durable subscription's offsets are committed with {@link #offsetMetadata()}, its {@link SubscriptionDefinition}.
 *
 * @param groupId         the consumer group, or null for a non-durable subscription
 * @param resetPolicy     where a group without committed offsets starts: {@code earliest} or {@code latest}
 * @param name            the subscription name, or null
 * @param offsetMetadata  the metadata committed with every offset: the {@link SubscriptionDefinition} of a durable
 *                        subscription, empty for the others
 */
record Subscription(Kind kind, String topic, String groupId, String resetPolicy, String name,
                    String offsetMetadata) {

    enum Kind { QUEUE, NON_DURABLE, DURABLE, SHARED, SHARED_DURABLE }

    static Subscription queue(String topic) {
        return new Subscription(Kind.QUEUE, topic, topic, "earliest", null, "");
    }

    static Subscription nonDurable(String topic) {
        return new Subscription(Kind.NON_DURABLE, topic, null, "latest", null, "");
    }

    static Subscription durable(String topic, String clientId, String name, String selector, boolean noLocal) {
        return new Subscription(Kind.DURABLE, topic, durableGroupId(clientId, name), "latest", name,
                SubscriptionDefinition.of(topic, selector, noLocal));
    }

    static Subscription sharedDurable(String topic, String clientId, String name, String selector) {
        return new Subscription(Kind.SHARED_DURABLE, topic, sharedDurableGroupId(clientId, name), "latest", name,
                SubscriptionDefinition.of(topic, selector, false));
    }

    static Subscription shared(String topic, String clientId, String name) {
        return new Subscription(Kind.SHARED, topic, "jms.shared." + (clientId == null ? "" : clientId + ".") + name,
                "latest", name, "");
    }

    /** Whether committed offset metadata shows this durable subscription defined otherwise. */
    boolean definedOtherwiseThan(String committedMetadata) {
        return SubscriptionDefinition.differs(committedMetadata, offsetMetadata);
    }

    static String durableGroupId(String clientId, String name) {
        return "jms.durable." + clientId + "." + name;
    }

    static String sharedDurableGroupId(String clientId, String name) {
        return "jms.shared-durable." + (clientId == null ? "" : clientId + ".") + name;
    }

    boolean isDurable() {
        return kind == Kind.DURABLE || kind == Kind.SHARED_DURABLE;
    }

    /** Whether the position must be fixed when the consumer is created (subscriptions start "now"). */
    boolean startsAtCreation() {
        return kind != Kind.QUEUE;
    }
}
