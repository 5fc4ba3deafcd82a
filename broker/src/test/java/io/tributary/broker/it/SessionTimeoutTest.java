package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tributary.broker.BrokerConfig;

/**
 * A member that stops heartbeating without leaving the group is removed when its session timeout passes, and its
 * partitions go to the members that remain. The broker allows sessions from 1 s ({@code group.min.session.timeout.ms})
 * so that the member under test can have a 2 s session; members that must stay keep the 10 s default of
 * {@link Clients#groupConsumer}, far above any stall of a loaded machine.
 *
 * <p>How a member stops heartbeating without a LeaveGroup, two ways:
 * <ul>
 *   <li>the official consumer closed with {@link CloseOptions.GroupMembershipOperation#REMAIN_IN_GROUP}: the Java
 *       client 4.4 then stops its heartbeat thread and, for a dynamic member, sends no LeaveGroup
 *       ({@code AbstractCoordinator.shouldSendLeaveGroupRequest}), exactly as a crashed process would look to the
 *       coordinator, while the test keeps full control of the consumer's lifecycle (no thread to wedge, no
 *       {@code max.poll.interval.ms} to outwait);</li>
 *   <li>a member on a raw socket ({@link GroupWire}) that joins, heartbeats once and then sends nothing: no client
 *       logic at all between the test and the coordinator, which also lets the test bound the removal from below
 *       (the coordinator must not remove a member before its session has passed since its last heartbeat).</li>
 * </ul>
 */
class SessionTimeoutTest {

    private static final int SHORT_SESSION_MS = 2_000;
    /** Session timeout plus a margin for the rebalance that follows on a loaded machine. */
    private static final Duration WITHIN_SESSION = Duration.ofMillis(SHORT_SESSION_MS).plusSeconds(10);

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Admin admin;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                BrokerConfig.GROUP_MIN_SESSION_TIMEOUT_MS, "1000");
        admin = Clients.admin(broker.bootstrapServers());
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @Test
    void aConsumerThatStopsHeartbeatingIsRemovedAndItsPartitionsGoToTheOtherMember() throws Exception {
        String topic = "watched";
        String group = "watchers";
        admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
        Set<TopicPartition> all = Set.copyOf(Records.partitions(topic, 4));

        // The crashing member's rebalance timeout (max.poll.interval.ms) is far above the wait below: only its
        // session timeout can explain its removal in time.
        try (KafkaConsumer<String, String> survivor = Clients.groupConsumer(broker.bootstrapServers(), group,
                ConsumerConfig.CLIENT_ID_CONFIG, "survivor");
             KafkaConsumer<String, String> crashing = Clients.groupConsumer(broker.bootstrapServers(), group,
                     ConsumerConfig.CLIENT_ID_CONFIG, "crashing",
                     ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(SHORT_SESSION_MS),
                     ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "120000")) {
            survivor.subscribe(List.of(topic));
            crashing.subscribe(List.of(topic));
            Map<String, KafkaConsumer<String, String>> both = new TreeMap<>(
                    Map.of("survivor", survivor, "crashing", crashing));
            Map<String, Set<TopicPartition>> shared = Groups.pollUntilStable(admin, group, both, all);
            assertEquals(2, shared.get("survivor").size(), shared.toString());
            String survivorId = memberIdOf(Groups.describe(admin, group), "survivor");

            crashing.close(CloseOptions.groupMembershipOperation(
                    CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));

            Groups.pollUntil(WITHIN_SESSION, List.of(survivor),
                    () -> Groups.stableAs(admin, group, Map.of("survivor", survivor), all),
                    () -> "the survivor alone owning " + all + " within " + WITHIN_SESSION + "; described "
                            + Groups.describeIfExists(admin, group) + "; it holds " + survivor.assignment());
            ConsumerGroupDescription after = Groups.describe(admin, group);
            assertEquals(1, after.members().size(), after.toString());
            assertEquals(survivorId, memberIdOf(after, "survivor"),
                    "the survivor stayed the same member through the rebalance");
            assertEquals(all, survivor.assignment());
        }
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedAfterItsSessionTimeoutAndNotBefore() throws Exception {
        String topic = "silent";
        String group = "silent-members";
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        List<TopicPartition> partitions = Records.partitions(topic, 2);

        try (GroupWire member = new GroupWire(broker.port())) {
            member.awaitCoordinator(group);
            JoinGroupResponseData joined = member.joinAsNewMember(group, SHORT_SESSION_MS, topic);
            SyncGroupResponseData synced = member.sync(group, joined.generationId(), joined.memberId(), null,
                    Map.of(joined.memberId(), partitions));
            assertEquals(Errors.NONE, Errors.forCode(synced.errorCode()), synced.toString());

            long lastHeartbeat = System.nanoTime();
            assertEquals(Errors.NONE, member.heartbeat(group, joined.generationId(), joined.memberId(), null));
            // From here on the member is silent.

            // Removed: the group is Empty, as Kafka leaves it, or gone altogether (Dead, or not found).
            List<Observation> seen = new ArrayList<>();
            await(WITHIN_SESSION).untilAsserted(() -> assertTrue(() -> {
                Optional<ConsumerGroupDescription> described = Groups.describeIfExists(admin, group);
                seen.add(new Observation((System.nanoTime() - lastHeartbeat) / 1_000_000, described));
                return described.isEmpty() || described.get().groupState() == GroupState.EMPTY;
            }, () -> "the silent member removed within " + WITHIN_SESSION + "; last seen "
                    + seen.get(seen.size() - 1)));
            seen.get(seen.size() - 1).group().ifPresent(
                    empty -> assertTrue(empty.members().isEmpty(), empty.toString()));

            // Not before its session: the coordinator received the heartbeat after lastHeartbeat, so every answer
            // that arrived less than a session after lastHeartbeat was given while the member's session ran. Load
            // on this machine only delays answers, making this check weaker, never wrong. 50 ms: clock rounding.
            for (Observation observation : seen) {
                if (observation.afterHeartbeatMs() < SHORT_SESSION_MS - 50) {
                    assertTrue(observation.group().isPresent(), observation.toString());
                    assertEquals(GroupState.STABLE, observation.group().get().groupState(), observation.toString());
                    assertEquals(List.of(joined.memberId()), observation.group().get().members().stream()
                            .map(MemberDescription::consumerId).toList(), observation.toString());
                }
            }
            assertEquals(Errors.UNKNOWN_MEMBER_ID,
                    member.heartbeat(group, joined.generationId(), joined.memberId(), null),
                    "the removed member's next heartbeat");
        }
    }

    /** What describeConsumerGroups answered, and when the answer arrived after the member's last heartbeat. */
    private record Observation(long afterHeartbeatMs, Optional<ConsumerGroupDescription> group) {
    }

    private static String memberIdOf(ConsumerGroupDescription group, String clientId) {
        List<String> ids = group.members().stream().filter(member -> member.clientId().equals(clientId))
                .map(MemberDescription::consumerId).toList();
        assertEquals(1, ids.size(), "one member with client id " + clientId + " in " + group);
        return ids.get(0);
    }
}
