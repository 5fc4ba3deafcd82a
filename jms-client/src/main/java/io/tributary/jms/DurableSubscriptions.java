package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;

import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.jms.kafka.SubscriptionAdmin.Redefinition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable (and shared non-durable) subscriptions of a connection as the cluster knows them (a subscription is a
 * consumer group, see {@link Subscription}, or for shared subscriptions in {@code subscriptionMode=share} a share
 * group of the same name and its stored definition): the rules a session checks there before it opens a durable or
 * shared consumer, and unsubscribing.
 * An unshared durable subscription has at most one active consumer; a shared and an unshared one may not have the
 * same name and client id; one created again with another topic, selector or noLocal starts afresh. Each call asks the
 * connection's admin client and waits up to 30 s.
 *
 * <p>Stateless apart from the connection; any thread (the admin client is thread-safe).
 */
final class DurableSubscriptions {

    private static final Logger log = LoggerFactory.getLogger(DurableSubscriptions.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final TributaryConnection connection;

    DurableSubscriptions(TributaryConnection connection) {
        this.connection = connection;
    }

    /**
     * Before an unshared durable subscription's consumer opens: the subscription has no active consumer, no shared
     * one has its name, and a redefined one starts afresh.
     *
     * @throws IllegalStateException if the subscription already has an active consumer
     * @throws JMSException          if a shared durable subscription has the same name and client id
     */
    void checkUnsharedOpens(Subscription subscription, String clientId) throws JMSException {
        String name = subscription.name();
        if (subscriptionAdmin("Describing subscription group " + subscription.groupId(),
                admin -> admin.hasActiveMembers(subscription.groupId()))) {
            throw new IllegalStateException("Durable subscription '" + name + "' of client '" + clientId
                    + "' already has an active consumer");
        }
        refuseIfExists(Subscription.sharedDurableGroupId(clientId, name), "A shared", name, clientId);
        startAfreshIfRedefined(subscription);
    }

    /**
     * Before a shared durable subscription's consumer opens: no unshared one has its name and client id, and a
     * redefined one starts afresh.
     *
     * @throws IllegalStateException if the old definition still has active consumers
     * @throws JMSException          if an unshared durable subscription has the same name and client id
     */
    void checkSharedOpens(Subscription subscription, String clientId) throws JMSException {
        if (clientId != null) {
            refuseIfExists(Subscription.durableGroupId(clientId, subscription.name()), "An unshared",
                    subscription.name(), clientId);
        }
        startAfreshIfRedefined(subscription);
    }

    /**
     * Before a shared non-durable subscription's consumer opens: "If a shared non-durable subscription already exists
     * with the same name and client identifier (if set) but a different topic or message selector has been specified,
     * and there is a consumer already active (i.e. not closed) on the subscription, then a JMSException will be
     * thrown" (Jakarta Messaging 3.1, {@code Session.createSharedConsumer}). Checked before the new consumer
     * joins the group, which would otherwise take the other topic into the group's subscription. Without active
     * consumers the subscription no longer exists: a group left behind with another definition is deleted.
     *
     * @throws JMSException if the subscription has active consumers with another topic or selector
     */
    void checkSharedNonDurableOpens(Subscription subscription) throws JMSException {
        Redefinition outcome = subscriptionAdmin("Checking shared subscription '" + subscription.name() + "'",
                admin -> admin.startAfreshIfRedefined(subscription));
        if (outcome == Redefinition.IN_USE) {
            throw new JMSException("Shared subscription '" + subscription.name() + "' (group "
                    + subscription.groupId() + ") has active consumers with another topic or message selector than "
                    + "topic '" + subscription.topic() + "' and the selector given; close them first");
        }
    }

    /**
     * Before a consumer of a shared subscription joins the subscription's share group
     * ({@code subscriptionMode=share}); returns whether the subscription is new, so that the consumer must start its
     * share-partitions at the log end before it is handed over ({@code TributaryMessageConsumer}). A share group
     * commits no offsets, so the definition (topic and selector) is kept apart
     * ({@link SubscriptionAdmin#storedDefinition}):
     * <ul>
     *   <li>a shared durable subscription: no unshared one may have its name and client id; created again with
     *       another topic or selector it is a new subscription (the old share group is deleted), refused with
     *       {@code IllegalStateException} while the old one has consumers;</li>
     *   <li>a shared non-durable subscription exists while it has consumers: without members it is deleted and
     *       starts afresh (whatever a crashed last consumer left), with members of another topic or selector it is
     *       refused with a {@code JMSException} (Jakarta Messaging 3.1, {@code Session.createSharedConsumer}).</li>
     * </ul>
     * The share group is configured to start at the log end ({@code share.auto.offset.reset=latest}) and to read
     * committed records only.
     */
    boolean openShareSubscription(Subscription subscription, String clientId) throws JMSException {
        String groupId = subscription.groupId();
        boolean durable = subscription.isDurable();
        if (durable && clientId != null) {
            refuseIfExists(Subscription.durableGroupId(clientId, subscription.name()), "An unshared",
                    subscription.name(), clientId);
        }
        ShareSubscriptionStart.partitions(connection, subscription.topic()); // the topic exists from here on
        String doing = "Opening " + subscription.describe();
        String stored = subscriptionAdmin(doing, admin -> admin.storedDefinition(groupId));
        List<Subscription> openHere = connection.subscriptionsOf(groupId);
        boolean membersElsewhere = openHere.isEmpty()
                && subscriptionAdmin(doing, admin -> admin.shareGroupHasMembers(groupId));
        ShareSubscriptionOpening opening = ShareSubscriptionOpening.decide(subscription, openHere, stored,
                membersElsewhere);
        if (opening == ShareSubscriptionOpening.REFUSE) {
            String refusal = (durable ? "Durable" : "Shared") + " subscription '" + subscription.name() + "' (share "
                    + "group " + groupId + ") has active consumers with another topic or message selector than "
                    + "topic '" + subscription.topic() + "' and the selector given; close them first";
            // createSharedDurableConsumer's refusal is an IllegalStateException, as in group mode.
            throw durable ? new IllegalStateException(refusal) : new JMSException(refusal);
        }
        boolean fresh = opening == ShareSubscriptionOpening.START_AFRESH;
        if (fresh) {
            try {
                if (subscriptionAdmin(doing, admin -> admin.deleteShareSubscription(groupId))) {
                    log.debug("{} starts afresh (share group {} deleted)", subscription.describe(), groupId);
                }
            } catch (GroupNotEmptyException e) {
                // A consumer elsewhere began receiving meanwhile: the subscription exists after all.
                fresh = false;
            }
        }
        subscriptionAdmin(doing, admin -> {
            admin.prepareShareGroup(groupId, "latest");
            admin.storeDefinition(subscription);
            return null;
        });
        return fresh;
    }

    /**
     * Deletes a durable subscription (unshared for this client id, or shared) and its committed offsets; the session
     * has checked that none of its own consumers reads it.
     *
     * @throws IllegalStateException       if it has an active consumer
     * @throws InvalidDestinationException if there is no such subscription
     */
    void unsubscribe(String name, String clientId) throws JMSException {
        List<String> candidates = new ArrayList<>();
        if (clientId != null) {
            candidates.add(Subscription.durableGroupId(clientId, name));
        }
        candidates.add(Subscription.sharedDurableGroupId(clientId, name));
        for (String groupId : candidates) {
            boolean shareGroup = groupId.equals(Subscription.sharedDurableGroupId(clientId, name))
                    && connection.settings().subscriptionMode() == QueueMode.SHARE;
            if (shareGroup && !connection.subscriptionsOf(groupId).isEmpty()) {
                // Not yet a member of the share group if it has not received: the broker would not refuse.
                throw new IllegalStateException("Durable subscription '" + name + "' has an active consumer in this "
                        + "connection");
            }
            try {
                if (subscriptionAdmin("Unsubscribing " + name, admin -> shareGroup
                        ? admin.deleteShareSubscription(groupId) : admin.deleteGroup(groupId))) {
                    log.debug("Unsubscribed {} (group {})", name, groupId);
                    return;
                }
            } catch (GroupNotEmptyException e) {
                throw new IllegalStateException("Durable subscription '" + name + "' has an active consumer");
            }
        }
        throw new InvalidDestinationException("No durable subscription named '" + name + "'"
                + (clientId == null ? "" : " for client id '" + clientId + "'"));
    }

    /**
     * A durable subscription created again with another topic, selector or (unshared) noLocal is a new subscription:
     * the old one is deleted with its offsets, and the consumer starts at the end of the log
     * ({@link SubscriptionAdmin#startAfreshIfRedefined}).
     *
     * @throws IllegalStateException if the old definition still has active consumers (a shared subscription)
     */
    private void startAfreshIfRedefined(Subscription subscription) throws JMSException {
        Redefinition outcome = subscriptionAdmin("Checking durable subscription '" + subscription.name() + "'",
                admin -> admin.startAfreshIfRedefined(subscription));
        if (outcome == Redefinition.IN_USE) {
            throw new IllegalStateException("Durable subscription '" + subscription.name() + "' has active "
                    + "consumers with another topic or message selector; close them first");
        }
        if (outcome == Redefinition.STARTED_AFRESH) {
            log.debug("Durable subscription {} (group {}) was created again with another topic, selector or noLocal;"
                    + " the old one is deleted", subscription.name(), subscription.groupId());
        }
    }

    /**
     * A shared and an unshared durable subscription may not have the same name and client id (Jakarta Messaging 3.1,
     * {@code Session.createDurableConsumer} and {@code createSharedDurableConsumer}): the other kind's subscription
     * exists while its group has consumers or committed offsets, or (a share-group subscription) a stored definition,
     * until {@code unsubscribe}.
     */
    private void refuseIfExists(String otherGroupId, String otherKind, String name, String clientId)
            throws JMSException {
        if (subscriptionAdmin("Checking subscription group " + otherGroupId, admin ->
                admin.hasActiveMembers(otherGroupId) || !admin.committedOffsets(otherGroupId).isEmpty()
                        || admin.storedDefinition(otherGroupId) != null)) {
            throw new JMSException(otherKind + " durable subscription named '" + name + "' exists for client id '"
                    + clientId + "'; a shared and an unshared durable subscription may not have the same name and "
                    + "client id (unsubscribe it first)");
        }
    }

    /**
     * A call on the connection's {@link SubscriptionAdmin}, waiting up to 30 s; a Kafka failure becomes a
     * JMSException saying what was being done.
     *
     * @throws GroupNotEmptyException as the cluster answered, for the caller to explain
     */
    private <T> T subscriptionAdmin(String doing, Function<SubscriptionAdmin, T> call) throws JMSException {
        SubscriptionAdmin admin = new SubscriptionAdmin(connection.admin(), ADMIN_TIMEOUT);
        try {
            return call.apply(admin);
        } catch (GroupNotEmptyException e) {
            throw e;
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka(doing, e);
        }
    }
}
