package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.TemporaryQueue;

import java.io.Serializable;

/**
 * A temporary queue: a real Kafka topic with a unique name, created by a connection and deleted with it (Jakarta
 * Messaging 3.1 §4.1.5). The instance the connection creates ({@link #create}) knows its
 * {@link TemporaryDestinationOwner}, which deletes it ({@link #delete()}) and is the only connection whose consumers
 * may read it. An instance rebuilt from a name ({@link #of}, e.g. a {@code JMSReplyTo} of a received message, or one
 * deserialized) has no owner: it can be sent to but not deleted.
 *
 * <p>Immutable; any thread. Serializable without its owner. Two temporary queues are equal when their names are;
 * {@code toString()} is {@code temp-queue://<name>}, the form {@code JMSReplyTo} travels in.
 */
public final class TributaryTemporaryQueue extends TemporaryTopicDestination implements TemporaryQueue, Serializable {

    private static final long serialVersionUID = 1L;
    private static final String KIND = "temporary queue";

    private final String name;

    private TributaryTemporaryQueue(String name, TemporaryDestinationOwner owner) {
        super(owner);
        this.name = name;
    }

    /**
     * The temporary queue a connection has just created, named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryQueue create(String name, TemporaryDestinationOwner owner)
            throws InvalidDestinationException {
        requireOwner(KIND, owner);
        return new TributaryTemporaryQueue(TopicNames.check(KIND, name), owner);
    }

    /**
     * A reference to the temporary queue named {@code name}, without an owner: it can be sent to, not deleted.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryQueue of(String name) throws InvalidDestinationException {
        return new TributaryTemporaryQueue(TopicNames.check(KIND, name), null);
    }

    @Override
    public String getQueueName() {
        return name;
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
    String scheme() {
        return "temp-queue";
    }

    @Override
    TributaryTemporaryQueue named(String name) throws InvalidDestinationException {
        return of(name);
    }
}
