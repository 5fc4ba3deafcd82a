package io.tributary.broker.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's tools under steady {@code acks=all} load on four brokers, each checked against what the cluster then
 * says and against the ledger of acknowledged records: a reassignment from brokers {1,2,3} to {2,3,4} (AdminClient's
 * AlterPartitionReassignments, as {@code kafka-reassign-partitions.sh} sends it), a preferred-leader election
 * (ElectLeaders, as {@code kafka-leader-election.sh}), and a rolling restart with SIGTERM, where each broker's
 * controlled shutdown hands its leaderships to another in-sync replica before it stops.
 */
class ClusterOperationsTest {

    private static final String TOPIC = "moving";
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void reassignmentPreferredElectionAndRollingRestartUnderLoadLoseNothing() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 4, false, "replica.lag.time.max.ms", "3000",
                "auto.leader.rebalance.enable", "false")) {
            cluster.startAll();
            cluster.createTopic(TOPIC, Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1)),
                    Map.of("min.insync.replicas", "2"));
            List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            try (AckedProducer load = new AckedProducer(cluster.bootstrapServers(), TOPIC, 2, 200)) {
                load.awaitMoreAcks(200, LIMIT);

                reassign(cluster, partitions);
                load.awaitMoreAcks(200, LIMIT);

                electPreferred(cluster, partitions);
                load.awaitMoreAcks(200, LIMIT);
                assertNotLeaderAnswersNameTheLeader(cluster, partitions.get(0));

                for (int id : List.of(1, 2, 3, 4)) {
                    assertEquals(143, cluster.terminate(id), "broker " + id + " stopped by SIGTERM after its hooks");
                    assertTrue(cluster.broker(id).output().contains("Controlled shutdown of broker " + id
                            + ": leaderships handed over"), cluster.broker(id).output());
                    for (TopicPartition tp : partitions) {
                        await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                            TopicPartitionInfo info = cluster.partition(tp);
                            return info.leader() != null && info.leader().id() != id;
                        }, () -> tp + " led by a broker other than the stopped " + id));
                    }
                    load.awaitMoreAcks(100, LIMIT);
                    cluster.start(id);
                    cluster.awaitFullIsr(TOPIC, 2, 3, LIMIT);
                }
                load.awaitMoreAcks(100, LIMIT);
                load.stop();
                assertEquals(0, load.failedCount(), "no send failed across the operations");
                try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                    load.verify(Records.readToEnd(consumer, partitions));
                }
            }
        }
    }

    /**
     * A produce sent to a follower is answered NOT_LEADER_OR_FOLLOWER with the leader and its address (KIP-951), so a
     * client switches without asking for metadata.
     */
    private static void assertNotLeaderAnswersNameTheLeader(ProcessCluster cluster,
            TopicPartition tp) throws Exception {
        TopicPartitionInfo info = cluster.partition(tp);
        int leader = info.leader().id();
        int follower = info.replicas().stream().map(Node::id).filter(id -> id != leader).findFirst().orElseThrow();
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5_000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
                .setRecords(MemoryRecords.withRecords(Compression.NONE,
                        new SimpleRecord("to a follower".getBytes(StandardCharsets.UTF_8)))));
        data.topicData().add(topic);
        short version = 12; // topics by name, leader hints (v10+)
        String[] address = cluster.broker(follower).bootstrapServers().split(":");
        try (RawConnection connection = new RawConnection(Integer.parseInt(address[1]))) {
            RequestHeader header = connection.send(new ProduceRequest.Builder(version, version, data).build(version),
                    7);
            ProduceResponseData response = ((ProduceResponse) connection.receive(header)).data();
            ProduceResponseData.PartitionProduceResponse answer = response.responses().iterator().next()
                    .partitionResponses().get(0);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), answer.errorCode());
            assertEquals(leader, answer.currentLeader().leaderId());
            assertEquals(info.leader().id(), answer.currentLeader().leaderId());
            ProduceResponseData.NodeEndpoint endpoint = response.nodeEndpoints().find(leader);
            assertEquals(cluster.broker(leader).bootstrapServers(), endpoint.host() + ":" + endpoint.port());
        }
    }

    /** Moves both partitions from {1,2,3} to {2,3,4} and waits until it is done; broker 1 then holds no copy. */
    private void reassign(ProcessCluster cluster, List<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, List<Integer>> targets = Map.of(partitions.get(0), List.of(2, 3, 4),
                partitions.get(1), List.of(3, 4, 2));
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, Optional<NewPartitionReassignment>> request = new java.util.HashMap<>();
            targets.forEach((tp, replicas) -> request.put(tp, Optional.of(new NewPartitionReassignment(replicas))));
            admin.alterPartitionReassignments(request).all().get(30, TimeUnit.SECONDS);
            await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                try {
                    Map<TopicPartition, PartitionReassignment> ongoing = admin.listPartitionReassignments()
                            .reassignments().get(10, TimeUnit.SECONDS);
                    return ongoing.isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, () -> "the reassignments to finish"));
        }
        for (TopicPartition tp : partitions) {
            TopicPartitionInfo info = cluster.partition(tp);
            assertEquals(targets.get(tp), info.replicas().stream().map(Node::id).toList(), "replicas of " + tp);
            assertTrue(targets.get(tp).contains(info.leader().id()), "the leader of " + tp + " is a new replica");
            assertEquals(new TreeSet<>(targets.get(tp)), ProcessCluster.ids(info.isr()));
        }
        Path brokerOneLogs = cluster.dir().resolve("broker-1").resolve("logs");
        await(LIMIT).untilAsserted(() -> assertTrue(() -> partitions.stream()
                .noneMatch(tp -> java.nio.file.Files.exists(brokerOneLogs.resolve(tp.topic() + "-" + tp.partition()))),
                () -> "broker 1 to delete its copies"));
    }

    /** Leads each partition by a non-preferred replica, then moves it back with a preferred election. */
    private void electPreferred(ProcessCluster cluster, List<TopicPartition> partitions) throws Exception {
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, Boolean> ledByPreferred = new java.util.HashMap<>();
            for (TopicPartition tp : partitions) {
                ledByPreferred.put(tp, cluster.leaderOf(tp) == cluster.partition(tp).replicas().get(0).id());
            }
            Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(ElectionType.PREFERRED,
                    Set.copyOf(partitions)).partitions().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : partitions) {
                int preferred = cluster.partition(tp).replicas().get(0).id();
                // Led by its preferred replica already: "election not needed"; otherwise it is elected now.
                assertEquals(ledByPreferred.get(tp), results.get(tp).isPresent(), tp + ": " + results);
                await(LIMIT).untilAsserted(() -> assertTrue(() -> cluster.leaderOf(tp) == preferred,
                        () -> tp + " led by " + preferred));
            }
            // Take the preferred replica of partition 0 away and back: someone else leads meanwhile.
            TopicPartition tp = partitions.get(0);
            int preferred = cluster.partition(tp).replicas().get(0).id();
            cluster.kill(preferred);
            await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                int leader = cluster.leaderOf(tp);
                return leader >= 0 && leader != preferred;
            }, () -> "another leader of " + tp));
            cluster.start(preferred);
            cluster.awaitFullIsr(TOPIC, 2, 3, LIMIT);
            Map<TopicPartition, Optional<Throwable>> result = admin.electLeaders(ElectionType.PREFERRED,
                    Set.of(tp)).partitions().get(30, TimeUnit.SECONDS);
            assertEquals(Optional.empty(), result.get(tp), "the preferred election of " + tp);
            await(LIMIT).untilAsserted(() -> assertTrue(() -> cluster.leaderOf(tp) == preferred,
                    () -> tp + " led by " + preferred));
        }
    }
}
