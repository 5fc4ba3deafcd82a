package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tributary.testsupport.InProcessBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Subscription groups on a real broker: offsets, members, deletion, and durable subscriptions created again. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SubscriptionAdminTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private InProcessBroker cluster;
    private Admin admin;
    private SubscriptionAdmin subscriptions;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        cluster = InProcessBroker.builder(dir).start();
        cluster.createTopic("prices", 2);
        admin = cluster.admin();
        subscriptions = new SubscriptionAdmin(admin, TIMEOUT);
    }

    @AfterAll
    void stop() throws Exception {
        admin.close();
        cluster.close();
    }

    private KafkaConsumer<byte[], byte[]> member(Subscription subscription) {
        KafkaClientConfig config = KafkaClientConfig.of(cluster.bootstrapServers(),
                Map.of("heartbeat.interval.ms", "200", "session.timeout.ms", "6000"));
        return KafkaClientConfig.newConsumer(config.consumer("test", subscription.groupId(),
                subscription.resetPolicy(), Map.of()));
    }

    /** Commits {@code offset} on both partitions with {@code subscription}'s metadata, as a closed consumer. */
    private void commit(Subscription subscription, long offset) {
        try (KafkaConsumer<byte[], byte[]> consumer = member(subscription)) {
            OffsetAndMetadata committed = new OffsetAndMetadata(offset, subscription.offsetMetadata());
            consumer.commitSync(Map.of(new TopicPartition("prices", 0), committed,
                    new TopicPartition("prices", 1), committed));
        }
    }

    @Test
    void aGroupThatDoesNotExistHasNoOffsetsNoMembersAndIsNotDeleted() {
        assertEquals(Map.of(), subscriptions.committedOffsets("jms.durable.nobody.nothing"));
        assertFalse(subscriptions.hasActiveMembers("jms.durable.nobody.nothing"));
        assertFalse(subscriptions.deleteGroup("jms.durable.nobody.nothing"));
    }

    @Test
    void aShareGroupsDeliveryLimitIsTheBrokersDefaultUntilTheGroupSetsItsOwn() throws Exception {
        subscriptions.prepareShareGroup("limited-queue");
        assertEquals(5, subscriptions.shareDeliveryCountLimit("limited-queue", 99), "the broker's default");
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, "limited-queue");
        admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                new ConfigEntry("share.delivery.count.limit", "3"), AlterConfigOp.OpType.SET)))).all().get();
        assertEquals(3, subscriptions.shareDeliveryCountLimit("limited-queue", 99));
    }

    @Test
    void aDurableSubscriptionCreatedAgainWithAnotherSelectorStartsAfresh() {
        Subscription red = Subscription.durable("prices", "C", "afresh", "color = 'red'", false);
        commit(red, 3);
        assertEquals(2, subscriptions.committedOffsets(red.groupId()).size());
        assertEquals(SubscriptionAdmin.Redefinition.UNCHANGED, subscriptions.startAfreshIfRedefined(red));
        assertEquals(2, subscriptions.committedOffsets(red.groupId()).size(), "the same definition keeps its offsets");

        Subscription blue = Subscription.durable("prices", "C", "afresh", "color = 'blue'", false);
        assertEquals(SubscriptionAdmin.Redefinition.STARTED_AFRESH, subscriptions.startAfreshIfRedefined(blue));
        assertEquals(Map.of(), subscriptions.committedOffsets(red.groupId()));
        assertEquals(SubscriptionAdmin.Redefinition.UNCHANGED, subscriptions.startAfreshIfRedefined(blue),
                "a subscription without offsets is new");
    }

    @Test
    void aRedefinedSubscriptionWithConsumersIsInUseAndAGroupWithMembersIsNotDeleted() {
        Subscription old = Subscription.sharedDurable("prices", null, "busy", null);
        commit(old, 1);
        try (KafkaConsumer<byte[], byte[]> consumer = member(old)) {
            consumer.subscribe(List.of("prices"));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100));
            }
            assertTrue(subscriptions.hasActiveMembers(old.groupId()));

            Subscription selective = Subscription.sharedDurable("prices", null, "busy", "size > 3");
            assertEquals(SubscriptionAdmin.Redefinition.IN_USE, subscriptions.startAfreshIfRedefined(selective));
            assertThrows(GroupNotEmptyException.class, () -> subscriptions.deleteGroup(old.groupId()));
            assertEquals(2, subscriptions.committedOffsets(old.groupId()).size());
        }
        assertTrue(subscriptions.deleteGroup(old.groupId()), "without members it goes");
    }

    @Test
    void aShareGroupSubscriptionsDefinitionIsStoredApartAndDeletedWithIt() {
        Subscription red = Subscription.sharedDurable("prices", null, "kept-apart", "color = 'red'");
        assertNull(subscriptions.storedDefinition(red.groupId()), "nothing stored for a new subscription");
        subscriptions.storeDefinition(red);
        assertEquals(red.offsetMetadata(), subscriptions.storedDefinition(red.groupId()));
        subscriptions.storeDefinition(red); // again, as every consumer's start does
        assertEquals(red.offsetMetadata(), subscriptions.storedDefinition(red.groupId()));
        assertFalse(subscriptions.shareGroupHasMembers(red.groupId()), "no share group yet");

        assertTrue(subscriptions.deleteShareSubscription(red.groupId()), "the definition was there");
        assertNull(subscriptions.storedDefinition(red.groupId()));
        assertFalse(subscriptions.deleteShareSubscription(red.groupId()), "nothing left to delete");
    }

    @Test
    void aShareGroupWithAMemberShowsItsAssignmentAndIsNotDeleted() {
        Subscription shared = Subscription.shared("prices", null, "share-member", null);
        subscriptions.prepareShareGroup(shared.groupId(), "latest");
        subscriptions.storeDefinition(shared);
        KafkaClientConfig config = KafkaClientConfig.of(cluster.bootstrapServers(), Map.of());
        Set<TopicPartition> both = Set.of(new TopicPartition("prices", 0), new TopicPartition("prices", 1));
        try (KafkaShareConsumer<byte[], byte[]> member = KafkaClientConfig.newShareConsumer(
                config.shareConsumer("test-share", shared.groupId(), Map.of()))) {
            member.subscribe(List.of("prices"));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!subscriptions.shareGroupAssignment(shared.groupId()).equals(both)
                    && System.nanoTime() < deadline) {
                member.poll(Duration.ofMillis(100));
            }
            assertEquals(both, subscriptions.shareGroupAssignment(shared.groupId()));
            assertTrue(subscriptions.shareGroupHasMembers(shared.groupId()));
            assertThrows(GroupNotEmptyException.class, () -> subscriptions.deleteShareSubscription(shared.groupId()));
            assertEquals(shared.offsetMetadata(), subscriptions.storedDefinition(shared.groupId()),
                    "the definition is kept while the share group has members");
        }
        assertTrue(subscriptions.deleteShareSubscription(shared.groupId()), "without members it goes");
        assertEquals(Set.of(), subscriptions.shareGroupAssignment(shared.groupId()));
    }
}
