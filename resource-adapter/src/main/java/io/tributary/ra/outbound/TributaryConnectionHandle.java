package io.tributary.ra.outbound;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionConsumer;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.ServerSessionPool;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicSession;

import io.tributary.jms.SessionDomain;

/**
 * The JMS connection an application gets from the pooled connection factory: a handle on a
 * {@link TributaryManagedConnection}, following the rules for JMS in a Jakarta EE web or EJB container
 * (Jakarta Messaging 3.1 §12):
 * <ul>
 *   <li>one open session at a time: a second {@code createSession} before the first is closed throws
 *       {@link IllegalStateException};</li>
 *   <li>the arguments of {@code createSession} are ignored: the session is transacted inside a container transaction
 *       and {@code AUTO_ACKNOWLEDGE} outside one (see {@link TributaryManagedConnection});</li>
 *   <li>{@code setClientID}, {@code setExceptionListener}, {@code stop} and the connection consumer methods throw
 *       {@link IllegalStateException};</li>
 *   <li>{@code close} closes the session and gives the managed connection back to the container's pool.</li>
 * </ul>
 * The client id is the connection factory's {@code clientId} config property, shared by every pooled connection.
 *
 * <p>Threads: any, as for a JMS connection. The managed connection behind a handle changes only when the container
 * reassociates it ({@code ManagedConnection.associateConnection}); sessions, producers and consumers made before
 * then stay with the previous managed connection's physical session.
 */
public final class TributaryConnectionHandle implements Connection, QueueConnection, TopicConnection {

    /** Guarded by this; replaced by {@link #associate}. */
    private TributaryManagedConnection managed;
    /** The open session, guarded by this. */
    private SessionHandle session;
    /** Guarded by this: close has begun; {@link #closed} is set once it is done. */
    private boolean closing;
    private volatile boolean closed;

    TributaryConnectionHandle(TributaryManagedConnection managed) {
        this.managed = managed;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The connection is closed");
        }
    }

    /** The managed connection behind this handle now. */
    TributaryManagedConnection managed() throws IllegalStateException {
        checkOpen();
        synchronized (this) {
            return managed;
        }
    }

    /** Moves this handle to {@code target}; returns the managed connection it was on. */
    synchronized TributaryManagedConnection associate(TributaryManagedConnection target) {
        TributaryManagedConnection previous = managed;
        managed = target;
        return previous;
    }

    /** Cleanup or destroy of the managed connection: unusable from now on, without a close event. */
    void invalidate() {
        SessionHandle open;
        synchronized (this) {
            closing = true;
            closed = true;
            open = session;
            session = null;
        }
        if (open != null) {
            open.invalidate();
        }
    }

    synchronized void sessionClosed(SessionHandle closedSession) {
        if (session == closedSession) {
            session = null;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sessions: one at a time, arguments ignored (§12.2, §12.3)

    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return openSession(SessionDomain.ANY);
    }

    @Override
    public Session createSession(int sessionMode) throws JMSException {
        return openSession(SessionDomain.ANY);
    }

    @Override
    public Session createSession() throws JMSException {
        return openSession(SessionDomain.ANY);
    }

    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return openSession(SessionDomain.QUEUE);
    }

    @Override
    public TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return openSession(SessionDomain.TOPIC);
    }

    private SessionHandle openSession(SessionDomain domain) throws JMSException {
        checkOpen();
        synchronized (this) {
            if (session != null) {
                throw new IllegalStateException("This connection already has an open session, and in a Jakarta EE "
                        + "web or EJB container a connection may have only one (Jakarta Messaging 3.1 §12.2): close "
                        + "it first, or use another connection");
            }
            session = new SessionHandle(this, domain);
            return session;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection

    @Override
    public String getClientID() throws JMSException {
        return managed().physicalConnection().getClientID();
    }

    @Override
    public void setClientID(String clientID) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.setClientID (configure the connection factory's clientId)");
    }

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        return managed().physicalConnection().getMetaData();
    }

    /** Always null: an exception listener may not be set in a container. */
    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkOpen();
        return null;
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.setExceptionListener");
    }

    /** Starts delivery to this connection's consumers; a handle starts stopped, like a new JMS connection. */
    @Override
    public void start() throws JMSException {
        managed().start();
    }

    @Override
    public void stop() throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.stop");
    }

    /** Closes the session and gives the managed connection back to the container. Idempotent. */
    @Override
    public void close() throws JMSException {
        SessionHandle open;
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            open = session;
        }
        try {
            if (open != null) {
                open.close();
            }
        } finally {
            TributaryManagedConnection owner;
            synchronized (this) {
                closed = true;
                session = null;
                owner = managed;
            }
            owner.handleClosed(this);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection consumers: forbidden in a container (§12.2)

    @Override
    public ConnectionConsumer createConnectionConsumer(Destination destination, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.createConnectionConsumer");
    }

    @Override
    public ConnectionConsumer createSharedConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.createSharedConnectionConsumer");
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.createDurableConnectionConsumer");
    }

    @Override
    public ConnectionConsumer createSharedDurableConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Connection.createSharedDurableConnectionConsumer");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Queue queue, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("QueueConnection.createConnectionConsumer");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Topic topic, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("TopicConnection.createConnectionConsumer");
    }

    @Override
    public String toString() {
        TributaryManagedConnection current;
        synchronized (this) {
            current = managed;
        }
        return "TributaryConnectionHandle[" + (closed ? "closed, " : "") + current + "]";
    }
}
