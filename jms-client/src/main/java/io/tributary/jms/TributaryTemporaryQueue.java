package io.tributary.jms;

import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.TemporaryQueue;

import java.io.InvalidObjectException;
import java.io.Serializable;

/**
 * A temporary queue: a real Kafka topic with a unique name, created by a connection and deleted with it (Jakarta
 * Messaging 3.1 §4.1.5). The instance the connection creates ({@link #create}) knows its
 * {@link TemporaryDestinationOwner}, which deletes it and is the only connection whose consumers may read it. An
 * instance rebuilt from a name ({@link #of}, e.g. a {@code JMSReplyTo} of a received message, or one deserialized)
 * has no owner: it can be sent to but not deleted.
 *
 * <p>Immutable; any thread. Serializable without its owner. Two temporary queues are equal when their names are.
 */
public final class TributaryTemporaryQueue implements TemporaryQueue, Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    /** Null when this instance was built from a name rather than created by a connection. */
    private final transient TemporaryDestinationOwner owner;

    private TributaryTemporaryQueue(String name, TemporaryDestinationOwner owner) {
        this.name = name;
        this.owner = owner;
    }

    /**
     * The temporary queue a connection has just created, named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryQueue create(String name, TemporaryDestinationOwner owner)
            throws InvalidDestinationException {
        if (owner == null) {
            throw new NullPointerException("a temporary queue is created by a connection; owner must not be null");
        }
        return new TributaryTemporaryQueue(TopicNames.check("temporary queue", name), owner);
    }

    /**
     * A reference to the temporary queue named {@code name}, without an owner: it can be sent to, not deleted.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryQueue of(String name) throws InvalidDestinationException {
        return new TributaryTemporaryQueue(TopicNames.check("temporary queue", name), null);
    }

    @Override
    public String getQueueName() {
        return name;
    }

    /** The connection that created this instance, or null for a reference built from a name. */
    TemporaryDestinationOwner owner() {
        return owner;
    }

    /**
     * Asks the creating connection to delete the queue's topic.
     *
     * @throws IllegalStateException if this instance was not created by a connection (it has no owner)
     * @throws JMSException as {@link TemporaryDestinationOwner#deleteTemporaryDestination} throws it, for example
     *         while consumers still read the queue
     */
    @Override
    public void delete() throws JMSException {
        if (owner == null) {
            throw new IllegalStateException("temporary queue '" + name + "' can be deleted only through the instance"
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
        return o instanceof TributaryTemporaryQueue other && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** {@code temp-queue://<name>}, the form {@code JMSReplyTo} travels in. */
    @Override
    public String toString() {
        return "temp-queue://" + name;
    }
}
