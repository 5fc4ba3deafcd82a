package io.tributary.ra;

import java.io.Serializable;
import java.util.Objects;

import javax.naming.Reference;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Queue;
import jakarta.resource.Referenceable;

import io.tributary.jms.TributaryQueue;

/**
 * A queue as a connector administered object, so that a server binds Tributary queues in JNDI from the
 * adapter's configuration (WildFly: an admin object of the resource adapter; Payara:
 * {@code asadmin create-admin-object --restype jakarta.jms.Queue}). A JavaBean whose one config property,
 * {@code name}, is the queue's name and so its Kafka topic. The pooled connections, the JMS provider and
 * message-driven bean activations accept it as any {@code jakarta.jms.Queue}: by its name.
 *
 * <p>Configured once by the container, then read by any thread.
 */
public final class QueueAdminObject implements Queue, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private String name;
    private Reference reference;

    public QueueAdminObject() {
    }

    public String getName() {
        return name;
    }

    /** @throws IllegalArgumentException if {@code name} is not a legal Kafka topic name */
    public void setName(String name) {
        try {
            this.name = TributaryQueue.of(name).getQueueName();
        } catch (InvalidDestinationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    @Override
    public String getQueueName() throws InvalidDestinationException {
        if (name == null) {
            throw new InvalidDestinationException("This queue administered object has no name: set its 'name' "
                    + "config property");
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
        return o instanceof QueueAdminObject other && Objects.equals(name, other.name);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return "QueueAdminObject[" + name + "]";
    }
}
