package io.tributary.jms;

import jakarta.jms.JMSException;

/**
 * The connection that created a temporary queue or topic: it deletes the destination's topic, and only its own
 * consumers may read from it (Jakarta Messaging 3.1 §4.1.5, §4.2.7).
 *
 * <p>Called on the application's thread that calls {@code delete()}.
 */
@FunctionalInterface
public interface TemporaryDestinationOwner {

    /**
     * Deletes {@code destination} ({@link TributaryTemporaryQueue} or {@link TributaryTemporaryTopic}).
     *
     * @throws JMSException if consumers still use it, the connection is closed, or the topic cannot be deleted
     */
    void deleteTemporaryDestination(jakarta.jms.Destination destination) throws JMSException;
}
