package io.tributary.ra;

import io.tributary.jms.SubscriptionDefinition;

/**
 * How an activation reads its topic and which consumer group keeps its position. The names are the JMS provider's
 * (README, "How JMS maps onto the log"; {@code io.tributary.jms.Subscription}), so an MDB and a plain JMS client of
 * the same queue or subscription share one position:
 * <ul>
 *   <li>queue {@code Q}: group {@code Q}, from the earliest offset when the group is new;</li>
 *   <li>non-durable, unshared topic subscription: no group, every partition assigned, from the end of the log;</li>
 *   <li>shared non-durable subscription {@code name}: group {@code jms.shared.[C.]name}, from the end of the log,
 *       deleted when its last consumer leaves;</li>
 *   <li>durable subscription {@code name} of client id {@code C}: group {@code jms.durable.C.name}, from the end of
 *       the log when it is created, then from its committed offsets;</li>
 *   <li>shared durable subscription {@code name}: group {@code jms.shared-durable.[C.]name}, likewise.</li>
 * </ul>
 *
 * <p>A durable subscription's offsets carry its {@link SubscriptionDefinition} as their metadata, as the provider's
 * do, so that either side sees a subscription created again with another topic or selector.
 *
 * <p>Immutable.
 *
 * @param groupId        the consumer group, or null for an unshared non-durable subscription
 * @param resetPolicy    where a group without committed offsets starts: {@code earliest} or {@code latest}
 * @param offsetMetadata the metadata committed with every offset: the definition of a durable subscription, empty
 *                       for the others
 */
record InboundSubscription(Kind kind, String topic, String groupId, String resetPolicy, String offsetMetadata) {

    enum Kind { QUEUE, NON_DURABLE, SHARED, DURABLE, SHARED_DURABLE }

    /**
     * The subscription an activation spec describes; the caller has checked that a durable or shared subscription
     * has a name and an unshared durable one a client id.
     */
    static InboundSubscription of(boolean queue, String topic, boolean durable, boolean shared, String clientId,
                                  String name, String selector) {
        if (queue) {
            return new InboundSubscription(Kind.QUEUE, topic, topic, "earliest", "");
        }
        String scope = clientId == null ? "" : clientId + ".";
        if (durable) {
            String definition = SubscriptionDefinition.of(topic, selector, false);
            return shared
                    ? new InboundSubscription(Kind.SHARED_DURABLE, topic, "jms.shared-durable." + scope + name,
                            "latest", definition)
                    : new InboundSubscription(Kind.DURABLE, topic, "jms.durable." + clientId + "." + name, "latest",
                            definition);
        }
        return shared
                ? new InboundSubscription(Kind.SHARED, topic, "jms.shared." + scope + name, "latest", "")
                : new InboundSubscription(Kind.NON_DURABLE, topic, null, "latest", "");
    }

    boolean isDurable() {
        return kind == Kind.DURABLE || kind == Kind.SHARED_DURABLE;
    }

    boolean hasGroup() {
        return groupId != null;
    }

    String describe() {
        return switch (kind) {
            case QUEUE -> "queue " + topic;
            case NON_DURABLE -> "non-durable subscription to topic " + topic;
            case SHARED -> "shared subscription " + groupId + " to topic " + topic;
            case DURABLE -> "durable subscription " + groupId + " to topic " + topic;
            case SHARED_DURABLE -> "shared durable subscription " + groupId + " to topic " + topic;
        };
    }
}
