package io.tributary.broker.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records written (idempotent, {@code acks=all}) before a fault, with their exact bytes: random values from a seed, so
 * that a read-back after the fault compares every byte at every acknowledged offset ({@link #assertReadBack}). The
 * reference model is a map of offset to key and value per partition. Test thread only.
 */
final class EarlierRecords {

    private record Written(byte[] key, byte[] value) {
    }

    private final String topic;
    private final Map<Integer, TreeMap<Long, Written>> byPartition = new HashMap<>();

    private EarlierRecords(String topic) {
        this.topic = topic;
    }

    /** Writes {@code count} records of {@code valueBytes} random bytes round-robin to the topic's partitions. */
    static EarlierRecords write(String bootstrap, String topic, int partitions, int count, int valueBytes, long seed)
            throws Exception {
        EarlierRecords records = new EarlierRecords(topic);
        Random random = new Random(seed);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            List<Written> written = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] value = new byte[valueBytes];
                random.nextBytes(value);
                Written record = new Written(("earlier-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        value);
                written.add(record);
                sends.add(producer.send(new ProducerRecord<>(topic, i % partitions, record.key(), record.value())));
            }
            for (int i = 0; i < count; i++) {
                RecordMetadata metadata = sends.get(i).get(60, TimeUnit.SECONDS);
                records.byPartition.computeIfAbsent(metadata.partition(), p -> new TreeMap<>())
                        .put(metadata.offset(), written.get(i));
            }
        }
        return records;
    }

    long bytes() {
        return byPartition.values().stream().flatMap(m -> m.values().stream())
                .mapToLong(w -> w.value().length).sum();
    }

    /** Reads every partition from its start and checks each earlier record at its offset, byte for byte. */
    void assertReadBack(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = byPartition.keySet().stream()
                    .map(p -> new TopicPartition(topic, p)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Map<Long, ConsumerRecord<byte[], byte[]>>> read = new HashMap<>();
            await(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    read.computeIfAbsent(new TopicPartition(record.topic(), record.partition()),
                            tp -> new HashMap<>()).put(record.offset(), record);
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp)
                        > byPartition.get(tp.partition()).lastKey());
            }, () -> "the earlier records of " + topic + " read back"));
            for (TopicPartition tp : partitions) {
                for (Map.Entry<Long, Written> expected : byPartition.get(tp.partition()).entrySet()) {
                    ConsumerRecord<byte[], byte[]> actual = read.getOrDefault(tp, Map.of()).get(expected.getKey());
                    assertNotNull(actual, tp + ": the earlier record at offset " + expected.getKey() + " is lost");
                    assertArrayEquals(expected.getValue().key(), actual.key(), tp + " offset " + expected.getKey());
                    assertArrayEquals(expected.getValue().value(), actual.value(), tp + " offset "
                            + expected.getKey() + ": the value differs");
                }
            }
            assertEquals(byPartition.size(), partitions.size());
        }
    }

    @Override
    public String toString() {
        return "EarlierRecords(" + topic + ", " + Arrays.toString(byPartition.keySet().toArray()) + ")";
    }
}
