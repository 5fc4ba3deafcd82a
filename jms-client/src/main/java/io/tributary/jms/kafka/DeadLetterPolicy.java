package io.tributary.jms.kafka;

import java.io.Serializable;

/**
 * What a share-group queue receiver ({@link ShareReceiver}) does with a message that keeps failing: once its
 * delivery count (the broker's) has reached {@code maxDeliveries} and it fails again (a listener throws, the session
 * recovers or rolls back, or a selective receiver releases it), it is written to {@code topic} with its origin
 * ({@link DeadLetterRecord}) and accepted, or, without a topic, rejected (the broker archives it). Either way it is
 * never delivered again and never holds up the rest of its partition.
 *
 * <p>{@code maxDeliveries} should not exceed the group's {@code share.delivery.count.limit} (broker default 5): the
 * broker archives a record released at its limit before this policy sees it again.
 *
 * <p>Immutable; any thread. Serializable, as a connection factory holds it.
 *
 * @param maxDeliveries how many deliveries a message gets, 1 or more
 * @param topic         the dead-letter topic, or null: rejected
 */
public record DeadLetterPolicy(int maxDeliveries, String topic) implements Serializable {

    /** The broker's default {@code group.share.delivery.count.limit}. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;

    public static final DeadLetterPolicy DEFAULT = new DeadLetterPolicy(DEFAULT_MAX_DELIVERIES, null);

    public DeadLetterPolicy {
        if (maxDeliveries < 1) {
            throw new IllegalArgumentException("maxDeliveries must be 1 or more, not " + maxDeliveries);
        }
        if (topic != null && !topic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new IllegalArgumentException("deadLetterQueue must be a topic name (letters, digits, '.', '_', "
                    + "'-'), not '" + topic + "'");
        }
    }

    /** Whether a message delivered {@code deliveryCount} times that failed again is dead-lettered (or rejected). */
    public boolean exhausted(int deliveryCount) {
        return deliveryCount >= maxDeliveries;
    }
}
