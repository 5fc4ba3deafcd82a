package io.tributary.jms;

import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;

/**
 * A temporary queue or topic: a real Kafka topic with a unique name, created by a connection and deleted with it
 * (Jakarta Messaging 3.1 §4.1.5, §4.2.7). The instance the connection creates knows its
 * {@link TemporaryDestinationOwner}, which deletes it and is the only connection whose consumers may read it. An
 * instance rebuilt from a name (a {@code JMSReplyTo} of a received message, or one deserialized) has no owner: it can
 * be sent to but not deleted. The owner takes no part in equality.
 *
 * <p>Serialized form: the subclass's {@code name} alone, never the owner (see {@link TopicDestination}).
 *
 * <p>Immutable; any thread.
 */
abstract class TemporaryTopicDestination extends TopicDestination {

    /** Null when this instance was built from a name rather than created by a connection. */
    private final TemporaryDestinationOwner owner;

    /** Deserialization's constructor (this is the subclass's first class that is not serializable): no owner. */
    TemporaryTopicDestination() {
        this(null);
    }

    TemporaryTopicDestination(TemporaryDestinationOwner owner) {
        this.owner = owner;
    }

    /** The connection that created this instance, or null for a reference built from a name. */
    final TemporaryDestinationOwner owner() {
        return owner;
    }

    /**
     * Asks the creating connection to delete the destination's topic.
     *
     * @throws IllegalStateException if this instance was not created by a connection (it has no owner)
     * @throws JMSException as {@link TemporaryDestinationOwner#deleteTemporaryDestination} throws it, for example
     *         while consumers still read the destination
     */
    public final void delete() throws JMSException {
        if (owner == null) {
            throw new IllegalStateException(kind() + " '" + name() + "' can be deleted only through the instance"
                    + " its connection created; this one was rebuilt from its name (JMSReplyTo or deserialization)");
        }
        owner.deleteTemporaryDestination(this);
    }

    /** Checks the owner of a destination its connection has just created. */
    static TemporaryDestinationOwner requireOwner(String kind, TemporaryDestinationOwner owner) {
        if (owner == null) {
            throw new NullPointerException("a " + kind + " is created by a connection; owner must not be null");
        }
        return owner;
    }
}
