package io.tributary.jms;

import java.io.InvalidObjectException;

import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;

/**
 * What every Tributary destination is: the Kafka topic of its name. Equal when of the same class and name; printed as
 * {@code <scheme>://<name>} ({@code queue://orders}, {@code temp-topic://jms.temp-topic....}), the form
 * {@code JMSReplyTo} travels in; validated again when deserialized, as the subclass's {@code of(String)} validates.
 *
 * <p>Serialized form: this class is not {@code Serializable} and has no fields, so a subclass's serialized form is
 * its own {@code name} field alone, byte for byte what it was before the subclasses shared this class, and a
 * subclass keeps the name itself (a field here would move it into another class descriptor of the stream).
 * Deserialization runs this class's no-argument constructor, then {@link #readResolve()}.
 *
 * <p>Immutable; any thread.
 */
abstract class TopicDestination implements Destination {

    /** The Kafka topic name, legal by {@link TopicNames}. */
    abstract String name();

    /** What the name names, for messages: "queue", "temporary topic", ... */
    abstract String kind();

    /** The {@link #toString()} scheme: "queue", "topic", "temp-queue" or "temp-topic"; by default the kind. */
    String scheme() {
        return kind();
    }

    /**
     * The destination of this class named {@code name}, as the subclass's {@code of(String)} builds it.
     *
     * @throws InvalidDestinationException if {@code name} is not a legal Kafka topic name
     */
    abstract TopicDestination named(String name) throws InvalidDestinationException;

    /** Validates a deserialized name as {@code of(String)} does: a JNDI store cannot smuggle in an illegal name. */
    protected final Object readResolve() throws InvalidObjectException {
        try {
            return named(name());
        } catch (InvalidDestinationException e) {
            throw new InvalidObjectException(e.getMessage());
        }
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && name().equals(((TopicDestination) o).name());
    }

    @Override
    public final int hashCode() {
        return name().hashCode();
    }

    /** {@code <scheme>://<name>}, the form {@code JMSReplyTo} travels in. */
    @Override
    public final String toString() {
        return scheme() + "://" + name();
    }
}
