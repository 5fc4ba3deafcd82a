package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group requests that a coordinator must refuse, on raw sockets ({@link GroupWire}) so that each test states the
 * exact error code: commits with a stale generation, from an unknown member, or for topics and partitions that do not
 * exist; joins with a session timeout outside the broker's bounds or an empty group id; the member-id handshake; a
 * static member fenced by its successor. Every refused commit is followed by an OffsetFetch showing that it changed
 * nothing. Each test uses a group of its own on one broker with the default session timeout bounds (6 s to 30 min).
 */
class GroupBadInputTest {

    private static final String TOPIC = "ledger";
    private static final String OTHER_TOPIC = "journal";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    /** Within the broker's default bounds, and long enough that no member here expires during its test. */
    private static final int SESSION_TIMEOUT_MS = 10_000;

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private GroupWire wire;

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1), new NewTopic(OTHER_TOPIC, 1, (short) 1)))
                    .all().get();
        }
        // Has the broker create the offsets topic before the tests, so that they see its answers, not its start-up.
        try (GroupWire warmUp = new GroupWire(broker.port())) {
            warmUp.awaitCoordinator("warm-up");
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @BeforeEach
    void connect() throws Exception {
        wire = new GroupWire(broker.port());
    }

    @AfterEach
    void disconnect() throws Exception {
        wire.close();
    }

    @Test
    void aCommitWithAStaleGenerationIsRefusedWithIllegalGenerationAndChangesNothing() {
        String group = "stale-generation";
        wire.awaitCoordinator(group);
        JoinGroupResponseData first = wire.joinAsNewMember(group, SESSION_TIMEOUT_MS, TOPIC);
        String member = first.memberId();
        syncAsLeader(group, first, List.of(P0, P1));
        assertEquals(Map.of(P0, Errors.NONE, P1, Errors.NONE),
                wire.commit(group, first.generationId(), member, Map.of(P0, 5L, P1, 6L)));

        // The member rejoins with a changed subscription: a rebalance to a new generation.
        JoinGroupResponseData second = wire.join(group, member, SESSION_TIMEOUT_MS, TOPIC, OTHER_TOPIC);
        assertEquals(Errors.NONE, Errors.forCode(second.errorCode()), second.toString());
        assertEquals(member, second.memberId());
        assertTrue(second.generationId() > first.generationId(), "a new generation: " + second);
        syncAsLeader(group, second, List.of(P0, P1));

        assertEquals(Map.of(P0, Errors.ILLEGAL_GENERATION, P1, Errors.ILLEGAL_GENERATION),
                wire.commit(group, first.generationId(), member, Map.of(P0, 9L, P1, 9L)));
        assertEquals(Errors.ILLEGAL_GENERATION, wire.heartbeat(group, first.generationId(), member, null));
        assertEquals(Map.of(P0, 5L, P1, 6L), GroupWire.offsets(wire.fetch(group, List.of(P0, P1))),
                "the offsets committed before");

        // The member itself is fine: at the current generation its commit is taken.
        assertEquals(Map.of(P0, Errors.NONE), wire.commit(group, second.generationId(), member, Map.of(P0, 7L)));
        assertEquals(Map.of(P0, 7L, P1, 6L), GroupWire.offsets(wire.fetch(group, List.of(P0, P1))));
    }

    @Test
    void aCommitFromAnUnknownMemberIsRefusedWithUnknownMemberIdAndChangesNothing() {
        String group = "unknown-member";
        wire.awaitCoordinator(group);
        JoinGroupResponseData joined = wire.joinAsNewMember(group, SESSION_TIMEOUT_MS, TOPIC);
        syncAsLeader(group, joined, List.of(P0, P1));
        assertEquals(Map.of(P0, Errors.NONE),
                wire.commit(group, joined.generationId(), joined.memberId(), Map.of(P0, 2L)));

        assertEquals(Map.of(P0, Errors.UNKNOWN_MEMBER_ID, P1, Errors.UNKNOWN_MEMBER_ID),
                wire.commit(group, joined.generationId(), "not-a-member", Map.of(P0, 8L, P1, 8L)));
        // A tool's commit (no member, no generation) while the group has a member is refused the same way.
        assertEquals(Map.of(P0, Errors.UNKNOWN_MEMBER_ID), wire.commit(group, -1, "", Map.of(P0, 8L)));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, wire.heartbeat(group, joined.generationId(), "not-a-member", null));
        assertEquals(Map.of(P0, 2L, P1, -1L), GroupWire.offsets(wire.fetch(group, List.of(P0, P1))));
        assertEquals(Errors.NONE, wire.heartbeat(group, joined.generationId(), joined.memberId(), null),
                "the real member is still in the group");
    }

    @Test
    void aCommitForAnUnknownTopicOrPartitionIsRefusedForThosePartitionsOnly() throws Exception {
        String group = "unknown-topic";
        wire.awaitCoordinator(group);
        TopicPartition unknownTopic = new TopicPartition("never-created", 0);
        TopicPartition unknownPartition = new TopicPartition(TOPIC, 7);
        Map<TopicPartition, Errors> errors = wire.commit(group, -1, "",
                Map.of(P0, 3L, unknownTopic, 3L, unknownPartition, 3L));
        assertEquals(Map.of(P0, Errors.NONE, unknownTopic, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                unknownPartition, Errors.UNKNOWN_TOPIC_OR_PARTITION), errors);

        // All the group's offsets: only the partition that exists.
        assertEquals(Map.of(P0, 3L), GroupWire.offsets(wire.fetch(group, null)));
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            assertFalse(admin.listTopics().names().get().contains(unknownTopic.topic()),
                    "a commit does not create a topic");
        }
    }

    @Test
    void aJoinWithASessionTimeoutOutsideTheBrokersBoundsIsRefusedWithInvalidSessionTimeout() {
        String group = "bad-session-timeout";
        wire.awaitCoordinator(group);
        JoinGroupResponseData tooShort = wire.join(group, "", 5_999, TOPIC);
        assertEquals(Errors.INVALID_SESSION_TIMEOUT, Errors.forCode(tooShort.errorCode()),
                "below group.min.session.timeout.ms (6000): " + tooShort);
        JoinGroupResponseData tooLong = wire.join(group, "", 1_800_001, TOPIC);
        assertEquals(Errors.INVALID_SESSION_TIMEOUT, Errors.forCode(tooLong.errorCode()),
                "above group.max.session.timeout.ms (1800000): " + tooLong);

        // At the bounds themselves, the handshake goes on.
        assertEquals(Errors.MEMBER_ID_REQUIRED, Errors.forCode(wire.join(group, "", 6_000, TOPIC).errorCode()));
    }

    @Test
    void aNewMemberIsToldMemberIdRequiredWithAnIdThatThenJoins() {
        String group = "member-id-required";
        wire.awaitCoordinator(group);
        assertTrue(wire.version(ApiKeys.JOIN_GROUP) >= 4, "JoinGroup v4+ (the member id handshake)");
        JoinGroupResponseData required = wire.join(group, "", SESSION_TIMEOUT_MS, TOPIC);
        assertEquals(Errors.MEMBER_ID_REQUIRED, Errors.forCode(required.errorCode()), required.toString());
        String memberId = required.memberId();
        assertFalse(memberId.isEmpty(), "the answer carries the member id to join with");

        JoinGroupResponseData joined = wire.join(group, memberId, SESSION_TIMEOUT_MS, TOPIC);
        assertEquals(Errors.NONE, Errors.forCode(joined.errorCode()), joined.toString());
        assertEquals(memberId, joined.memberId());
        assertEquals(memberId, joined.leader(), "the only member leads");
        assertEquals(GroupWire.PROTOCOL_NAME, joined.protocolName());
        assertEquals(1, joined.members().size(), joined.toString());
        assertEquals(memberId, joined.members().get(0).memberId());
        assertArrayEquals(GroupWire.subscription(TOPIC), joined.members().get(0).metadata(),
                "the leader gets the member's metadata as sent");

        assertEquals(List.of(P0, P1), GroupWire.assigned(syncAsLeader(group, joined, List.of(P0, P1))));
        assertEquals(Errors.NONE, wire.heartbeat(group, joined.generationId(), memberId, null));
    }

    @Test
    void aStaticMemberIsFencedByANewJoinWithItsGroupInstanceId() throws Exception {
        String group = "static-members";
        wire.awaitCoordinator(group);
        assertTrue(wire.version(ApiKeys.JOIN_GROUP) >= 5, "JoinGroup v5+ (group.instance.id)");
        assertTrue(wire.version(ApiKeys.HEARTBEAT) >= 3, "Heartbeat v3+ (group.instance.id)");
        // A static member gets its member id at once: no MEMBER_ID_REQUIRED round.
        JoinGroupResponseData first = wire.joinStatic(group, "", "instance-1", SESSION_TIMEOUT_MS, TOPIC);
        assertEquals(Errors.NONE, Errors.forCode(first.errorCode()), first.toString());
        syncAsLeader(group, first, "instance-1", List.of(P0, P1));
        assertEquals(Errors.NONE, wire.heartbeat(group, first.generationId(), first.memberId(), "instance-1"));

        // The same instance comes back (a restarted process) before its old session expired.
        try (GroupWire successor = new GroupWire(broker.port())) {
            JoinGroupResponseData second = successor.joinStatic(group, "", "instance-1", SESSION_TIMEOUT_MS, TOPIC);
            assertEquals(Errors.NONE, Errors.forCode(second.errorCode()), second.toString());
            assertNotEquals(first.memberId(), second.memberId(), "a new member id for the instance");
            // Kafka hands the returning instance its predecessor's assignment without a rebalance (the answer then
            // names it leader with skipAssignment, or names the old leader); a coordinator that rebalances instead
            // makes it the leader of a new generation. Either way, after SyncGroup it holds both partitions.
            boolean assigns = second.leader().equals(second.memberId()) && !second.skipAssignment();
            SyncGroupResponseData synced = successor.sync(group, second.generationId(), second.memberId(),
                    "instance-1", assigns ? Map.of(second.memberId(), List.of(P0, P1)) : Map.of());
            assertEquals(Errors.NONE, Errors.forCode(synced.errorCode()), synced.toString());
            assertEquals(List.of(P0, P1), GroupWire.assigned(synced));

            assertEquals(Errors.FENCED_INSTANCE_ID,
                    wire.heartbeat(group, first.generationId(), first.memberId(), "instance-1"),
                    "the old member id of the instance is fenced");
            assertEquals(Map.of(P0, Errors.NONE, P1, Errors.NONE),
                    successor.commit(group, second.generationId(), second.memberId(), Map.of(P0, 1L, P1, 1L)),
                    "the successor commits");
        }
    }

    @Test
    void anEmptyGroupIdIsRefusedWithInvalidGroupId() {
        JoinGroupResponseData join = wire.join("", "", SESSION_TIMEOUT_MS, TOPIC);
        assertEquals(Errors.INVALID_GROUP_ID, Errors.forCode(join.errorCode()), join.toString());
        assertEquals(Errors.INVALID_GROUP_ID, wire.heartbeat("", 1, "some-member", null));
    }

    @Test
    void anOffsetFetchForAGroupThatNeverCommittedAnswersMinusOne() {
        String group = "never-committed";
        wire.awaitCoordinator(group);
        OffsetFetchResponseData.OffsetFetchResponseGroup fetched = wire.fetch(group, List.of(P0, P1));
        assertEquals(Map.of(P0, -1L, P1, -1L), GroupWire.offsets(fetched));
        assertEquals(Map.of(), GroupWire.offsets(wire.fetch(group, null)), "no offsets at all");
    }

    private SyncGroupResponseData syncAsLeader(String group, JoinGroupResponseData joined,
                                               List<TopicPartition> partitions) {
        return syncAsLeader(group, joined, null, partitions);
    }

    /** SyncGroup as the group's only member and leader, assigning itself {@code partitions}. */
    private SyncGroupResponseData syncAsLeader(String group, JoinGroupResponseData joined, String groupInstanceId,
                                               List<TopicPartition> partitions) {
        assertEquals(joined.memberId(), joined.leader(), "the only member leads: " + joined);
        SyncGroupResponseData synced = wire.sync(group, joined.generationId(), joined.memberId(), groupInstanceId,
                Map.of(joined.memberId(), partitions));
        assertEquals(Errors.NONE, Errors.forCode(synced.errorCode()), synced.toString());
        return synced;
    }
}
