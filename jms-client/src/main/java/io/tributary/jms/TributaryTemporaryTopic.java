package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.TemporaryTopic;

import java.io.Serializable;

/**
 * A temporary topic: a real Kafka topic with a unique name, created by a connection and deleted with it (Jakarta
 * Messaging 3.1 §4.2.7). The instance the connection creates ({@link #create}) knows its
 * {@link TemporaryDestinationOwner}, which deletes it ({@link #delete()}) and is the only connection whose consumers
 * may read it. An instance rebuilt from a name ({@link #of}, e.g. a {@code JMSReplyTo} of a received message, or one
 * deserialized) has no owner: it can be sent to but not deleted.
 *
 * <p>Immutable; any thread. Serializable without its owner. Two temporary topics are equal when their names are;
 * {@code toString()} is {@code temp-topic://<name>}, the form {@code JMSReplyTo} travels in.
 */
public final class TributaryTemporaryTopic extends TemporaryTopicDestination implements TemporaryTopic, Serializable {

    private static final long serialVersionUID = 1L;
    private static final String KIND = "temporary topic";

    private final String name;

    private TributaryTemporaryTopic(String name, TemporaryDestinationOwner owner) {
        super(owner);
        this.name = name;
    }

    /**
     * The temporary topic a connection has just created, named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryTopic create(String name, TemporaryDestinationOwner owner)
            throws InvalidDestinationException {
        requireOwner(KIND, owner);
        return new TributaryTemporaryTopic(TopicNames.check(KIND, name), owner);
    }

    /**
     * A reference to the temporary topic named {@code name}, without an owner: it can be sent to, not deleted.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    public static TributaryTemporaryTopic of(String name) throws InvalidDestinationException {
        return new TributaryTemporaryTopic(TopicNames.check(KIND, name), null);
    }

    @Override
    public String getTopicName() {
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
        return "temp-topic";
    }

    @Override
    TributaryTemporaryTopic named(String name) throws InvalidDestinationException {
        return of(name);
    }
}
