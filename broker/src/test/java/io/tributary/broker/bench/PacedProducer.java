package io.tributary.broker.bench;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * <p>Lifecycle NEW, SENDING ({@link #start()}), CLOSED ({@link #close()}, idempotent: stops sending, waits for every
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

    void start() {
        if (!state.compareAndSet(State.NEW, State.SENDING)) {
            throw new IllegalStateException("producer is " + state.get());
        }
        sender.start();
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
            int partition = (int) (n % partitions);
            long sentAt = System.currentTimeMillis();
            long sequence = acks.sent(partition, sentAt);
            byte[] value = new ProbeValue(partition, sequence, sentAt).encode();
            try {
                producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                    if (error == null) {
                        acks.acked(partition, sequence, metadata.offset(), System.currentTimeMillis());
                    } else {
                        acks.failed(partition, sequence, error, System.currentTimeMillis());
                    }
                });
            } catch (RuntimeException e) {
                // send() itself throws only before the record is queued (metadata wait, serialization)
                acks.failed(partition, sequence, e, System.currentTimeMillis());
            }
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
