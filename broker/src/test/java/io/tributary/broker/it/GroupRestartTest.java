package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed offsets and group metadata survive a clean broker restart: consumption resumes exactly after the committed
 * offsets (with the metadata committed alongside), an Empty group is still Empty with its offsets, and a group that
 * was Stable at shutdown is still Stable with its member (static here, so that it can come back as itself). The
 * broker's port changes on restart, so every client is created anew after it.
 */
class GroupRestartTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @Test
    void consumptionResumesExactlyAfterTheCommittedOffsetsAfterARestart() throws Exception {
        String topic = "ledger";
        String group = "bookkeepers";
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        TopicPartition p2 = new TopicPartition(topic, 2);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        produce(topic, 3, 0, 10);

        // Everything is read, but the group commits only as far as it has (say) processed: a different point in
        // each partition, one of them at the end.
        Map<TopicPartition, OffsetAndMetadata> commit = Map.of(p0, new OffsetAndMetadata(4L, "processed to 3"),
                p1, new OffsetAndMetadata(7L, "processed to 6"), p2, new OffsetAndMetadata(10L, "processed to 9"));
        try (KafkaConsumer<String, String> before = consumer(group, "before-restart")) {
            before.subscribe(List.of(topic));
            Groups.readToEnds(before, Map.of(p0, 10L, p1, 10L, p2, 10L));
            before.commitSync(commit);
        }
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            assertEquals(GroupState.EMPTY, Groups.describe(admin, group).groupState(), "the member left");
            assertCommitted(commit, admin, group);
        }

        broker.restart();

        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            ConsumerGroupDescription described = Groups.describe(admin, group);
            assertEquals(GroupState.EMPTY, described.groupState(), described.toString());
            assertTrue(described.members().isEmpty(), described.toString());
            assertCommitted(commit, admin, group);
        }
        // The logs go on, and so does the group: from its committed offsets through the records written since.
        produce(topic, 3, 10, 2);
        Map<TopicPartition, Long> ends = Map.of(p0, 12L, p1, 12L, p2, 12L);
        try (KafkaConsumer<String, String> after = consumer(group, "after-restart");
             Admin admin = Clients.admin(broker.bootstrapServers())) {
            after.subscribe(List.of(topic));
            Map<TopicPartition, List<ConsumerRecord<String, String>>> resumed = Groups.readToEnds(after, ends);
            assertEquals(Map.of(p0, Groups.range(4, 12), p1, Groups.range(7, 12), p2, Groups.range(10, 12)),
                    Groups.offsets(resumed));
            assertEquals(List.of("ledger-1-7", "ledger-1-8", "ledger-1-9", "ledger-1-10", "ledger-1-11"),
                    resumed.get(p1).stream().map(ConsumerRecord::value).toList());

            ConsumerGroupDescription described = Groups.describe(admin, group);
            assertEquals(GroupState.STABLE, described.groupState(), described.toString());
            assertEquals(Map.of("after-restart", Set.of(p0, p1, p2)), Groups.assignmentsByClientId(described));
            after.commitSync();
            assertEquals(ends, Groups.committed(admin, group));
        }
    }

    @Test
    void aGroupStableAtShutdownIsStableWithItsMemberAfterTheRestartAndTheMemberComesBackAsItself()
            throws Exception {
        String topic = "standing-orders";
        String group = "residents";
        String instance = "resident-1";
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        produce(topic, 2, 0, 5);

        String memberId;
        try (KafkaConsumer<String, String> resident = staticConsumer(group, instance);
             Admin admin = Clients.admin(broker.bootstrapServers())) {
            resident.subscribe(List.of(topic));
            Groups.readToEnds(resident, Map.of(p0, 5L, p1, 5L));
            resident.commitSync();
            MemberDescription member = onlyMember(admin, group);
            memberId = member.consumerId();
            // A static member's close does not leave the group: it stays, Stable, until its session (30 s) ends.
            resident.close(CloseOptions.groupMembershipOperation(
                    CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            assertEquals(memberId, onlyMember(admin, group).consumerId());
        }

        broker.restart();

        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            MemberDescription member = onlyMember(admin, group);
            assertEquals(memberId, member.consumerId(), "the member, loaded back");
            assertEquals(Optional.of(instance), member.groupInstanceId());
            assertEquals(Set.of(p0, p1), member.assignment().topicPartitions());
            assertEquals("range", Groups.describe(admin, group).partitionAssignor());
            assertEquals(Map.of(p0, 5L, p1, 5L), Groups.committed(admin, group));
        }
        produce(topic, 2, 5, 3);
        try (KafkaConsumer<String, String> resident = staticConsumer(group, instance);
             Admin admin = Clients.admin(broker.bootstrapServers())) {
            resident.subscribe(List.of(topic));
            Map<TopicPartition, List<ConsumerRecord<String, String>>> resumed = Groups.readToEnds(resident,
                    Map.of(p0, 8L, p1, 8L));
            assertEquals(Map.of(p0, Groups.range(5, 8), p1, Groups.range(5, 8)), Groups.offsets(resumed));
            MemberDescription member = onlyMember(admin, group);
            assertEquals(Optional.of(instance), member.groupInstanceId());
            assertNotEquals(memberId, member.consumerId(), "the instance came back under a new member id");
            assertEquals(Set.of(p0, p1), member.assignment().topicPartitions());
        }
    }

    /** The one member of the group, which must be Stable. */
    private static MemberDescription onlyMember(Admin admin, String group) {
        ConsumerGroupDescription described = Groups.describe(admin, group);
        assertEquals(GroupState.STABLE, described.groupState(), described.toString());
        assertEquals(1, described.members().size(), described.toString());
        return described.members().iterator().next();
    }

    private static void assertCommitted(Map<TopicPartition, OffsetAndMetadata> expected, Admin admin, String group) {
        Map<TopicPartition, OffsetAndMetadata> listed = Groups.committedWithMetadata(admin, group);
        assertEquals(expected.keySet(), listed.keySet(), listed.toString());
        expected.forEach((tp, committed) -> {
            assertEquals(committed.offset(), listed.get(tp).offset(), tp.toString());
            assertEquals(committed.metadata(), listed.get(tp).metadata(), tp.toString());
        });
    }

    private KafkaConsumer<String, String> consumer(String group, String clientId) {
        return Clients.groupConsumer(broker.bootstrapServers(), group, ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    }

    /**
     * A static member: a session of 30 s, so that the member a restarted broker loads is surely still within it
     * when the test looks (nothing here waits for it to end: the instance comes back and takes its place).
     */
    private KafkaConsumer<String, String> staticConsumer(String group, String instance) {
        return Clients.groupConsumer(broker.bootstrapServers(), group, ConsumerConfig.CLIENT_ID_CONFIG, instance,
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
    }

    /** Records {@code from} to {@code from + count - 1} of each partition; values are topic-partition-index. */
    private void produce(String topic, int partitions, int from, int count) throws Exception {
        Map<TopicPartition, Long> written = new HashMap<>();
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = from; i < from + count; i++) {
                for (int p = 0; p < partitions; p++) {
                    long offset = producer.send(new ProducerRecord<>(topic, p, "k" + i, topic + "-" + p + "-" + i))
                            .get().offset();
                    written.put(new TopicPartition(topic, p), offset);
                }
            }
        }
        written.values().forEach(last -> assertEquals(from + count - 1L, last, "records at their index"));
    }
}
