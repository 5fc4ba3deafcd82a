package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Queue;

import java.io.InvalidObjectException;
import java.io.Serializable;

import javax.naming.Reference;
import javax.naming.Referenceable;

import io.tributary.jms.jndi.TributaryObjectFactory;

/**
 * A queue: the Kafka topic of the same name, read by one consumer group shared by all of the queue's receivers
 * (ARCHITECTURE.md §5). The name is validated by {@link #of(String)} against Kafka's topic-name rule.
 *
 * <p>Immutable and serializable (an administered object that may be bound in JNDI); any thread. Two queues are equal
 * when their names are.
 */
public final class TributaryQueue implements Queue, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private final String name;

    private TributaryQueue(String name) {
        this.name = name;
    }

    /**
     * The queue named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name: 1 to 249 characters of
     *         {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..}
     */
    public static TributaryQueue of(String name) throws InvalidDestinationException {
        return new TributaryQueue(TopicNames.check("queue", name));
    }

    @Override
    public String getQueueName() {
        return name;
    }

    /** Validates a deserialized name as {@link #of(String)} does: a JNDI store cannot smuggle in an illegal name. */
    private Object readResolve() throws InvalidObjectException {
        try {
            return of(name);
        } catch (InvalidDestinationException e) {
            throw new InvalidObjectException(e.getMessage());
        }
    }

    /** A JNDI reference holding the name, which {@link TributaryObjectFactory} turns back into this queue. */
    @Override
    public Reference getReference() {
        return TributaryObjectFactory.referenceTo(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TributaryQueue other && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** {@code queue://<name>}, the form {@code JMSReplyTo} travels in. */
    @Override
    public String toString() {
        return "queue://" + name;
    }
}
