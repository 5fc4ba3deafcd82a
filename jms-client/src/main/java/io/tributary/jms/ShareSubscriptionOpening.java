package io.tributary.jms;

import java.util.List;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionDefinition;

/**
 * What opening a consumer of a share-group subscription (a shared topic subscription in
 * {@code subscriptionMode=share}) does, decided from what the connection and the cluster know; the session's
 * {@code DurableSubscriptions} asks the cluster and carries the decision out.
 * <ul>
 *   <li>{@link #REFUSE}: the subscription has active consumers and another definition (topic or selector) than the
 *       new consumer's (Jakarta Messaging 3.1, {@code createSharedConsumer}, {@code createSharedDurableConsumer});</li>
 *   <li>{@link #JOIN}: it exists and is the new consumer's: the consumer joins it as it is;</li>
 *   <li>{@link #START_AFRESH}: it has no active consumer and is new, redefined (the old one is replaced), or
 *       non-durable (a shared non-durable subscription without consumers does not exist, whatever a crashed last
 *       consumer left): whatever share group and definition are left are deleted, and the consumer starts it at the
 *       end of the log.</li>
 * </ul>
 * "Active" is a consumer of this connection that has the subscription open, or a member of its share group
 * elsewhere (a consumer becomes one at its first receive, {@link ShareSubscriptionStart}).
 *
 * <p>Immutable; any thread.
 */
enum ShareSubscriptionOpening {
    REFUSE, JOIN, START_AFRESH;

    /**
     * @param opening          the subscription the new consumer opens
     * @param openHere         the subscriptions of this connection's open consumers with the same group
     * @param stored           the definition stored for the subscription, or null
     * @param membersElsewhere whether the share group has members
     */
    static ShareSubscriptionOpening decide(Subscription opening, List<Subscription> openHere, String stored,
                                           boolean membersElsewhere) {
        boolean active = !openHere.isEmpty() || membersElsewhere;
        boolean redefined = openHere.stream().anyMatch(open -> !open.equals(opening))
                || (stored != null && SubscriptionDefinition.differs(stored, opening.offsetMetadata()));
        if (active) {
            return redefined ? REFUSE : JOIN;
        }
        boolean exists = opening.isDurable() && stored != null && !redefined;
        return exists ? JOIN : START_AFRESH;
    }
}
