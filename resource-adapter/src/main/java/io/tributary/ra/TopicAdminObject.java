package io.tributary.ra;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Topic;

import io.tributary.jms.TributaryTopic;

/**
 * A topic as a connector administered object, so that a server binds Tributary topics in JNDI from the
 * adapter's configuration (WildFly: an admin object of the resource adapter; Payara:
 * {@code asadmin create-admin-object --restype jakarta.jms.Topic}). A JavaBean whose one config property,
 * {@code name}, is the topic's name and so its Kafka topic ({@link DestinationAdminObject}). The pooled
 * connections, the JMS provider and message-driven bean activations accept it as any {@code jakarta.jms.Topic}: by
 * its name.
 *
 * <p>Configured once by the container, then read by any thread.
 */
public final class TopicAdminObject extends DestinationAdminObject implements Topic {

    private static final long serialVersionUID = 1L;

    public TopicAdminObject() {
    }

    @Override
    public String getTopicName() throws InvalidDestinationException {
        return configuredName();
    }

    @Override
    String legalName(String name) throws InvalidDestinationException {
        return TributaryTopic.of(name).getTopicName();
    }

    @Override
    String kind() {
        return "topic";
    }
}
