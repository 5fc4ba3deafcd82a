package io.tributary.ra.inbound;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.tributary.jms.kafka.DeadLetterRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The dead-letter topic of an activation: where a message goes when its deliveries have all failed, or when its record
 * is not a readable JMS message. The dead letter's format (the original record with the {@code Tributary...}
 * properties naming its origin and the failure) is the shared core's {@link DeadLetterRecord}.
 *
 * <p>Thread-safe: any delivery thread may send; the producer is created on first use and closed by {@link #close()}.
 */
final class DeadLetters implements AutoCloseable {

    static final String REASON = DeadLetterRecord.REASON;
    static final String ORIGINAL_TOPIC = DeadLetterRecord.ORIGINAL_TOPIC;
    static final String ORIGINAL_PARTITION = DeadLetterRecord.ORIGINAL_PARTITION;
    static final String ORIGINAL_OFFSET = DeadLetterRecord.ORIGINAL_OFFSET;
    static final String DELIVERY_COUNT = DeadLetterRecord.DELIVERY_COUNT;
    static final String DEAD_LETTER_TIME = DeadLetterRecord.DEAD_LETTER_TIME;
    static final String ENDPOINT = DeadLetterRecord.ENDPOINT;

    /**
     * How long a send is waited for: a little more than the producer's delivery timeout (15 s), so the producer's
     * own verdict arrives first.
     */
    private static final long SEND_TIMEOUT_MS = 20_000;
    private static final long WAIT_SLICE_MS = 100;

    private final String topic;
    private final ActivationConfig config;
    private final String producerClientId;
    private final String endpoint;
    private KafkaProducer<byte[], byte[]> producer; // guarded by this
    private boolean closed; // guarded by this

    DeadLetters(ActivationConfig config, String producerClientId, String endpoint) {
        this.topic = config.deadLetterTopic();
        this.config = config;
        this.producerClientId = producerClientId;
        this.endpoint = endpoint;
    }

    String topic() {
        return topic;
    }

    /**
     * Writes the dead letter of {@code original} and waits until the cluster has it.
     *
     * @param abandon checked while waiting: when it turns true the wait ends with a TimeoutException (the record may
     *                still be written; the message may then be dead-lettered twice, never lost)
     * @throws Exception if the record was not acknowledged (the cluster is away, the topic cannot be written)
     */
    void send(ConsumerRecord<byte[], byte[]> original, String reason, int deliveries, BooleanSupplier abandon)
            throws Exception {
        Future<RecordMetadata> written = producer().send(DeadLetterRecord.of(topic, original, reason, deliveries, endpoint,
                System.currentTimeMillis(), config.plainRecordsAsText()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEND_TIMEOUT_MS);
        while (true) {
            try {
                written.get(WAIT_SLICE_MS, TimeUnit.MILLISECONDS);
                return;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            } catch (TimeoutException e) {
                if (abandon.getAsBoolean() || System.nanoTime() > deadline) {
                    throw new TimeoutException("dead letter of " + original.topic() + "-" + original.partition()
                            + "@" + original.offset() + " to " + topic + " not acknowledged");
                }
            }
        }
    }

    /**
     * The producer, created on first use: {@link #send} uses it, and share-group members hand it to their
     * receivers, which write their dead letters themselves.
     *
     * @throws IllegalStateException once closed
     */
    synchronized KafkaProducer<byte[], byte[]> producer() {
        if (closed) {
            throw new IllegalStateException("the activation is stopping; dead letters are no longer written");
        }
        if (producer == null) {
            producer = config.newProducer(producerClientId);
        }
        return producer;
    }

    /** Closes the producer, waiting briefly for what it still sends; idempotent. */
    @Override
    public void close() {
        KafkaProducer<byte[], byte[]> toClose;
        synchronized (this) {
            closed = true;
            toClose = producer;
            producer = null;
        }
        if (toClose != null) {
            toClose.close(Duration.ofSeconds(5));
        }
    }
}
