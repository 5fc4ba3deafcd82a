package io.tributary.jms.message;

import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTemporaryQueue;
import io.tributary.jms.TributaryTemporaryTopic;
import io.tributary.jms.TributaryTopic;
import io.tributary.jms.format.RecordHeaders;
import io.tributary.jms.format.TypedValueFormat;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.Queue;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.Topic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The mapping between a Jakarta Messaging message and a Kafka record, documented so that non-JMS Kafka clients can
 * read and write JMS messages. A message is one record.
 *
 * <h2>Record</h2>
 * <table>
 * <caption>record fields</caption>
 * <tr><th>record field</th><th>content</th></tr>
 * <tr><td>topic</td><td>the destination's name (a queue or topic name is the topic name)</td></tr>
 * <tr><td>partition</td><td>not set: the producer's partitioner chooses, by key when there is one</td></tr>
 * <tr><td>key</td><td>the {@code JMSXGroupID} property as UTF-8, so one group stays in one partition, in order;
 *     null when the message has no group</td></tr>
 * <tr><td>timestamp</td><td>{@code JMSTimestamp}; when it is 0 (timestamps disabled) the record carries none and the
 *     producer or broker stamps it</td></tr>
 * <tr><td>value</td><td>the body, by body type (below)</td></tr>
 * <tr><td>headers</td><td>the body type, the JMS headers and every property (below)</td></tr>
 * </table>
 *
 * <h2>Body (record value)</h2>
 * <table>
 * <caption>body encodings</caption>
 * <tr><th>{@code jms.type}</th><th>message</th><th>value</th></tr>
 * <tr><td>{@code text}</td><td>TextMessage</td><td>the text as UTF-8; null text is a null value</td></tr>
 * <tr><td>{@code bytes}</td><td>BytesMessage</td><td>the bytes written, as they are</td></tr>
 * <tr><td>{@code map}</td><td>MapMessage</td><td>int32 entry count, then per entry: int32 name length, the name in
 *     UTF-8, a body value</td></tr>
 * <tr><td>{@code stream}</td><td>StreamMessage</td><td>int32 field count, then the body values in order</td></tr>
 * <tr><td>{@code object}</td><td>ObjectMessage</td><td>Java serialization ({@code ObjectOutputStream}) of the object;
 *     a null object is a null value</td></tr>
 * <tr><td>{@code message}</td><td>Message</td><td>null</td></tr>
 * </table>
 * A null value is a tombstone on a compacted topic: a keyed (grouped) message with a null body there deletes its key.
 *
 * <h2>Typed values</h2>
 * A typed value is a one-byte tag and a big-endian payload. In a property header a {@code String} payload is the rest
 * of the header value; in a map or stream body a {@code String} or {@code byte[]} payload is an int32 byte length
 * followed by the bytes.
 * <table>
 * <caption>type tags</caption>
 * <tr><th>tag</th><th>type</th><th>payload</th></tr>
 * <tr><td>0</td><td>null</td><td>none</td></tr>
 * <tr><td>1</td><td>boolean</td><td>1 byte: 0 false, 1 true</td></tr>
 * <tr><td>2</td><td>byte</td><td>1 byte</td></tr>
 * <tr><td>3</td><td>short</td><td>2 bytes</td></tr>
 * <tr><td>4</td><td>int</td><td>4 bytes</td></tr>
 * <tr><td>5</td><td>long</td><td>8 bytes</td></tr>
 * <tr><td>6</td><td>float</td><td>4 bytes, IEEE 754 ({@code Float.floatToRawIntBits})</td></tr>
 * <tr><td>7</td><td>double</td><td>8 bytes, IEEE 754 ({@code Double.doubleToRawLongBits})</td></tr>
 * <tr><td>8</td><td>String</td><td>UTF-8</td></tr>
 * <tr><td>9</td><td>char (bodies only)</td><td>2 bytes, a UTF-16 code unit</td></tr>
 * <tr><td>10</td><td>byte[] (bodies only)</td><td>the bytes</td></tr>
 * </table>
 *
 * <h2>Headers</h2>
 * Header values are UTF-8 text unless stated; a header is omitted when its value is null (or 0 where stated).
 * <table>
 * <caption>record headers</caption>
 * <tr><th>header key</th><th>content</th></tr>
 * <tr><td>{@value #HEADER_BODY_TYPE}</td><td>the body type: {@code text bytes map object stream message}; its presence
 *     marks a record as a JMS message</td></tr>
 * <tr><td>{@value #HEADER_MESSAGE_ID}</td><td>JMSMessageID</td></tr>
 * <tr><td>{@value #HEADER_CORRELATION_ID}</td><td>JMSCorrelationID set as a String</td></tr>
 * <tr><td>{@value #HEADER_CORRELATION_ID_BYTES}</td><td>JMSCorrelationID set as bytes: the raw bytes</td></tr>
 * <tr><td>{@value #HEADER_JMS_TYPE}</td><td>JMSType</td></tr>
 * <tr><td>{@value #HEADER_REPLY_TO}</td><td>JMSReplyTo as {@code queue://name}, {@code topic://name},
 *     {@code temp-queue://name} or {@code temp-topic://name}</td></tr>
 * <tr><td>{@value #HEADER_DELIVERY_MODE}</td><td>{@code PERSISTENT} or {@code NON_PERSISTENT}; always written</td></tr>
 * <tr><td>{@value #HEADER_PRIORITY}</td><td>JMSPriority, decimal 0-9; always written</td></tr>
 * <tr><td>{@value #HEADER_EXPIRATION}</td><td>JMSExpiration, decimal epoch milliseconds; omitted when 0</td></tr>
 * <tr><td>{@value #HEADER_DELIVERY_TIME}</td><td>JMSDeliveryTime, decimal epoch milliseconds; omitted when 0</td></tr>
 * <tr><td>{@value #HEADER_TIMESTAMP}</td><td>{@code 0}, written only when JMSTimestamp is 0 (disabled), so the
 *     receiver sees 0 rather than the record's timestamp</td></tr>
 * <tr><td>{@value #HEADER_PROPERTY_PREFIX}<i>name</i></td><td>one per property (application, JMSX and other
 *     vendors' {@code JMS_} properties): a typed value</td></tr>
 * <tr><td>{@code jms.ConnectionID}</td><td>the sending connection's id (UTF-8), added by the producer for
 *     {@code noLocal} consumers; not part of the message</td></tr>
 * </table>
 * JMSDestination is the topic; JMSRedelivered, {@code JMSXDeliveryCount} and the {@code JMS_Tributary_*} properties are
 * set by the receiving provider and never written. Headers with other keys are ignored.
 *
 * <h2>Receiving</h2>
 * {@link #fromRecord} rebuilds the message, sets JMSDestination through the caller's resolver, JMSTimestamp from the
 * record (or {@value #HEADER_TIMESTAMP}), {@code JMSXDeliveryCount} to 1, and the read-only provider properties
 * {@value TributaryMessage#PARTITION_PROPERTY} (int), {@value TributaryMessage#OFFSET_PROPERTY} (long),
 * {@value TributaryMessage#TIMESTAMP_PROPERTY} (long, -1 when the record has no timestamp) and
 * {@value TributaryMessage#KEY_PROPERTY} (String, UTF-8 of the key, only when there is a key). The message is then
 * read-only, Bytes and Stream bodies positioned at their start. A record without {@value #HEADER_BODY_TYPE} was written
 * by a plain Kafka producer: it becomes a BytesMessage holding the value (or a TextMessage of its UTF-8 when the caller
 * asks), with default headers, no properties but the provider's, and its other headers ignored. Properties named
 * {@code JMSXDeliveryCount} or {@code JMS_Tributary_*} in a record are ignored: the receiving provider sets them.
 *
 * <p><b>Malformed records</b>: a JMS record (one with {@value #HEADER_BODY_TYPE}) whose body type, JMS headers,
 * property headers or map/stream body cannot be decoded makes {@link #fromRecord} throw a
 * {@link MessageFormatException} naming the topic, partition, offset, header and reason, rather than deliver a message
 * that silently lost data; the consumer decides whether to skip or dead-letter the record. An ObjectMessage body is not
 * deserialized here, so a bad or refused object fails only {@code getObject()}.
 *
 * <p>Stateless; any thread.
 */
public final class MessageCodec {

    public static final String HEADER_BODY_TYPE = RecordHeaders.BODY_TYPE;
    public static final String HEADER_MESSAGE_ID = RecordHeaders.MESSAGE_ID;
    public static final String HEADER_CORRELATION_ID = RecordHeaders.CORRELATION_ID;
    public static final String HEADER_CORRELATION_ID_BYTES = RecordHeaders.CORRELATION_ID_BYTES;
    public static final String HEADER_JMS_TYPE = RecordHeaders.JMS_TYPE;
    public static final String HEADER_REPLY_TO = RecordHeaders.REPLY_TO;
    public static final String HEADER_DELIVERY_MODE = RecordHeaders.DELIVERY_MODE;
    public static final String HEADER_PRIORITY = RecordHeaders.PRIORITY;
    public static final String HEADER_EXPIRATION = RecordHeaders.EXPIRATION;
    public static final String HEADER_DELIVERY_TIME = RecordHeaders.DELIVERY_TIME;
    public static final String HEADER_TIMESTAMP = RecordHeaders.TIMESTAMP;
    public static final String HEADER_PROPERTY_PREFIX = RecordHeaders.PROPERTY_PREFIX;

    public static final String BODY_TEXT = RecordHeaders.BODY_TEXT;
    public static final String BODY_BYTES = RecordHeaders.BODY_BYTES;
    public static final String BODY_MAP = RecordHeaders.BODY_MAP;
    public static final String BODY_OBJECT = RecordHeaders.BODY_OBJECT;
    public static final String BODY_STREAM = RecordHeaders.BODY_STREAM;
    public static final String BODY_NONE = RecordHeaders.BODY_NONE;

    public static final String PERSISTENT = RecordHeaders.PERSISTENT;
    public static final String NON_PERSISTENT = RecordHeaders.NON_PERSISTENT;

    private static final String QUEUE_SCHEME = "queue://";
    private static final String TOPIC_SCHEME = "topic://";
    private static final String TEMP_QUEUE_SCHEME = "temp-queue://";
    private static final String TEMP_TOPIC_SCHEME = "temp-topic://";

    private MessageCodec() {
    }

    /**
     * The record that carries {@code message} to {@code topic}. Reads the message without changing it: a Bytes or
     * Stream message in write mode is encoded with what has been written and stays in write mode, as the sender may
     * keep using it (Jakarta Messaging 3.1 §3.9).
     *
     * @throws InvalidDestinationException if JMSReplyTo is not a queue or topic with a legal name
     * @throws MessageFormatException if JMSTimestamp is negative
     */
    public static ProducerRecord<byte[], byte[]> toRecord(TributaryMessage message, String topic)
            throws JMSException {
        List<Header> headers = new ArrayList<>(8 + message.properties().size());
        headers.add(text(HEADER_BODY_TYPE, bodyType(message)));
        if (message.getJMSMessageID() != null) {
            headers.add(text(HEADER_MESSAGE_ID, message.getJMSMessageID()));
        }
        if (message.correlationIdIsBytes()) {
            headers.add(new RecordHeader(HEADER_CORRELATION_ID_BYTES, message.getJMSCorrelationIDAsBytes()));
        } else if (message.getJMSCorrelationID() != null) {
            headers.add(text(HEADER_CORRELATION_ID, message.getJMSCorrelationID()));
        }
        if (message.getJMSType() != null) {
            headers.add(text(HEADER_JMS_TYPE, message.getJMSType()));
        }
        if (message.getJMSReplyTo() != null) {
            headers.add(text(HEADER_REPLY_TO, destinationUri(message.getJMSReplyTo())));
        }
        headers.add(text(HEADER_DELIVERY_MODE,
                message.getJMSDeliveryMode() == DeliveryMode.NON_PERSISTENT ? NON_PERSISTENT : PERSISTENT));
        headers.add(text(HEADER_PRIORITY, Integer.toString(message.getJMSPriority())));
        if (message.getJMSExpiration() != 0) {
            headers.add(text(HEADER_EXPIRATION, Long.toString(message.getJMSExpiration())));
        }
        if (message.getJMSDeliveryTime() != 0) {
            headers.add(text(HEADER_DELIVERY_TIME, Long.toString(message.getJMSDeliveryTime())));
        }
        long timestamp = message.getJMSTimestamp();
        if (timestamp < 0) {
            throw new MessageFormatException("JMSTimestamp " + timestamp + " is negative; a record timestamp is"
                    + " epoch milliseconds");
        }
        if (timestamp == 0) {
            headers.add(text(HEADER_TIMESTAMP, "0"));
        }
        for (Map.Entry<String, Object> property : message.properties().entrySet()) {
            if (!PropertyNames.isProviderOwned(property.getKey())) {
                headers.add(new RecordHeader(HEADER_PROPERTY_PREFIX + property.getKey(),
                        TypedValueFormat.encodeProperty(property.getValue())));
            }
        }
        Object groupId = message.properties().get(PropertyNames.JMSX_GROUP_ID);
        byte[] key = groupId == null ? null : groupId.toString().getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(topic, null, timestamp == 0 ? null : timestamp, key, value(message), headers);
    }

    /**
     * The message {@code record} carries, as a consumer receives it (read-only, {@code JMSXDeliveryCount} 1).
     *
     * @param destinationResolver the JMSDestination for the record's topic (a queue or a topic, as the consumer
     *        knows); may return null
     * @param plainRecordsAsText whether a record from a plain Kafka producer becomes a TextMessage (UTF-8 of the
     *        value) rather than a BytesMessage
     * @throws MessageFormatException if the record carries a JMS message (it has {@value #HEADER_BODY_TYPE}) whose
     *         headers or body cannot be decoded; the message names the record and the header
     */
    public static TributaryMessage fromRecord(ConsumerRecord<byte[], byte[]> record,
                                              Function<String, Destination> destinationResolver,
                                              boolean plainRecordsAsText) throws JMSException {
        Headers headers = record.headers();
        Header bodyType = headers.lastHeader(HEADER_BODY_TYPE);
        TributaryMessage message;
        Long jmsTimestamp = null;
        if (bodyType == null) {
            message = plainMessage(record.value(), plainRecordsAsText);
        } else {
            String type = headerText(bodyType);
            message = newMessage(record, type);
            try {
                loadBody(message, record.value());
            } catch (MessageFormatException e) {
                throw malformed(record, "the " + type + " body (record value)", e);
            }
            jmsTimestamp = readHeaders(record, message);
            readProperties(record, message);
        }
        message.setJMSDestination(destinationResolver.apply(record.topic()));
        if (jmsTimestamp == null) {
            jmsTimestamp = Math.max(record.timestamp(), 0);
        }
        message.setJMSTimestamp(jmsTimestamp);
        message.putProviderProperty(TributaryMessage.PARTITION_PROPERTY, record.partition());
        message.putProviderProperty(TributaryMessage.OFFSET_PROPERTY, record.offset());
        message.putProviderProperty(TributaryMessage.TIMESTAMP_PROPERTY, record.timestamp());
        if (record.key() != null) {
            message.putProviderProperty(TributaryMessage.KEY_PROPERTY,
                    new String(record.key(), StandardCharsets.UTF_8));
        }
        message.setDeliveryCount(1);
        message.markReceived();
        return message;
    }

    /**
     * {@code queue://name}, {@code topic://name}, {@code temp-queue://name} or {@code temp-topic://name}. A foreign
     * destination is accepted if it is a queue or topic whose name is a legal topic name.
     */
    static String destinationUri(Destination destination) throws JMSException {
        if (destination instanceof TemporaryQueue q) {
            return TEMP_QUEUE_SCHEME + TributaryTemporaryQueue.of(q.getQueueName()).getQueueName();
        }
        if (destination instanceof TemporaryTopic t) {
            return TEMP_TOPIC_SCHEME + TributaryTemporaryTopic.of(t.getTopicName()).getTopicName();
        }
        if (destination instanceof Queue q) {
            return QUEUE_SCHEME + TributaryQueue.of(q.getQueueName()).getQueueName();
        }
        if (destination instanceof Topic t) {
            return TOPIC_SCHEME + TributaryTopic.of(t.getTopicName()).getTopicName();
        }
        throw new InvalidDestinationException("JMSReplyTo " + destination + " is neither a Queue nor a Topic");
    }

    /** The destination a {@link #destinationUri} names. */
    static Destination parseDestinationUri(String uri) throws JMSException {
        if (uri.startsWith(QUEUE_SCHEME)) {
            return TributaryQueue.of(uri.substring(QUEUE_SCHEME.length()));
        }
        if (uri.startsWith(TOPIC_SCHEME)) {
            return TributaryTopic.of(uri.substring(TOPIC_SCHEME.length()));
        }
        if (uri.startsWith(TEMP_QUEUE_SCHEME)) {
            return TributaryTemporaryQueue.of(uri.substring(TEMP_QUEUE_SCHEME.length()));
        }
        if (uri.startsWith(TEMP_TOPIC_SCHEME)) {
            return TributaryTemporaryTopic.of(uri.substring(TEMP_TOPIC_SCHEME.length()));
        }
        throw new InvalidDestinationException("'" + uri + "' does not start with queue://, topic://, temp-queue://"
                + " or temp-topic://");
    }

    private static String bodyType(TributaryMessage message) {
        if (message instanceof TributaryTextMessage) {
            return BODY_TEXT;
        }
        if (message instanceof TributaryBytesMessage) {
            return BODY_BYTES;
        }
        if (message instanceof TributaryMapMessage) {
            return BODY_MAP;
        }
        if (message instanceof TributaryObjectMessage) {
            return BODY_OBJECT;
        }
        if (message instanceof TributaryStreamMessage) {
            return BODY_STREAM;
        }
        return BODY_NONE;
    }

    private static byte[] value(TributaryMessage message) {
        if (message instanceof TributaryTextMessage m) {
            return m.getText() == null ? null : m.getText().getBytes(StandardCharsets.UTF_8);
        }
        if (message instanceof TributaryBytesMessage m) {
            return m.bodyBytes();
        }
        if (message instanceof TributaryMapMessage m) {
            return TypedValueFormat.encodeMap(m.entries());
        }
        if (message instanceof TributaryObjectMessage m) {
            return m.serialized();
        }
        if (message instanceof TributaryStreamMessage m) {
            return TypedValueFormat.encodeStream(m.fields());
        }
        return null;
    }

    private static TributaryMessage plainMessage(byte[] value, boolean asText) {
        if (asText) {
            return new TributaryTextMessage(value == null ? null : new String(value, StandardCharsets.UTF_8));
        }
        TributaryBytesMessage message = new TributaryBytesMessage();
        message.loadBody(value == null ? new byte[0] : value);
        return message;
    }

    private static TributaryMessage newMessage(ConsumerRecord<byte[], byte[]> record, String type)
            throws MessageFormatException {
        return switch (type) {
            case BODY_TEXT -> new TributaryTextMessage();
            case BODY_BYTES -> new TributaryBytesMessage();
            case BODY_MAP -> new TributaryMapMessage();
            case BODY_OBJECT -> new TributaryObjectMessage();
            case BODY_STREAM -> new TributaryStreamMessage();
            case BODY_NONE -> new TributaryMessage();
            default -> throw malformed(record, "header '" + HEADER_BODY_TYPE + "'", new MessageFormatException("'"
                    + type + "' is not one of text, bytes, map, object, stream, message"));
        };
    }

    /** Fills a new message's body from a JMS record's value; a null or empty map/stream value is an empty body. */
    private static void loadBody(TributaryMessage message, byte[] value) throws JMSException {
        boolean empty = value == null || value.length == 0;
        if (message instanceof TributaryTextMessage m) {
            m.setText(value == null ? null : new String(value, StandardCharsets.UTF_8));
        } else if (message instanceof TributaryBytesMessage m) {
            m.loadBody(value == null ? new byte[0] : value);
        } else if (message instanceof TributaryMapMessage m && !empty) {
            TypedValueFormat.decodeMap(value, m.entries());
        } else if (message instanceof TributaryStreamMessage m && !empty) {
            TypedValueFormat.decodeStream(value, m.fields());
        } else if (message instanceof TributaryObjectMessage m) {
            m.loadSerialized(value);
        }
    }

    /** Reads the JMS header fields; returns the JMSTimestamp from {@value #HEADER_TIMESTAMP}, or null. */
    private static Long readHeaders(ConsumerRecord<byte[], byte[]> record, TributaryMessage message)
            throws JMSException {
        Headers headers = record.headers();
        Header h;
        if ((h = headers.lastHeader(HEADER_MESSAGE_ID)) != null) {
            message.setJMSMessageID(headerText(h));
        }
        if ((h = headers.lastHeader(HEADER_CORRELATION_ID_BYTES)) != null) {
            message.setJMSCorrelationIDAsBytes(h.value() == null ? new byte[0] : h.value());
        } else if ((h = headers.lastHeader(HEADER_CORRELATION_ID)) != null) {
            message.setJMSCorrelationID(headerText(h));
        }
        if ((h = headers.lastHeader(HEADER_JMS_TYPE)) != null) {
            message.setJMSType(headerText(h));
        }
        if ((h = headers.lastHeader(HEADER_REPLY_TO)) != null) {
            try {
                message.setJMSReplyTo(parseDestinationUri(headerText(h)));
            } catch (JMSException e) {
                throw malformed(record, "header '" + HEADER_REPLY_TO + "'", e);
            }
        }
        if ((h = headers.lastHeader(HEADER_DELIVERY_MODE)) != null) {
            String mode = headerText(h);
            if (PERSISTENT.equals(mode)) {
                message.setJMSDeliveryMode(DeliveryMode.PERSISTENT);
            } else if (NON_PERSISTENT.equals(mode)) {
                message.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
            } else {
                throw malformed(record, "header '" + HEADER_DELIVERY_MODE + "'", new MessageFormatException("'"
                        + mode + "' is neither " + PERSISTENT + " nor " + NON_PERSISTENT));
            }
        }
        if ((h = headers.lastHeader(HEADER_PRIORITY)) != null) {
            long priority = decimal(record, h);
            if (priority < 0 || priority > 9) {
                throw malformed(record, "header '" + HEADER_PRIORITY + "'",
                        new MessageFormatException(priority + " is outside 0-9"));
            }
            message.setJMSPriority((int) priority);
        }
        if ((h = headers.lastHeader(HEADER_EXPIRATION)) != null) {
            message.setJMSExpiration(decimal(record, h));
        }
        if ((h = headers.lastHeader(HEADER_DELIVERY_TIME)) != null) {
            message.setJMSDeliveryTime(decimal(record, h));
        }
        h = headers.lastHeader(HEADER_TIMESTAMP);
        return h == null ? null : decimal(record, h);
    }

    private static void readProperties(ConsumerRecord<byte[], byte[]> record, TributaryMessage message)
            throws JMSException {
        for (Header h : record.headers()) {
            if (!h.key().startsWith(HEADER_PROPERTY_PREFIX)) {
                continue;
            }
            String name = h.key().substring(HEADER_PROPERTY_PREFIX.length());
            try {
                PropertyNames.checkIdentifier(name);
            } catch (IllegalArgumentException e) {
                throw malformed(record, "header '" + h.key() + "'", new MessageFormatException(e.getMessage()));
            }
            if (RecordHeaders.isProviderOwned(name)) {
                continue;
            }
            try {
                message.putProviderProperty(name, TypedValueFormat.decodeProperty(h.value()));
            } catch (MessageFormatException e) {
                throw malformed(record, "header '" + h.key() + "'", e);
            }
        }
    }

    private static long decimal(ConsumerRecord<byte[], byte[]> record, Header h) throws MessageFormatException {
        String text = headerText(h);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw malformed(record, "header '" + h.key() + "'",
                    new MessageFormatException("'" + text + "' is not a decimal integer"));
        }
    }

    private static String headerText(Header h) {
        return h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static Header text(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageFormatException malformed(ConsumerRecord<?, ?> record, String what, JMSException reason) {
        return TributaryMessage.withCause(new MessageFormatException("record " + record.topic() + "-"
                + record.partition() + "@" + record.offset() + " is not a valid JMS message: " + what + ": "
                + reason.getMessage()), reason);
    }
}
