package io.tributary.ra;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;

import io.tributary.jms.message.TributaryMessage;

/**
 * The simplified API's producer of a {@link ContextHandle}: settings, headers and properties applied to every
 * message it sends through the context's session (and so committed at once outside a container transaction).
 * Property values follow the message property type rules, checked on a scratch message when set.
 * {@link #setAsync} with a listener throws: asynchronous sends are not permitted in a container (Jakarta Messaging
 * 3.1 §7.3.5).
 *
 * <p>Threads: the context's.
 */
final class ContextProducer implements JMSProducer {

    private final ContextHandle context;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableMessageTimestamp;
    private String correlationId;
    private byte[] correlationIdBytes;
    private String type;
    private Destination replyTo;

    ContextProducer(ContextHandle context) {
        this.context = context;
    }

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
        UncheckedJms.run(() -> {
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
            ProducerHandle producer = context.producer();
            producer.setDeliveryDelay(deliveryDelay);
            producer.setDisableMessageID(disableMessageId);
            producer.setDisableMessageTimestamp(disableMessageTimestamp);
        });
        context.send(destination, message, deliveryMode, priority, timeToLive);
        return this;
    }

    @Override
    public JMSProducer send(Destination destination, String body) {
        return send(destination, context.createTextMessage(body));
    }

    @Override
    public JMSProducer send(Destination destination, Map<String, Object> body) {
        MapMessage message = context.createMapMessage();
        if (body != null) {
            UncheckedJms.run(() -> {
                for (Map.Entry<String, Object> entry : body.entrySet()) {
                    message.setObject(entry.getKey(), entry.getValue());
                }
            });
        }
        return send(destination, message);
    }

    @Override
    public JMSProducer send(Destination destination, byte[] body) {
        BytesMessage message = context.createBytesMessage();
        if (body != null) {
            UncheckedJms.run(() -> message.writeBytes(body));
        }
        return send(destination, message);
    }

    @Override
    public JMSProducer send(Destination destination, Serializable body) {
        return send(destination, context.createObjectMessage(body));
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
            throw new JMSRuntimeException("Unknown delivery mode " + deliveryMode
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
            throw new JMSRuntimeException("Priority " + priority + " is outside 0..9");
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
            throw new JMSRuntimeException("The delivery delay must not be negative: " + deliveryDelay);
        }
        this.deliveryDelay = deliveryDelay;
        return this;
    }

    @Override
    public long getDeliveryDelay() {
        return deliveryDelay;
    }

    /** Only {@code null} (synchronous sends) is accepted in a container. */
    @Override
    public JMSProducer setAsync(CompletionListener completionListener) {
        if (completionListener != null) {
            throw ContainerRestrictions.forbiddenRuntime("JMSProducer.setAsync");
        }
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Properties

    private JMSProducer property(String name, Object value) {
        UncheckedJms.run(() -> new TributaryMessage().setObjectProperty(name, value));
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

    @FunctionalInterface
    private interface PropertyRead<T> {
        T read(Message message) throws JMSException;
    }

    /** A property as its type would be read from a message: the same conversion rules. */
    private <T> T read(String name, PropertyRead<T> read) {
        return UncheckedJms.call(() -> {
            TributaryMessage scratch = new TributaryMessage();
            Object value = properties.get(name);
            if (value != null) {
                scratch.setObjectProperty(name, value);
            }
            return read.read(scratch);
        });
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
        return Collections.unmodifiableSet(new LinkedHashSet<>(properties.keySet()));
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
