package io.tributary.ra.inbound;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryTextMessage;
import io.tributary.testsupport.InProcessBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A real Tributary broker with an in-process ZooKeeper (test-support's {@link InProcessBroker}), for the adapter's
 * tests, on a port fixed when the cluster is created, so that the broker can be started late, stopped and started
 * again at the same address with the same log directories: the adapter's clients find it again.
 *
 * <p>Test thread only, except {@link #send}, which any thread may call.
 */
final class TestCluster implements AutoCloseable {

    private final InProcessBroker broker;
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;

    /** ZooKeeper and, if {@code startBroker}, the broker. */
    TestCluster(Path dataDir, boolean startBroker) throws Exception {
        this.broker = InProcessBroker.builder(dataDir).fixedPort(0).build();
        if (startBroker) {
            startBroker();
        }
    }

    void startBroker() {
        broker.start();
    }

    void stopBroker() {
        broker.stop();
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /**
     * Kafka properties for activations in tests: clients reconnect within 500 ms (the adapter's 30 s ceiling would
     * make a test wait that long after a restart) and a group notices a departed member within 6 s.
     */
    String clientProperties() {
        return "reconnect.backoff.max.ms=500;consumer.heartbeat.interval.ms=200;consumer.session.timeout.ms=6000";
    }

    synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
        }
        return admin;
    }

    /**
     * Creates {@code topic}, or accepts it as it is if it already has {@code partitions} partitions: an activation
     * started before the broker auto-creates its topic (with {@code num.partitions}, 1) as soon as the broker is up,
     * which can come before the test's own create.
     */
    void createTopic(String topic, int partitions) throws Exception {
        try {
            admin().createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
            int existing = admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            if (existing != partitions) {
                throw new AssertionError("topic " + topic + " exists with " + existing + " partitions, not "
                        + partitions, e);
            }
        }
    }

    /** The group's committed offsets by partition (empty when it has none). */
    Map<Integer, Long> committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, Long> byPartition = new TreeMap<>();
        offsets.forEach((tp, offset) -> {
            if (offset != null) {
                byPartition.put(tp.partition(), offset.offset());
            }
        });
        return byPartition;
    }

    Set<String> groups() throws Exception {
        Set<String> ids = new TreeSet<>();
        admin().listGroups().all().get(30, TimeUnit.SECONDS).forEach(g -> ids.add(g.groupId()));
        return ids;
    }

    /** Sends a JMS text message to one partition, with the given properties, and waits for the acknowledgement. */
    void send(String topic, int partition, String text, Map<String, Object> properties) throws Exception {
        send(topic, partition, text, properties, 0);
    }

    /** Sends a JMS text message whose JMSDeliveryTime is {@code deliveryTime} (0: none). */
    void send(String topic, int partition, String text, Map<String, Object> properties, long deliveryTime)
            throws Exception {
        TributaryTextMessage message = new TributaryTextMessage(text);
        message.setJMSDeliveryTime(deliveryTime);
        for (Map.Entry<String, Object> property : properties.entrySet()) {
            message.setObjectProperty(property.getKey(), property.getValue());
        }
        message.setJMSMessageID("ID:" + text);
        message.setJMSTimestamp(System.currentTimeMillis());
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(message, topic);
        producer().send(new ProducerRecord<>(topic, partition, record.timestamp(), record.key(), record.value(),
                record.headers())).get(30, TimeUnit.SECONDS);
    }

    void send(String topic, int partition, String text) throws Exception {
        send(topic, partition, text, Map.of());
    }

    /** Writes a raw record, as a plain Kafka producer would. */
    void sendRaw(String topic, int partition, byte[] value) throws Exception {
        producer().send(new ProducerRecord<>(topic, partition, null, value)).get(30, TimeUnit.SECONDS);
    }

    private synchronized KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            Map<String, Object> props = new HashMap<>();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            producer = new KafkaProducer<>(props);
        }
        return producer;
    }

    /** Reads {@code topic} from the beginning until {@code expected} records came or {@code timeout} passed. */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected, Duration timeout) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    @Override
    public void close() throws IOException {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        broker.close();
    }
}
