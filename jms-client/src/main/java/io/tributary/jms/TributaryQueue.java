package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Queue;

import java.io.Serializable;

import javax.naming.Reference;
import javax.naming.Referenceable;

import io.tributary.jms.jndi.TributaryObjectFactory;

/**
 * A queue: the Kafka topic of the same name, read by one consumer group shared by all of the queue's receivers
 * (ARCHITECTURE.md §5). The name is validated by {@link #of(String)} against Kafka's topic-name rule, and again when
 * deserialized.
 *
 * <p>Immutable and serializable (an administered object that may be bound in JNDI); any thread. Two queues are equal
 * when their names are; {@code toString()} is {@code queue://<name>}, the form {@code JMSReplyTo} travels in.
 */
public final class TributaryQueue extends TopicDestination implements Queue, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;
    private static final String KIND = "queue";

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
        return new TributaryQueue(TopicNames.check(KIND, name));
    }

    @Override
    public String getQueueName() {
        return name;
    }

    /** A JNDI reference holding the name, which {@link TributaryObjectFactory} turns back into this queue. */
    @Override
    public Reference getReference() {
        return TributaryObjectFactory.referenceTo(this);
    }

    @Override
    String name() {
        return name;
    }

    @Override
    String kind() {
        return KIND;
    }

    @Override
    TributaryQueue named(String name) throws InvalidDestinationException {
        return of(name);
    }
}
