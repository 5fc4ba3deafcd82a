package io.tributary.broker.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An idempotent {@code acks=all} producer that sends {@link ProbeValue} records at a fixed rate, round-robin over
 * the partitions by explicit partition number (no key, no partitioner), and writes every send and every
 * acknowledgement into an {@link AckLog}.
 *
 * <p>Producer settings: {@code acks=all}, {@code enable.idempotence=true}, {@code delivery.timeout.ms=120000}
 * (longer than any failover stall worth measuring, so a stalled record is retried rather than failed); everything
 * else is the client's default. Record n is due at start + n / rate; a sender that falls behind (a GC pause, a
 * blocked {@code send}) catches up in a burst, so the average rate stays the one asked for.
 *
 * <p>Before the paced sending, {@link #start} sends one record to every partition and waits for their
 * acknowledgements. Right after a topic is created, a leader may not have loaded its partition yet; a first batch it
 * refuses can then be overtaken by the next ones in flight, which a broker accepts from a producer it has no state
 * for, and the first batch fails with OutOfOrderSequence on every retry until its delivery timeout. Seen against
 * Kafka 3.9 with the 4.4 client: 67 records failed after 120 s, and the head-of-line batch made a later kill's stall
 * look like 43 s instead of 18 s.
 *
 * <p>Lifecycle NEW, SENDING ({@link #start}), CLOSED ({@link #close()}, idempotent: stops sending, waits for every
 * outstanding acknowledgement up to the delivery timeout, closes the producer). One thread ("failover-sender")
 * sends; the producer's I/O thread runs the callbacks.
 */
final class PacedProducer implements AutoCloseable {

    static final int DELIVERY_TIMEOUT_MS = 120_000;

    private enum State { NEW, SENDING, CLOSED }

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int partitions;
    private final long periodNanos;
    private final AckLog acks;
    private final Thread sender;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    /** Written by the main thread, read by the sender. */
    private volatile boolean stopping;
    /**
     * The sender's worst lateness against its schedule, in ms (written by the sender only). Large values mean the
     * send times, and so the stall figures, are distorted: {@code send()} blocked or the machine starved the thread.
     */
    private volatile long maxLateMs;

    PacedProducer(String bootstrap, String topic, int partitions, int recordsPerSecond, AckLog acks) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "failover-benchmark-producer");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS);
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.partitions = partitions;
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        this.acks = acks;
        this.sender = new Thread(this::sendLoop, "failover-sender");
        this.sender.setDaemon(true);
    }

    /**
     * Sends one record to every partition, waits for their acknowledgements, then starts the paced sending.
     *
     * @throws FailoverBenchmark.BenchmarkException if a partition did not acknowledge its first record in time
     */
    void start(Duration firstAckTimeout) {
        if (!state.compareAndSet(State.NEW, State.SENDING)) {
            throw new IllegalStateException("producer is " + state.get());
        }
        List<Future<RecordMetadata>> firsts = new ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            firsts.add(send(partition));
        }
        long deadline = System.nanoTime() + firstAckTimeout.toNanos();
        for (int partition = 0; partition < partitions; partition++) {
            try {
                firsts.get(partition).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new FailoverBenchmark.BenchmarkException("the first record to " + topic + "-" + partition
                        + " was not acknowledged in " + firstAckTimeout.toMillis() + " ms; can the cluster take "
                        + "acks=all writes?", e instanceof ExecutionException ? e.getCause() : e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FailoverBenchmark.BenchmarkException("interrupted while waiting for the first records");
            }
        }
        sender.start();
    }

    /** Sends the next record of {@code partition}, registered in the ack log first so no ack can precede it. */
    private Future<RecordMetadata> send(int partition) {
        long sentAt = System.currentTimeMillis();
        long sequence = acks.sent(partition, sentAt);
        byte[] value = new ProbeValue(partition, sequence, sentAt).encode();
        try {
            return producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                if (error == null) {
                    acks.acked(partition, sequence, metadata.offset(), System.currentTimeMillis());
                } else {
                    acks.failed(partition, sequence, error, System.currentTimeMillis());
                }
            });
        } catch (RuntimeException e) {
            // send() itself throws only before the record is queued (metadata wait, serialization)
            acks.failed(partition, sequence, e, System.currentTimeMillis());
            return CompletableFuture.failedFuture(e);
        }
    }

    private void sendLoop() {
        long start = System.nanoTime();
        for (long n = 0; !stopping; n++) {
            long wait = start + n * periodNanos - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            } else if (-wait / 1_000_000 > maxLateMs) {
                maxLateMs = -wait / 1_000_000;
            }
            if (stopping) {
                return;
            }
            send((int) (n % partitions));
        }
    }

    /** The sender's worst lateness against its schedule so far, in ms. */
    long maxLateMs() {
        return maxLateMs;
    }

    /** Stops sending, then waits until every record sent has been acknowledged or has failed. */
    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        stopping = true;
        if (previous == State.SENDING) {
            LockSupport.unpark(sender);
            try {
                sender.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // flush() returns once every queued record is acknowledged or failed; close() then runs no more callbacks.
        producer.flush();
        producer.close(Duration.ofSeconds(10));
    }
}
