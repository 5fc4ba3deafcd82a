package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A share group is durable as a group across a restart of its coordinator: it is listed and described again (Empty,
 * at its stored epoch), its members, which a new coordinator does not know, are told UNKNOWN_MEMBER_ID and rejoin with
 * epoch 0 at a later epoch (the official {@code KafkaShareConsumer} does so by itself); a deleted share group stays
 * deleted. The broker keeps its port across the restart.
 */
class ShareGroupRestartTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        // A fixed port, so that a client created before the restart finds the broker after it.
        broker = InProcessBroker.builder(dataDir).zooKeeper(zooKeeper.getConnectString()).fixedPort(0).start();
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    private ShareGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeShareGroups(List.of(group)).describedGroups().get(group).get();
    }

    @Test
    void aShareGroupIsStillThereAfterARestartAndItsMemberRejoinsAtALaterEpoch() throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("restart-share", 2, (short) 1))).all().get();
        }
        String group = "durable-share";
        String deleted = "deleted-share";
        String member = Uuid.randomUuid().toString();
        ShareGroupHeartbeatResponseData before;
        try (GroupWire wire = new GroupWire(broker.port())) {
            wire.awaitCoordinator(group);
            wire.awaitCoordinator(deleted);
            before = wire.shareHeartbeat(group, member, 0, "restart-share");
            assertEquals(Errors.NONE, Errors.forCode(before.errorCode()), before.toString());
            String other = Uuid.randomUuid().toString();
            wire.shareHeartbeat(deleted, other, 0, "restart-share");
            wire.shareHeartbeat(deleted, other, -1);
        }
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.deleteShareGroups(List.of(deleted)).all().get();
        }

        broker.restart();

        try (Admin admin = Clients.admin(broker.bootstrapServers());
             GroupWire wire = new GroupWire(broker.port())) {
            wire.awaitCoordinator(group);
            Map<String, GroupListing> listed = await("the share group listed after the restart").until(
                    () -> admin.listGroups(ListGroupsOptions.forShareGroups()).all().get().stream()
                            .collect(java.util.stream.Collectors.toMap(GroupListing::groupId, l -> l)),
                    groups -> groups.containsKey(group));
            assertFalse(listed.containsKey(deleted), "a deleted share group stays deleted: " + listed);
            ShareGroupDescription described = describe(admin, group);
            assertEquals(GroupState.EMPTY, described.groupState(), described.toString());
            assertEquals(before.memberEpoch(), described.groupEpoch(), "the stored epoch");
            ExecutionException gone = assertThrows(ExecutionException.class, () -> describe(admin, deleted));
            assertInstanceOf(GroupIdNotFoundException.class, gone.getCause());

            ShareGroupHeartbeatResponseData unknown = wire.shareHeartbeat(group, member, before.memberEpoch());
            assertEquals(Errors.UNKNOWN_MEMBER_ID, Errors.forCode(unknown.errorCode()), unknown.toString());
            ShareGroupHeartbeatResponseData rejoined = wire.shareHeartbeat(group, member, 0, "restart-share");
            assertEquals(Errors.NONE, Errors.forCode(rejoined.errorCode()), rejoined.toString());
            assertTrue(rejoined.memberEpoch() > before.memberEpoch(), "epochs go on: " + rejoined);
            assertEquals(List.of(0, 1), rejoined.assignment().topicPartitions().get(0).partitions());
        }
    }

    /**
     * The partitions with share state are durable with the group: an empty group's offsets are listed after a
     * restart, one altered before it included, and a new consumer resumes at the altered offset.
     */
    @Test
    void anEmptyGroupsShareOffsetsAreListedAfterARestart() throws Exception {
        String group = "durable-offsets";
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("restart-offsets", 2, (short) 1))).all().get();
            admin.alterShareGroupOffsets(group, Map.of(new TopicPartition("restart-offsets", 0), 0L,
                    new TopicPartition("restart-offsets", 1), 0L)).all().get();
        }
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>("restart-offsets", 1, null, "r" + i));
            }
        }
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.alterShareGroupOffsets(group, Map.of(new TopicPartition("restart-offsets", 1), 2L)).all().get();
        }

        broker.restart();

        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            Map<TopicPartition, SharePartitionOffsetInfo> offsets = await("the offsets listed after the restart")
                    .until(() -> admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                            .partitionsToOffsetInfo(group).get(), listed -> listed.size() == 2);
            assertEquals(0, offsets.get(new TopicPartition("restart-offsets", 0)).startOffset());
            assertEquals(2, offsets.get(new TopicPartition("restart-offsets", 1)).startOffset());
        }
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(shareConsumerProps(group))) {
            consumer.subscribe(List.of("restart-offsets"));
            List<String> got = new java.util.ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> got.add(record.value()));
                assertEquals(List.of("r2"), got);
            });
        }
    }

    private Properties shareConsumerProps(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return props;
    }

    /** The official share consumer, polling, finds its restarted coordinator and rejoins under its member id. */
    @Test
    void theOfficialShareConsumerRejoinsByItselfAfterItsCoordinatorRestarted() throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("restart-consumer", 1, (short) 1))).all().get();
        }
        String group = "rejoining-share-consumer";
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of("restart-consumer"));
            ShareMemberDescription before = awaitMember(consumer, group, 0);

            broker.restart();

            ShareMemberDescription after = awaitMember(consumer, group, before.memberEpoch());
            assertEquals(before.consumerId(), after.consumerId(), "the client keeps its member id (KIP-1082)");
        }
    }

    /** Polls until the group has exactly one member at an epoch above {@code aboveEpoch}; returns it. */
    private ShareMemberDescription awaitMember(KafkaShareConsumer<String, String> consumer, String group,
                                               int aboveEpoch) throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            ShareMemberDescription[] member = new ShareMemberDescription[1];
            await("one member above epoch " + aboveEpoch).until(() -> {
                consumer.poll(Duration.ofMillis(100));
                ShareGroupDescription described;
                try {
                    described = describe(admin, group);
                } catch (ExecutionException e) {
                    return false; // not joined yet, or the coordinator is loading
                }
                if (described.members().size() != 1) {
                    return false;
                }
                member[0] = described.members().iterator().next();
                return member[0].memberEpoch() > aboveEpoch;
            });
            return member[0];
        }
    }
}
