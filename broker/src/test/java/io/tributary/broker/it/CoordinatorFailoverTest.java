package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Committed offsets live in {@code __consumer_offsets}, replicated like any topic (replication factor 3 here): when
 * the broker coordinating a group is SIGKILLed, the leadership of the group's offsets partition moves, the new
 * leader loads the group from its copy of the log, and the group's committed offsets are all there, with their
 * metadata (where the JMS provider and the resource adapter keep a durable subscription's definition); a new member
 * resumes exactly where the group left off. So do the offsets of transactions open when the coordinator dies: the
 * new coordinator loads them pending, and each transaction's marker makes them the group's or drops them.
 */
class CoordinatorFailoverTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 300;

    @TempDir
    Path dir;

    @Test
    void committedOffsetsSurviveAKilledCoordinatorAndANewMemberResumesFromThem() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false)) {
            cluster.startAll();
            cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k", "v" + i));
                }
                producer.flush();
            }

            Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
            try (KafkaConsumer<String, String> first = Clients.groupConsumer(cluster.bootstrapServers(), GROUP,
                    "max.poll.records", "20")) {
                first.subscribe(List.of(TOPIC));
                int[] read = {0};
                await(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(() -> {
                    for (ConsumerRecord<String, String> record : first.poll(Duration.ofMillis(100))) {
                        read[0]++;
                        // Metadata too: the JMS provider keeps a durable subscription's definition there.
                        committed.put(new TopicPartition(record.topic(), record.partition()),
                                new OffsetAndMetadata(record.offset() + 1,
                                        "subscription-definition-" + record.partition()));
                    }
                    return read[0] >= RECORDS / 2;
                }, () -> "half the records read by the first member"));
                first.commitSync(committed);
            }

            cluster.kill(cluster.coordinatorOf(GROUP));

            Map<TopicPartition, OffsetAndMetadata> afterKill = new HashMap<>();
            await(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(() -> {
                try (Admin admin = cluster.admin()) {
                    afterKill.clear();
                    afterKill.putAll(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS));
                    return !afterKill.isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, () -> "the group's offsets from the new coordinator"));
            assertEquals(committed, afterKill, "committed offsets and their metadata after the coordinator died");

            long remaining = 0;
            for (TopicPartition tp : partitions) {
                remaining += RECORDS / PARTITIONS - (committed.containsKey(tp) ? committed.get(tp).offset() : 0L);
            }
            long expected = remaining;
            try (KafkaConsumer<String, String> second = Clients.groupConsumer(cluster.bootstrapServers(), GROUP)) {
                second.subscribe(List.of(TOPIC));
                Map<Integer, Long> firstOffsetSeen = new HashMap<>();
                int[] read = {0};
                await(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(() -> {
                    for (ConsumerRecord<String, String> record : second.poll(Duration.ofMillis(100))) {
                        read[0]++;
                        firstOffsetSeen.putIfAbsent(record.partition(), record.offset());
                    }
                    return read[0] >= expected;
                }, () -> "the rest of the records (" + expected + ") read by the new member; read " + read[0]));
                assertEquals(expected, read[0], "nothing read twice");
                for (TopicPartition tp : partitions) {
                    long resumeAt = committed.containsKey(tp) ? committed.get(tp).offset() : 0L;
                    if (resumeAt < RECORDS / PARTITIONS) {
                        assertEquals(resumeAt, firstOffsetSeen.get(tp.partition()), "the new member resumed " + tp
                                + " at the committed offset");
                    }
                }
            }
        }
    }

    @Test
    void openTransactionsOffsetsSurviveAKilledCoordinatorAndTheNewOneCommitsOrDropsThem() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false)) {
            cluster.startAll();
            cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
            TopicPartition p0 = new TopicPartition(TOPIC, 0);
            TopicPartition p1 = new TopicPartition(TOPIC, 1);
            try (KafkaProducer<String, String> committing = transactionalProducer(cluster, "billing-tx-1");
                 KafkaProducer<String, String> aborting = transactionalProducer(cluster, "billing-tx-2")) {
                committing.initTransactions();
                aborting.initTransactions();
                committing.beginTransaction();
                committing.sendOffsetsToTransaction(Map.of(p0, new OffsetAndMetadata(5L),
                        p1, new OffsetAndMetadata(2L)), new ConsumerGroupMetadata(GROUP));
                committing.commitTransaction();

                committing.beginTransaction();
                committing.sendOffsetsToTransaction(Map.of(p0, new OffsetAndMetadata(9L, "second")),
                        new ConsumerGroupMetadata(GROUP));
                aborting.beginTransaction();
                aborting.sendOffsetsToTransaction(Map.of(p1, new OffsetAndMetadata(4L)),
                        new ConsumerGroupMetadata(GROUP));
                // Both transactions' offsets are in the group's partition, pending, when its coordinator dies.
                cluster.kill(cluster.coordinatorOf(GROUP));
                committing.commitTransaction();
                aborting.abortTransaction();
            }

            try (KafkaConsumer<String, String> readCommitted = Clients.groupConsumer(cluster.bootstrapServers(),
                    GROUP, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "90000")) {
                // requireStable: answered once the new coordinator has applied both markers.
                assertEquals(Map.of(p0, new OffsetAndMetadata(9L, "second"), p1, new OffsetAndMetadata(2L)),
                        readCommitted.committed(Set.of(p0, p1)),
                        "the committed transaction's offset, and not the aborted one's, on the new coordinator");
            }
        }
    }

    /** Blocks and retries long enough to ride out the failover of either coordinator (session, election, load). */
    private static KafkaProducer<String, String> transactionalProducer(ProcessCluster cluster, String id) {
        return Clients.producer(cluster.bootstrapServers(), ProducerConfig.TRANSACTIONAL_ID_CONFIG, id,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "90000", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "90000");
    }
}
