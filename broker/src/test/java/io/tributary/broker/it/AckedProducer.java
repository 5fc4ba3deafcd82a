package io.tributary.broker.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.tributary.testsupport.Clients;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Steady load for fault tests, and the ledger to check it against: one idempotent {@code acks=all} producer sends
 * records round-robin to the partitions of a topic at a fixed rate, each with key {@code p<partition>} and value
 * {@code <sequence>} (a counter per partition), and records every acknowledgement with its offset. Sends the cluster
 * refuses (a timeout while too few replicas are live) are counted, not acknowledged; they may or may not be in the
 * log.
 *
 * <p>{@link #verify} is the oracle: every acknowledged record is in the log exactly once, at its acknowledged offset,
 * and within a partition the sequence numbers only go up (nothing reordered, no duplicate of an unacknowledged send
 * either). Producer thread plus the client's callbacks; {@link #stop()} from the test thread.
 */
final class AckedProducer implements AutoCloseable {

    private final String topic;
    private final int partitions;
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private final long intervalNanos;
    private volatile boolean running = true;
    /** Per partition: sequence number to acknowledged offset. */
    private final Map<Integer, ConcurrentSkipListMap<Long, Long>> acked = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> lastFailure = new AtomicReference<>();

    AckedProducer(String bootstrap, String topic, int partitions, int recordsPerSecond, String... producerSettings) {
        this.topic = topic;
        this.partitions = partitions;
        // A broker restarted on an ephemeral port comes back on a new address, which the producer learns only from a
        // metadata refresh: by default after an error, or every 5 minutes. A restarted broker that leads nothing
        // causes no error; if the two brokers the producer knows are killed next, it has no live address (its
        // bootstrap list is stale too) and stays stuck, as ReplicationFailoverTest's last round was with seed
        // 8094787371410. A refresh every second keeps its list of brokers current.
        List<String> settings = new ArrayList<>(List.of("delivery.timeout.ms", "60000", "request.timeout.ms",
                "5000", "metadata.max.age.ms", "1000"));
        settings.addAll(List.of(producerSettings));
        this.producer = Clients.producer(bootstrap, settings.toArray(String[]::new));
        this.intervalNanos = 1_000_000_000L / recordsPerSecond;
        for (int p = 0; p < partitions; p++) {
            acked.put(p, new ConcurrentSkipListMap<>());
        }
        this.thread = new Thread(this::run, "acked-producer-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        long[] sequences = new long[partitions];
        long next = System.nanoTime();
        int partition = 0;
        while (running) {
            long seq = sequences[partition]++;
            int p = partition;
            sent.incrementAndGet();
            try {
                producer.send(new ProducerRecord<>(topic, p, "p" + p, Long.toString(seq)), (metadata, error) -> {
                    if (error == null) {
                        acked.get(p).put(seq, metadata.offset());
                    } else {
                        failed.incrementAndGet();
                        lastFailure.set(error);
                    }
                });
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                lastFailure.set(e);
            }
            partition = (partition + 1) % partitions;
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            } else if (wait < -1_000_000_000L) {
                next = System.nanoTime(); // fell far behind (blocked on a full buffer): do not burst afterwards
            }
        }
    }

    /** Acknowledged records so far. */
    long ackedCount() {
        return acked.values().stream().mapToLong(Map::size).sum();
    }

    /** Waits until {@code more} records beyond the current count are acknowledged. */
    void awaitMoreAcks(int more, Duration limit) {
        long target = ackedCount() + more;
        await(limit).untilAsserted(() -> assertTrue(() -> ackedCount() >= target,
                () -> target + " acknowledged records (have "
                + ackedCount() + ", " + failed.get() + " failed, last failure " + lastFailure.get() + ")"));
    }

    /** Stops sending and waits for every outstanding send to be acknowledged or to fail. */
    void stop() {
        running = false;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.flush();
    }

    long failedCount() {
        return failed.get();
    }

    /**
     * Checks the log (every record of the topic, by partition) against the ledger: every acknowledged record exactly
     * once at its offset, sequence numbers strictly increasing per partition.
     */
    void verify(Map<Integer, List<ConsumerRecord<String, String>>> log) {
        for (int p = 0; p < partitions; p++) {
            List<ConsumerRecord<String, String>> records = log.getOrDefault(p, List.of());
            Map<Long, Long> offsetsBySeq = new ConcurrentHashMap<>();
            long previous = -1;
            for (ConsumerRecord<String, String> record : records) {
                assertEquals("p" + p, record.key(), "a record of another partition in partition " + p);
                long seq = Long.parseLong(record.value());
                if (seq <= previous) {
                    fail("partition " + p + ": sequence " + seq + " at offset " + record.offset() + " after " + previous
                            + " (duplicated or reordered)");
                }
                previous = seq;
                offsetsBySeq.put(seq, record.offset());
            }
            for (Map.Entry<Long, Long> ack : acked.get(p).entrySet()) {
                Long offset = offsetsBySeq.get(ack.getKey());
                if (offset == null) {
                    fail("partition " + p + ": acknowledged record " + ack.getKey() + " (offset " + ack.getValue()
                            + ") is lost; the log has " + records.size() + " records");
                }
                assertEquals(ack.getValue(), offset, "partition " + p + ": record " + ack.getKey()
                        + " is not at its acknowledged offset");
            }
            assertTrue(records.size() >= acked.get(p).size());
        }
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(5));
    }

    @Override
    public String toString() {
        return "AckedProducer(" + topic + ": sent " + sent.get() + ", acked " + ackedCount() + ", failed "
                + failed.get() + ")";
    }
}
