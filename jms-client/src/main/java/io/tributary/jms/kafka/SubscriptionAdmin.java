package io.tributary.jms.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * What the JMS provider and the resource adapter ask the cluster about subscriptions, through an admin client they
 * own: a group's committed offsets and members, deleting a group (unsubscribe, the last consumer of a shared
 * non-durable subscription), and deleting a durable subscription that was created again with another definition.
 * For subscriptions whose consumers are share-group members: the share group's members and assignment, deleting
 * it, its group configuration, and the subscription's definition, which a share group cannot carry (it commits no
 * offsets) and which is kept instead as the metadata of one committed offset of a companion consumer group without
 * members, {@link #definitionGroupId}.
 *
 * <p>A group that does not exist has no offsets and no members. Failures are Kafka's runtime exceptions: the
 * cluster's answer ({@link GroupNotEmptyException} where a call needs a group without members), a
 * {@link TimeoutException} when no answer came within the timeout, an {@link InterruptException} (the interrupt
 * flag kept) when the thread was interrupted.
 *
 * <p>Holds no state of its own: made for a call or a few, on any thread that may use the admin client.
 */
public final class SubscriptionAdmin {

    /** What {@link #startAfreshIfRedefined} found. */
    public enum Redefinition {
        /** The committed offsets carry this definition, or none (a new subscription, or metadata that says nothing). */
        UNCHANGED,
        /** Another definition: the group was deleted with its offsets; the subscription starts at the end of the log. */
        STARTED_AFRESH,
        /** Another definition, and the group still has members (consumers of the old definition): kept as it is. */
        IN_USE
    }

    private final Admin admin;
    private final Duration timeout;

    /** @param timeout how long each call waits for the cluster's answer */
    public SubscriptionAdmin(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /** The group's committed offsets, partitions without one left out; empty for a group that does not exist. */
    public Map<TopicPartition, OffsetAndMetadata> committedOffsets(String groupId) {
        Map<TopicPartition, OffsetAndMetadata> committed = await(
                admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(),
                "reading the committed offsets of group " + groupId);
        if (committed == null) {
            return Map.of();
        }
        committed = new HashMap<>(committed);
        committed.values().removeIf(Objects::isNull);
        return committed;
    }

    /** Whether the group has consumers now. */
    public boolean hasActiveMembers(String groupId) {
        ConsumerGroupDescription description = await(
                admin.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId),
                "describing group " + groupId);
        return description != null && !description.members().isEmpty();
    }

    /**
     * Deletes a group with its committed offsets.
     *
     * @return false if there was no such group
     * @throws GroupNotEmptyException if the group has consumers
     */
    public boolean deleteGroup(String groupId) {
        return await(admin.deleteConsumerGroups(List.of(groupId)).all().thenApply(done -> true),
                "deleting group " + groupId) != null;
    }

    /**
     * A durable subscription created again with another topic, selector or {@code noLocal} is a new subscription
     * (Jakarta Messaging 3.1, {@code Session.createDurableConsumer} and {@code createSharedDurableConsumer}): when
     * the metadata of the group's committed offsets shows another definition than {@code subscription}'s, the group
     * is deleted with its offsets, unless it still has consumers. The caller decides what {@link Redefinition#IN_USE}
     * means (the provider refuses the new consumer; the adapter joins the subscription as it is).
     */
    public Redefinition startAfreshIfRedefined(Subscription subscription) {
        boolean redefined = committedOffsets(subscription.groupId()).values().stream()
                .anyMatch(offset -> subscription.definedOtherwiseThan(offset.metadata()));
        if (!redefined) {
            return Redefinition.UNCHANGED;
        }
        try {
            deleteGroup(subscription.groupId()); // deleted meanwhile (false) is what was wanted too
            return Redefinition.STARTED_AFRESH;
        } catch (GroupNotEmptyException e) {
            return Redefinition.IN_USE;
        }
    }

    /**
     * The consumer group, without members, that keeps the definition of the share-group subscription whose share
     * group is {@code shareGroupId}: {@code jms.subscription-definition:<shareGroupId>}. A {@code :} occurs in no
     * topic name, so the group is never a queue's, and no subscription's group starts with this prefix.
     */
    public static String definitionGroupId(String shareGroupId) {
        return "jms.subscription-definition:" + shareGroupId;
    }

    /**
     * The definition ({@link SubscriptionDefinition}) stored for the share-group subscription whose share group is
     * {@code shareGroupId} ({@link #storeDefinition}), or null if none is: the subscription is new, or was deleted.
     */
    public String storedDefinition(String shareGroupId) {
        for (OffsetAndMetadata offset : committedOffsets(definitionGroupId(shareGroupId)).values()) {
            if (offset.metadata() != null && !offset.metadata().isEmpty()) {
                return offset.metadata();
            }
        }
        return null;
    }

    /**
     * Stores a share-group subscription's definition: offset 0 of its topic's partition 0, committed to
     * {@link #definitionGroupId} with the definition as metadata (the offset means nothing). Like any group's
     * offsets they expire {@code offsets.retention.minutes} (7 days by default) after they were committed while the
     * group has no members; storing again at every consumer's start keeps a used subscription's.
     */
    public void storeDefinition(Subscription subscription) {
        String groupId = definitionGroupId(subscription.groupId());
        await(admin.alterConsumerGroupOffsets(groupId, Map.of(new TopicPartition(subscription.topic(), 0),
                new OffsetAndMetadata(0, subscription.offsetMetadata()))).all(), "Storing the definition of "
                + subscription.describe() + " in group " + groupId);
    }

    /** Whether the share group has members now; false for a group that does not exist. */
    public boolean shareGroupHasMembers(String shareGroupId) {
        ShareGroupDescription description = describeShareGroup(shareGroupId);
        return description != null && !description.members().isEmpty();
    }

    /** The partitions the share group's coordinator assigned to its members; empty for a group that does not exist. */
    public Set<TopicPartition> shareGroupAssignment(String shareGroupId) {
        ShareGroupDescription description = describeShareGroup(shareGroupId);
        if (description == null) {
            return Set.of();
        }
        Set<TopicPartition> assigned = new HashSet<>();
        for (ShareMemberDescription member : description.members()) {
            assigned.addAll(member.assignment().topicPartitions());
        }
        return assigned;
    }

    private ShareGroupDescription describeShareGroup(String shareGroupId) {
        return await(admin.describeShareGroups(List.of(shareGroupId)).describedGroups().get(shareGroupId),
                "describing share group " + shareGroupId);
    }

    /**
     * Deletes a share group (and, from the broker's side, its share-partitions' state).
     *
     * @return false if there was no such group
     * @throws GroupNotEmptyException if the group has members
     */
    public boolean deleteShareGroup(String shareGroupId) {
        return await(admin.deleteShareGroups(List.of(shareGroupId)).all().thenApply(done -> true),
                "deleting share group " + shareGroupId) != null;
    }

    /**
     * Deletes a share-group subscription: its share group, then its stored definition.
     *
     * @return false if neither existed
     * @throws GroupNotEmptyException if the share group has members; the definition is then kept
     */
    public boolean deleteShareSubscription(String shareGroupId) {
        boolean group = deleteShareGroup(shareGroupId);
        boolean definition = deleteGroup(definitionGroupId(shareGroupId));
        return group || definition;
    }

    /**
     * Makes a share-group queue's group behave as a queue before its first receiver fetches: a new group starts at
     * the earliest offset ({@code share.auto.offset.reset}; Kafka's default, {@code latest}, would lose what was
     * sent before the first receiver came) and reads committed records only ({@code share.isolation.level}; a
     * message sent in a Kafka transaction is delivered once it commits, never when it aborts, as for every other
     * consumer of the provider). These are the group's configuration (ConfigResource GROUP), not the share
     * consumer's. Reads first and writes only what differs, so that the usual case is one DescribeConfigs.
     */
    public void prepareShareGroup(String groupId) {
        prepareShareGroup(groupId, "earliest");
    }

    /**
     * Sets a share group's configuration as {@link #prepareShareGroup(String)} does, with {@code autoOffsetReset} as
     * its {@code share.auto.offset.reset}: {@code latest} for a topic subscription, which receives what is sent
     * after it was created.
     */
    public void prepareShareGroup(String groupId, String autoOffsetReset) {
        Map<String, String> wantedConfig = Map.of(
                "share.auto.offset.reset", autoOffsetReset,
                "share.isolation.level", "read_committed");
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, groupId);
        Config current = await(admin.describeConfigs(List.of(group)).values().get(group), "Describing group "
                + groupId);
        List<AlterConfigOp> changes = new ArrayList<>();
        for (Map.Entry<String, String> wanted : wantedConfig.entrySet()) {
            ConfigEntry entry = current == null ? null : current.get(wanted.getKey());
            if (entry == null || !wanted.getValue().equals(entry.value())) {
                changes.add(new AlterConfigOp(new ConfigEntry(wanted.getKey(), wanted.getValue()),
                        AlterConfigOp.OpType.SET));
            }
        }
        if (!changes.isEmpty()) {
            await(admin.incrementalAlterConfigs(Map.of(group, changes)).all(), "Configuring share group " + groupId);
        }
    }

    /**
     * How many deliveries the share group {@code groupId} gives a record before the broker archives it
     * ({@code share.delivery.count.limit}, the group's or the broker's default); {@code fallback} when the cluster does
     * not say. A receiver's {@link DeadLetterPolicy} must dead-letter at or below it, or the broker archives first.
     */
    public int shareDeliveryCountLimit(String groupId, int fallback) {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, groupId);
        Config current = await(admin.describeConfigs(List.of(group)).values().get(group), "Describing group "
                + groupId);
        ConfigEntry entry = current == null ? null : current.get(SHARE_DELIVERY_COUNT_LIMIT);
        if (entry == null || entry.value() == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(entry.value().strip());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static final String SHARE_DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";

    /** The outcome of an admin call, null if the group does not exist. */
    private <T> T await(KafkaFuture<T> call, String doing) {
        try {
            return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return null;
            }
            if (e.getCause() instanceof KafkaException cause) {
                throw cause;
            }
            throw new KafkaException(doing + " failed", e.getCause());
        } catch (InterruptedException e) {
            throw new InterruptException(doing + " was interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException(doing + ": no answer within " + timeout.toMillis() + " ms", e);
        }
    }
}
