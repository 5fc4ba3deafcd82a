package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data path end to end with the official Java client: an idempotent acks=all producer writes keyed and unkeyed
 * records with headers and explicit timestamps to a multi-partition topic, compressed with each codec the client
 * has; a consumer with assign and seek reads every record back, in order per partition, with everything intact.
 * The oracle is the list of records per partition built from what the producer sent and the offsets the broker
 * acknowledged. Also: producers with acks=0 and acks=1, and records at the size limit.
 */
class ProduceConsumeRoundTripTest {

    private static final int PARTITIONS = 3;
    private static final int RECORDS = 600;

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @BeforeAll
    static void startBroker(@TempDir Path dir) throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @ParameterizedTest(name = "compression.type={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyAcknowledgedRecordIsReadBackInOrderWithKeyHeadersAndTimestamp(String codec) throws Exception {
        String topic = "round-trip-" + codec;
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }

        // Expected records per partition, in the order sent; the acknowledged offsets are filled in below.
        Map<Integer, List<Records.Observed>> expected = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            expected.put(p, new ArrayList<>());
        }
        long baseTimestamp = System.currentTimeMillis() - 3_600_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers(),
                ProducerConfig.COMPRESSION_TYPE_CONFIG, codec,
                ProducerConfig.BATCH_SIZE_CONFIG, "16384")) {
            List<ProducerRecord<String, String>> sent = new ArrayList<>();
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                // Every 7th record has no key; every 3rd goes to an explicit partition, the rest by key hash
                // (sticky partitioning for the keyless ones); sizes vary so that batches compress differently.
                String key = i % 7 == 0 ? null : "key-" + i;
                Integer partition = i % 3 == 0 ? i % PARTITIONS : null;
                String value = "value-" + i + "-" + "x".repeat(i % 50 * 20);
                RecordHeaders headers = new RecordHeaders();
                headers.add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                headers.add("codec", codec.getBytes(StandardCharsets.UTF_8));
                if (i % 5 == 0) {
                    headers.add("empty", null);
                }
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, baseTimestamp + i,
                        key, value, headers);
                sent.add(record);
                acks.add(producer.send(record));
            }
            producer.flush();
            for (int i = 0; i < RECORDS; i++) {
                RecordMetadata metadata = acks.get(i).get();
                ProducerRecord<String, String> record = sent.get(i);
                List<String> headers = new ArrayList<>();
                record.headers().forEach(h -> headers.add(h.key() + "=" + (h.value() == null ? null
                        : new String(h.value(), StandardCharsets.UTF_8))));
                expected.get(metadata.partition()).add(new Records.Observed(metadata.partition(), metadata.offset(),
                        record.key(), record.value(), record.timestamp(), TimestampType.CREATE_TIME, headers));
            }
        }

        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            Map<Integer, List<ConsumerRecord<String, String>>> read =
                    Records.readToEnd(consumer, Records.partitions(topic, PARTITIONS));
            for (int p = 0; p < PARTITIONS; p++) {
                List<Records.Observed> observed = read.get(p).stream().map(Records.Observed::of).toList();
                // Equal lists: same records at the acknowledged offsets, in the order sent, nothing twice.
                Records.assertSameRecords(expected.get(p), observed, "partition " + p + " with " + codec);
                for (int i = 0; i < observed.size(); i++) {
                    assertEquals(i, observed.get(i).offset(), "offsets are dense from 0 in partition " + p);
                }
            }
        }
    }
    @ParameterizedTest(name = "acks={0}")
    @ValueSource(strings = {"0", "1"})
    void aProducerWithoutIdempotenceDeliversEveryRecordInOrderWithFewerAcks(String acks) throws Exception {
        String topic = "acks-" + acks;
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                ProducerConfig.ACKS_CONFIG, acks)) {
            for (int i = 0; i < 300; i++) {
                values.add("v" + i);
                RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get();
                // acks=0 has no response, so the client knows no offset.
                assertEquals(acks.equals("0") ? -1L : i, metadata.offset());
            }
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            await().untilAsserted(() -> assertTrue(() -> consumer.endOffsets(Records.partitions(topic,
                    1)).values().iterator().next() == 300L,
                    () -> "all 300 records appended"));
            List<String> read = Records.readToEnd(consumer, Records.partitions(topic, 1)).get(0).stream()
                    .map(ConsumerRecord::value).toList();
            assertEquals(values, read);
        }
    }

    @Test
    void aRecordOfAlmostAMegabyteRoundTripsAndOneOverTheTopicLimitIsRefused() throws Exception {
        String topic = "large";
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of("max.message.bytes", "1000000")))).all().get();
        }
        String large = "L".repeat(990_000);
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            assertEquals(0L, producer.send(new ProducerRecord<>(topic, 0, "k", large)).get().offset());
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, "k", large + "L".repeat(20_000))).get());
            assertInstanceOf(RecordTooLargeException.class, refused.getCause());
            assertEquals(1L, producer.send(new ProducerRecord<>(topic, 0, "k", "small")).get().offset());
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            List<String> read = Records.readToEnd(consumer, Records.partitions(topic, 1)).get(0).stream()
                    .map(ConsumerRecord::value).toList();
            assertEquals(List.of(large, "small"), read);
        }
    }
}
