package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official {@code KafkaShareConsumer} (kafka-clients 4.4) against one broker: several consumers of one share
 * group on a one-partition topic all receive and every record is accepted exactly once; a released record goes to
 * another member with its delivery count raised; a record rejected or released past the delivery limit is not
 * delivered again; a closed consumer's unacknowledged records are delivered to the others, and a SIGKILLed one's
 * once their locks expire.
 */
class ShareConsumerTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                "group.share.delivery.count.limit", "3");
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.close();
        zooKeeper.close();
    }

    @Test
    void fiveConsumersOnOnePartitionAllReceiveAndEveryRecordIsAcceptedOnce() throws Exception {
        String topic = "jobs";
        String group = "workers";
        createTopic(topic);
        startFromEarliest(group);

        Map<String, String> consumedBy = new ConcurrentHashMap<>();
        List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> perConsumer = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<Future<?>> running = new ArrayList<>();
        int produced = 0;
        try {
            for (int c = 0; c < 5; c++) {
                String name = "c" + c;
                running.add(pool.submit(() -> {
                    // Small polls so that the five take turns on the one partition.
                    try (KafkaShareConsumer<String, String> consumer = shareConsumer(group,
                            ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=20")) {
                        consumer.subscribe(List.of(topic));
                        while (!stop.get()) {
                            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                                if (consumedBy.putIfAbsent(record.value(), name) != null) {
                                    duplicates.add(record.value() + " at " + record.offset());
                                }
                                perConsumer.merge(name, 1, Integer::sum);
                            }
                            consumer.commitSync();
                        }
                    }
                    return null;
                }));
            }
            // Records keep coming until every consumer has had some (however late it joined), 2,000 at least.
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while ((produced < 2_000 || perConsumer.size() < 5) && System.nanoTime() < deadline) {
                    for (int i = 0; i < 100; i++) {
                        producer.send(new ProducerRecord<>(topic, "job-" + produced++));
                    }
                    producer.flush();
                }
            }
            int total = produced;
            Waits.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(
                    consumedBy.size() == total, () -> consumedBy.size() + " of " + total + " consumed"));
        } finally {
            stop.set(true);
            for (Future<?> future : running) {
                future.get();
            }
            pool.shutdown();
        }
        assertEquals(List.of(), duplicates, "records delivered twice although each was accepted");
        assertEquals(5, perConsumer.size(), () -> "every consumer received some: " + perConsumer);
    }

    @Test
    void aReleasedRecordGoesToAnotherMemberWithItsDeliveryCountRaised() throws Exception {
        String topic = "release";
        String group = "releasers";
        createTopic(topic);
        startFromEarliest(group);
        produce(topic, 1);
        try (KafkaShareConsumer<String, String> first = explicitConsumer(group);
             KafkaShareConsumer<String, String> second = explicitConsumer(group)) {
            first.subscribe(List.of(topic));
            ConsumerRecord<String, String> got = pollOne(first);
            assertEquals(1, got.deliveryCount().orElseThrow().intValue());
            first.acknowledge(got, AcknowledgeType.RELEASE);
            first.commitSync();
            second.subscribe(List.of(topic));
            ConsumerRecord<String, String> again = pollOne(second);
            assertEquals(got.offset(), again.offset());
            assertEquals(2, again.deliveryCount().orElseThrow().intValue());
            second.acknowledge(again, AcknowledgeType.ACCEPT);
            second.commitSync();
        }
    }

    @Test
    void aRecordReleasedUpToTheDeliveryLimitIsArchivedAndTheNextOneFlows() throws Exception {
        String topic = "poison";
        String group = "limit";
        createTopic(topic);
        startFromEarliest(group);
        produce(topic, 1);
        try (KafkaShareConsumer<String, String> consumer = explicitConsumer(group)) {
            consumer.subscribe(List.of(topic));
            for (int delivery = 1; delivery <= 3; delivery++) {
                ConsumerRecord<String, String> got = pollOne(consumer);
                assertEquals(delivery, got.deliveryCount().orElseThrow().intValue());
                consumer.acknowledge(got, AcknowledgeType.RELEASE);
                consumer.commitSync();
            }
            produce(topic, 1, "after");
            ConsumerRecord<String, String> next = pollOne(consumer);
            assertEquals("after-0", next.value(), "the poisoned record is archived after 3 deliveries");
            consumer.acknowledge(next, AcknowledgeType.ACCEPT);
            consumer.commitSync();
        }
    }

    @Test
    void aClosedConsumersUnacknowledgedRecordsGoToTheOthers() throws Exception {
        String topic = "handover";
        String group = "handover";
        createTopic(topic);
        startFromEarliest(group);
        produce(topic, 3);
        Set<String> firstGot = new java.util.HashSet<>();
        try (KafkaShareConsumer<String, String> first = explicitConsumer(group)) {
            first.subscribe(List.of(topic));
            Waits.await().untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : first.poll(Duration.ofMillis(100))) {
                    firstGot.add(record.value());
                }
                assertEquals(3, firstGot.size());
            });
            // closed without acknowledging: the explicit consumer releases them as it closes
        }
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaShareConsumer<String, String> second = explicitConsumer(group)) {
            second.subscribe(List.of(topic));
            Waits.await().untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : second.poll(Duration.ofMillis(100))) {
                    counts.put(record.value(), record.deliveryCount().orElseThrow().intValue());
                    second.acknowledge(record, AcknowledgeType.ACCEPT);
                }
                second.commitSync();
                assertEquals(firstGot, counts.keySet());
            });
        }
        assertTrue(counts.values().stream().allMatch(count -> count == 2), counts::toString);
    }

    @Test
    void theRecordsOfAKilledConsumerComeBackWhenTheirLocksExpire() throws Exception {
        String topic = "killed";
        String group = "killed";
        createTopic(topic);
        startFromEarliest(group);
        setGroupConfig(group, "share.record.lock.duration.ms", "15000");
        produce(topic, 3);
        List<Long> held;
        try (ChildJvm holder = new ChildJvm(dataDir.resolve("holder.log"), ShareHoldProcess.class,
                broker.bootstrapServers(), group, topic, "3").start()) {
            holder.awaitLine("holding", Duration.ofSeconds(60));
            held = holder.lines("held ").stream().map(line -> Long.parseLong(line.trim())).toList();
            holder.kill();
        }
        assertTrue(!held.isEmpty());
        try (KafkaShareConsumer<String, String> survivor = explicitConsumer(group)) {
            survivor.subscribe(List.of(topic));
            Map<Long, Integer> counts = new HashMap<>();
            Waits.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : survivor.poll(Duration.ofMillis(200))) {
                    counts.put(record.offset(), record.deliveryCount().orElseThrow().intValue());
                    survivor.acknowledge(record, AcknowledgeType.ACCEPT);
                }
                survivor.commitSync();
                assertEquals(Set.of(0L, 1L, 2L), counts.keySet());
            });
            for (long offset : held) {
                assertEquals(2, counts.get(offset), () -> "offset " + offset + " held by the killed consumer: "
                        + counts);
            }
        }
    }

    private void setGroupConfig(String group, String name, String value) throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry(name, value), AlterConfigOp.OpType.SET)))).all().get();
        }
    }

    private void createTopic(String topic) throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private void startFromEarliest(String group) throws Exception {
        setGroupConfig(group, "share.auto.offset.reset", "earliest");
    }

    private void produce(String topic, int count) {
        produce(topic, count, "job");
    }

    private void produce(String topic, int count, String prefix) {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, prefix + "-" + i));
            }
        }
    }

    private KafkaShareConsumer<String, String> explicitConsumer(String group) {
        return shareConsumer(group, "share.acknowledgement.mode=explicit");
    }

    private KafkaShareConsumer<String, String> shareConsumer(String group, String... extra) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        for (String setting : extra) {
            String[] pair = setting.split("=", 2);
            props.put(pair[0], pair[1]);
        }
        return new KafkaShareConsumer<>(props);
    }

    private static ConsumerRecord<String, String> pollOne(KafkaShareConsumer<String, String> consumer) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        Waits.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
            records.forEach(got::add);
            assertEquals(1, got.size(), () -> "records polled: " + got);
        });
        return got.get(0);
    }
}
