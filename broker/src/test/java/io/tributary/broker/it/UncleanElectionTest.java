package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When every in-sync replica is down: with {@code unclean.leader.election.enable} off (the default) the partition
 * stays offline rather than let a replica that missed acknowledged records lead; turned on for the topic, at runtime,
 * the out-of-sync replica leads, and what only the lost ISR had acknowledged is gone (the documented price). The old
 * leader, when it returns, truncates to the new leader's log and follows it.
 */
class UncleanElectionTest {

    private static final String TOPIC = "lossy";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;

    @Test
    void anOfflinePartitionStaysOfflineUntilUncleanElectionIsEnabledAndThenLosesWhatOnlyTheIsrHad() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 2, false, "replica.lag.time.max.ms", "2000",
                "default.replication.factor", "2", "offsets.topic.replication.factor", "2")) {
            cluster.startAll();
            cluster.createTopic(TOPIC, Map.of(0, List.of(1, 2)), Map.of("min.insync.replicas", "1"));
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers(),
                    "delivery.timeout.ms", "30000", "request.timeout.ms", "5000")) {
                send(producer, "both-", 10);
                cluster.kill(2);
                cluster.awaitIsr(TP, Set.of(1), Duration.ofSeconds(30));
                send(producer, "leader-only-", 10);
            }
            cluster.kill(1);
            cluster.start(2);
            await(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(() -> cluster.describe(TOPIC)
                    .map(p -> p.get(0).leader() == null).orElse(false), () -> "partition 0 offline"));
            try (Admin admin = cluster.admin()) {
                // Its preferred replica (broker 1) is down, and broker 2 is not in the ISR: nobody can lead cleanly.
                Map<TopicPartition, java.util.Optional<Throwable>> elected = admin.electLeaders(
                        org.apache.kafka.common.ElectionType.PREFERRED, Set.of(TP)).partitions()
                        .get(10, TimeUnit.SECONDS);
                assertTrue(elected.get(TP).isPresent(), "a preferred election is refused: " + elected);
                assertTrue(cluster.describe(TOPIC).map(p -> p.get(0).leader() == null).orElse(false),
                        "still offline with unclean election off");

                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                        List.of(new AlterConfigOp(new ConfigEntry("unclean.leader.election.enable", "true"),
                                AlterConfigOp.OpType.SET)))).all().get(10, TimeUnit.SECONDS);
            }
            await(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(() -> cluster.leaderOf(TP) == 2,
                    () -> "broker 2 leads uncleanly"));
            try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                List<String> values = new ArrayList<>();
                for (ConsumerRecord<String, String> record : Records.readToEnd(consumer, List.of(TP)).get(0)) {
                    values.add(record.value());
                }
                assertEquals(values("both-", 10), values, "what broker 2 had; the leader-only records are lost");
            }
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                send(producer, "after-", 5);
            }
            cluster.start(1);
            cluster.awaitIsr(TP, Set.of(1, 2), Duration.ofSeconds(60));
            for (int id : List.of(1, 2)) {
                cluster.terminate(id);
            }
            ReplicationFailoverTest.assertReplicasIdentical(cluster, TOPIC, 1);
        }
    }

    private static void send(KafkaProducer<String, String> producer, String prefix, int count) throws Exception {
        for (String value : values(prefix, count)) {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> values(String prefix, int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(prefix + i);
        }
        return values;
    }
}
