package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader cut off from ZooKeeper while it keeps running and serving (its ZooKeeper connection goes through a relay
 * the test cuts): its session expires, the controller elects another in-sync replica, and the old leader cannot
 * acknowledge anything meanwhile (its followers fetch from the new leader, and it cannot shrink the ISR without
 * ZooKeeper), then gives up leadership when it learns its session is lost. Reconnected, it registers with a new
 * broker epoch, follows the new leader, truncates what it appended alone, and rejoins the ISR; every acknowledged
 * record is there once, in order, on every replica.
 */
class ZooKeeperPartitionTest {

    private static final String TOPIC = "isolated";
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aLeaderWhoseSessionExpiresWhileAliveStepsDownAndRejoinsAsFollower() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, true, "zookeeper.session.timeout.ms", "4000",
                "replica.lag.time.max.ms", "3000")) {
            cluster.startAll();
            cluster.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            int oldLeader = cluster.leaderOf(tp);
            try (AckedProducer load = new AckedProducer(cluster.bootstrapServers(), TOPIC, 1, 200)) {
                load.awaitMoreAcks(200, LIMIT);

                cluster.zooKeeperLink(oldLeader).cut();
                await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                    int leader = cluster.leaderOf(tp);
                    return leader >= 0 && leader != oldLeader;
                }, () -> "a new leader of " + tp + " (was " + oldLeader + ")"));
                load.awaitMoreAcks(300, LIMIT);
                assertTrue(cluster.broker(oldLeader).isAlive(), "the old leader kept running");

                cluster.zooKeeperLink(oldLeader).restore();
                cluster.awaitIsr(tp, new TreeSet<>(cluster.ids()), LIMIT);
                load.awaitMoreAcks(200, LIMIT);
                load.stop();
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
