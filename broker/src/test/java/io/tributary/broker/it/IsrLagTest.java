package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The ISR follows the followers: a follower frozen with SIGSTOP (its sockets open, so it is not dead, only silent)
 * leaves the ISR after {@code replica.lag.time.max.ms} and {@code acks=all} writes go on without it; after SIGCONT it
 * catches up and is taken back. Every acknowledged record ends up on every replica (the HW never passed a record an
 * ISR member lacked: otherwise the thawed follower, once in the ISR again, would lack it).
 */
class IsrLagTest {

    private static final String TOPIC = "lagging";
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aFrozenFollowerLeavesTheIsrAndRejoinsAfterCatchingUp() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, "replica.lag.time.max.ms", "2000",
                // The frozen broker must not lose its session meanwhile: this test is about the ISR, not expiry.
                "zookeeper.session.timeout.ms", "20000")) {
            cluster.startAll();
            cluster.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            int leader = cluster.leaderOf(tp);
            int follower = cluster.ids().stream().filter(id -> id != leader).findFirst().orElseThrow();
            try (AckedProducer load = new AckedProducer(cluster.bootstrapServers(), TOPIC, 1, 200)) {
                load.awaitMoreAcks(200, LIMIT);
                cluster.pause(follower);
                Set<Integer> withoutFollower = new TreeSet<>(cluster.ids());
                withoutFollower.remove(follower);
                cluster.awaitIsr(tp, withoutFollower, Duration.ofSeconds(30));
                load.awaitMoreAcks(400, LIMIT);

                cluster.resume(follower);
                cluster.awaitIsr(tp, new TreeSet<>(cluster.ids()), Duration.ofSeconds(30));
                load.awaitMoreAcks(200, LIMIT);
                load.stop();
                assertEquals(leader, cluster.leaderOf(tp), "the leader stayed");
                try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                    load.verify(Records.readToEnd(consumer, List.of(tp)));
                }
            }
            for (int id : new ArrayList<>(cluster.ids())) {
                cluster.terminate(id);
            }
            ReplicationFailoverTest.assertReplicasIdentical(cluster, TOPIC, 1);
        }
    }
}
