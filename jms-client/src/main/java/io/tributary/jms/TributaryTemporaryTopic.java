package io.tributary.jms;

import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.TemporaryTopic;

import java.io.InvalidObjectException;
import java.io.Serializable;

/**
 * A temporary topic: a real Kafka topic with a unique name, created by a connection and deleted with it (Jakarta
 * Messaging 3.1 §4.2.7). The instance the connection creates ({@link #create}) knows its
 * {@link TemporaryDestinationOwner}, which deletes it and is the only connection whose consumers may read it. An
 * instance rebuilt from a name ({@link #of}, e.g. a {@code JMSReplyTo} of a received message, or one deserialized)
 * has no owner: it can be sent to but not deleted.
 *
 * <p>Immutable; any thread. Serializable without its owner. Two temporary topics are equal when their names are.
 */
public final class TributaryTemporaryTopic implements TemporaryTopic, Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    /** Null when this instance was built from a name rather than created by a connection. */
    private final transient TemporaryDestinationOwner owner;

    private TributaryTemporaryTopic(String name, TemporaryDestinationOwner owner) {
        this.name = name;
        this.owner = owner;
    }

    /**
     * The temporary topic a connection has just created, named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryTopic create(String name, TemporaryDestinationOwner owner)
            throws InvalidDestinationException {
        if (owner == null) {
            throw new NullPointerException("a temporary topic is created by a connection; owner must not be null");
        }
        return new TributaryTemporaryTopic(TopicNames.check("temporary topic", name), owner);
    }

    /**
     * A reference to the temporary topic named {@code name}, without an owner: it can be sent to, not deleted.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryTopic of(String name) throws InvalidDestinationException {
        return new TributaryTemporaryTopic(TopicNames.check("temporary topic", name), null);
    }

    @Override
    public String getTopicName() {
        return name;
    }

    /** The connection that created this instance, or null for a reference built from a name. */
    TemporaryDestinationOwner owner() {
        return owner;
    }

    /**
     * Asks the creating connection to delete the topic.
     *
     * @throws IllegalStateException if this instance was not created by a connection (it has no owner)
     * @throws JMSException as {@link TemporaryDestinationOwner#deleteTemporaryDestination} throws it, for example
     *         while consumers still read the topic
     */
    @Override
    public void delete() throws JMSException {
        if (owner == null) {
            throw new IllegalStateException("temporary topic '" + name + "' can be deleted only through the instance"
                    + " its connection created; this one was rebuilt from its name (JMSReplyTo or deserialization)");
        }
        owner.deleteTemporaryDestination(this);
    }

    /** Validates a deserialized name as {@link #of(String)} does; the result has no owner. */
    private Object readResolve() throws InvalidObjectException {
        try {
            return of(name);
        } catch (InvalidDestinationException e) {
            throw new InvalidObjectException(e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TributaryTemporaryTopic other && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** {@code temp-topic://<name>}, the form {@code JMSReplyTo} travels in. */
    @Override
    public String toString() {
        return "temp-topic://" + name;
    }
}
