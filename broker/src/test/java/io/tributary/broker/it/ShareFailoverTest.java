package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups across a SIGKILL of the share-partition leader, three brokers as processes: two share consumers accept
 * records one poll at a time while the partition's leader is killed; every record reaches a consumer, and no record
 * whose acceptance was confirmed (commitSync without error) is ever delivered again. The share state lives
 * in {@code __share_group_state} (3 replicas, 2 in sync), so the new leader resumes from it.
 */
class ShareFailoverTest {

    private static final Duration LIMIT = Duration.ofSeconds(90);
    private static final int RECORDS = 3_000;

    @TempDir
    Path dir;

    @Test
    void noConfirmedRecordIsDeliveredAgainAndNoneIsLostAcrossALeaderKill() throws Exception {
        TopicPartition tp = new TopicPartition("queue", 0);
        String group = "workers";
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, "replica.lag.time.max.ms", "3000")) {
            cluster.startAll();
            cluster.createTopic(tp.topic(), 1, 3, Map.of("min.insync.replicas", "2"));
            cluster.awaitFullIsr(tp.topic(), 1, 3, LIMIT);
            try (Admin admin = Clients.admin(cluster.bootstrapServers())) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                        List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                                AlterConfigOp.OpType.SET)))).all().get();
            }
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(tp.topic(), "r-" + i));
                }
                producer.flush();
            }

            Set<String> delivered = ConcurrentHashMap.newKeySet();
            Set<String> confirmed = ConcurrentHashMap.newKeySet();
            List<String> redeliveredAfterConfirmation = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            List<Future<?>> consumers = new ArrayList<>();
            try {
                for (int c = 0; c < 2; c++) {
                    consumers.add(pool.submit(() -> consume(cluster.bootstrapServers(), group, tp.topic(), stop,
                            delivered, confirmed, redeliveredAfterConfirmation)));
                }
                await(LIMIT).untilAsserted(() -> assertEquals(true, confirmed.size() >= RECORDS / 3,
                        () -> confirmed.size() + " confirmed before the kill"));
                int leader = cluster.leaderOf(tp);
                cluster.kill(leader);
                await(LIMIT).untilAsserted(() -> {
                    int elected = cluster.leaderOf(tp);
                    assertNotEquals(leader, elected);
                    assertNotEquals(-1, elected);
                });
                // An acceptance the broker made durable but could not confirm (its leader died before answering) is
                // done all the same: what must hold is that every record reached a consumer.
                await(LIMIT).untilAsserted(() -> assertEquals(RECORDS, delivered.size(),
                        () -> delivered.size() + " of " + RECORDS + " delivered"));
            } finally {
                stop.set(true);
                for (Future<?> consumer : consumers) {
                    consumer.get();
                }
                pool.shutdown();
            }
            assertEquals(List.of(), redeliveredAfterConfirmation,
                    "records delivered again after their acceptance was confirmed");
        }
    }

    /** Accepts every record it gets and confirms them with commitSync; notes deliveries of confirmed records. */
    private static Void consume(String bootstrap, String group, String topic, AtomicBoolean stop,
                                Set<String> delivered, Set<String> confirmed,
                                List<String> redeliveredAfterConfirmation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put("share.acknowledgement.mode", "explicit");
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            while (!stop.get()) {
                Set<String> polled = new HashSet<>();
                try {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        if (confirmed.contains(record.value())) {
                            redeliveredAfterConfirmation.add(record.value() + " (delivery "
                                    + record.deliveryCount().orElse((short) -1) + ")");
                        }
                        polled.add(record.value());
                        delivered.add(record.value());
                        consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                    }
                    Map<TopicIdPartition, Optional<KafkaException>> results = consumer.commitSync();
                    boolean failed = results.values().stream().anyMatch(Optional::isPresent);
                    if (!failed) {
                        confirmed.addAll(polled);
                    }
                } catch (KafkaException e) {
                    // The leader went away mid-request: those acceptances are unconfirmed, may come back.
                }
            }
        }
        return null;
    }
}
