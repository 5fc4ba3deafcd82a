package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tributary.broker.group.GroupConfig;

/**
 * Consumer groups through the official Admin client against one real broker, with real group consumers as the
 * members: listing groups (all, and by state), describing them (members, their assignments, state, assignor), listing
 * committed offsets, moving them back for a replay (to given offsets, and to offsets found by timestamp) and the
 * group re-reading from there, deleting groups and single partitions' offsets (refused while the group is using
 * them), and the offsets topic itself: internal, hidden from ordinary listings, not deletable. Each test uses groups
 * and topics of its own; members are polled in turn on the test thread.
 */
class GroupAdminTest {

    private static final String OFFSETS_TOPIC = GroupConfig.OFFSETS_TOPIC;

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private Admin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @BeforeEach
    void openAdmin() {
        admin = Clients.admin(broker.bootstrapServers());
    }

    @AfterEach
    void closeAdmin() {
        admin.close(Duration.ofSeconds(5));
    }

    @Test
    void groupsAreListedByStateAndDescribedWithTheirMembersAssignmentsAndAssignor() throws Exception {
        String topic = "orders";
        admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
        Set<TopicPartition> all = Set.copyOf(Records.partitions(topic, 4));

        // An Empty group: its only member committed and left.
        try (KafkaConsumer<String, String> sleeper = consumer("dormant", "sleeper")) {
            sleeper.subscribe(List.of(topic));
            Groups.pollUntilStable(admin, "dormant", Map.of("sleeper", sleeper), all);
            sleeper.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0L)));
        }

        try (KafkaConsumer<String, String> alpha = consumer("described", "alpha");
             KafkaConsumer<String, String> beta = consumer("described", "beta")) {
            alpha.subscribe(List.of(topic));
            beta.subscribe(List.of(topic));
            Map<String, Set<TopicPartition>> assignments = Groups.pollUntilStable(admin, "described",
                    new TreeMap<>(Map.of("alpha", alpha, "beta", beta)), all);

            Map<String, Optional<GroupState>> listed = listConsumerGroups(Set.of());
            assertEquals(Optional.of(GroupState.STABLE), listed.get("described"), listed.toString());
            assertEquals(Optional.of(GroupState.EMPTY), listed.get("dormant"), listed.toString());
            Set<String> stable = listConsumerGroups(Set.of(GroupState.STABLE)).keySet();
            assertTrue(stable.contains("described"), stable.toString());
            assertFalse(stable.contains("dormant"), stable.toString());
            Set<String> empty = listConsumerGroups(Set.of(GroupState.EMPTY)).keySet();
            assertTrue(empty.contains("dormant"), empty.toString());
            assertFalse(empty.contains("described"), empty.toString());
            // The same through listGroups, which the 4.x Admin offers in its place.
            Map<String, GroupListing> stableGroups = admin.listGroups(ListGroupsOptions.forConsumerGroups()
                    .inGroupStates(Set.of(GroupState.STABLE))).all().get().stream()
                    .collect(Collectors.toMap(GroupListing::groupId, listing -> listing));
            assertTrue(stableGroups.containsKey("described"), stableGroups.toString());
            assertFalse(stableGroups.containsKey("dormant"), stableGroups.toString());
            assertEquals(Optional.of(GroupState.STABLE), stableGroups.get("described").groupState());
            assertEquals("consumer", stableGroups.get("described").protocol());

            ConsumerGroupDescription described = Groups.describe(admin, "described");
            assertEquals(GroupState.STABLE, described.groupState());
            assertEquals("range", described.partitionAssignor(), "the client's default assignor");
            assertFalse(described.isSimpleConsumerGroup());
            assertEquals(0, described.coordinator().id());
            assertEquals(Set.of("alpha", "beta"), Groups.assignmentsByClientId(described).keySet());
            for (MemberDescription member : described.members()) {
                assertFalse(member.consumerId().isEmpty(), member.toString());
                assertFalse(member.host().isEmpty(), member.toString());
                assertEquals(Optional.empty(), member.groupInstanceId());
                assertEquals(assignments.get(member.clientId()), member.assignment().topicPartitions(),
                        "the assignment the member holds");
                assertEquals(2, member.assignment().topicPartitions().size(), "range: 4 partitions, 2 members");
            }
            assertEquals(2, described.members().stream().map(MemberDescription::consumerId).distinct().count(),
                    "a member id each: " + described);

            ConsumerGroupDescription dormant = Groups.describe(admin, "dormant");
            assertEquals(GroupState.EMPTY, dormant.groupState());
            assertTrue(dormant.members().isEmpty(), dormant.toString());
        }
    }

    @Test
    void committedOffsetsAreListedAndMovingThemBackReplaysTheGroupFromThere() throws Exception {
        String topic = "replayed";
        String group = "replayers";
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        produce(topic, 2, 10);
        Map<TopicPartition, Long> ends = Map.of(p0, 10L, p1, 10L);

        try (KafkaConsumer<String, String> reader = consumer(group, "reader")) {
            reader.subscribe(List.of(topic));
            Groups.readToEnds(reader, ends);
            reader.commitSync();
            assertEquals(ends, Groups.committed(admin, group));

            // While the group has a member, a tool may not move its offsets.
            ExecutionException refused = assertThrows(ExecutionException.class, () -> admin.alterConsumerGroupOffsets(
                    group, Map.of(p0, new OffsetAndMetadata(3L))).all().get());
            assertInstanceOf(UnknownMemberIdException.class, refused.getCause());
            assertEquals(ends, Groups.committed(admin, group), "unchanged");
        }

        admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(3L),
                p1, new OffsetAndMetadata(8L, "replay from 8"))).all().get();
        Map<TopicPartition, OffsetAndMetadata> moved = Groups.committedWithMetadata(admin, group);
        assertEquals(Map.of(p0, 3L, p1, 8L), Groups.committed(admin, group));
        assertEquals("replay from 8", moved.get(p1).metadata());

        try (KafkaConsumer<String, String> again = consumer(group, "reader-again")) {
            again.subscribe(List.of(topic));
            Map<TopicPartition, List<ConsumerRecord<String, String>>> replayed = Groups.readToEnds(again, ends);
            assertEquals(Map.of(p0, Groups.range(3, 10), p1, Groups.range(8, 10)), Groups.offsets(replayed));
            assertEquals(topic + "-0-3", replayed.get(p0).get(0).value());
            assertEquals(topic + "-1-8", replayed.get(p1).get(0).value());
        }
    }

    @Test
    void offsetsFoundByTimestampReplayTheGroupFromThatTime() throws Exception {
        String topic = "timeline";
        String group = "time-travellers";
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        long t0 = System.currentTimeMillis() - 600_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            // Offset i of partition 0 at t0 + 1000 i; of partition 1 half a second later.
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, t0 + 1000L * i, "k", "p0 at " + i));
                producer.send(new ProducerRecord<>(topic, 1, t0 + 500L + 1000L * i, "k", "p1 at " + i));
            }
            producer.flush();
        }
        Map<TopicPartition, Long> ends = Map.of(p0, 10L, p1, 10L);
        try (KafkaConsumer<String, String> reader = consumer(group, "reader")) {
            reader.subscribe(List.of(topic));
            Groups.readToEnds(reader, ends);
            reader.commitSync();
        }
        assertEquals(ends, Groups.committed(admin, group));

        // Replay everything from t0 + 6.2 s: the first records at or after it are p0's 7th and p1's 6th.
        long from = t0 + 6_200L;
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> found = admin.listOffsets(
                Map.of(p0, OffsetSpec.forTimestamp(from), p1, OffsetSpec.forTimestamp(from))).all().get();
        Map<TopicPartition, OffsetAndMetadata> target = new HashMap<>();
        found.forEach((tp, info) -> target.put(tp, new OffsetAndMetadata(info.offset())));
        assertEquals(Map.of(p0, 7L, p1, 6L), target.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, entry -> entry.getValue().offset())));
        admin.alterConsumerGroupOffsets(group, target).all().get();
        assertEquals(Map.of(p0, 7L, p1, 6L), Groups.committed(admin, group));

        try (KafkaConsumer<String, String> again = consumer(group, "reader-again")) {
            again.subscribe(List.of(topic));
            Map<TopicPartition, List<ConsumerRecord<String, String>>> replayed = Groups.readToEnds(again, ends);
            assertEquals(Map.of(p0, Groups.range(7, 10), p1, Groups.range(6, 10)), Groups.offsets(replayed));
            assertEquals(List.of("p0 at 7", "p0 at 8", "p0 at 9"),
                    replayed.get(p0).stream().map(ConsumerRecord::value).toList());
            replayed.values().forEach(records -> records.forEach(record -> assertTrue(record.timestamp() >= from,
                    "replayed from the time on: " + record)));
        }
    }

    @Test
    void deletingAGroupIsRefusedWhileItHasMembersThenRemovesItAndItsOffsets() throws Exception {
        String topic = "doomed-work";
        String group = "doomed";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition(topic, 0);
        produce(topic, 1, 5);

        try (KafkaConsumer<String, String> member = consumer(group, "member")) {
            member.subscribe(List.of(topic));
            Groups.readToEnds(member, Map.of(tp, 5L));
            member.commitSync();

            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> admin.deleteConsumerGroups(List.of(group)).all().get());
            assertInstanceOf(GroupNotEmptyException.class, refused.getCause());
            assertEquals(Map.of(tp, 5L), Groups.committed(admin, group), "nothing deleted");
            assertEquals(GroupState.STABLE, Groups.describe(admin, group).groupState());
        }

        admin.deleteConsumerGroups(List.of(group)).all().get();
        assertFalse(listConsumerGroups(Set.of()).containsKey(group));
        assertEquals(Map.of(), Groups.committed(admin, group), "the offsets went with the group");

        // A new group of that name starts from scratch (from the earliest offset): nothing was left behind.
        try (KafkaConsumer<String, String> newcomer = consumer(group, "newcomer")) {
            newcomer.subscribe(List.of(topic));
            assertEquals(Groups.range(0, 5), Groups.offsets(Groups.readToEnds(newcomer, Map.of(tp, 5L))).get(tp));
        }
    }

    @Test
    void deletingCommittedOffsetsRemovesThosePartitionsOnlyAndNotWhileTheGroupReadsTheTopic() throws Exception {
        String subscribed = "pruned-read";
        String other = "pruned-other";
        String group = "pruners";
        admin.createTopics(List.of(new NewTopic(subscribed, 2, (short) 1), new NewTopic(other, 1, (short) 1)))
                .all().get();
        TopicPartition a0 = new TopicPartition(subscribed, 0);
        TopicPartition a1 = new TopicPartition(subscribed, 1);
        TopicPartition b0 = new TopicPartition(other, 0);

        try (KafkaConsumer<String, String> member = consumer(group, "member")) {
            member.subscribe(List.of(subscribed));
            Groups.pollUntilStable(admin, group, Map.of("member", member), Set.of(a0, a1));
            member.commitSync(Map.of(a0, new OffsetAndMetadata(4L), a1, new OffsetAndMetadata(5L),
                    b0, new OffsetAndMetadata(6L)));
            assertEquals(Map.of(a0, 4L, a1, 5L, b0, 6L), Groups.committed(admin, group));

            // The group is subscribed to the first topic: its offsets stay while the group is active.
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> admin.deleteConsumerGroupOffsets(group, Set.of(a0)).all().get());
            assertInstanceOf(GroupSubscribedToTopicException.class, refused.getCause());
            // Not subscribed to the other: those may go.
            admin.deleteConsumerGroupOffsets(group, Set.of(b0)).partitionResult(b0).get();
            assertEquals(Map.of(a0, 4L, a1, 5L), Groups.committed(admin, group));
        }

        admin.deleteConsumerGroupOffsets(group, Set.of(a0)).partitionResult(a0).get();
        assertEquals(Map.of(a1, 5L), Groups.committed(admin, group));
        assertEquals(GroupState.EMPTY, Groups.describe(admin, group).groupState(), "the group itself remains");
    }

    @Test
    void theOffsetsTopicIsInternalHiddenFromOrdinaryListingsAndCannotBeDeleted() throws Exception {
        String topic = "visible";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition(topic, 0);
        // A first commit brings the offsets topic into being.
        admin.alterConsumerGroupOffsets("internal-probe", Map.of(tp, new OffsetAndMetadata(1L))).all().get();

        Set<String> names = admin.listTopics().names().get();
        assertTrue(names.contains(topic), names.toString());
        assertFalse(names.contains(OFFSETS_TOPIC), "hidden by default: " + names);
        Map<String, TopicListing> withInternal = admin.listTopics(new ListTopicsOptions().listInternal(true))
                .namesToListings().get();
        assertTrue(withInternal.containsKey(OFFSETS_TOPIC), withInternal.toString());
        assertTrue(withInternal.get(OFFSETS_TOPIC).isInternal());
        assertFalse(withInternal.get(topic).isInternal());
        TopicDescription offsets = admin.describeTopics(List.of(OFFSETS_TOPIC)).allTopicNames().get()
                .get(OFFSETS_TOPIC);
        assertTrue(offsets.isInternal());
        assertEquals(3, offsets.partitions().size(), "offsets.topic.num.partitions of InProcessBroker");

        // The issue asks for more than Kafka 4.4 does here (a KRaft broker deletes the topic when asked): any error
        // the broker answers will do, as long as it answers one and the topic and the offsets in it stay.
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> admin.deleteTopics(List.of(OFFSETS_TOPIC)).all().get());
        assertFalse(refused.getCause() instanceof TimeoutException, "refused by the broker, not unanswered: "
                + refused.getCause());
        assertTrue(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get().contains(OFFSETS_TOPIC));
        assertEquals(Map.of(tp, 1L), Groups.committed(admin, "internal-probe"), "the committed offsets are intact");
    }

    private static KafkaConsumer<String, String> consumer(String group, String clientId) {
        return Clients.groupConsumer(broker.bootstrapServers(), group, ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    }

    /**
     * The groups {@code listConsumerGroups} lists, in {@code states} (all when empty), with their states. That call
     * is deprecated for removal in the 4.x Admin in favour of {@code listGroups} (tested beside it), but it is the one
     * tools written against 3.x make, and the one the issue names; {@code inGroupStates} is the current form of its
     * state filter {@code inStates} (both send ListGroups' StatesFilter).
     */
    @SuppressWarnings({"deprecation", "removal"})
    private Map<String, Optional<GroupState>> listConsumerGroups(Set<GroupState> states) throws Exception {
        Map<String, Optional<GroupState>> listed = new TreeMap<>();
        for (org.apache.kafka.clients.admin.ConsumerGroupListing listing : admin.listConsumerGroups(
                new org.apache.kafka.clients.admin.ListConsumerGroupsOptions().inGroupStates(states)).all().get()) {
            listed.put(listing.groupId(), listing.groupState());
        }
        return listed;
    }

    /** {@code perPartition} records in each of the topic's {@code partitions}; values are topic-partition-index. */
    private static void produce(String topic, int partitions, int perPartition) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < perPartition; i++) {
                for (int p = 0; p < partitions; p++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, topic + "-" + p + "-" + i));
                }
            }
            producer.flush();
        }
    }
}
