package io.tributary.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** IncrementalAlterConfigs on the broker resource changes topic defaults at runtime, through ZooKeeper. */
class DynamicBrokerConfigTest {

    @TempDir
    Path dataDir;

    private TestingServer zookeeper;
    private Broker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(true);
        broker = Broker.start(BrokerConfig.parse(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0",
                "log.dirs", dataDir.resolve("logs").toString(),
                "zookeeper.connect", zookeeper.getConnectString())));
        Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("default.api.timeout.ms", "20000");
        props.put("request.timeout.ms", "10000");
        admin = Admin.create(props);
    }

    @AfterEach
    void stop() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (broker != null) {
            broker.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    private void alterBroker(String resourceName, String name, String value) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, resourceName);
        Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(resource,
                List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(ops).all().get();
    }

    private ConfigEntry describe(ConfigResource resource, String name) throws Exception {
        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        return config.get(name);
    }

    @Test
    void clusterDefaultTimestampTypeReachesExistingTopicsWithoutRestart() throws Exception {
        admin.createTopics(List.of(new NewTopic("events", 1, (short) 1))).all().get();
        assertEquals(TimestampType.CREATE_TIME, produceAndReadTimestampType("events", 0));

        alterBroker("", "log.message.timestamp.type", "LogAppendTime");
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "events");
        long deadline = System.currentTimeMillis() + 20_000;
        while (!"LogAppendTime".equals(describe(topic, "message.timestamp.type").value())
                && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals("LogAppendTime", describe(topic, "message.timestamp.type").value());
        assertEquals(TimestampType.LOG_APPEND_TIME, produceAndReadTimestampType("events", 1));

        ConfigEntry brokerEntry = describe(new ConfigResource(ConfigResource.Type.BROKER, "0"),
                "log.message.timestamp.type");
        assertEquals("LogAppendTime", brokerEntry.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, brokerEntry.source());
    }

    @Test
    void perBrokerRetentionIsShownAsDynamicBrokerConfig() throws Exception {
        alterBroker("0", "log.retention.ms", "3600000");
        ConfigResource brokerResource = new ConfigResource(ConfigResource.Type.BROKER, "0");
        long deadline = System.currentTimeMillis() + 20_000;
        while (!"3600000".equals(describe(brokerResource, "log.retention.ms").value())
                && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        ConfigEntry entry = describe(brokerResource, "log.retention.ms");
        assertEquals("3600000", entry.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, entry.source());
        admin.createTopics(List.of(new NewTopic("short-lived", 1, (short) 1))).all().get();
        assertEquals("3600000", describe(new ConfigResource(ConfigResource.Type.TOPIC, "short-lived"),
                "retention.ms").value());
    }

    @Test
    void staticOrInvalidBrokerSettingsAreRefusedNamingTheProperty() {
        ExecutionException notDynamic = assertThrows(ExecutionException.class,
                () -> alterBroker("", "num.io.threads", "4"));
        assertInstanceOf(InvalidConfigurationException.class, notDynamic.getCause());
        assertTrue(notDynamic.getCause().getMessage().contains("num.io.threads"), notDynamic.getCause().getMessage());
        ExecutionException badValue = assertThrows(ExecutionException.class,
                () -> alterBroker("", "log.message.timestamp.type", "WallClock"));
        assertInstanceOf(InvalidConfigurationException.class, badValue.getCause());
        assertTrue(badValue.getCause().getMessage().contains("log.message.timestamp.type"),
                badValue.getCause().getMessage());
    }

    private TimestampType produceAndReadTimestampType(String topic, long offset) throws Exception {
        Map<String, Object> producerProps = new HashMap<>();
        producerProps.put("bootstrap.servers", broker.bootstrapServers());
        producerProps.put("max.block.ms", "20000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps, new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, 1_000L, "k", "v")).get();
        }
        Map<String, Object> consumerProps = new HashMap<>();
        consumerProps.put("bootstrap.servers", broker.bootstrapServers());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() == offset) {
                        return record.timestampType();
                    }
                }
            }
        }
        throw new AssertionError("record at offset " + offset + " of " + topic + " was not read");
    }
}
