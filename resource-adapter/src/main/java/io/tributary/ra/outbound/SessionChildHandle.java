package io.tributary.ra.outbound;

import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;

/**
 * What the handles of a {@link SessionHandle}'s producers and consumers share: the session they were made through,
 * their closed flag, the check that every JMS method makes first, and an idempotent {@code close} that releases the
 * physical object and lets the session forget the handle.
 *
 * <p>Threads: the session's; {@link #invalidate()} also from the container's, when it cleans up or destroys the
 * managed connection (hence the volatile flag).
 */
abstract class SessionChildHandle {

    final SessionHandle session;
    /** "producer" or "consumer", for the closed-handle message. */
    private final String kind;
    private volatile boolean closed;

    SessionChildHandle(SessionHandle session, String kind) {
        this.session = session;
        this.kind = kind;
    }

    /** @throws IllegalStateException if this handle, its session or its connection is closed */
    final void checkOpen() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The " + kind + " is closed");
        }
        session.checkOpen();
    }

    /** The managed connection closed the physical objects: only mark closed. */
    final void invalidate() {
        closed = true;
    }

    /** Closes the physical object ({@link #closePhysical()}); the session forgets this handle. Idempotent. */
    public final void close() throws JMSException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closePhysical();
        } finally {
            session.childClosed(this);
        }
    }

    /** Closes, or lets the managed connection close, the provider's producer or consumer behind this handle. */
    abstract void closePhysical() throws JMSException;
}
