package io.tributary.jms.format;

import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.MessageFormatException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import org.apache.kafka.common.header.Header;

/**
 * The values a message selector sees in a stored record, read straight from the record's headers without building
 * a message: what the provider's {@code MessageCodec.fromRecord} would make of the record, for the identifiers a
 * selector may name. The broker uses it to give a share-group member only the records its selector selects.
 *
 * <ul>
 *   <li>A record with a {@value RecordHeaders#BODY_TYPE} header is a JMS message: its header fields and properties
 *       come from their headers ({@link RecordHeaders}); a property header is a typed value
 *       ({@link TypedValueFormat}); when several headers have one key the last counts.</li>
 *   <li>Any other record was written by a plain Kafka producer: default header fields (PERSISTENT, priority 4, no
 *       message id, correlation id or type) and no properties.</li>
 *   <li>JMSTimestamp is the {@value RecordHeaders#TIMESTAMP} header if present, else the record's timestamp (0 when it
 *       has none); {@code JMSXDeliveryCount} is the delivery this evaluation is for; the {@code JMS_Tributary_}
 *       properties are the record's partition, offset, timestamp (-1 when none) and key as UTF-8; property headers
 *       with those names are ignored, as the receiving provider ignores them.</li>
 * </ul>
 *
 * <p>A JMS record whose headers cannot be decoded is selected by every selector ({@link #selects}): the consumer's
 * provider then fails to decode it and dead-letters it, as it does for any malformed record, instead of the record
 * staying in the queue unseen. Only the headers a selector names are read.
 *
 * <p>Not thread-safe: one instance per evaluation, by one thread.
 */
public final class RecordSelectorValues implements Function<String, Object> {

    private final Header[] headers;
    private final boolean jms;
    private final long timestamp;
    private final ByteBuffer key;
    private final int partition;
    private final long offset;
    private final int deliveryCount;

    private RecordSelectorValues(Header[] headers, long timestamp, ByteBuffer key, int partition, long offset,
                                 int deliveryCount) {
        this.headers = headers;
        this.jms = last(headers, RecordHeaders.BODY_TYPE) != null;
        this.timestamp = timestamp;
        this.key = key;
        this.partition = partition;
        this.offset = offset;
        this.deliveryCount = deliveryCount;
    }

    /**
     * Whether {@code selector} selects the record: the record's headers, timestamp ({@code -1} or less when it has
     * none), key ({@code null} when none), partition and offset, for the {@code deliveryCount}-th delivery. TRUE for
     * a JMS record whose headers cannot be decoded (see the class description).
     */
    public static boolean selects(MessageSelector selector, Header[] headers, long timestamp, ByteBuffer key,
                                  int partition, long offset, int deliveryCount) {
        if (selector.matchesAll()) {
            return true;
        }
        try {
            return selector.matches(new RecordSelectorValues(headers, timestamp, key, partition, offset,
                    deliveryCount));
        } catch (MalformedRecord e) {
            return true;
        }
    }

    @Override
    public Object apply(String name) {
        return switch (name) {
            case "JMSDeliveryMode" -> deliveryMode();
            case "JMSPriority" -> priority();
            case "JMSMessageID" -> jmsText(RecordHeaders.MESSAGE_ID);
            case "JMSCorrelationID" -> correlationId();
            case "JMSType" -> jmsText(RecordHeaders.JMS_TYPE);
            case "JMSTimestamp" -> jmsTimestamp();
            case RecordHeaders.DELIVERY_COUNT_PROPERTY -> deliveryCount;
            case RecordHeaders.PARTITION_PROPERTY -> partition;
            case RecordHeaders.OFFSET_PROPERTY -> offset;
            case RecordHeaders.TIMESTAMP_PROPERTY -> timestamp < 0 ? -1L : timestamp;
            case RecordHeaders.KEY_PROPERTY -> key == null ? null : StandardCharsets.UTF_8.decode(key.duplicate())
                    .toString();
            default -> property(name);
        };
    }

    private Object deliveryMode() {
        String mode = jmsText(RecordHeaders.DELIVERY_MODE);
        if (mode == null || mode.equals(RecordHeaders.PERSISTENT) || mode.equals(RecordHeaders.NON_PERSISTENT)) {
            return mode == null ? RecordHeaders.PERSISTENT : mode;
        }
        throw new MalformedRecord();
    }

    private Object priority() {
        String text = jmsText(RecordHeaders.PRIORITY);
        if (text == null) {
            return RecordHeaders.DEFAULT_PRIORITY;
        }
        long priority = decimal(text);
        if (priority < 0 || priority > 9) {
            throw new MalformedRecord();
        }
        return (int) priority;
    }

    private Object correlationId() {
        if (!jms) {
            return null;
        }
        Header bytes = last(headers, RecordHeaders.CORRELATION_ID_BYTES);
        if (bytes != null) {
            return text(bytes);
        }
        return jmsText(RecordHeaders.CORRELATION_ID);
    }

    private Object jmsTimestamp() {
        String text = jmsText(RecordHeaders.TIMESTAMP);
        return text != null ? decimal(text) : Math.max(timestamp, 0L);
    }

    private Object property(String name) {
        if (!jms || RecordHeaders.isProviderOwned(name)) {
            return null;
        }
        Header header = last(headers, RecordHeaders.PROPERTY_PREFIX + name);
        if (header == null) {
            return null;
        }
        try {
            return TypedValueFormat.decodeProperty(header.value());
        } catch (MessageFormatException e) {
            throw new MalformedRecord();
        }
    }

    /** A JMS header field's text, or null when the record has no such header or is not a JMS message. */
    private String jmsText(String headerKey) {
        if (!jms) {
            return null;
        }
        Header header = last(headers, headerKey);
        return header == null ? null : text(header);
    }

    private static long decimal(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new MalformedRecord();
        }
    }

    private static String text(Header header) {
        return header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static Header last(Header[] headers, String key) {
        for (int i = headers.length - 1; i >= 0; i--) {
            if (headers[i].key().equals(key)) {
                return headers[i];
            }
        }
        return null;
    }

    /** A header the selector needs cannot be decoded; {@link #selects} answers TRUE. */
    private static final class MalformedRecord extends RuntimeException {

        MalformedRecord() {
            super(null, null, false, false);
        }
    }
}
