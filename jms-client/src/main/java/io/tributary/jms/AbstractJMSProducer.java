package io.tributary.jms;

import java.io.Serializable;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.TextMessage;

import io.tributary.jms.message.TributaryMessage;

/**
 * What every {@link JMSProducer} of this provider shares: the settings, message properties and headers applied to each
 * message it sends, and the body-type send variants. Property values follow the same type rules as message
 * properties (checked on a scratch message when set). A subclass supplies the context that creates messages and
 * {@link #deliver} (the resource adapter's container-managed producer is one).
 *
 * <p>Threads: the context's thread, like the context.
 */
public abstract class AbstractJMSProducer implements JMSProducer {

    private final JMSContext context;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableMessageTimestamp;
    private CompletionListener async;
    private String correlationId;
    private byte[] correlationIdBytes;
    private String type;
    private Destination replyTo;

    protected AbstractJMSProducer(JMSContext context) {
        this.context = context;
    }

    /**
     * Sends {@code message}, whose properties and headers are already applied, with this producer's delivery mode,
     * priority, time to live, delivery delay, id/timestamp settings and async listener (the getters).
     */
    protected abstract void deliver(Destination destination, Message message) throws JMSException;

    // ---------------------------------------------------------------------------------------------------------
    // Send

    @Override
    public JMSProducer send(Destination destination, Message message) {
        if (message == null) {
            throw new MessageFormatRuntimeException("The message must not be null");
        }
        if (destination == null) {
            throw new InvalidDestinationRuntimeException("The destination must not be null");
        }
        try {
            for (Map.Entry<String, Object> property : properties.entrySet()) {
                message.setObjectProperty(property.getKey(), property.getValue());
            }
            if (correlationIdBytes != null) {
                message.setJMSCorrelationIDAsBytes(correlationIdBytes);
            } else if (correlationId != null) {
                message.setJMSCorrelationID(correlationId);
            }
            if (type != null) {
                message.setJMSType(type);
            }
            if (replyTo != null) {
                message.setJMSReplyTo(replyTo);
            }
            deliver(destination, message);
            return this;
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public JMSProducer send(Destination destination, String body) {
        TextMessage message = context.createTextMessage(body);
        return send(destination, message);
    }

    @Override
    public JMSProducer send(Destination destination, Map<String, Object> body) {
        MapMessage message = context.createMapMessage();
        try {
            if (body != null) {
                for (Map.Entry<String, Object> entry : body.entrySet()) {
                    message.setObject(entry.getKey(), entry.getValue());
                }
            }
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
        return send(destination, message);
    }

    @Override
    public JMSProducer send(Destination destination, byte[] body) {
        BytesMessage message = context.createBytesMessage();
        try {
            if (body != null) {
                message.writeBytes(body);
            }
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
        return send(destination, message);
    }

    @Override
    public JMSProducer send(Destination destination, Serializable body) {
        ObjectMessage message = context.createObjectMessage(body);
        return send(destination, message);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Settings

    @Override
    public JMSProducer setDisableMessageID(boolean value) {
        disableMessageId = value;
        return this;
    }

    @Override
    public boolean getDisableMessageID() {
        return disableMessageId;
    }

    @Override
    public JMSProducer setDisableMessageTimestamp(boolean value) {
        disableMessageTimestamp = value;
        return this;
    }

    @Override
    public boolean getDisableMessageTimestamp() {
        return disableMessageTimestamp;
    }

    @Override
    public JMSProducer setDeliveryMode(int deliveryMode) {
        if (deliveryMode != DeliveryMode.PERSISTENT && deliveryMode != DeliveryMode.NON_PERSISTENT) {
            throw new jakarta.jms.JMSRuntimeException("Unknown delivery mode " + deliveryMode
                    + ": expected DeliveryMode.PERSISTENT (2) or NON_PERSISTENT (1)");
        }
        this.deliveryMode = deliveryMode;
        return this;
    }

    @Override
    public int getDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public JMSProducer setPriority(int priority) {
        if (priority < 0 || priority > 9) {
            throw new jakarta.jms.JMSRuntimeException("Priority " + priority + " is outside 0..9");
        }
        this.priority = priority;
        return this;
    }

    @Override
    public int getPriority() {
        return priority;
    }

    @Override
    public JMSProducer setTimeToLive(long timeToLive) {
        this.timeToLive = timeToLive;
        return this;
    }

    @Override
    public long getTimeToLive() {
        return timeToLive;
    }

    @Override
    public JMSProducer setDeliveryDelay(long deliveryDelay) {
        if (deliveryDelay < 0) {
            throw new jakarta.jms.JMSRuntimeException("The delivery delay must not be negative: " + deliveryDelay);
        }
        this.deliveryDelay = deliveryDelay;
        return this;
    }

    @Override
    public long getDeliveryDelay() {
        return deliveryDelay;
    }

    @Override
    public JMSProducer setAsync(CompletionListener completionListener) {
        this.async = completionListener;
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return async;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Properties: validated by setting them on a scratch message

    private JMSProducer property(String name, Object value) {
        try {
            new TributaryMessage().setObjectProperty(name, value);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
        properties.put(name, value);
        return this;
    }

    @Override
    public JMSProducer setProperty(String name, boolean value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, byte value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, short value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, int value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, long value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, float value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, double value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, String value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, Object value) {
        return property(name, value);
    }

    @Override
    public JMSProducer clearProperties() {
        properties.clear();
        return this;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    /** A property as its type would be read from a message (same conversion rules). */
    private <T> T read(String name, MessageRead<T> read) {
        try {
            TributaryMessage scratch = new TributaryMessage();
            Object value = properties.get(name);
            if (value != null) {
                scratch.setObjectProperty(name, value);
            }
            return read.read(scratch);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @FunctionalInterface
    private interface MessageRead<T> {
        T read(Message message) throws JMSException;
    }

    @Override
    public boolean getBooleanProperty(String name) {
        return read(name, m -> m.getBooleanProperty(name));
    }

    @Override
    public byte getByteProperty(String name) {
        return read(name, m -> m.getByteProperty(name));
    }

    @Override
    public short getShortProperty(String name) {
        return read(name, m -> m.getShortProperty(name));
    }

    @Override
    public int getIntProperty(String name) {
        return read(name, m -> m.getIntProperty(name));
    }

    @Override
    public long getLongProperty(String name) {
        return read(name, m -> m.getLongProperty(name));
    }

    @Override
    public float getFloatProperty(String name) {
        return read(name, m -> m.getFloatProperty(name));
    }

    @Override
    public double getDoubleProperty(String name) {
        return read(name, m -> m.getDoubleProperty(name));
    }

    @Override
    public String getStringProperty(String name) {
        return read(name, m -> m.getStringProperty(name));
    }

    @Override
    public Object getObjectProperty(String name) {
        return read(name, m -> m.getObjectProperty(name));
    }

    @Override
    public Set<String> getPropertyNames() {
        return Collections.unmodifiableSet(new HashSet<>(properties.keySet()));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Headers

    @Override
    public JMSProducer setJMSCorrelationIDAsBytes(byte[] correlationID) {
        this.correlationIdBytes = correlationID == null ? null : correlationID.clone();
        this.correlationId = null;
        return this;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationIdBytes == null ? null : correlationIdBytes.clone();
    }

    @Override
    public JMSProducer setJMSCorrelationID(String correlationID) {
        this.correlationId = correlationID;
        this.correlationIdBytes = null;
        return this;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    @Override
    public JMSProducer setJMSType(String type) {
        this.type = type;
        return this;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public JMSProducer setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
        return this;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }
}
