package io.tributary.jms.format;

/**
 * The names in a JMS message's Kafka record: its header keys, body types and delivery modes, and the properties the
 * receiving provider sets. The layout they make up is described on the provider's
 * {@code io.tributary.jms.message.MessageCodec}; the broker reads the same headers to evaluate selectors
 * ({@link RecordSelectorValues}).
 */
public final class RecordHeaders {

    public static final String BODY_TYPE = "jms.type";
    public static final String MESSAGE_ID = "jms.MessageID";
    public static final String CORRELATION_ID = "jms.CorrelationID";
    public static final String CORRELATION_ID_BYTES = "jms.CorrelationIDBytes";
    public static final String JMS_TYPE = "jms.Type";
    public static final String REPLY_TO = "jms.ReplyTo";
    public static final String DELIVERY_MODE = "jms.DeliveryMode";
    public static final String PRIORITY = "jms.Priority";
    public static final String EXPIRATION = "jms.Expiration";
    public static final String DELIVERY_TIME = "jms.DeliveryTime";
    public static final String TIMESTAMP = "jms.Timestamp";
    public static final String PROPERTY_PREFIX = "jms.prop.";

    public static final String BODY_TEXT = "text";
    public static final String BODY_BYTES = "bytes";
    public static final String BODY_MAP = "map";
    public static final String BODY_OBJECT = "object";
    public static final String BODY_STREAM = "stream";
    public static final String BODY_NONE = "message";

    public static final String PERSISTENT = "PERSISTENT";
    public static final String NON_PERSISTENT = "NON_PERSISTENT";

    /** The priority of a message whose record has no {@link #PRIORITY} header (a plain Kafka record). */
    public static final int DEFAULT_PRIORITY = 4;

    /** The JMS-defined property the receiving provider sets: how many times the message was delivered. */
    public static final String DELIVERY_COUNT_PROPERTY = "JMSXDeliveryCount";
    /** The prefix of the provider's own properties, set on receive and read-only to applications. */
    public static final String PROVIDER_PROPERTY_PREFIX = "JMS_Tributary_";
    /** Provider property: the partition the message was read from (int). */
    public static final String PARTITION_PROPERTY = "JMS_Tributary_Partition";
    /** Provider property: the offset of the record in its partition (long). */
    public static final String OFFSET_PROPERTY = "JMS_Tributary_Offset";
    /** Provider property: the record's timestamp in epoch milliseconds (long); -1 when the record has none. */
    public static final String TIMESTAMP_PROPERTY = "JMS_Tributary_Timestamp";
    /** Provider property: the record key decoded as UTF-8 (String); absent when the record has no key. */
    public static final String KEY_PROPERTY = "JMS_Tributary_Key";

    private RecordHeaders() {
    }

    /** Whether the receiving provider sets this property, so that a value stored in a record is ignored. */
    public static boolean isProviderOwned(String propertyName) {
        return DELIVERY_COUNT_PROPERTY.equals(propertyName) || propertyName.startsWith(PROVIDER_PROPERTY_PREFIX);
    }
}
