package io.tributary.jms;

import jakarta.jms.IllegalStateException;

/**
 * Which messaging domain a session belongs to: a {@code QueueSession} from {@code QueueConnection.createQueueSession}
 * only works with queues, a {@code TopicSession} from {@code TopicConnection.createTopicSession} only with topics, and
 * a session from {@code createSession} with both. The {@code QueueSession} and {@code TopicSession} javadoc of
 * Jakarta Messaging 3.1 lists the {@code Session} methods each inherits but "must not be called", and their
 * {@code IllegalStateException}.
 *
 * <p>Public because the resource adapter's session handles apply the same rule. Immutable; any thread.
 */
public enum SessionDomain {
    /** From {@code createSession}: queues and topics. */
    ANY,
    /** From {@code QueueConnection.createQueueSession}. */
    QUEUE,
    /** From {@code TopicConnection.createTopicSession}. */
    TOPIC;

    /** Before a topic-only method ({@code createTopic}, the subscribers, {@code unsubscribe}, ...). */
    public void requireTopicMethod(String method) throws IllegalStateException {
        if (this == QUEUE) {
            throw new IllegalStateException(method + " must not be called on a QueueSession (it belongs to the "
                    + "topic domain; Jakarta Messaging 3.1 QueueSession): use a TopicSession or a Session");
        }
    }

    /** Before a queue-only method ({@code createQueue}, {@code createBrowser}, {@code createTemporaryQueue}). */
    public void requireQueueMethod(String method) throws IllegalStateException {
        if (this == TOPIC) {
            throw new IllegalStateException(method + " must not be called on a TopicSession (it belongs to the "
                    + "queue domain; Jakarta Messaging 3.1 TopicSession): use a QueueSession or a Session");
        }
    }
}
