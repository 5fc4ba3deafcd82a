package io.tributary.broker.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Share-group consume throughput: {@code KafkaShareConsumer}s of one share group (implicit acknowledgement: every
 * record polled is accepted with the next poll) draining a topic filled beforehand, for each consumer count given. A
 * program, not a test: {@code broker/bin/share-benchmark} runs it against any bootstrap address, so Tributary and
 * Apache Kafka 4.4 (the shared bench's single node) are measured by the same code in the same session.
 *
 * <pre>
 *   ShareConsumeBenchmark --bootstrap HOST:PORT --label NAME [--consumers 1,4,16] [--records 200000]
 *                         [--record-bytes 100] [--partitions 1]
 * </pre>
 * Each consumer count gets its own topic and group. The clock starts when the consumers are created and stops when
 * every record has been received; a record received twice counts as a duplicate (a share group may redeliver after
 * a lock expiry, so duplicates are reported, not an error). Prints one line per count:
 * {@code share-bench label=... consumers=C records=N seconds=... records_per_s=... duplicates=D missing=M}.
 */
public final class ShareConsumeBenchmark {

    private static final String USAGE = "usage: ShareConsumeBenchmark --bootstrap HOST:PORT --label NAME "
            + "[--consumers 1,4,16] [--records 200000] [--record-bytes 100] [--partitions 1]";
    /** How long a run may take before it is reported as incomplete. */
    private static final long RUN_LIMIT_MS = 300_000;

    private ShareConsumeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        String label = null;
        int[] consumerCounts = {1, 4, 16};
        int records = 200_000;
        int recordBytes = 100;
        int partitions = 1;
        try {
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value; " + USAGE);
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--bootstrap" -> bootstrap = value;
                    case "--label" -> label = value;
                    case "--consumers" -> consumerCounts = Arrays.stream(value.split(","))
                            .mapToInt(Integer::parseInt).toArray();
                    case "--records" -> records = Integer.parseInt(value);
                    case "--record-bytes" -> recordBytes = Integer.parseInt(value);
                    case "--partitions" -> partitions = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
                }
            }
            if (bootstrap == null || label == null) {
                throw new IllegalArgumentException(USAGE);
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean complete = true;
        for (int consumers : consumerCounts) {
            complete &= run(bootstrap, label, consumers, records, recordBytes, partitions);
        }
        System.exit(complete ? 0 : 1);
    }

    private static boolean run(String bootstrap, String label, int consumers, int records, int recordBytes,
                               int partitions) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "share-bench-" + label + "-" + consumers + "-" + suffix;
        String group = "share-bench-" + consumers + "-" + suffix;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        fill(bootstrap, topic, records, recordBytes);

        BitSet seen = new BitSet(records);
        AtomicLong received = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        List<Future<?>> running = new ArrayList<>();
        long started = System.nanoTime();
        for (int c = 0; c < consumers; c++) {
            running.add(pool.submit(() -> {
                try (KafkaShareConsumer<byte[], byte[]> consumer = consumer(bootstrap, group)) {
                    consumer.subscribe(List.of(topic));
                    while (!stop.get()) {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                            int index = (int) (record.offset() + record.partition() * (long) records);
                            boolean fresh;
                            synchronized (seen) {
                                fresh = !seen.get(index);
                                seen.set(index);
                            }
                            if (fresh) {
                                received.incrementAndGet();
                            } else {
                                duplicates.incrementAndGet();
                            }
                        }
                    }
                }
                return null;
            }));
        }
        long deadline = System.currentTimeMillis() + RUN_LIMIT_MS;
        while (received.get() < records && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        stop.set(true);
        for (Future<?> future : running) {
            future.get();
        }
        pool.shutdown();
        long got = received.get();
        System.out.printf("share-bench label=%s consumers=%d records=%d seconds=%.2f records_per_s=%.0f "
                        + "duplicates=%d missing=%d%n", label, consumers, records, seconds, got / seconds,
                duplicates.get(), records - got);
        return got == records;
    }

    private static void fill(String bootstrap, String topic, int records, int recordBytes) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        byte[] value = new byte[recordBytes];
        Arrays.fill(value, (byte) 'x');
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }
    }

    private static KafkaShareConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaShareConsumer<>(props);
    }
}
