package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker stopped cleanly and started again on the same log directory and ZooKeeper comes back with everything:
 * topics with their ids, partitions added at runtime, config overrides, deleted topics still deleted, every record
 * at its offset with key, headers and timestamp, log start offsets moved by DeleteRecords, and logs that go on at
 * their end offsets.
 */
class RestartTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @Test
    void topicsConfigsAndRecordsAreBackAfterACleanRestart() throws Exception {
        Map<String, Uuid> topicIds;
        Map<TopicPartition, List<Records.Observed>> written = new TreeMap<>(
                (a, b) -> a.toString().compareTo(b.toString()));
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(
                    // Small segments: the records span several, each with its indexes to reload.
                    new NewTopic("accounts", 3, (short) 1).configs(Map.of("segment.bytes", "2048",
                            "retention.ms", "-1", "cleanup.policy", "compact")),
                    new NewTopic("events", 1, (short) 1),
                    new NewTopic("dropped", 1, (short) 1))).all().get();
            admin.createPartitions(Map.of("events", NewPartitions.increaseTo(2))).all().get();
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "events"),
                    List.of(new AlterConfigOp(new ConfigEntry("message.timestamp.type", "LogAppendTime"),
                            AlterConfigOp.OpType.SET)))).all().get();

            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
                produce(producer, "accounts", 3, 300, written);
                produce(producer, "dropped", 1, 10, written);
                // The LogAppendTime override must be in force before the records whose stamps are compared.
                await().untilAsserted(() -> assertTrue(() -> send(producer, new ProducerRecord<>("events", 0, 1L,
                        "probe", "probe"))
                        .timestamp() > 1L, () -> "LogAppendTime in force on events"));
                produce(producer, "events", 2, 100, written);
            }
            admin.deleteTopics(List.of("dropped")).all().get();
            written.keySet().removeIf(tp -> tp.topic().equals("dropped"));
            TopicPartition trimmed = new TopicPartition("accounts", 1);
            admin.deleteRecords(Map.of(trimmed, RecordsToDelete.beforeOffset(40))).all().get();
            written.get(trimmed).removeIf(record -> record.offset() < 40);
            topicIds = admin.describeTopics(List.of("accounts", "events")).allTopicNames().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().topicId()));
        }
        // Reference: what a consumer reads now, including the probe records and the broker's append times.
        Map<TopicPartition, List<Records.Observed>> before = readAll(written.keySet());
        // Replay by time through the time indexes: the middle record of each accounts partition, found by its time.
        Map<TopicPartition, Long> middles = new HashMap<>();
        Map<TopicPartition, Long> middleOffsets = new HashMap<>();
        before.forEach((tp, records) -> {
            if (tp.topic().equals("accounts")) {
                middles.put(tp, records.get(records.size() / 2).timestamp());
                middleOffsets.put(tp, records.get(records.size() / 2).offset());
            }
        });
        Map<TopicPartition, Long> byTimeBefore = offsetsForTimes(middles);
        assertEquals(middleOffsets, byTimeBefore, "offsets found by time");

        broker.restart();

        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            assertEquals(Set.of("accounts", "events"), admin.listTopics().names().get());
            Map<String, TopicDescription> described = admin.describeTopics(List.of("accounts", "events"))
                    .allTopicNames().get();
            assertEquals(3, described.get("accounts").partitions().size());
            assertEquals(2, described.get("events").partitions().size(), "the partition added at runtime");
            described.forEach((name, topic) -> assertEquals(topicIds.get(name), topic.topicId(), name));

            ConfigResource accounts = new ConfigResource(ConfigResource.Type.TOPIC, "accounts");
            ConfigResource events = new ConfigResource(ConfigResource.Type.TOPIC, "events");
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(accounts, events)).all().get();
            assertEquals("2048", configs.get(accounts).get("segment.bytes").value());
            assertEquals("-1", configs.get(accounts).get("retention.ms").value());
            assertEquals("compact", configs.get(accounts).get("cleanup.policy").value());
            assertEquals("LogAppendTime", configs.get(events).get("message.timestamp.type").value());

            TopicPartition trimmed = new TopicPartition("accounts", 1);
            assertEquals(40L, admin.listOffsets(Map.of(trimmed, OffsetSpec.earliest())).partitionResult(trimmed)
                    .get().offset(), "the log start offset moved by DeleteRecords");
        }
        Map<TopicPartition, List<Records.Observed>> after = readAll(written.keySet());
        assertEquals(middleOffsets, offsetsForTimes(middles), "offsets found by time after the restart");
        for (TopicPartition tp : written.keySet()) {
            Records.assertSameRecords(before.get(tp), after.get(tp), tp + " after the restart");
            List<Records.Observed> sent = after.get(tp).stream()
                    .filter(record -> !"probe".equals(record.key())).toList();
            Records.assertSameRecords(written.get(tp).stream().map(RestartTest::withoutTimestamp).toList(),
                    sent.stream().map(RestartTest::withoutTimestamp).toList(), tp + " as produced");
        }

        // The logs go on at their end offsets, and a new idempotent producer is accepted.
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (TopicPartition tp : written.keySet()) {
                long end = after.get(tp).get(after.get(tp).size() - 1).offset() + 1;
                RecordMetadata next = send(producer, new ProducerRecord<>(tp.topic(), tp.partition(), "k", "next"));
                assertEquals(end, next.offset(), tp.toString());
            }
        }
    }

    private static Records.Observed withoutTimestamp(Records.Observed record) {
        return new Records.Observed(record.partition(), record.offset(), record.key(), record.value(), 0L,
                record.timestampType(), record.headers());
    }

    /** Sends {@code count} records round robin over the partitions; records what was acknowledged. */
    private static void produce(KafkaProducer<String, String> producer, String topic, int partitions, int count,
                                Map<TopicPartition, List<Records.Observed>> written) throws Exception {
        long base = System.currentTimeMillis() - 60_000L;
        TimestampType type = topic.equals("events") ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, i % partitions, base + i,
                    "key-" + i, topic + "-" + i, headers);
            records.add(record);
            acks.add(producer.send(record));
        }
        producer.flush();
        for (int i = 0; i < count; i++) {
            RecordMetadata metadata = acks.get(i).get();
            ProducerRecord<String, String> record = records.get(i);
            written.computeIfAbsent(new TopicPartition(topic, metadata.partition()), key -> new ArrayList<>())
                    .add(new Records.Observed(metadata.partition(), metadata.offset(), record.key(), record.value(),
                            0L, type, List.of("n=" + i)));
        }
    }

    private Map<TopicPartition, List<Records.Observed>> readAll(Set<TopicPartition> partitions) {
        Map<TopicPartition, List<Records.Observed>> result = new TreeMap<>(
                (a, b) -> a.toString().compareTo(b.toString()));
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            Records.readAllToEnd(consumer, partitions).forEach((tp, read) ->
                    result.put(tp, read.stream().map(Records.Observed::of).toList()));
        }
        return result;
    }

    private Map<TopicPartition, Long> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            consumer.offsetsForTimes(timestamps).forEach((tp, found) -> offsets.put(tp, found.offset()));
            return offsets;
        }
    }

    private static RecordMetadata send(KafkaProducer<String, String> producer, ProducerRecord<String, String> record) {
        try {
            return producer.send(record).get();
        } catch (Exception e) {
            throw new AssertionError("sending " + record, e);
        }
    }
}
