package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

import static io.tributary.broker.cluster.ClusterTestSupport.TIMEOUT;
import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.data;
import static io.tributary.broker.cluster.ClusterTestSupport.exists;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The controller's partition states, elections, fencing and topic deletion against a real in-process ZooKeeper. */
class ControllerTest extends ZooKeeperTestBase {

    @Test
    void everyPartitionOfANewTopicGetsItsFirstReplicaAsLeaderAndItsReplicasAsIsr() throws Exception {
        ClusterManager one = startBroker(config(1, connect, dir));
        ClusterManager two = startBroker(config(2, connect, dir));
        ClusterManager three = startBroker(config(3, connect, dir));
        try {
            await("all brokers known").until(() -> one.metadataCache().snapshot().brokers().size() == 3);
            TopicAdmin.CreatedTopic created = one.topicAdmin().createTopic("spread", 6, 2, null, Map.of(), false);
            one.topicAdmin().whenPartitionStatesWritten("spread", 6).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            ClusterManager controller = List.of(one, two, three).stream().filter(ClusterManager::isController)
                    .findFirst().orElseThrow();
            TopicMetadata topic = one.metadataCache().snapshot().topic("spread").orElseThrow();
            assertEquals(created.topicId(), topic.topicId());
            for (PartitionMetadata p : topic.partitions().values()) {
                assertEquals(created.assignment().get(p.topicPartition().partition()), p.replicas());
                assertEquals(p.replicas().get(0), p.leader(), p.toString());
                assertEquals(p.replicas(), p.isr(), p.toString());
                assertEquals(0, p.leaderEpoch());
                assertEquals(controller.controllerEpoch(), p.controllerEpoch());
                JsonNode state = new ObjectMapper().readTree(data(inspector,
                        chroot + "/brokers/topics/spread/partitions/" + p.topicPartition().partition() + "/state"));
                assertEquals(p.leader(), state.get("leader").asInt());
                assertEquals(1, state.get("version").asInt());
                assertEquals(controller.controllerEpoch(), state.get("controller_epoch").asInt());
            }
        } finally {
            one.close();
            two.close();
            three.close();
        }
    }

    @Test
    void leaderMovesToTheSurvivingReplicaWithTheNextLeaderEpochWhenItsBrokerGoesAway() throws Exception {
        ClusterManager one = startBroker(config(1, connect, dir));
        ClusterManager two = startBroker(config(2, connect, dir));
        try {
            await("both brokers known").until(() -> two.metadataCache().snapshot().isLive(1));
            two.topicAdmin().createTopic("pair", TopicAdmin.USE_DEFAULT, TopicAdmin.USE_DEFAULT,
                    Map.of(0, List.of(1, 2), 1, List.of(2, 1)), Map.of(), false);
            two.topicAdmin().whenPartitionStatesWritten("pair", 2).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            long epochOne = two.metadataCache().snapshot().brokerEpoch(1);
            long epochTwo = two.metadataCache().snapshot().brokerEpoch(2);
            assertEquals(new LeaderAndIsr(1, 0, List.of(1, 2), stateOf(two, "pair", 0).controllerEpoch(),
                            Map.of(1, epochOne, 2, epochTwo)), stateOf(two, "pair", 0).leaderAndIsr(),
                    "the ISR records each member's broker epoch");

            one.close();

            await("broker 2 leads partition 0").until(() -> stateOf(two, "pair", 0).leader() == 2);
            PartitionMetadata p0 = stateOf(two, "pair", 0);
            assertEquals(1, p0.leaderEpoch());
            assertEquals(List.of(2), p0.isr());
            await("broker 1 left the ISR of partition 1").until(() -> stateOf(two, "pair", 1).isr().equals(List.of(2)));
            PartitionMetadata p1 = stateOf(two, "pair", 1);
            assertEquals(2, p1.leader());
            assertEquals(0, p1.leaderEpoch(), "the leader did not change");
            assertTrue(two.isController(), "the survivor controls");
            assertEquals(two.controllerEpoch(), p0.controllerEpoch());
        } finally {
            one.close();
            two.close();
        }
    }

    @Test
    void replicasReportedOfflineLoseLeadershipAndIsrSeatWhileTheBrokersOtherPartitionsKeepTheirs() throws Exception {
        ClusterManager one = startBroker(config(1, connect, dir));
        ClusterManager two = startBroker(config(2, connect, dir));
        try {
            await("both brokers known").until(() -> two.metadataCache().snapshot().isLive(1));
            two.topicAdmin().createTopic("disks", TopicAdmin.USE_DEFAULT, TopicAdmin.USE_DEFAULT,
                    Map.of(0, List.of(1, 2), 1, List.of(1, 2), 2, List.of(2, 1)), Map.of(), false);
            two.topicAdmin().whenPartitionStatesWritten("disks", 3).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            await("full ISRs").until(() -> List.of(0, 1, 2).stream()
                    .allMatch(p -> stateOf(two, "disks", p).isr().size() == 2));

            one.reportOfflineReplicas(() -> new OfflineReplicas(List.of("/data/a"),
                    Set.of(new TopicPartition("disks", 0), new TopicPartition("disks", 2))));

            await("broker 2 leads partition 0").until(() -> stateOf(two, "disks", 0).leader() == 2);
            assertEquals(List.of(2), stateOf(two, "disks", 0).isr());
            assertEquals(1, stateOf(two, "disks", 0).leaderEpoch());
            await("broker 1 left the ISR of partition 2")
                    .until(() -> stateOf(two, "disks", 2).isr().equals(List.of(2)));
            assertEquals(0, stateOf(two, "disks", 2).leaderEpoch(), "the leader did not change");
            PartitionMetadata untouched = stateOf(two, "disks", 1);
            assertEquals(1, untouched.leader(), "its replica of partition 1 is fine");
            assertEquals(List.of(1, 2), untouched.isr());
            assertEquals(Set.of(new TopicPartition("disks", 0), new TopicPartition("disks", 2)),
                    two.metadataCache().snapshot().offlineReplicas().get(1));
        } finally {
            one.close();
            two.close();
        }
    }

    @Test
    void leaderlessPartitionGetsItsReplicaAsLeaderWhenTheBrokerReturns() throws Exception {
        ClusterManager two = startBroker(config(2, connect, dir));
        ClusterManager one = startBroker(config(1, connect, dir));
        try {
            await("broker 2 controls").until(two::isController);
            await("broker 1 known").until(() -> two.metadataCache().snapshot().isLive(1));
            two.topicAdmin().createTopic("solo", TopicAdmin.USE_DEFAULT, TopicAdmin.USE_DEFAULT,
                    Map.of(0, List.of(1)), Map.of(), false);
            two.topicAdmin().whenPartitionStatesWritten("solo", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(1, stateOf(two, "solo", 0).leader());

            one.close();
            await("partition 0 has no leader").until(() -> !stateOf(two, "solo", 0).hasLeader());
            PartitionMetadata leaderless = stateOf(two, "solo", 0);
            assertEquals(1, leaderless.leaderEpoch());
            assertEquals(List.of(1), leaderless.isr(), "the ISR is kept for a clean election later");

            one = startBroker(config(1, connect, dir));
            await("broker 1 leads again").until(() -> stateOf(two, "solo", 0).leader() == 1);
            assertEquals(2, stateOf(two, "solo", 0).leaderEpoch());
            assertEquals(List.of(1), stateOf(two, "solo", 0).isr());
        } finally {
            one.close();
            two.close();
        }
    }

    @Test
    void conditionalWriteWithAStaleVersionFailsAndOverwritesNothing() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            broker.topicAdmin().createTopic("cas", 1, 1, null, Map.of(), false);
            broker.topicAdmin().whenPartitionStatesWritten("cas", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            PartitionStateStore store = broker.partitionStateStore();
            TopicPartition tp = new TopicPartition("cas", 0);
            PartitionStateStore.VersionedState read = store.read(tp).orElseThrow();

            LeaderAndIsr leaderWrite = read.state().withIsr(List.of(1), read.state().controllerEpoch());
            Optional<PartitionStateStore.VersionedState> written = store.compareAndSet(tp, leaderWrite,
                    read.zkVersion());
            assertEquals(read.zkVersion() + 1, written.orElseThrow().zkVersion());

            Optional<PartitionStateStore.VersionedState> stale = store.compareAndSet(tp,
                    new LeaderAndIsr(9, 99, List.of(9), 0), read.zkVersion());
            assertTrue(stale.isEmpty());
            assertEquals(written.get(), store.read(tp).orElseThrow());
        }
    }

    @Test
    void writesOfAControllerFromAnEarlierEpochChangeNothing() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            broker.topicAdmin().createTopic("fenced", 1, 1, null, Map.of(), false);
            broker.topicAdmin().whenPartitionStatesWritten("fenced", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            TopicPartition tp = new TopicPartition("fenced", 0);
            PartitionStateStore.VersionedState before = broker.partitionStateStore().read(tp).orElseThrow();
            Stat epochStat = inspector.checkExists().forPath(chroot + "/controller_epoch");
            ControllerFence stale = new ControllerFence(broker.controllerEpoch() - 1, epochStat.getVersion() - 1);

            assertEquals(ControllerFence.Outcome.FENCED, broker.partitionStateStore().updateFenced(tp,
                    new LeaderAndIsr(-1, 42, List.of(1), stale.epoch()), before.zkVersion(), stale));
            assertEquals(ControllerFence.Outcome.FENCED, new TopicStore(broker.connection()).deleteFenced("fenced",
                    stale));

            assertEquals(before, broker.partitionStateStore().read(tp).orElseThrow());
            assertTrue(exists(inspector, chroot + "/brokers/topics/fenced"));
        }
    }

    /**
     * Found by the protocol fuzzer: a reassignment of "fuzz-m\u00ffved" reached ZooKeeper as a path, which it refused;
     * the whole request was answered UNKNOWN_SERVER_ERROR. A name no topic can have is an unknown partition, like any
     * other, and the request's other partitions are carried out.
     */
    @Test
    void reassigningATopicNoTopicCanHaveIsUnknownTopicOrPartition() throws Exception {
        ClusterManager one = startBroker(config(1, connect, dir));
        try {
            await("controller").until(one::isController);
            one.topicAdmin().createTopic("moved", 1, 1, null, Map.of(), false);
            one.topicAdmin().whenPartitionStatesWritten("moved", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, Optional<List<Integer>>> targets = new java.util.LinkedHashMap<>();
            for (String name : List.of("fuzz-m\u00ffved", "fuzz-mov\u0000", "fuz\u007f-moved", "a/b")) {
                targets.put(new TopicPartition(name, 0), Optional.of(List.of(1)));
            }
            targets.put(new TopicPartition("moved", 0), Optional.empty());
            Map<TopicPartition, org.apache.kafka.common.requests.ApiError> results =
                    one.alterPartitionReassignments(targets).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            targets.keySet().stream().filter(tp -> !tp.topic().equals("moved")).forEach(tp -> assertEquals(
                    org.apache.kafka.common.protocol.Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(tp).error(),
                    tp.toString()));
            assertEquals(org.apache.kafka.common.protocol.Errors.NO_REASSIGNMENT_IN_PROGRESS,
                    results.get(new TopicPartition("moved", 0)).error(), "the legal name is looked up");
        } finally {
            one.close();
        }
    }

    @Test
    void deletedTopicLosesEveryZnodeAndItsNameCanBeUsedAgain() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            TopicAdmin admin = broker.topicAdmin();
            Uuid first = admin.createTopic("doomed", 2, 1, null, Map.of("retention.ms", "1000"), false).topicId();
            admin.whenPartitionStatesWritten("doomed", 2).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            assertEquals(first, admin.deleteTopic("doomed"));
            admin.whenDeleted(first).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            for (String path : List.of("/brokers/topics/doomed", "/config/topics/doomed",
                    "/admin/delete_topics/doomed")) {
                assertFalse(exists(inspector, chroot + path), path);
            }
            assertTrue(broker.metadataCache().snapshot().topic("doomed").isEmpty());

            Uuid second = admin.createTopic("doomed", 1, 1, null, Map.of(), false).topicId();
            assertNotEquals(first, second);
            admin.whenPartitionStatesWritten("doomed", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(Map.of(), broker.metadataCache().snapshot().topic("doomed").orElseThrow().configOverrides());
        }
    }

    @Test
    void controllerWhoseEpochMovedStepsDownAndItsNextTermFinishesTheWork() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            await("the only broker controls").until(broker::isController);
            int term = broker.controllerEpoch();
            // Another controller somewhere took office: the epoch moved under this one's feet.
            inspector.setData().forPath(chroot + "/controller_epoch", Integer.toString(term + 10).getBytes());

            broker.topicAdmin().createTopic("late", 1, 1, null, Map.of(), false);
            broker.topicAdmin().whenPartitionStatesWritten("late", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            assertEquals(term + 11, broker.controllerEpoch(), "fenced, resigned and elected again");
            assertEquals(term + 11, stateOf(broker, "late", 0).controllerEpoch());
        }
    }

    @Test
    void topicWrittenWithoutIdByAnOldKafkaGetsOneAndItsStates() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            inspector.create().forPath(chroot + "/brokers/topics/legacy",
                    "{\"version\":2,\"partitions\":{\"0\":[1]},\"adding_replicas\":{},\"removing_replicas\":{}}"
                            .getBytes());
            MetadataSnapshot snapshot = broker.metadataCache()
                    .when(s -> s.topic("legacy").map(t -> !t.topicId().equals(Uuid.ZERO_UUID)
                            && t.partitions().get(0).hasLeader()).orElse(false))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Uuid id = snapshot.topic("legacy").orElseThrow().topicId();
            assertTrue(data(inspector, chroot + "/brokers/topics/legacy").contains("\"topic_id\":\"" + id + "\""));
        }
    }

    private static PartitionMetadata stateOf(ClusterManager broker, String topic, int partition) {
        return broker.metadataCache().snapshot().partition(new TopicPartition(topic, partition)).orElseThrow();
    }
}
