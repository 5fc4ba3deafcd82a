package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import io.tributary.broker.storage.ReplicaLogs;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replication under killed brokers: three brokers as processes on one ZooKeeper, a topic of three partitions with
 * replication factor 3 and {@code min.insync.replicas=2}, an idempotent {@code acks=all} producer at a steady rate.
 * Round after round a broker is SIGKILLed (a partition's leader, a follower, the controller, then a leader and the
 * controller at once, chosen with a seeded random; {@code -Dtributary.test.seed=N} repeats a run) and started again
 * on its data.
 *
 * <p>What must hold: writes go on after each single kill; every acknowledged record is in the log exactly once, at
 * its acknowledged offset, in order; the high watermark consumers see never goes back; each restarted broker
 * rejoins every ISR; and in the end the three copies of every partition are the same records at the same offsets
 * (a restarted broker truncated whatever it had that the new leader did not).
 */
class ReplicationFailoverTest {

    private static final String TOPIC = "ledger";
    private static final int PARTITIONS = 3;
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void acknowledgedRecordsSurviveKilledLeadersFollowersAndControllerExactlyOnceAndInOrder() throws Exception {
        long seed = Long.getLong("tributary.test.seed", System.nanoTime());
        Random random = new Random(seed);
        System.out.println("ReplicationFailoverTest seed " + seed);
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, "replica.lag.time.max.ms", "3000")) {
            cluster.startAll();
            cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
            AckedProducer load = new AckedProducer(cluster.bootstrapServers(), TOPIC, PARTITIONS, 300);
            HighWatermarkWatch highWatermarks = new HighWatermarkWatch(cluster.bootstrapServers(), TOPIC, PARTITIONS);
            try {
                load.awaitMoreAcks(300, LIMIT);
                for (String round : List.of("leader", "follower", "controller", "leader and controller")) {
                    Set<Integer> victims = victims(round, cluster, random);
                    System.out.println("Round '" + round + "': killing " + victims + " (" + load + ")");
                    for (int victim : victims) {
                        cluster.kill(victim);
                    }
                    if (victims.size() == 1) {
                        // Two of three replicas are left: min.insync.replicas=2 is met and writes go on.
                        load.awaitMoreAcks(300, LIMIT);
                    }
                    for (int victim : victims) {
                        cluster.broker(victim).startAsync();
                    }
                    for (int victim : victims) {
                        cluster.broker(victim).awaitStarted();
                    }
                    cluster.awaitFullIsr(TOPIC, PARTITIONS, 3, LIMIT);
                    load.awaitMoreAcks(300, LIMIT);
                }
                load.stop();
                try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                    List<TopicPartition> partitions = new ArrayList<>();
                    for (int p = 0; p < PARTITIONS; p++) {
                        partitions.add(new TopicPartition(TOPIC, p));
                    }
                    Map<Integer, List<ConsumerRecord<String, String>>> log = Records.readToEnd(consumer, partitions);
                    load.verify(log);
                }
            } finally {
                load.close();
                highWatermarks.close();
            }
            assertTrue(highWatermarks.samples() > 0, "the high watermarks were sampled");
            assertEquals(List.of(), highWatermarks.regressions(), "a high watermark went back");
            cluster.awaitFullIsr(TOPIC, PARTITIONS, 3, LIMIT);
            for (int id : cluster.ids()) {
                cluster.terminate(id);
            }
            assertReplicasIdentical(cluster, TOPIC, PARTITIONS);
        }
    }

    /** The brokers to kill in a round. */
    private static Set<Integer> victims(String round, ProcessCluster cluster, Random random) {
        TopicPartition tp = new TopicPartition(TOPIC, random.nextInt(PARTITIONS));
        int leader = cluster.leaderOf(tp);
        List<Integer> others = new ArrayList<>(cluster.ids());
        others.remove(Integer.valueOf(leader));
        return switch (round) {
            case "leader" -> Set.of(leader);
            case "follower" -> Set.of(others.get(random.nextInt(others.size())));
            case "controller" -> Set.of(cluster.controller());
            default -> {
                // Two at once, the controller among them: its elections of the dead leader's partitions are left to
                // the next controller. When the leader is the controller, any other broker goes with it.
                int controller = cluster.controller();
                yield new TreeSet<>(List.of(leader, controller != leader ? controller
                        : others.get(random.nextInt(others.size()))));
            }
        };
    }

    /** Every broker's copy of every partition holds the same records at the same offsets. */
    static void assertReplicasIdentical(ProcessCluster cluster, String topic, int partitions) throws Exception {
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            List<ReplicaLogs.Entry> reference = null;
            for (int id : cluster.ids()) {
                List<ReplicaLogs.Entry> copy = ReplicaLogs.read(cluster.dir().resolve("broker-" + id)
                        .resolve("logs"), tp);
                assertFalse(copy.isEmpty(), "broker " + id + " has a copy of " + tp);
                if (reference == null) {
                    reference = copy;
                } else {
                    assertEquals(reference, copy, "broker " + id + "'s copy of " + tp + " differs");
                }
            }
        }
    }
}
