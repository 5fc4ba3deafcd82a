package io.tributary.ra;

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
 * <p>Immutable.
 *
 * @param groupId     the consumer group, or null for an unshared non-durable subscription
 * @param resetPolicy where a group without committed offsets starts: {@code earliest} or {@code latest}
 */
record InboundSubscription(Kind kind, String topic, String groupId, String resetPolicy) {

    enum Kind { QUEUE, NON_DURABLE, SHARED, DURABLE, SHARED_DURABLE }

    /**
     * The subscription an activation spec describes; the caller has checked that a durable or shared subscription
     * has a name and an unshared durable one a client id.
     */
    static InboundSubscription of(boolean queue, String topic, boolean durable, boolean shared, String clientId,
                                  String name) {
        if (queue) {
            return new InboundSubscription(Kind.QUEUE, topic, topic, "earliest");
        }
        String scope = clientId == null ? "" : clientId + ".";
        if (durable) {
            return shared
                    ? new InboundSubscription(Kind.SHARED_DURABLE, topic, "jms.shared-durable." + scope + name,
                            "latest")
                    : new InboundSubscription(Kind.DURABLE, topic, "jms.durable." + clientId + "." + name, "latest");
        }
        return shared
                ? new InboundSubscription(Kind.SHARED, topic, "jms.shared." + scope + name, "latest")
                : new InboundSubscription(Kind.NON_DURABLE, topic, null, "latest");
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
