package io.tributary.ra;

import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Queue;

import io.tributary.jms.TributaryQueue;

/**
 * A queue as a connector administered object, so that a server binds Tributary queues in JNDI from the
 * adapter's configuration (WildFly: an admin object of the resource adapter; Payara:
 * {@code asadmin create-admin-object --restype jakarta.jms.Queue}). A JavaBean whose one config property,
 * {@code name}, is the queue's name and so its Kafka topic ({@link DestinationAdminObject}). The pooled
 * connections, the JMS provider and message-driven bean activations accept it as any {@code jakarta.jms.Queue}: by
 * its name.
 *
 * <p>Configured once by the container, then read by any thread.
 */
public final class QueueAdminObject extends DestinationAdminObject implements Queue {

    private static final long serialVersionUID = 1L;

    public QueueAdminObject() {
    }

    @Override
    public String getQueueName() throws InvalidDestinationException {
        return configuredName();
    }

    @Override
    String legalName(String name) throws InvalidDestinationException {
        return TributaryQueue.of(name).getQueueName();
    }

    @Override
    String kind() {
        return "queue";
    }
}
