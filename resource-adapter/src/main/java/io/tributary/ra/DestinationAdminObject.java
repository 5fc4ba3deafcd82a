package io.tributary.ra;

import java.io.Serializable;
import java.util.Objects;

import javax.naming.Reference;

import jakarta.jms.InvalidDestinationException;
import jakarta.resource.Referenceable;

/**
 * What a queue and a topic administered object share: a JavaBean whose one config property, {@code name}, is the
 * destination's name and so its Kafka topic, and the {@link Reference} the server binds it with. Equal when of the
 * same kind and name. {@link QueueAdminObject} and {@link TopicAdminObject} add the {@code jakarta.jms} interface.
 *
 * <p>Public, as a JavaBean's superclass must be for the server to call its property methods. Configured once by the
 * container, then read by any thread.
 */
public abstract class DestinationAdminObject implements Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private String name;
    private Reference reference;

    DestinationAdminObject() {
    }

    public String getName() {
        return name;
    }

    /** @throws IllegalArgumentException if {@code name} is not a legal Kafka topic name */
    public void setName(String name) {
        try {
            this.name = legalName(name);
        } catch (InvalidDestinationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The name as the provider's destination of this kind has it. */
    abstract String legalName(String name) throws InvalidDestinationException;

    /** "queue" or "topic", for messages. */
    abstract String kind();

    /** The name, for {@code getQueueName}/{@code getTopicName}. */
    final String configuredName() throws InvalidDestinationException {
        if (name == null) {
            throw new InvalidDestinationException("This " + kind() + " administered object has no name: set its"
                    + " 'name' config property");
        }
        return name;
    }

    @Override
    public void setReference(Reference reference) {
        this.reference = reference;
    }

    @Override
    public Reference getReference() {
        return reference;
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Objects.equals(name, ((DestinationAdminObject) o).name);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
