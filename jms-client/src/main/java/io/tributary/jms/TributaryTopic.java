package io.tributary.jms;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Topic;

import java.io.InvalidObjectException;
import java.io.Serializable;

import javax.naming.Reference;
import javax.naming.Referenceable;

import io.tributary.jms.jndi.TributaryObjectFactory;

/**
 * A topic: the Kafka topic of the same name. Each subscription is a consumer of its own (a consumer group for a
 * durable or shared subscription, ARCHITECTURE.md §5). The name is validated by {@link #of(String)} against Kafka's
 * topic-name rule.
 *
 * <p>Immutable and serializable (an administered object that may be bound in JNDI); any thread. Two topics are equal
 * when their names are.
 */
public final class TributaryTopic implements Topic, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

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
        return new TributaryTopic(TopicNames.check("topic", name));
    }

    @Override
    public String getTopicName() {
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

    /** A JNDI reference holding the name, which {@link TributaryObjectFactory} turns back into this topic. */
    @Override
    public Reference getReference() {
        return TributaryObjectFactory.referenceTo(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TributaryTopic other && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** {@code topic://<name>}, the form {@code JMSReplyTo} travels in. */
    @Override
    public String toString() {
        return "topic://" + name;
    }
}
