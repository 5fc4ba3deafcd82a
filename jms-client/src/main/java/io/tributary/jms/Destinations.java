package io.tributary.jms;

import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.Topic;

/**
 * Destinations as topics: every JMS queue or topic is the Kafka topic of the same name. Accepts this provider's
 * destinations and any other {@link Queue} or {@link Topic} by its name (which must be a legal topic name).
 */
final class Destinations {

    private Destinations() {
    }

    /**
     * The topic behind {@code destination}.
     *
     * @throws InvalidDestinationException if it is null, neither a queue nor a topic, or its name is not a legal
     *         Kafka topic name
     */
    static String topicName(Destination destination) throws JMSException {
        if (destination == null) {
            throw new InvalidDestinationException("The destination must not be null");
        }
        String name;
        if (destination instanceof Queue queue) {
            name = queue.getQueueName();
        } else if (destination instanceof Topic topic) {
            name = topic.getTopicName();
        } else {
            throw new InvalidDestinationException("Unsupported destination " + destination + " ("
                    + destination.getClass().getName() + "): expected a jakarta.jms.Queue or Topic");
        }
        return TopicNames.check(destination instanceof Queue ? "queue" : "topic", name);
    }

    static boolean isQueue(Destination destination) {
        return destination instanceof Queue;
    }

    static boolean isTemporary(Destination destination) {
        return destination instanceof TemporaryQueue || destination instanceof TemporaryTopic;
    }

    /** This provider's equivalent of {@code destination} (same kind, same name). */
    static Destination normalize(Destination destination) throws JMSException {
        String name = topicName(destination);
        if (destination instanceof TributaryQueue || destination instanceof TributaryTopic
                || destination instanceof TributaryTemporaryQueue || destination instanceof TributaryTemporaryTopic) {
            return destination;
        }
        if (destination instanceof TemporaryQueue) {
            return TributaryTemporaryQueue.of(name);
        }
        if (destination instanceof TemporaryTopic) {
            return TributaryTemporaryTopic.of(name);
        }
        return destination instanceof Queue ? TributaryQueue.of(name) : TributaryTopic.of(name);
    }
}
