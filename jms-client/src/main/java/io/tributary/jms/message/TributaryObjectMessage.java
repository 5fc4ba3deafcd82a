package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ObjectMessage;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;

/**
 * A message whose body is a {@code Serializable} object, kept in Java serialized form: {@link #setObject} serializes
 * at once (so later changes to the object do not alter the message) and {@link #getObject} deserializes a fresh copy
 * each time, through the message's {@link ObjectMessageAllowList} and within its {@link ObjectMessageLimits}. A class
 * the list does not allow is refused with a {@link MessageFormatException} naming it, before any of its code runs; a
 * body past a limit likewise, naming the limit's property, at the first object beyond it. Classes are loaded through
 * the thread's context class loader first, so an application server's deployment classes resolve.
 *
 * <p>The record value is the serialized bytes ({@code ObjectOutputStream} format); a null object travels as a null
 * value.
 *
 * <p>Not thread-safe, like every message.
 */
public class TributaryObjectMessage extends TributaryMessage implements ObjectMessage {

    private byte[] serialized;
    private ObjectMessageAllowList allowList = ObjectMessageAllowList.DEFAULT;
    private ObjectMessageLimits limits = ObjectMessageLimits.DEFAULT;

    /** An object message with no object and the default allow-list, as {@code Session.createObjectMessage()}. */
    public TributaryObjectMessage() {
    }

    /** The serialized body or null, for {@link MessageCodec}; not copied. */
    byte[] serialized() {
        return serialized;
    }

    /** Replaces the body with already serialized bytes (not copied); for {@link MessageCodec}. */
    void loadSerialized(byte[] bytes) {
        this.serialized = bytes;
    }

    /** The classes {@link #getObject()} may deserialize; set by the session from the connection factory's list. */
    public void setAllowList(ObjectMessageAllowList allowList) {
        this.allowList = allowList;
    }

    public ObjectMessageAllowList getAllowList() {
        return allowList;
    }

    /** How much {@link #getObject()} may read; set by the session from the connection factory's limits. */
    public void setLimits(ObjectMessageLimits limits) {
        this.limits = limits;
    }

    public ObjectMessageLimits getLimits() {
        return limits;
    }

    /**
     * Serializes {@code object} into the message.
     *
     * @throws MessageFormatException if the object graph holds something that cannot be serialized
     */
    @Override
    public void setObject(Serializable object) throws JMSException {
        checkBodyWritable();
        if (object == null) {
            serialized = null;
            return;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        } catch (IOException e) {
            throw withCause(new MessageFormatException("cannot serialize the " + object.getClass().getName()
                    + " given to ObjectMessage.setObject: " + e), e);
        }
        serialized = bytes.toByteArray();
    }

    /**
     * Deserializes a copy of the body, or returns null.
     *
     * @throws MessageFormatException if a class in the body is not on the allow-list (the message names the class and
     *         how to allow it), the body exceeds a limit (the message names the limit's property), a class cannot be
     *         found, or the bytes are not a serialized object. {@code ObjectMessage.getObject} prescribes this type
     *         for a failed deserialization (Jakarta Messaging 3.1 API).
     */
    @Override
    public Serializable getObject() throws JMSException {
        if (serialized == null) {
            return null;
        }
        if (serialized.length > limits.maxBytes()) {
            // Refused before reading anything; the filter would stop at the same limit only part-way through.
            throw new MessageFormatException(limitExceeded(new ObjectMessageFilter.LimitExceeded(
                    ObjectMessageLimits.Limit.BYTES, serialized.length)));
        }
        ObjectMessageFilter filter = new ObjectMessageFilter(allowList, limits);
        try (ObjectInputStream in = new ContextClassLoaderObjectInputStream(new ByteArrayInputStream(serialized))) {
            in.setObjectInputFilter(filter);
            Object object = in.readObject();
            if (!(object instanceof Serializable s)) {
                // Only a hand-made stream could get here: writeObject stores Serializable objects.
                throw new MessageFormatException("the ObjectMessage body is a " + object.getClass().getName()
                        + ", which is not Serializable");
            }
            return s;
        } catch (ClassNotFoundException e) {
            throw withCause(new MessageFormatException(refusalOr(filter, "cannot deserialize the ObjectMessage body:"
                    + " class " + e.getMessage() + " is not visible to the receiving application's class loader")), e);
        } catch (IOException | RuntimeException e) {
            // A refusal surfaces as InvalidClassException, unless a class's readObject wrapped it in another
            // exception; a hostile stream can also make a readObject throw, say, a ClassCastException.
            throw withCause(new MessageFormatException(refusalOr(filter,
                    "cannot deserialize the ObjectMessage body: " + e)), e);
        }
    }

    private String refusalOr(ObjectMessageFilter filter, String otherwise) {
        ObjectMessageFilter.Refusal refusal = filter.refusal();
        if (refusal instanceof ObjectMessageFilter.ClassRefused refused) {
            return classRefused(refused.type());
        }
        if (refusal instanceof ObjectMessageFilter.LimitExceeded exceeded) {
            return limitExceeded(exceeded);
        }
        return otherwise;
    }

    private String classRefused(Class<?> refused) {
        return "ObjectMessage body class " + refused.getName() + " is not on the deserialization allow-list ["
                + allowList + "] (the boxed primitives and String are always allowed); to trust it, add the class"
                + " name or its package (e.g. " + packageOf(refused) + ") to the connection factory's ObjectMessage"
                + " allow-list, a comma-separated list of class names and package prefixes ('*' trusts every class)";
    }

    private String limitExceeded(ObjectMessageFilter.LimitExceeded exceeded) {
        ObjectMessageLimits.Limit limit = exceeded.limit();
        return "ObjectMessage body refused: its " + limit.counts() + " reached " + exceeded.value() + ", over the "
                + limit.property() + " limit of " + limits.of(limit) + " (deserialization stopped there); if such"
                + " bodies are legitimate, raise " + limit.property() + " on the connection factory (or the resource"
                + " adapter's activation spec or connection definition)";
    }

    private static String packageOf(Class<?> type) {
        Class<?> component = type;
        while (component.isArray()) {
            component = component.getComponentType();
        }
        String name = component.getName();
        int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(0, dot);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        serialized = null;
    }

    /** The deserialized object, or null; deserialization failures are {@link MessageFormatException}s. */
    @Override
    Object body() throws JMSException {
        return getObject();
    }

    /** False, not an exception, when the body cannot be deserialized ({@code Message.isBodyAssignableTo}). */
    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) {
        try {
            return super.isBodyAssignableTo(c);
        } catch (JMSException e) {
            return false;
        }
    }

    @Override
    String bodyTypeName() {
        return "ObjectMessage";
    }

    /**
     * Resolves classes through the thread's context class loader first (the deployment's classes in an application
     * server), then as {@link ObjectInputStream} does.
     */
    private static final class ContextClassLoaderObjectInputStream extends ObjectInputStream {

        ContextClassLoaderObjectInputStream(ByteArrayInputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // Fall through: primitives' descriptors and classes only the caller's loader sees.
                }
            }
            return super.resolveClass(desc);
        }
    }
}
