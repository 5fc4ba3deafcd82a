package io.tributary.ra;

import java.io.Serializable;
import java.util.Objects;

import javax.naming.Reference;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Topic;
import jakarta.resource.Referenceable;

import io.tributary.jms.TributaryTopic;

/**
 * A topic as a connector administered object, so that a server binds Tributary topics in JNDI from the
 * adapter's configuration (WildFly: an admin object of the resource adapter; Payara:
 * {@code asadmin create-admin-object --restype jakarta.jms.Topic}). A JavaBean whose one config property,
 * {@code name}, is the topic's name and so its Kafka topic. The pooled connections, the JMS provider and
 * message-driven bean activations accept it as any {@code jakarta.jms.Topic}: by its name.
 *
 * <p>Configured once by the container, then read by any thread.
 */
public final class TopicAdminObject implements Topic, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private String name;
    private Reference reference;

    public TopicAdminObject() {
    }

    public String getName() {
        return name;
    }

    /** @throws IllegalArgumentException if {@code name} is not a legal Kafka topic name */
    public void setName(String name) {
        try {
            this.name = TributaryTopic.of(name).getTopicName();
        } catch (InvalidDestinationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    @Override
    public String getTopicName() throws InvalidDestinationException {
        if (name == null) {
            throw new InvalidDestinationException("This topic administered object has no name: set its 'name' "
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
        return o instanceof TopicAdminObject other && Objects.equals(name, other.name);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return "TopicAdminObject[" + name + "]";
    }
}
