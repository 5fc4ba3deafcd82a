package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Topic;

import java.io.Serializable;

import javax.naming.Reference;
import javax.naming.Referenceable;

import io.tributary.jms.jndi.TributaryObjectFactory;

/**
 * A topic: the Kafka topic of the same name. Each subscription is a consumer of its own (a consumer group for a
 * durable or shared subscription, ARCHITECTURE.md §5). The name is validated by {@link #of(String)} against Kafka's
 * topic-name rule, and again when deserialized.
 *
 * <p>Immutable and serializable (an administered object that may be bound in JNDI); any thread. Two topics are equal
 * when their names are; {@code toString()} is {@code topic://<name>}, the form {@code JMSReplyTo} travels in.
 */
public final class TributaryTopic extends TopicDestination implements Topic, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;
    private static final String KIND = "topic";

    private final String name;

    private TributaryTopic(String name) {
        this.name = name;
    }

    /**
     * The topic named {@code name}.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name: 1 to 249 characters of
     *         {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..}
     */
    public static TributaryTopic of(String name) throws InvalidDestinationException {
        return new TributaryTopic(TopicNames.check(KIND, name));
    }

    @Override
    public String getTopicName() {
        return name;
    }

    /** A JNDI reference holding the name, which {@link TributaryObjectFactory} turns back into this topic. */
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
    TributaryTopic named(String name) throws InvalidDestinationException {
        return of(name);
    }
}
