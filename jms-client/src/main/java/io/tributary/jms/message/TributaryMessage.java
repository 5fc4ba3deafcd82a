package io.tributary.jms.message;

import io.tributary.jms.format.RecordHeaders;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Jakarta Messaging message with no body, and the headers, properties and read-only rules every Tributary message
 * shares. The five body types extend it.
 *
 * <p><b>Headers</b> are plain fields, writable at any time (Jakarta Messaging 3.1 §3.10: header fields are never
 * read-only). A new message is {@code PERSISTENT} with priority 4, as {@code Session.createMessage} promises.
 *
 * <p><b>Properties</b> hold {@code Boolean, Byte, Short, Integer, Long, Float, Double, String} or null, read with the
 * conversion table of §3.5.4 (see {@link TypeConversions}) and named by the rules in {@link PropertyNames}. A message
 * built by {@link MessageCodec#fromRecord} (a received message) has read-only properties and body until
 * {@link #clearProperties()} / {@link #clearBody()}; writing them throws {@link MessageNotWriteableException}
 * (§3.5.3, §3.11.2). {@code JMSXDeliveryCount} and the {@code JMS_Tributary_*} properties are set only by the
 * provider ({@link #setDeliveryCount(int)}, {@link MessageCodec#fromRecord}); applications cannot write them.
 *
 * <p><b>Threads</b>: not thread-safe. A message is used by one thread at a time, as the specification expects of
 * every message; the session hands it over with the usual happens-before of its delivery.
 */
public class TributaryMessage implements Message {

    /** Provider property: the partition the message was read from (int). */
    public static final String PARTITION_PROPERTY = RecordHeaders.PARTITION_PROPERTY;
    /** Provider property: the offset of the record in its partition (long). */
    public static final String OFFSET_PROPERTY = RecordHeaders.OFFSET_PROPERTY;
    /** Provider property: the record's timestamp in epoch milliseconds (long); -1 when the record has none. */
    public static final String TIMESTAMP_PROPERTY = RecordHeaders.TIMESTAMP_PROPERTY;
    /** Provider property: the record key decoded as UTF-8 (String); absent when the record has no key. */
    public static final String KEY_PROPERTY = RecordHeaders.KEY_PROPERTY;

    private String messageId;
    private long timestamp;
    /** At most one of the two is non-null: the correlation id as the application last set it. */
    private String correlationId;
    private byte[] correlationIdBytes;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private long deliveryTime;
    private int priority = Message.DEFAULT_PRIORITY;

    /** Insertion order is kept so that a message encodes its properties in the order they were set. */
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private boolean propertiesReadOnly;
    /** True once received (all body types) or, for Bytes and Stream messages, once {@code reset()} was called. */
    boolean bodyReadOnly;

    private MessageAcknowledger acknowledger;

    /** A message with no body, as {@code Session.createMessage()} returns. */
    public TributaryMessage() {
    }

    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
        this.messageId = id;
    }

    @Override
    public long getJMSTimestamp() {
        return timestamp;
    }

    @Override
    public void setJMSTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    /**
     * The correlation id as bytes: a copy of the bytes given to {@link #setJMSCorrelationIDAsBytes(byte[])}, or the
     * UTF-8 encoding of a {@code String} correlation id, or null.
     */
    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        if (correlationIdBytes != null) {
            return correlationIdBytes.clone();
        }
        return correlationId == null ? null : correlationId.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationIDAsBytes(byte[] correlationId) {
        this.correlationIdBytes = correlationId == null ? null : correlationId.clone();
        this.correlationId = null;
    }

    @Override
    public void setJMSCorrelationID(String correlationId) {
        this.correlationId = correlationId;
        this.correlationIdBytes = null;
    }

    /**
     * The correlation id as a {@code String}; one set as bytes is decoded as UTF-8 (bytes that are not UTF-8 come
     * back with replacement characters, so byte correlation ids should be read with the bytes getter).
     */
    @Override
    public String getJMSCorrelationID() {
        if (correlationIdBytes != null) {
            return new String(correlationIdBytes, StandardCharsets.UTF_8);
        }
        return correlationId;
    }

    /** Whether the correlation id was set as bytes, which {@link MessageCodec} carries byte for byte. */
    boolean correlationIdIsBytes() {
        return correlationIdBytes != null;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

    @Override
    public void setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
    }

    @Override
    public Destination getJMSDestination() {
        return destination;
    }

    @Override
    public void setJMSDestination(Destination destination) {
        this.destination = destination;
    }

    @Override
    public int getJMSDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public void setJMSDeliveryMode(int deliveryMode) {
        this.deliveryMode = deliveryMode;
    }

    @Override
    public boolean getJMSRedelivered() {
        return redelivered;
    }

    @Override
    public void setJMSRedelivered(boolean redelivered) {
        this.redelivered = redelivered;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public void setJMSType(String type) {
        this.type = type;
    }

    @Override
    public long getJMSExpiration() {
        return expiration;
    }

    @Override
    public void setJMSExpiration(long expiration) {
        this.expiration = expiration;
    }

    @Override
    public long getJMSDeliveryTime() {
        return deliveryTime;
    }

    @Override
    public void setJMSDeliveryTime(long deliveryTime) {
        this.deliveryTime = deliveryTime;
    }

    @Override
    public int getJMSPriority() {
        return priority;
    }

    @Override
    public void setJMSPriority(int priority) {
        this.priority = priority;
    }

    /** Removes every property, provider-set ones included, and makes the properties writable (§3.5.7). */
    @Override
    public void clearProperties() {
        properties.clear();
        propertiesReadOnly = false;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        return TypeConversions.toBoolean(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return TypeConversions.toByte(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return TypeConversions.toShort(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return TypeConversions.toInt(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return TypeConversions.toLong(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return TypeConversions.toFloat(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        return TypeConversions.toDouble(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public String getStringProperty(String name) throws JMSException {
        return TypeConversions.toStringValue(properties.get(name), TypeConversions.property(name));
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    /** A snapshot of the property names, JMSX and provider properties included (§3.5.6). */
    @Override
    public Enumeration<String> getPropertyNames() {
        return Collections.enumeration(new ArrayList<>(properties.keySet()));
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        putProperty(name, value);
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        putProperty(name, value);
    }

    /**
     * Sets a property from a {@code Boolean, Byte, Short, Integer, Long, Float, Double} or {@code String}, or null
     * (§3.12 lets every set method take null); any other class throws {@link MessageFormatException} (§3.5.5).
     */
    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        if (value != null && !isPropertyType(value)) {
            PropertyNames.checkIdentifier(name);
            throw new MessageFormatException("property '" + name + "' cannot hold a " + value.getClass().getName()
                    + "; property values are Boolean, Byte, Short, Integer, Long, Float, Double or String"
                    + " (Jakarta Messaging 3.1 §3.5.5)");
        }
        putProperty(name, value);
    }

    private void putProperty(String name, Object value) throws JMSException {
        PropertyNames.checkApplicationSettable(name, value);
        if (propertiesReadOnly) {
            throw new MessageNotWriteableException("the properties of a received message are read-only;"
                    + " call clearProperties() before setting '" + name + "' (Jakarta Messaging 3.1 §3.5.3)");
        }
        properties.put(name, value);
    }

    static boolean isPropertyType(Object value) {
        return value instanceof Boolean || value instanceof Byte || value instanceof Short
                || value instanceof Integer || value instanceof Long || value instanceof Float
                || value instanceof Double || value instanceof String;
    }

    /**
     * Sets {@code JMSXDeliveryCount}: 1 on first delivery, 2 or more on redelivery (§3.5.11). For the provider's
     * consumer; applications cannot set this property. Allowed on a read-only message.
     */
    public void setDeliveryCount(int deliveryCount) {
        properties.put(PropertyNames.JMSX_DELIVERY_COUNT, deliveryCount);
    }

    /** Sets a provider-owned property without the application rules and regardless of read-only state. */
    void putProviderProperty(String name, Object value) {
        properties.put(name, value);
    }

    /** The live property map, in insertion order, for {@link MessageCodec}. */
    Map<String, Object> properties() {
        return properties;
    }

    /**
     * The JMSX properties Tributary supports, for {@code ConnectionMetaData.getJMSXPropertyNames()}:
     * {@code JMSXDeliveryCount}, {@code JMSXGroupID} and {@code JMSXGroupSeq}.
     */
    public static List<String> supportedJmsxPropertyNames() {
        return PropertyNames.SUPPORTED_JMSX;
    }

    /** The session's acknowledgement callback, or null (then {@link #acknowledge()} does nothing). */
    public void setAcknowledger(MessageAcknowledger acknowledger) {
        this.acknowledger = acknowledger;
    }

    /** Calls the session's {@link MessageAcknowledger}; does nothing on a message no session delivered. */
    @Override
    public void acknowledge() throws JMSException {
        MessageAcknowledger a = acknowledger;
        if (a != null) {
            a.acknowledge();
        }
    }

    /** Empties the body and makes it writable; headers and properties stay (§3.11.1). */
    @Override
    public void clearBody() throws JMSException {
        bodyReadOnly = false;
    }

    /**
     * The body as {@code c}. A message that has no body returns null for any {@code c}; otherwise the body must be
     * an instance of {@code c} or {@link MessageFormatException} is thrown. {@code StreamMessage} always throws.
     */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        Object body = body();
        if (body == null) {
            return null;
        }
        if (!c.isInstance(body)) {
            throw new MessageFormatException("the body of this " + bodyTypeName() + " is a "
                    + body.getClass().getName() + ", which cannot be assigned to " + c.getName());
        }
        return c.cast(body);
    }

    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) throws JMSException {
        Object body = body();
        return body == null || c.isInstance(body);
    }

    /** The body as {@link #getBody} returns it, a copy; null when the message has no body. */
    Object body() throws JMSException {
        return null;
    }

    String bodyTypeName() {
        return "Message";
    }

    /** Throws {@link MessageNotWriteableException} if the body is read-only (received, or a reset Bytes/Stream). */
    final void checkBodyWritable() throws MessageNotWriteableException {
        if (bodyReadOnly) {
            throw new MessageNotWriteableException("the body of this " + bodyTypeName() + " is read-only;"
                    + " call clearBody() to write it (Jakarta Messaging 3.1 §3.11.2)");
        }
    }

    /**
     * Makes the message what a consumer receives: properties and body read-only, Bytes and Stream bodies reset
     * for reading. Called by {@link MessageCodec#fromRecord}.
     */
    void markReceived() throws JMSException {
        propertiesReadOnly = true;
        bodyReadOnly = true;
    }

    /** {@code e} with {@code cause} as both its linked exception and its cause. */
    static <E extends JMSException> E withCause(E e, Exception cause) {
        e.setLinkedException(cause);
        e.initCause(cause);
        return e;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[id=" + messageId + ", destination=" + destination + ", properties="
                + properties.keySet() + "]";
    }
}
