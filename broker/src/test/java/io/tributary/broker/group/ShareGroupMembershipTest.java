package io.tributary.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.tributary.broker.group.ShareGroupContext.TopicShape;
import io.tributary.broker.share.ShareConfig;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The share group heartbeat state machine without I/O: joins, epochs, assignments in responses, fencing, leaving,
 * size limit, classic ids, topics appearing, and session expiry by an injected clock (the session check is the
 * scheduler's task, called here when the mock clock says it is due).
 */
class ShareGroupMembershipTest {

    private static final String GROUP = "share-group";
    private static final int SESSION_MS = 45_000;
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private final ManualTime time = new ManualTime();
    private final GroupRegistry registry = new GroupRegistry(50);
    private final Map<String, TopicShape> topics = new HashMap<>(Map.of("orders", new TopicShape(TOPIC_ID, 4)));
    private final List<Integer> storedEpochs = new ArrayList<>();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private ShareConfig config = new ShareConfig(30_000, 15_000, 60_000, 5, 2_000, SESSION_MS, 45_000, 60_000,
            5_000, 5_000, 15_000, 3, 2_000);
    private ShareGroupMembership membership = membership();

    private ShareGroupMembership membership() {
        ShareGroupContext context = new ShareGroupContext(config, name -> Optional.ofNullable(topics.get(name)),
                ShareGroupContext.defaults(config).timeouts());
        ShareGroupMembership.Store store = (group, epoch) -> {
            storedEpochs.add(epoch);
            return CompletableFuture.completedFuture(Errors.NONE);
        };
        long token = registry.claim(registry.partitionFor(GROUP));
        registry.markLoadedOrTakeCompletions(registry.partitionFor(GROUP), token);
        return new ShareGroupMembership(context, registry, store, scheduler, time);
    }

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private ShareGroupHeartbeatResponseData heartbeat(String memberId, int epoch, String... subscribed) {
        ShareGroupHeartbeatRequestData request = new ShareGroupHeartbeatRequestData().setGroupId(GROUP)
                .setMemberId(memberId).setMemberEpoch(epoch)
                .setSubscribedTopicNames(subscribed.length == 0 ? null : List.of(subscribed));
        return membership.heartbeat(request, "client-" + memberId, "/127.0.0.1").join();
    }

    private static Set<Integer> partitions(ShareGroupHeartbeatResponseData response) {
        assertNotNull(response.assignment(), "an assignment in " + response);
        Set<Integer> all = new java.util.TreeSet<>();
        response.assignment().topicPartitions().forEach(tp -> all.addAll(tp.partitions()));
        return all;
    }

    private static Errors error(ShareGroupHeartbeatResponseData response) {
        return Errors.forCode(response.errorCode());
    }

    @Test
    void aJoiningMemberGetsTheGroupEpochAndEveryPartitionAndTheEpochIsStored() {
        ShareGroupHeartbeatResponseData joined = heartbeat("a", 0, "orders");

        assertEquals(Errors.NONE, error(joined));
        assertEquals("a", joined.memberId());
        assertEquals(1, joined.memberEpoch());
        assertEquals(5_000, joined.heartbeatIntervalMs());
        assertEquals(Set.of(0, 1, 2, 3), partitions(joined));
        assertEquals(TOPIC_ID, joined.assignment().topicPartitions().get(0).topicId());
        assertEquals(List.of(1), storedEpochs);
    }

    @Test
    void aSecondMemberBumpsTheEpochAndTheFirstGetsItsSmallerAssignmentAtItsNextHeartbeat() {
        heartbeat("a", 0, "orders");
        ShareGroupHeartbeatResponseData second = heartbeat("b", 0, "orders");
        assertEquals(2, second.memberEpoch());
        assertEquals(2, partitions(second).size());

        ShareGroupHeartbeatResponseData first = heartbeat("a", 1);
        assertEquals(2, first.memberEpoch());
        assertEquals(2, partitions(first).size());

        ShareGroupHeartbeatResponseData unchanged = heartbeat("a", 2);
        assertEquals(2, unchanged.memberEpoch());
        assertNull(unchanged.assignment(), "no assignment when nothing changed for the member");
        assertEquals(List.of(1, 2), storedEpochs);
    }

    @Test
    void unknownMembersAndWrongEpochsAreRefusedAsKafkaRefusesThem() {
        heartbeat("a", 0, "orders");
        assertEquals(Errors.UNKNOWN_MEMBER_ID, error(heartbeat("nobody", 1)));
        assertEquals(Errors.FENCED_MEMBER_EPOCH, error(heartbeat("a", 7)));
        assertEquals(Errors.INVALID_REQUEST, error(heartbeat("", 0, "orders")), "member id is the client's");
        assertEquals(Errors.INVALID_REQUEST, error(heartbeat("c", 0)), "topics are required on joining");
        assertEquals(Errors.INVALID_REQUEST, error(heartbeat("c", -2)));
    }

    @Test
    void aFencedMemberRejoinsWithEpochZeroAndItsIdAndGetsItsAssignmentAgain() {
        heartbeat("a", 0, "orders");
        assertEquals(Errors.FENCED_MEMBER_EPOCH, error(heartbeat("a", 9)));

        ShareGroupHeartbeatResponseData rejoined = heartbeat("a", 0, "orders");
        assertEquals(Errors.NONE, error(rejoined));
        assertEquals(1, rejoined.memberEpoch(), "nothing changed in the group: same epoch");
        assertEquals(Set.of(0, 1, 2, 3), partitions(rejoined));
    }

    @Test
    void aLeavingMemberIsAnsweredEpochMinusOneAndTheGroupEmptiesAtANewEpoch() {
        heartbeat("a", 0, "orders");
        ShareGroupHeartbeatResponseData left = heartbeat("a", -1);

        assertEquals(Errors.NONE, error(left));
        assertEquals(-1, left.memberEpoch());
        ShareGroup group = registry.shareGroup(GROUP);
        assertEquals(GroupState.EMPTY, group.state());
        assertEquals(2, group.groupEpoch());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, error(heartbeat("a", -1)));
    }

    @Test
    void theGroupRefusesMembersBeyondGroupShareMaxSize() {
        heartbeat("a", 0, "orders");
        heartbeat("b", 0, "orders");
        heartbeat("c", 0, "orders");
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED, error(heartbeat("d", 0, "orders")));
        assertEquals(Errors.NONE, error(heartbeat("c", 0, "orders")), "a member may rejoin a full group");
    }

    @Test
    void aClassicGroupsIdIsNotAShareGroup() {
        registry.getOrCreate(GROUP, time);
        assertEquals(Errors.GROUP_ID_NOT_FOUND, error(heartbeat("a", 0, "orders")));
    }

    @Test
    void aTopicThatAppearsBumpsTheEpochAtTheNextHeartbeatAndIsAssigned() {
        ShareGroupHeartbeatResponseData joined = heartbeat("a", 0, "orders", "later");
        assertEquals(Set.of(0, 1, 2, 3), partitions(joined));

        Uuid laterId = Uuid.randomUuid();
        topics.put("later", new TopicShape(laterId, 2));
        ShareGroupHeartbeatResponseData next = heartbeat("a", joined.memberEpoch());

        assertEquals(joined.memberEpoch() + 1, next.memberEpoch());
        assertEquals(2, next.assignment().topicPartitions().size());
    }

    @Test
    void aSilentMemberExpiresAfterTheSessionTimeoutAndALiveOneDoesNot() {
        heartbeat("a", 0, "orders");
        heartbeat("b", 0, "orders");
        ShareGroup group = registry.shareGroup(GROUP);

        time.advance(SESSION_MS - 1_000);
        heartbeat("b", 2);
        time.advance(1_000);
        membership.checkSession(group, group.member("a"));
        membership.checkSession(group, group.member("b"));

        assertNull(group.member("a"), "a was silent for the session timeout");
        assertNotNull(group.member("b"), "b heartbeated a second ago");
        assertEquals(3, group.groupEpoch());
        assertEquals(List.of(1, 2, 3), storedEpochs);
        ShareGroupHeartbeatResponseData survivor = heartbeat("b", 2);
        assertEquals(Set.of(0, 1, 2, 3), partitions(survivor));
        assertTrue(scheduler.getQueue().size() >= 1, "b's session is checked again later");
    }
}
