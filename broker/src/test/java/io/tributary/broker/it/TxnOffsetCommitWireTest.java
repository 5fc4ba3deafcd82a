package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit on the wire, without a transaction coordinator: the request is accepted at the versions that
 * name topics and at v6 (topic ids), its offsets are not the group's committed offsets (OffsetFetch and the Admin
 * client see the older ones) and a read_committed fetch (requireStable) is answered UNSTABLE_OFFSET_COMMIT for
 * them; a member's commit is checked against its generation (KIP-447). The producer ids are made up: what the
 * transaction coordinator would hand out is not needed until a marker ends the transaction.
 */
class TxnOffsetCommitWireTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Map<String, Uuid> topicIds;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            topicIds = Map.of(TOPIC, admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).topicId(TOPIC)
                    .get());
        }
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.close();
        zooKeeper.close();
    }

    private static Errors partitionError(OffsetFetchResponseData.OffsetFetchResponseGroup group, TopicPartition tp) {
        return group.topics().stream().filter(topic -> topic.name().equals(tp.topic()))
                .flatMap(topic -> topic.partitions().stream())
                .filter(partition -> partition.partitionIndex() == tp.partition())
                .map(partition -> Errors.forCode(partition.errorCode())).findFirst().orElseThrow();
    }

    @Test
    void transactionalOffsetsArePendingAndUnstableForReadCommittedFetches() throws Exception {
        try (GroupWire wire = new GroupWire(broker.port())) {
            wire.awaitCoordinator("etl");
            assertEquals(Map.of(P0, Errors.NONE), wire.commit("etl", -1, "", Map.of(P0, 5L)));

            assertEquals(Map.of(P0, Errors.NONE, P1, Errors.NONE),
                    wire.txnCommit((short) 3, "etl", 4711L, -1, "", Map.of(P0, 10L, P1, 11L), topicIds));

            assertEquals(Map.of(P0, 5L, P1, -1L), GroupWire.offsets(wire.fetch("etl", List.of(P0, P1))),
                    "the transaction has not committed");
            OffsetFetchResponseData.OffsetFetchResponseGroup stable = wire.fetch("etl", List.of(P0, P1), true);
            assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, partitionError(stable, P0));
            assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, partitionError(stable, P1));
        }
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            Map<TopicPartition, OffsetAndMetadata> listed = admin.listConsumerGroupOffsets("etl")
                    .partitionsToOffsetAndMetadata().get();
            assertEquals(Map.of(P0, new OffsetAndMetadata(5L, "")), listed);
        }
    }

    @Test
    void topicsAreNamedByIdFromVersionSix() throws Exception {
        try (GroupWire wire = new GroupWire(broker.port())) {
            wire.awaitCoordinator("by-id");
            assertEquals(Map.of(P1, Errors.NONE),
                    wire.txnCommit((short) 6, "by-id", 4712L, -1, "", Map.of(P1, 3L), topicIds));
            assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, partitionError(wire.fetch("by-id", List.of(P1), true), P1));
        }
    }

    @Test
    void aMembersTransactionalCommitIsCheckedAgainstItsGeneration() throws Exception {
        try (GroupWire wire = new GroupWire(broker.port())) {
            wire.awaitCoordinator("members");
            JoinGroupResponseData joined = wire.joinAsNewMember("members", 30_000, TOPIC);
            wire.sync("members", joined.generationId(), joined.memberId(), null,
                    Map.of(joined.memberId(), List.of(P0, P1)));

            assertEquals(Map.of(P0, Errors.ILLEGAL_GENERATION), wire.txnCommit((short) 4, "members", 4713L,
                    joined.generationId() + 1, joined.memberId(), Map.of(P0, 1L), topicIds));
            assertEquals(Map.of(P0, Errors.UNKNOWN_MEMBER_ID), wire.txnCommit((short) 4, "members", 4713L,
                    joined.generationId(), "not-a-member", Map.of(P0, 1L), topicIds));
            assertEquals(Map.of(P0, Errors.NONE), wire.txnCommit((short) 4, "members", 4713L,
                    joined.generationId(), joined.memberId(), Map.of(P0, 1L), topicIds));
        }
    }
}
