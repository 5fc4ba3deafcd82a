package io.tributary.jms.selector;

import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal {@link Message} for selector tests: header fields in plain fields, properties in a map that keeps the
 * value's own type (none of the getter conversions). It counts property reads and can be told to fail them.
 */
final class FakeMessage implements Message {

    private String messageId;
    private long timestamp;
    private String correlationId;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private long deliveryTime;
    private int priority = DEFAULT_PRIORITY;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private JMSException propertyReadFailure;
    final AtomicInteger propertyReads = new AtomicInteger();

    FakeMessage failPropertyReadsWith(JMSException failure) {
        this.propertyReadFailure = failure;
        return this;
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

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationId == null ? null : correlationId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationIDAsBytes(byte[] correlationId) {
        this.correlationId = new String(correlationId, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationID(String correlationId) {
        this.correlationId = correlationId;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
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

    @Override
    public void clearProperties() {
        properties.clear();
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        return (Boolean) getObjectProperty(name);
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return (Byte) getObjectProperty(name);
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return (Short) getObjectProperty(name);
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return (Integer) getObjectProperty(name);
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return (Long) getObjectProperty(name);
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return (Float) getObjectProperty(name);
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        return (Double) getObjectProperty(name);
    }

    @Override
    public String getStringProperty(String name) throws JMSException {
        return (String) getObjectProperty(name);
    }

    @Override
    public Object getObjectProperty(String name) throws JMSException {
        propertyReads.incrementAndGet();
        if (propertyReadFailure != null) {
            throw propertyReadFailure;
        }
        return properties.get(name);
    }

    @Override
    public Enumeration<String> getPropertyNames() {
        return Collections.enumeration(properties.keySet());
    }

    @Override
    public void setBooleanProperty(String name, boolean value) {
        properties.put(name, value);
    }

    @Override
    public void setByteProperty(String name, byte value) {
        properties.put(name, value);
    }

    @Override
    public void setShortProperty(String name, short value) {
        properties.put(name, value);
    }

    @Override
    public void setIntProperty(String name, int value) {
        properties.put(name, value);
    }

    @Override
    public void setLongProperty(String name, long value) {
        properties.put(name, value);
    }

    @Override
    public void setFloatProperty(String name, float value) {
        properties.put(name, value);
    }

    @Override
    public void setDoubleProperty(String name, double value) {
        properties.put(name, value);
    }

    @Override
    public void setStringProperty(String name, String value) {
        properties.put(name, value);
    }

    @Override
    public void setObjectProperty(String name, Object value) {
        properties.put(name, value);
    }

    @Override
    public void acknowledge() {
    }

    @Override
    public void clearBody() {
    }

    @Override
    public <T> T getBody(Class<T> c) {
        return null;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return true;
    }
}
