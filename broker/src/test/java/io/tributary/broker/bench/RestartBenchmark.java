package io.tributary.broker.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;

/**
 * The two client halves of {@code broker/bin/restart-benchmark}, which starts, kills and restarts the brokers:
 * <pre>
 *   RestartBenchmark populate BOOTSTRAP TOPICS PARTITIONS RECORDS
 *   RestartBenchmark await BOOTSTRAP TOPICS PARTITIONS RECORDS
 * </pre>
 * {@code populate} creates topics {@code restart-0 ... restart-(TOPICS-1)} of PARTITIONS partitions each and writes
 * RECORDS records of 100 bytes into every partition with acks=all. {@code await} polls, from the moment it starts,
 * until every one of those partitions has a leader and answers ListOffsets with an end offset of RECORDS, and prints
 * {@code ready_ms=...}: how long after its own start the whole log was served again.
 */
public final class RestartBenchmark {

    private RestartBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: RestartBenchmark populate|await BOOTSTRAP TOPICS PARTITIONS RECORDS");
            System.exit(2);
        }
        String bootstrap = args[1];
        int topics = Integer.parseInt(args[2]);
        int partitions = Integer.parseInt(args[3]);
        int records = Integer.parseInt(args[4]);
        switch (args[0]) {
            case "populate" -> populate(bootstrap, topics, partitions, records);
            case "await" -> await(bootstrap, topics, partitions, records);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 300_000,
                AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50));
    }

    private static List<TopicPartition> partitions(int topics, int partitions) {
        List<TopicPartition> all = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition("restart-" + t, p));
            }
        }
        return all;
    }

    private static void populate(String bootstrap, int topics, int partitions, int records) throws Exception {
        long started = System.nanoTime();
        try (Admin admin = admin(bootstrap)) {
            List<NewTopic> created = new ArrayList<>();
            for (int t = 0; t < topics; t++) {
                created.add(new NewTopic("restart-" + t, partitions, (short) 1));
            }
            admin.createTopics(created, new CreateTopicsOptions().timeoutMs(300_000)).all()
                    .get(300, TimeUnit.SECONDS);
        }
        long createdMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        // Writing before every partition has a leader makes Kafka 4.4 answer NOT_LEADER and then, to the retried
        // idempotent batches, OUT_OF_ORDER_SEQUENCE_NUMBER without end: wait until all are led.
        try (Admin admin = admin(bootstrap)) {
            while (missing(admin, topics, partitions, 0) != 0) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        long ledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            byte[] value = new byte[100];
            for (int i = 0; i < records; i++) {
                for (TopicPartition tp : partitions(topics, partitions)) {
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value));
                }
            }
            producer.flush();
        }
        // Every record acknowledged: check they are all there before the kill.
        try (Admin admin = admin(bootstrap)) {
            long missing = missing(admin, topics, partitions, records);
            if (missing != 0) {
                throw new IllegalStateException(missing + " partitions lack their records after populating");
            }
        }
        System.out.printf("populated topics=%d partitions=%d records_per_partition=%d create_ms=%d led_ms=%d"
                        + " total_ms=%d%n", topics, topics * partitions, records, createdMs, ledMs,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Partitions not (yet) answering with an end offset of {@code records}. */
    private static long missing(Admin admin, int topics, int partitions, int records) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions(topics, partitions)) {
            request.put(tp, OffsetSpec.latest());
        }
        ListOffsetsResult result = admin.listOffsets(request);
        long missing = 0;
        for (TopicPartition tp : request.keySet()) {
            try {
                if (result.partitionResult(tp).get(20, TimeUnit.SECONDS).offset() != records) {
                    missing++;
                }
            } catch (Exception e) {
                missing++;
            }
        }
        return missing;
    }

    private static void await(String bootstrap, int topics, int partitions, int records) {
        long started = System.nanoTime();
        long[] missing = {Long.MAX_VALUE};
        // A benchmark's poll, every 100 ms, not a test's: ready_ms is measured to that precision.
        Awaitility.await("every partition served").atMost(Duration.ofMinutes(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100)).pollInSameThread().until(() -> {
                    try (Admin admin = admin(bootstrap)) {
                        missing[0] = missing(admin, topics, partitions, records);
                    } catch (Exception e) {
                        // not up yet
                    }
                    return missing[0] == 0;
                });
        System.out.printf("ready_ms=%d%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
}
