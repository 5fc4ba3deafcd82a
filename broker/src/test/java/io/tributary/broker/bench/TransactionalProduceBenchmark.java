package io.tributary.broker.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Transactional produce throughput: producers that each run transactions of N records back to back
 * ({@code beginTransaction}, N sends, {@code commitTransaction}), for each N given, and a check that a
 * {@code read_committed} consumer reads exactly the committed records. A program, not a test:
 * {@code broker/bin/txn-benchmark} runs it against any bootstrap address, so Tributary and Apache Kafka 4.4 (the shared
 * bench's single node) are measured by the same code in the same session.
 *
 * <pre>
 *   TransactionalProduceBenchmark --bootstrap HOST:PORT --label NAME [--sizes 1,10,100] [--seconds 20]
 *                                 [--producers 1] [--record-bytes 100] [--partitions 3]
 * </pre>
 * Each size gets its own topic ({@code txn-bench-<label>-<size>-<random>}, replication factor 1) so the check reads
 * exactly that run. Prints, per size, one line {@code txn-bench label=... size=N producers=P transactions=...
 * records=... seconds=... txn_per_s=... records_per_s=... commit_p50_ms=... commit_p99_ms=... read_committed=OK|BAD}.
 * A commit's latency is the time {@code commitTransaction()} takes (the flush of the sends and EndTxn).
 */
public final class TransactionalProduceBenchmark {

    private static final String USAGE = "usage: TransactionalProduceBenchmark --bootstrap HOST:PORT --label NAME "
            + "[--sizes 1,10,100] [--seconds 20] [--producers 1] [--record-bytes 100] [--partitions 3]";

    private TransactionalProduceBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean allGood = true;
        for (int size : options.sizes) {
            allGood &= run(options, size);
        }
        System.exit(allGood ? 0 : 1);
    }

    private static boolean run(Options options, int size) throws Exception {
        String topic = "txn-bench-" + options.label + "-" + size + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, options.partitions, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        byte[] value = new byte[options.recordBytes];
        Arrays.fill(value, (byte) 'x');
        AtomicLong transactions = new AtomicLong();
        List<long[]> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.seconds);
        long started = System.nanoTime();
        for (int p = 0; p < options.producers; p++) {
            long[] commitNanos = new long[1_000_000];
            latencies.add(commitNanos);
            String transactionalId = topic + "-producer-" + p;
            Thread thread = new Thread(() -> {
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(options,
                        transactionalId))) {
                    producer.initTransactions();
                    int done = 0;
                    while (System.nanoTime() < deadline && done < commitNanos.length - 1) {
                        producer.beginTransaction();
                        for (int i = 0; i < size; i++) {
                            producer.send(new ProducerRecord<>(topic, value));
                        }
                        long before = System.nanoTime();
                        producer.commitTransaction();
                        commitNanos[++done] = System.nanoTime() - before;
                        transactions.incrementAndGet();
                    }
                    commitNanos[0] = done;
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                }
            }, "txn-bench-" + p);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        if (!failures.isEmpty()) {
            System.out.printf("# %s size %d: a producer failed: %s%n", options.label, size, failures.get(0));
            return false;
        }
        long[] all = latencies.stream()
                .flatMapToLong(l -> Arrays.stream(l, 1, (int) l[0] + 1)).sorted().toArray();
        long committed = transactions.get() * size;
        long read = countCommitted(options, topic, committed);
        boolean ok = read == committed;
        System.out.printf(Locale.ROOT, "txn-bench label=%s size=%d producers=%d transactions=%d records=%d "
                        + "seconds=%.1f txn_per_s=%.0f records_per_s=%.0f commit_p50_ms=%.2f commit_p99_ms=%.2f "
                        + "read_committed=%s%n",
                options.label, size, options.producers, transactions.get(), committed, seconds,
                transactions.get() / seconds, committed / seconds, percentileMs(all, 0.50), percentileMs(all, 0.99),
                ok ? "OK" : "BAD(read " + read + " of " + committed + ")");
        return ok;
    }

    private static Properties producerConfig(Options options, String transactionalId) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return config;
    }

    /** Reads the topic with read_committed up to its end; returns how many records it saw. */
    private static long countCommitted(Options options, String topic, long expected) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < options.partitions; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long count = 0;
            long idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < idleUntil) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(java.time.Duration.ofMillis(200));
                count += records.count();
                if (!records.isEmpty()) {
                    idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                }
                boolean atEnd = partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                if (atEnd && count >= expected) {
                    break;
                }
            }
            return count;
        }
    }

    private static double percentileMs(long[] sortedNanos, double quantile) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int index = Math.min(sortedNanos.length - 1, (int) Math.ceil(quantile * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, index)] / 1e6;
    }

    private record Options(String bootstrap, String label, int[] sizes, int seconds, int producers, int recordBytes,
                           int partitions) {

        static Options parse(String[] args) {
            String bootstrap = null;
            String label = null;
            int[] sizes = {1, 10, 100};
            int seconds = 20;
            int producers = 1;
            int recordBytes = 100;
            int partitions = 3;
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value\n" + USAGE);
                }
                String value = args[++i];
                switch (name) {
                    case "--bootstrap" -> bootstrap = value;
                    case "--label" -> label = value;
                    case "--sizes" -> sizes = Arrays.stream(value.split(",")).mapToInt(s -> number(name, s)).toArray();
                    case "--seconds" -> seconds = number(name, value);
                    case "--producers" -> producers = number(name, value);
                    case "--record-bytes" -> recordBytes = number(name, value);
                    case "--partitions" -> partitions = number(name, value);
                    default -> throw new IllegalArgumentException("unknown argument '" + name + "'\n" + USAGE);
                }
            }
            if (bootstrap == null || label == null) {
                throw new IllegalArgumentException(USAGE);
            }
            return new Options(bootstrap, label, sizes, seconds, producers, recordBytes, partitions);
        }

        private static int number(String name, String text) {
            try {
                int n = Integer.parseInt(text.trim());
                if (n <= 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " takes a positive number, not '" + text + "'");
            }
        }
    }
}
