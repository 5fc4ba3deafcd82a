package io.tributary.ra.inbound;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.tributary.jms.message.MessageCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The dead-letter topic of an activation: where a message goes when its deliveries have all failed, or when its record
 * is not a readable JMS message.
 *
 * <p>A dead letter is the original record (key, value, timestamp and every header, so it is the same message) with
 * these message properties added, as {@code jms.prop.<name>} headers in the JMS record format ({@link MessageCodec}:
 * one type byte, 4 for an int, 5 for a long, 8 for a UTF-8 String, then the big-endian value), so that a JMS consumer
 * of the dead-letter topic reads them as properties:
 * <table>
 * <caption>dead-letter properties</caption>
 * <tr><th>property</th><th>type</th><th>content</th></tr>
 * <tr><td>{@value #REASON}</td><td>String</td><td>why: the last failure (exception and root cause, or "the
 *     transaction rolled back"), or why the record is unreadable; at most 2,000 characters</td></tr>
 * <tr><td>{@value #ORIGINAL_TOPIC}</td><td>String</td><td>the topic it was consumed from</td></tr>
 * <tr><td>{@value #ORIGINAL_PARTITION}</td><td>int</td><td>its partition there</td></tr>
 * <tr><td>{@value #ORIGINAL_OFFSET}</td><td>long</td><td>its offset there</td></tr>
 * <tr><td>{@value #DELIVERY_COUNT}</td><td>int</td><td>how often it was delivered (0 for an unreadable
 *     record)</td></tr>
 * <tr><td>{@value #DEAD_LETTER_TIME}</td><td>long</td><td>when it was dead-lettered, epoch milliseconds</td></tr>
 * <tr><td>{@value #ENDPOINT}</td><td>String</td><td>the endpoint (MDB) it was delivered to</td></tr>
 * </table>
 * Properties with these names already on the record (a message dead-lettered before) are replaced. A record from a
 * plain Kafka producer gets a {@code jms.type} header ({@code bytes}, or {@code text} under
 * {@code plainRecordsAsText}) so that JMS consumers see the properties; its value is unchanged.
 *
 * <p>Thread-safe: any delivery thread may send; the producer is created on first use and closed by {@link #close()}.
 */
final class DeadLetters implements AutoCloseable {

    static final String REASON = "TributaryDeadLetterReason";
    static final String ORIGINAL_TOPIC = "TributaryOriginalTopic";
    static final String ORIGINAL_PARTITION = "TributaryOriginalPartition";
    static final String ORIGINAL_OFFSET = "TributaryOriginalOffset";
    static final String DELIVERY_COUNT = "TributaryDeliveryCount";
    static final String DEAD_LETTER_TIME = "TributaryDeadLetterTime";
    static final String ENDPOINT = "TributaryEndpoint";

    private static final Set<String> OWN_HEADERS = Set.of(header(REASON), header(ORIGINAL_TOPIC),
            header(ORIGINAL_PARTITION), header(ORIGINAL_OFFSET), header(DELIVERY_COUNT), header(DEAD_LETTER_TIME),
            header(ENDPOINT));
    private static final int MAX_REASON_CHARS = 2_000;

    /** Type tags of the JMS record format's typed values (MessageCodec, "Typed values"). */
    private static final byte TYPE_INT = 4;
    private static final byte TYPE_LONG = 5;
    private static final byte TYPE_STRING = 8;

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
        Future<RecordMetadata> written = producer().send(record(topic, original, reason, deliveries, endpoint,
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

    /** The dead letter of {@code original}; see the class description for its format. */
    static ProducerRecord<byte[], byte[]> record(String deadLetterTopic, ConsumerRecord<byte[], byte[]> original,
                                                 String reason, int deliveries, String endpoint, long nowMillis,
                                                 boolean plainRecordsAsText) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : original.headers()) {
            if (!OWN_HEADERS.contains(header.key())) {
                headers.add(header);
            }
        }
        if (original.headers().lastHeader(MessageCodec.HEADER_BODY_TYPE) == null) {
            headers.add(new RecordHeader(MessageCodec.HEADER_BODY_TYPE, (plainRecordsAsText ? MessageCodec.BODY_TEXT
                    : MessageCodec.BODY_BYTES).getBytes(StandardCharsets.UTF_8)));
        }
        String shortReason = reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS);
        headers.add(header(REASON), string(shortReason));
        headers.add(header(ORIGINAL_TOPIC), string(original.topic()));
        headers.add(header(ORIGINAL_PARTITION), ByteBuffer.allocate(5).put(TYPE_INT).putInt(original.partition())
                .array());
        headers.add(header(ORIGINAL_OFFSET), ByteBuffer.allocate(9).put(TYPE_LONG).putLong(original.offset()).array());
        headers.add(header(DELIVERY_COUNT), ByteBuffer.allocate(5).put(TYPE_INT).putInt(deliveries).array());
        headers.add(header(DEAD_LETTER_TIME), ByteBuffer.allocate(9).put(TYPE_LONG).putLong(nowMillis).array());
        if (endpoint != null) {
            headers.add(header(ENDPOINT), string(endpoint));
        }
        Long timestamp = original.timestamp() >= 0 ? original.timestamp() : null;
        return new ProducerRecord<>(deadLetterTopic, null, timestamp, original.key(), original.value(), headers);
    }

    private static String header(String property) {
        return MessageCodec.HEADER_PROPERTY_PREFIX + property;
    }

    private static byte[] string(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + utf8.length).put(TYPE_STRING).put(utf8).array();
    }

    private synchronized KafkaProducer<byte[], byte[]> producer() {
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
