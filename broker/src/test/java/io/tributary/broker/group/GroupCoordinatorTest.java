package io.tributary.broker.group;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.group.GroupCoordinator.OffsetCommit;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator against a real replica manager and log on disk (no network): the join/sync barrier, generations,
 * MEMBER_ID_REQUIRED, static membership, session expiry, commit validation, and that everything acknowledged is
 * back after a new coordinator loads the same {@code __consumer_offsets} partition.
 */
class GroupCoordinatorTest {

    private static final int BROKER = 0;
    private static final TopicPartition OFFSETS_0 = new TopicPartition(GroupConfig.OFFSETS_TOPIC, 0);
    private static final TopicPartition OFFSETS_1 = new TopicPartition(GroupConfig.OFFSETS_TOPIC, 1);
    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);
    private static final short VERSION = 9;
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private LogManager logManager;
    private ReplicaManager replicaManager;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() throws Exception {
        logManager = new LogManager(LogManager.Config.defaults(List.of(dir)), Time.SYSTEM);
        logManager.startup(topic -> LogConfig.defaults());
        replicaManager = new ReplicaManager(BROKER, logManager, Time.SYSTEM);
        LogConfig compacted = LogConfig.defaults().withOverrides(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        for (TopicPartition tp : List.of(OFFSETS_0, OFFSETS_1)) {
            replicaManager.applyPartitionState(tp, Uuid.randomUuid(),
                    new Partition.State(BROKER, 0, List.of(BROKER), Set.of(BROKER)), compacted);
        }
        coordinator = startCoordinator(config(1, 60_000L), Time.SYSTEM);
    }

    @AfterEach
    void stop() {
        coordinator.close();
        replicaManager.close();
        logManager.close();
    }

    private static GroupConfig config(int partitions, long retentionMs) {
        return new GroupConfig(partitions, (short) 1, 100 * 1024 * 1024, 5 * 1024 * 1024, retentionMs, 600_000L,
                5_000, 4096, 100, 60_000, 0, 100);
    }

    private GroupCoordinator startCoordinator(GroupConfig config, Time time) {
        GroupCoordinator started = new GroupCoordinator(config, replicaManager, time);
        started.onLeadershipChange(Set.of(0), config.offsetsTopicNumPartitions());
        await("partition 0 loaded").until(() -> started.checkGroup("any-group-on-partition-0")
                != Errors.COORDINATOR_LOAD_IN_PROGRESS || config.offsetsTopicNumPartitions() > 1);
        return started;
    }

    private static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("no answer: " + e, e);
        }
    }

    private static byte[] subscription(String... topics) {
        ByteBuffer buffer = ConsumerProtocol.serializeSubscription(new Subscription(List.of(topics)));
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private CompletableFuture<JoinGroupResponseData> join(String group, String memberId, String instanceId,
                                                          int sessionMs, byte[] metadata) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        JoinGroupRequestData request = new JoinGroupRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(sessionMs)
                .setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer")
                .setProtocols(protocols);
        return coordinator.joinGroup(request, VERSION, "client", "/127.0.0.1");
    }

    /** A dynamic member through the MEMBER_ID_REQUIRED handshake: the parked second JoinGroup. */
    private CompletableFuture<JoinGroupResponseData> joinDynamic(String group, byte[] metadata) {
        JoinGroupResponseData first = get(join(group, "", null, 30_000, metadata));
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
        assertFalse(first.memberId().isEmpty());
        return join(group, first.memberId(), null, 30_000, metadata);
    }

    private CompletableFuture<SyncGroupResponseData> sync(String group, JoinGroupResponseData joined,
                                                          Map<String, byte[]> assignments) {
        SyncGroupRequestData request = new SyncGroupRequestData()
                .setGroupId(group)
                .setMemberId(joined.memberId())
                .setGenerationId(joined.generationId())
                .setProtocolType("consumer")
                .setProtocolName("range");
        assignments.forEach((member, assignment) -> request.assignments().add(
                new SyncGroupRequestAssignment().setMemberId(member).setAssignment(assignment)));
        return coordinator.syncGroup(request);
    }

    private Errors heartbeat(String group, String memberId, String instanceId, int generation) {
        return coordinator.heartbeat(new HeartbeatRequestData().setGroupId(group).setMemberId(memberId)
                .setGroupInstanceId(instanceId).setGenerationId(generation));
    }

    private Map<TopicPartition, Errors> commit(String group, String memberId, int generation, long offset,
                                               TopicPartition... partitions) {
        Map<TopicPartition, OffsetCommit> offsets = new java.util.LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            offsets.put(tp, new OffsetCommit(offset, 3, "meta"));
        }
        return get(coordinator.commitOffsets(group, memberId, null, generation, offsets));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aSingleMemberJoinsSyncsAndIsStable() {
        JoinGroupResponseData joined = get(joinDynamic("g", subscription("orders")));
        assertEquals(Errors.NONE.code(), joined.errorCode());
        assertEquals(1, joined.generationId());
        assertEquals(joined.memberId(), joined.leader());
        assertEquals("range", joined.protocolName());
        assertEquals(1, joined.members().size());

        SyncGroupResponseData synced = get(sync("g", joined, Map.of(joined.memberId(), bytes("all of it"))));
        assertEquals(Errors.NONE.code(), synced.errorCode());
        assertArrayEquals(bytes("all of it"), synced.assignment());
        assertEquals(GroupState.STABLE, coordinator.groupState("g").orElseThrow());
        assertEquals(Errors.NONE, heartbeat("g", joined.memberId(), null, 1));
        assertEquals(Errors.ILLEGAL_GENERATION, heartbeat("g", joined.memberId(), null, 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", "nobody", null, 1));
    }

    @Test
    void aSecondMemberStartsAGenerationBothJoinAndTheLeaderAssigns() {
        JoinGroupResponseData first = get(joinDynamic("g", subscription("orders")));
        get(sync("g", first, Map.of(first.memberId(), bytes("a1"))));

        CompletableFuture<JoinGroupResponseData> second = joinDynamic("g", subscription("orders"));
        assertFalse(second.isDone(), "the new member waits for the existing one to rejoin");
        assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeat("g", first.memberId(), null, 1));
        CompletableFuture<JoinGroupResponseData> firstAgain = join("g", first.memberId(), null, 30_000,
                subscription("orders"));

        JoinGroupResponseData a = get(firstAgain);
        JoinGroupResponseData b = get(second);
        assertEquals(2, a.generationId());
        assertEquals(2, b.generationId());
        assertEquals(first.memberId(), a.leader(), "the leader stays the leader");
        assertEquals(2, a.members().size(), "the leader gets every member's metadata");
        assertTrue(b.members().isEmpty(), "followers get no member list");

        CompletableFuture<SyncGroupResponseData> followerSync = sync("g", b, Map.of());
        assertFalse(followerSync.isDone(), "a follower waits for the leader's assignment");
        SyncGroupResponseData leaderSync = get(sync("g", a, Map.of(a.memberId(), bytes("a2"),
                b.memberId(), bytes("b2"))));
        assertArrayEquals(bytes("a2"), leaderSync.assignment());
        assertArrayEquals(bytes("b2"), get(followerSync).assignment());
        assertEquals(GroupState.STABLE, coordinator.groupState("g").orElseThrow());
    }

    @Test
    void commitsAreValidatedAgainstMemberAndGeneration() {
        JoinGroupResponseData joined = get(joinDynamic("g", subscription("orders")));
        get(sync("g", joined, Map.of(joined.memberId(), bytes("x"))));

        assertEquals(Map.of(T0, Errors.NONE), commit("g", joined.memberId(), 1, 10, T0));
        assertEquals(Map.of(T0, Errors.ILLEGAL_GENERATION), commit("g", joined.memberId(), 0, 99, T0));
        assertEquals(Map.of(T0, Errors.UNKNOWN_MEMBER_ID), commit("g", "stranger", 1, 99, T0));
        assertEquals(Map.of(T0, Errors.UNKNOWN_MEMBER_ID), commit("g", "", -1, 99, T0),
                "a group with members takes no simple commits");
        assertEquals(Map.of(T1, Errors.ILLEGAL_GENERATION), commit("other", "someone", 4, 99, T1),
                "a member commit to a group that does not exist");

        CommittedOffset committed = coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0);
        assertEquals(10, committed.offset());
        assertEquals(3, committed.leaderEpoch());
        assertEquals("meta", committed.metadata());
        assertNull(coordinator.fetchOffsets("other", List.of(T1)).offsets().get(T1));
    }

    @Test
    void aNewCoordinatorLoadsGroupsOffsetsAndDeletionsFromTheLog() {
        JoinGroupResponseData joined = get(joinDynamic("g", subscription("orders")));
        get(sync("g", joined, Map.of(joined.memberId(), bytes("assigned"))));
        commit("g", joined.memberId(), 1, 42, T0, T1);
        commit("simple", "", -1, 7, T0);
        commit("doomed", "", -1, 8, T0);
        assertEquals(Map.of("doomed", Errors.NONE), get(coordinator.deleteGroups(List.of("doomed"))));

        coordinator.close();
        coordinator = startCoordinator(config(1, 60_000L), Time.SYSTEM);

        DescribedGroup described = coordinator.describeGroup("g");
        assertEquals("Stable", described.groupState());
        assertEquals("range", described.protocolData());
        assertEquals(1, described.members().size());
        assertEquals(joined.memberId(), described.members().get(0).memberId());
        assertArrayEquals(bytes("assigned"), described.members().get(0).memberAssignment());
        assertEquals(Errors.NONE, heartbeat("g", joined.memberId(), null, 1),
                "the member carries on with the coordinator that loaded its group");
        assertEquals(42, coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0).offset());
        assertEquals(42, coordinator.fetchOffsets("g", List.of(T1)).offsets().get(T1).offset());
        assertEquals(7, coordinator.fetchOffsets("simple", List.of(T0)).offsets().get(T0).offset());
        assertNull(coordinator.fetchOffsets("doomed", List.of(T0)).offsets().get(T0));
        assertNull(coordinator.describeGroup("doomed"));
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedAndTheGroupEmpties() {
        JoinGroupResponseData first = get(join("g", "", null, 30_000, subscription("orders")));
        JoinGroupResponseData joined = get(join("g", first.memberId(), null, 300, subscription("orders")));
        get(sync("g", joined, Map.of(joined.memberId(), bytes("x"))));

        await("the silent member expires")
                .until(() -> coordinator.groupState("g").orElseThrow() == GroupState.EMPTY);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", joined.memberId(), null, 1));
        assertEquals(Map.of(T0, Errors.NONE), commit("g", "", -1, 5, T0),
                "an empty group takes simple commits again");
    }

    @Test
    void aStaticMemberRejoiningWithTheSameSubscriptionKeepsItsAssignmentAndFencesItsOldId() {
        JoinGroupResponseData joined = get(join("g", "", "instance-1", 30_000, subscription("orders")));
        assertEquals(Errors.NONE.code(), joined.errorCode(), "static members skip MEMBER_ID_REQUIRED");
        get(sync("g", joined, Map.of(joined.memberId(), bytes("mine"))));

        JoinGroupResponseData rejoined = get(join("g", "", "instance-1", 30_000, subscription("orders")));
        assertEquals(Errors.NONE.code(), rejoined.errorCode());
        assertNotEquals(joined.memberId(), rejoined.memberId());
        assertEquals(1, rejoined.generationId(), "no rebalance");
        assertTrue(rejoined.skipAssignment(), "the rejoining leader is not asked to assign again");
        SyncGroupResponseData synced = get(sync("g", rejoined, Map.of()));
        assertArrayEquals(bytes("mine"), synced.assignment());

        assertEquals(Errors.FENCED_INSTANCE_ID, heartbeat("g", joined.memberId(), "instance-1", 1));
        assertEquals(Errors.NONE, heartbeat("g", rejoined.memberId(), "instance-1", 1));
        var left = coordinator.leaveGroup("g", List.of(new MemberIdentity().setMemberId(joined.memberId())
                .setGroupInstanceId("instance-1")));
        assertEquals(Errors.FENCED_INSTANCE_ID.code(), left.members().get(0).errorCode());
    }

    @Test
    void offsetsOfSubscribedTopicsCannotBeDeletedOthersCan() {
        JoinGroupResponseData joined = get(joinDynamic("g", subscription("orders")));
        get(sync("g", joined, Map.of(joined.memberId(), bytes("x"))));
        TopicPartition other = new TopicPartition("payments", 0);
        commit("g", joined.memberId(), 1, 9, T0, other);

        var result = get(coordinator.deleteOffsets("g", List.of(T0, other)));
        assertEquals(Errors.NONE, result.error());
        assertEquals(Errors.GROUP_SUBSCRIBED_TO_TOPIC, result.partitions().get(T0));
        assertEquals(Errors.NONE, result.partitions().get(other));
        assertEquals(9, coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0).offset());
        assertNull(coordinator.fetchOffsets("g", List.of(other)).offsets().get(other));
        assertEquals(Map.of("g", Errors.NON_EMPTY_GROUP), get(coordinator.deleteGroups(List.of("g"))));
    }

    @Test
    void offsetsOfAnEmptyGroupExpireAfterTheRetentionAndTheGroupGoes() {
        coordinator.close();
        ManualTime time = new ManualTime();
        coordinator = startCoordinator(config(1, 60_000L), time);
        commit("g", "", -1, 5, T0);
        time.sleep(59_000);
        coordinator.expireOffsets();
        assertEquals(5, coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0).offset());

        time.sleep(1_000);
        coordinator.expireOffsets();
        assertNull(coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0));
        assertTrue(coordinator.groupState("g").isEmpty(), "an empty group without offsets is deleted");

        coordinator.close();
        coordinator = startCoordinator(config(1, 60_000L), Time.SYSTEM);
        assertNull(coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0), "the expiry is durable");
    }

    @Test
    void groupsOfPartitionsThisBrokerDoesNotLeadAreRefused() {
        coordinator.close();
        coordinator = new GroupCoordinator(config(2, 60_000L), replicaManager, Time.SYSTEM);
        coordinator.onLeadershipChange(Set.of(0), 2);
        String onOne = "group-a";
        while (coordinator.partitionFor(onOne) != 1) {
            onOne = onOne + "x";
        }
        String finalOnOne = onOne;
        assertEquals(Errors.NOT_COORDINATOR, coordinator.checkGroup(finalOnOne));
        assertEquals(Errors.INVALID_GROUP_ID, coordinator.checkGroup(""));
        JoinGroupResponseData refused = get(join(finalOnOne, "", null, 30_000, subscription("orders")));
        assertEquals(Errors.NOT_COORDINATOR.code(), refused.errorCode());
        String onZero = "group-b";
        while (coordinator.partitionFor(onZero) != 0) {
            onZero = onZero + "x";
        }
        String finalOnZero = onZero;
        await("partition 0 loaded").until(() -> coordinator.checkGroup(finalOnZero) == Errors.NONE);
        JoinGroupResponseData badTimeout = get(join(finalOnZero, "", null, 50, subscription("orders")));
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), badTimeout.errorCode());
    }
}
