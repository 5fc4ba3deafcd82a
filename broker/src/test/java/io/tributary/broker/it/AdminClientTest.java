package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin surface through the official Admin client against one real broker: topics (create, delete, add
 * partitions), configs (describe, alter, and the change taking effect on the running logs), the cluster, deleting
 * records, and finding offsets by time. Each test works on topics of its own.
 */
class AdminClientTest {

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private Admin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        // Retention runs every 200 ms so that a retention change shows within the test's patience.
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                "log.retention.check.interval.ms", "200",
                "num.partitions", "2");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @BeforeEach
    void openAdmin() {
        admin = Clients.admin(broker.bootstrapServers());
    }

    @AfterEach
    void closeAdmin() {
        admin.close(Duration.ofSeconds(5));
    }

    /**
     * A request for too many partitions in all (found by the protocol fuzzer: two billion exhausted the broker's heap)
     * is refused as a whole with POLICY_VIOLATION, as Kafka refuses it; the broker goes on creating topics.
     */
    @Test
    void tooManyPartitionsInOneRequestArePolicyViolations() throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                new NewTopic("half-of-too-many", 6000, (short) 1), new NewTopic("other-half", 6000, (short) 1)))
                .all().get());
        assertInstanceOf(PolicyViolationException.class, e.getCause());
        assertFalse(admin.listTopics().names().get().contains("half-of-too-many"), "nothing created");
        e = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                new NewTopic("two-billion", Integer.MAX_VALUE, (short) 1))).all().get());
        assertInstanceOf(PolicyViolationException.class, e.getCause());

        admin.createTopics(List.of(new NewTopic("growing-too-fast", 1, (short) 1))).all().get();
        e = assertThrows(ExecutionException.class, () -> admin.createPartitions(Map.of("growing-too-fast",
                NewPartitions.increaseTo(Integer.MAX_VALUE))).all().get());
        assertInstanceOf(PolicyViolationException.class, e.getCause());
        admin.createPartitions(Map.of("growing-too-fast", NewPartitions.increaseTo(3))).all().get();
        assertEquals(3, admin.describeTopics(List.of("growing-too-fast")).allTopicNames().get()
                .get("growing-too-fast").partitions().size());
    }

    @Test
    void topicsAreCreatedListedDescribedAndDeleted() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1),
                new NewTopic("audit", 1, (short) 1).configs(Map.of("retention.ms", "3600000")))).all().get();
        assertTrue(admin.listTopics().names().get().containsAll(Set.of("orders", "audit")));
        TopicDescription orders = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
        assertEquals(3, orders.partitions().size());
        orders.partitions().forEach(partition -> {
            assertEquals(0, partition.leader().id());
            assertEquals(List.of(0), partition.replicas().stream().map(Node::id).toList());
            assertEquals(List.of(0), partition.isr().stream().map(Node::id).toList());
        });
        assertNotNull(orders.topicId());

        admin.deleteTopics(List.of("orders")).all().get();
        Set<String> names = admin.listTopics().names().get();
        assertFalse(names.contains("orders"), names.toString());
        assertTrue(names.contains("audit"));
        ExecutionException gone = assertThrows(ExecutionException.class,
                () -> admin.describeTopics(List.of("orders")).allTopicNames().get());
        assertInstanceOf(UnknownTopicOrPartitionException.class, gone.getCause());

        // The name is free again, and the new topic starts empty.
        admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get();
        TopicPartition first = new TopicPartition("orders", 0);
        assertEquals(0L, admin.listOffsets(Map.of(first, OffsetSpec.latest())).partitionResult(first).get().offset());
    }

    @Test
    void creatingAnExistingTopicFailsWithTopicExists() throws Exception {
        admin.createTopics(List.of(new NewTopic("twice", 1, (short) 1))).all().get();
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("twice", 1, (short) 1))).all().get());
        assertInstanceOf(TopicExistsException.class, failure.getCause());
    }

    @Test
    void aReplicationFactorAboveTheLiveBrokersFailsWithInvalidReplicationFactor() {
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("replicated", 1, (short) 3))).all().get());
        assertInstanceOf(InvalidReplicationFactorException.class, failure.getCause());
    }

    @Test
    void anInvalidConfigFailsWithInvalidConfigurationNamingTheProperty() throws Exception {
        ExecutionException onCreate = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                new NewTopic("badly-configured", 1, (short) 1).configs(Map.of("retention.ms", "forever"))))
                .all().get());
        assertInstanceOf(InvalidConfigurationException.class, onCreate.getCause());
        assertTrue(onCreate.getCause().getMessage().contains("retention.ms"), onCreate.getCause().getMessage());
        assertFalse(admin.listTopics().names().get().contains("badly-configured"));

        admin.createTopics(List.of(new NewTopic("well-configured", 1, (short) 1))).all().get();
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "well-configured");
        ExecutionException onAlter = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(
                Map.of(resource, List.of(set("cleanup.policy", "shred")))).all().get());
        assertInstanceOf(InvalidConfigurationException.class, onAlter.getCause());
        assertTrue(onAlter.getCause().getMessage().contains("cleanup.policy"), onAlter.getCause().getMessage());

        ExecutionException unknown = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(
                Map.of(resource, List.of(set("retention.forever", "true")))).all().get());
        assertInstanceOf(InvalidConfigurationException.class, unknown.getCause());
        assertTrue(unknown.getCause().getMessage().contains("retention.forever"), unknown.getCause().getMessage());
    }

    @Test
    void partitionsAreAddedAndTakeRecords() throws Exception {
        admin.createTopics(List.of(new NewTopic("growing", 2, (short) 1))).all().get();
        admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(4))).all().get();
        assertEquals(4, admin.describeTopics(List.of("growing")).allTopicNames().get().get("growing")
                .partitions().size());

        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            // The producer's metadata may predate the new partitions; it refreshes on an unknown partition.
            RecordMetadata written = producer.send(new ProducerRecord<>("growing", 3, "k", "in the new partition"))
                    .get();
            assertEquals(3, written.partition());
            assertEquals(0L, written.offset());
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            List<ConsumerRecord<String, String>> read = Records.readToEnd(consumer,
                    List.of(new TopicPartition("growing", 3))).get(3);
            assertEquals(List.of("in the new partition"), read.stream().map(ConsumerRecord::value).toList());
        }
    }

    @Test
    void configsAreDescribedWithTheirSource() throws Exception {
        admin.createTopics(List.of(new NewTopic("described", 1, (short) 1)
                .configs(Map.of("retention.ms", "123456", "max.message.bytes", "2000000")))).all().get();
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "described");
        Config config = admin.describeConfigs(List.of(topic)).all().get().get(topic);
        assertEquals("123456", config.get("retention.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, config.get("retention.ms").source());
        assertEquals("2000000", config.get("max.message.bytes").value());
        assertEquals("delete", config.get("cleanup.policy").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, config.get("cleanup.policy").source());

        admin.incrementalAlterConfigs(Map.of(topic, List.of(set("retention.ms", "654321"),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", null), AlterConfigOp.OpType.DELETE))))
                .all().get();
        Config altered = admin.describeConfigs(List.of(topic)).all().get().get(topic);
        assertEquals("654321", altered.get("retention.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, altered.get("max.message.bytes").source());

        ConfigResource brokerResource = new ConfigResource(ConfigResource.Type.BROKER, "0");
        Config brokerConfig = admin.describeConfigs(List.of(brokerResource)).all().get().get(brokerResource);
        assertEquals("200", brokerConfig.get("log.retention.check.interval.ms").value());
        assertEquals("2", brokerConfig.get("num.partitions").value());
    }

    @Test
    void logAppendTimeSetAtRuntimeStampsNewRecordsWithTheBrokersClock() throws Exception {
        admin.createTopics(List.of(new NewTopic("stamped", 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition("stamped", 0);
        long anHourAgo = System.currentTimeMillis() - 3_600_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            producer.send(new ProducerRecord<>("stamped", 0, anHourAgo, "k", "before")).get();

            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "stamped"),
                    List.of(set("message.timestamp.type", "LogAppendTime")))).all().get();
            long beforeSend = System.currentTimeMillis();
            // The change reaches the log through ZooKeeper shortly after the admin call returns.
            await().untilAsserted(() -> assertTrue(() -> {
                RecordMetadata written = send(producer, new ProducerRecord<>("stamped", 0, anHourAgo, "k", "after"));
                return written.timestamp() >= beforeSend;
            }, () -> "a record stamped with the log append time"));
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            List<ConsumerRecord<String, String>> read = Records.readToEnd(consumer, List.of(tp)).get(0);
            ConsumerRecord<String, String> before = read.get(0);
            assertEquals(TimestampType.CREATE_TIME, before.timestampType());
            assertEquals(anHourAgo, before.timestamp());
            ConsumerRecord<String, String> last = read.get(read.size() - 1);
            assertEquals(TimestampType.LOG_APPEND_TIME, last.timestampType());
            assertTrue(last.timestamp() > anHourAgo + 3_000_000L, "the broker's time, not the producer's");
        }
    }

    @Test
    void compactionSetAtRuntimeRefusesRecordsWithoutKey() throws Exception {
        admin.createTopics(List.of(new NewTopic("becomes-compacted", 1, (short) 1))).all().get();
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            producer.send(new ProducerRecord<>("becomes-compacted", 0, null, "no key, fine under delete")).get();
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "becomes-compacted"),
                    List.of(set("cleanup.policy", "compact")))).all().get();
            await().untilAsserted(() -> assertTrue(() -> {
                try {
                    producer.send(new ProducerRecord<>("becomes-compacted", 0, null, "no key")).get();
                    return false;
                } catch (ExecutionException e) {
                    return e.getCause() instanceof InvalidRecordException;
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }, () -> "a keyless record refused by the compacted topic"));
            producer.send(new ProducerRecord<>("becomes-compacted", 0, "key", "with a key")).get();
        }
    }

    @Test
    void retentionShortenedAtRuntimeDeletesOldSegments() throws Exception {
        // Small segments, so that the records spread over several and the closed ones can be deleted.
        admin.createTopics(List.of(new NewTopic("expiring", 1, (short) 1)
                .configs(Map.of("segment.bytes", "1024")))).all().get();
        TopicPartition tp = new TopicPartition("expiring", 0);
        long aDayAgo = System.currentTimeMillis() - 86_400_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers(),
                ProducerConfig.BATCH_SIZE_CONFIG, "200")) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("expiring", 0, aDayAgo + i, "k" + i, "v".repeat(100))).get();
            }
        }
        assertEquals(0L, earliest(tp));

        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "expiring"),
                List.of(set("retention.ms", "3600000")))).all().get();
        await().untilAsserted(() -> assertTrue(() -> earliest(tp) > 0,
                () -> "old segments deleted by the shortened retention"));
        assertEquals(50L, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset());
    }

    @Test
    void describeClusterShowsThisBrokerAsControllerAtItsAddress() throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();
        Collection<Node> nodes = cluster.nodes().get();
        assertEquals(1, nodes.size());
        Node node = nodes.iterator().next();
        assertEquals(0, node.id());
        assertEquals("127.0.0.1", node.host());
        assertEquals(broker.port(), node.port());
        assertEquals(0, cluster.controller().get().id());
        String clusterId = cluster.clusterId().get();
        assertNotNull(clusterId);
        assertEquals(clusterId, admin.describeCluster().clusterId().get(), "a stable cluster id");
    }

    @Test
    void deleteRecordsMovesTheStartOffsetAndConsumersStartThere() throws Exception {
        admin.createTopics(List.of(new NewTopic("trimmed", 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition("trimmed", 0);
        produceValues("trimmed", 10);

        long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp).get()
                .lowWatermark();
        assertEquals(4L, low);
        assertEquals(4L, earliest(tp));
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            List<ConsumerRecord<String, String>> read = Records.readToEnd(consumer, List.of(tp)).get(0);
            assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), read.stream().map(ConsumerRecord::offset).toList());
        }

        ExecutionException beyond = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
                Map.of(tp, RecordsToDelete.beforeOffset(11))).lowWatermarks().get(tp).get());
        assertInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class, beyond.getCause());
        assertEquals(10L, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1))).lowWatermarks().get(tp)
                .get().lowWatermark(), "-1 deletes up to the high watermark");
    }

    @Test
    void offsetsForTimesFindTheFirstRecordAtOrAfterATimeForReplay() throws Exception {
        admin.createTopics(List.of(new NewTopic("timeline", 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition("timeline", 0);
        long t0 = System.currentTimeMillis() - 600_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            // One record every second of producer time: offset i has timestamp t0 + 1000 * i.
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>("timeline", 0, t0 + 1000L * i, "k", "at " + i));
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, t0 + 7_500L));
            assertEquals(8L, found.get(tp).offset());
            assertEquals(t0 + 8_000L, found.get(tp).timestamp());
            assertEquals(0L, consumer.offsetsForTimes(Map.of(tp, t0 - 1L)).get(tp).offset());
            assertEquals(5L, consumer.offsetsForTimes(Map.of(tp, t0 + 5_000L)).get(tp).offset(), "an exact hit");
            assertNull(consumer.offsetsForTimes(Map.of(tp, t0 + 20_000L)).get(tp), "nothing that late");

            // Replay by time: seek to the offset found and read from there.
            consumer.assign(List.of(tp));
            consumer.seek(tp, found.get(tp).offset());
            List<ConsumerRecord<String, String>> replayed =
                    Records.readFromPositionToEnd(consumer, List.of(tp)).get(0);
            assertEquals(12, replayed.size());
            assertEquals("at 8", replayed.get(0).value());
            assertEquals(t0 + 8_000L, replayed.get(0).timestamp());
        }
        ListOffsetsResult.ListOffsetsResultInfo byAdmin = admin.listOffsets(
                Map.of(tp, OffsetSpec.forTimestamp(t0 + 12_001L))).partitionResult(tp).get();
        assertEquals(13L, byAdmin.offset());
        ListOffsetsResult.ListOffsetsResultInfo maxTimestamp = admin.listOffsets(
                Map.of(tp, OffsetSpec.maxTimestamp())).partitionResult(tp).get();
        assertEquals(19L, maxTimestamp.offset());
        assertEquals(t0 + 19_000L, maxTimestamp.timestamp());
    }

    @Test
    void aProducerToAnUnknownTopicCreatesItWhenAutoCreationIsEnabled() throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            RecordMetadata written = producer.send(new ProducerRecord<>("created-on-demand", "k", "v")).get();
            assertEquals(0L, written.offset());
        }
        TopicDescription created = admin.describeTopics(List.of("created-on-demand")).allTopicNames().get()
                .get("created-on-demand");
        assertEquals(2, created.partitions().size(), "num.partitions of the broker");
    }

    @Test
    void aProducerToAnUnknownTopicFailsWhenAutoCreationIsDisabled(@TempDir Path otherDir) throws Exception {
        try (InProcessBroker strict = new InProcessBroker(zooKeeper.getConnectString(), otherDir,
                "auto.create.topics.enable", "false");
             KafkaProducer<String, String> producer = Clients.producer(strict.bootstrapServers(),
                     ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
             Admin strictAdmin = Clients.admin(strict.bootstrapServers())) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("not-created", "k", "v")).get());
            assertInstanceOf(TimeoutException.class, failure.getCause());
            assertTrue(failure.getCause().getMessage().contains("not present in metadata"),
                    failure.getCause().getMessage());
            assertFalse(strictAdmin.listTopics().names().get().contains("not-created"));
        }
    }

    private long earliest(TopicPartition tp) {
        try {
            return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get().offset();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    private static void produceValues(String topic, int count) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    private static RecordMetadata send(KafkaProducer<String, String> producer, ProducerRecord<String, String> record) {
        try {
            return producer.send(record).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }
}
