package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.testsupport.BrokerProcess;
import io.tributary.testsupport.Clients;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability across a crash: a broker in a process of its own is killed with SIGKILL while an idempotent acks=all
 * producer keeps it busy; after a restart on the same log directory and ZooKeeper, every acknowledged record is
 * readable at the offset it was acknowledged with, no record is there twice, and the log takes new writes.
 * Records the producer sent but never saw acknowledged may or may not be there.
 */
class CrashDurabilityTest {

    private static final String TOPIC = "ledger";
    private static final int PARTITIONS = 3;
    /** Acknowledged records before the kill: enough for several segments and many producer batches. */
    private static final int ACKED_BEFORE_KILL = 5_000;

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private BrokerProcess broker;

    @BeforeEach
    void startZooKeeper() throws Exception {
        // A 500 ms tick allows a 2 s session: the killed broker's registration expires soon after the kill, and the
        // restarted broker waits for that before it registers again.
        zooKeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
        broker = new BrokerProcess(dir,
                "broker.id", "0",
                "log.dirs", dir.resolve("logs").toString(),
                "zookeeper.connect", zooKeeper.getConnectString() + "/crash",
                "zookeeper.session.timeout.ms", "2000",
                "log.segment.bytes", "16384", // several segments to recover
                "num.io.threads", "2",
                "num.network.threads", "1",
                "log.cleaner.dedupe.buffer.size", "1048576");
    }

    @AfterEach
    void killBroker() throws Exception {
        try {
            broker.kill();
        } finally {
            zooKeeper.close();
        }
    }

    @Test
    void everyAcknowledgedRecordSurvivesSigkillExactlyOnceAndTheLogGoesOn() throws Exception {
        broker.start();
        awaitServing();
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        }
        // Two crashes: the second one hits logs (and producer state) that were themselves recovered from the first.
        Map<String, RecordMetadata> acknowledged = new HashMap<>();
        for (int crash = 1; crash <= 2; crash++) {
            acknowledged.putAll(loadUntilKilled("c" + crash + "-"));
            broker.start();
            awaitServing();
            assertEveryAcknowledgedRecordOnceAtItsOffset(acknowledged);
        }

        // The log goes on after the crashes, at its end, for a new producer.
        Map<TopicPartition, List<ConsumerRecord<String, String>>> before = readAll();
        try (KafkaProducer<String, String> after = Clients.producer(broker.bootstrapServers())) {
            for (TopicPartition tp : before.keySet()) {
                RecordMetadata metadata = after.send(new ProducerRecord<>(TOPIC, tp.partition(), "key-after",
                        "after")).get();
                assertEquals(before.get(tp).size(), metadata.offset(), tp.toString());
            }
        }
        readAll().forEach((tp, records) -> {
            assertEquals(before.get(tp).size() + 1, records.size(), tp.toString());
            assertEquals("after", records.get(records.size() - 1).value());
        });
    }

    /**
     * Sends records {@code <prefix><n>} as fast as an idempotent acks=all producer takes them, SIGKILLs the broker
     * once {@link #ACKED_BEFORE_KILL} are acknowledged, and returns the acknowledged ones.
     */
    private Map<String, RecordMetadata> loadUntilKilled(String prefix) throws Exception {
        Map<String, RecordMetadata> acknowledged = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> loadFailure = new AtomicReference<>();
        KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers(),
                "linger.ms", "2", "batch.size", "4096");
        Thread load = new Thread(() -> {
            try {
                while (!stop.get()) {
                    String value = prefix + sent.getAndIncrement();
                    producer.send(new ProducerRecord<>(TOPIC, "key-" + value, value), (metadata, error) -> {
                        if (error == null) {
                            acknowledged.put(value, metadata);
                        }
                    });
                }
            } catch (RuntimeException e) {
                if (!stop.get()) {
                    loadFailure.set(e);
                }
            }
        }, "crash-test-load");
        load.start();
        try {
            await(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertTrue(() -> acknowledged.size() >= ACKED_BEFORE_KILL || !load.isAlive(),
                    () -> ACKED_BEFORE_KILL + " acknowledged records; " + acknowledged.size() + " so far"));
            assertTrue(load.isAlive(), () -> "the load stopped early: " + loadFailure.get());
            broker.kill(); // mid-load: the producer has batches in flight
        } finally {
            stop.set(true);
            // Unacknowledged sends fail at once instead of waiting out delivery.timeout.ms.
            producer.close(Duration.ZERO);
            load.join(10_000);
        }
        assertTrue(sent.get() > acknowledged.size(), "records were in flight at the kill");
        return new HashMap<>(acknowledged);
    }

    private void assertEveryAcknowledgedRecordOnceAtItsOffset(Map<String, RecordMetadata> acknowledged) {
        Map<String, ConsumerRecord<String, String>> byValue = new HashMap<>();
        for (List<ConsumerRecord<String, String>> records : readAll().values()) {
            long expectedOffset = 0;
            for (ConsumerRecord<String, String> record : records) {
                assertEquals(expectedOffset++, record.offset(), "dense offsets in " + where(record));
                ConsumerRecord<String, String> earlier = byValue.put(record.value(), record);
                if (earlier != null) {
                    throw new AssertionError(record.value() + " is in the log twice: at " + where(earlier)
                            + " and at " + where(record));
                }
                assertEquals("key-" + record.value(), record.key());
            }
        }
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, RecordMetadata> ack : acknowledged.entrySet()) {
            ConsumerRecord<String, String> record = byValue.get(ack.getKey());
            if (record == null) {
                missing.add(ack.getKey());
            } else {
                assertEquals(ack.getValue().partition(), record.partition(), ack.getKey());
                assertEquals(ack.getValue().offset(), record.offset(), ack.getKey());
            }
        }
        assertEquals(List.of(), missing.subList(0, Math.min(20, missing.size())),
                missing.size() + " acknowledged records lost");
    }

    private Map<TopicPartition, List<ConsumerRecord<String, String>>> readAll() {
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            return Records.readAllToEnd(consumer, Records.partitions(TOPIC, PARTITIONS));
        }
    }

    private void awaitServing() {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            await(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(() -> {
                try {
                    return !admin.describeCluster().nodes().get().isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, () -> "the broker process serving Admin requests"));
        }
    }

    private static String where(ConsumerRecord<String, String> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
