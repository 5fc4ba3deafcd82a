package io.tributary.jms.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import io.tributary.jms.message.MessageCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The dead letter of a consumed record, the same for the resource adapter's activations and the provider's
 * share-group queue receivers ({@link ShareReceiver}).
 *
 * <p>A dead letter is the original record (key, value, timestamp and every header, so it is the same message) with
 * these message properties added, as {@code jms.prop.<name>} headers in the JMS record format ({@link MessageCodec}:
 * one type byte, 4 for an int, 5 for a long, 8 for a UTF-8 String, then the big-endian value), so that a JMS consumer
 * of the dead-letter topic reads them as properties:
 * <table>
 * <caption>dead-letter properties</caption>
 * <tr><th>property</th><th>type</th><th>content</th></tr>
 * <tr><td>{@value #REASON}</td><td>String</td><td>why: the last failure (exception and root cause, "the
 *     transaction rolled back", "not selected by any receiver"), or why the record is unreadable; at most 2,000
 *     characters</td></tr>
 * <tr><td>{@value #ORIGINAL_TOPIC}</td><td>String</td><td>the topic it was consumed from</td></tr>
 * <tr><td>{@value #ORIGINAL_PARTITION}</td><td>int</td><td>its partition there</td></tr>
 * <tr><td>{@value #ORIGINAL_OFFSET}</td><td>long</td><td>its offset there</td></tr>
 * <tr><td>{@value #DELIVERY_COUNT}</td><td>int</td><td>how often it was delivered (0 for an unreadable record the
 *     adapter never delivered)</td></tr>
 * <tr><td>{@value #DEAD_LETTER_TIME}</td><td>long</td><td>when it was dead-lettered, epoch milliseconds</td></tr>
 * <tr><td>{@value #ENDPOINT}</td><td>String</td><td>the endpoint (MDB) it was delivered to; absent for a JMS
 *     receiver</td></tr>
 * </table>
 * Properties with these names already on the record (a message dead-lettered before) are replaced. A record from a
 * plain Kafka producer gets a {@code jms.type} header ({@code bytes}, or {@code text} under
 * {@code plainRecordsAsText}) so that JMS consumers see the properties; its value is unchanged.
 *
 * <p>Stateless; any thread.
 */
public final class DeadLetterRecord {

    public static final String REASON = "TributaryDeadLetterReason";
    public static final String ORIGINAL_TOPIC = "TributaryOriginalTopic";
    public static final String ORIGINAL_PARTITION = "TributaryOriginalPartition";
    public static final String ORIGINAL_OFFSET = "TributaryOriginalOffset";
    public static final String DELIVERY_COUNT = "TributaryDeliveryCount";
    public static final String DEAD_LETTER_TIME = "TributaryDeadLetterTime";
    public static final String ENDPOINT = "TributaryEndpoint";

    private static final Set<String> OWN_HEADERS = Set.of(header(REASON), header(ORIGINAL_TOPIC),
            header(ORIGINAL_PARTITION), header(ORIGINAL_OFFSET), header(DELIVERY_COUNT), header(DEAD_LETTER_TIME),
            header(ENDPOINT));
    private static final int MAX_REASON_CHARS = 2_000;

    /** Type tags of the JMS record format's typed values (MessageCodec, "Typed values"). */
    private static final byte TYPE_INT = 4;
    private static final byte TYPE_LONG = 5;
    private static final byte TYPE_STRING = 8;

    private DeadLetterRecord() {
    }

    /**
     * The dead letter of {@code original}; see the class description for its format.
     *
     * @param endpoint the MDB it was delivered to, or null
     */
    public static ProducerRecord<byte[], byte[]> of(String deadLetterTopic, ConsumerRecord<byte[], byte[]> original,
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
}
