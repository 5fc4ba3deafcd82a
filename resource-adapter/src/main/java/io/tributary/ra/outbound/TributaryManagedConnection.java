package io.tributary.ra.outbound;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.security.auth.Subject;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.LocalTransaction;
import jakarta.resource.spi.LocalTransactionException;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionMetaData;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.tributary.jms.UncheckedJms;

/**
 * One pooled connection to the cluster: a physical JMS connection of the Tributary provider (its Kafka producer and
 * admin client, created on first use, are what pooling saves) and at most one physical session, shared by the
 * {@link TributaryConnectionHandle}s the container hands out on this managed connection.
 *
 * <h2>Sessions and transactions</h2>
 * The physical session is always {@code SESSION_TRANSACTED}; when it commits depends on the container:
 * <ul>
 *   <li>Inside a container transaction, from {@link LocalTransaction#begin()} to its commit or rollback: sends are
 *       held in the session and received messages stay unacknowledged until the container commits; a rollback
 *       drops the sends and delivers the received messages again. The application's session acts transacted,
 *       whatever it passed to {@code createSession} (Jakarta Messaging 3.1 §12.3: the arguments are ignored in a
 *       transaction), and may not commit or roll back itself.</li>
 *   <li>Outside one, each send and each receive is committed as soon as it returns: the application's session is
 *       non-transacted and {@code AUTO_ACKNOWLEDGE} (§12.3: without a JTA transaction, local transactions and
 *       client acknowledgement are not permitted; the provider is recommended to ignore them, as this one does).</li>
 * </ul>
 *
 * <h2>What is atomic</h2>
 * The container enlists this connection through its {@link XAResource} (two-phase commit: prepare writes the branch
 * into an open Kafka transaction and a durable PREPARED record, recovery finishes it after a crash; the provider's
 * {@code TributaryXAResource}) or, where configured so, through its {@link LocalTransaction} as a one-phase, last
 * resource. Either way the provider's commit is one Kafka transaction (issue 23):
 * <ul>
 *   <li>Rollback is exact: nothing sent in a rolled-back transaction reaches the broker, and the messages it
 *       received are delivered again, marked redelivered.</li>
 *   <li>Commit writes the held messages and the received messages' offsets in one Kafka transaction: all of them
 *       become visible (to read_committed consumers, which every JMS consumer is) or none. Nothing sent in the
 *       transaction is visible before the commit. A failed commit is a {@link LocalTransactionException}, on which
 *       the container rolls back the transaction's other resources, and the received messages come again.</li>
 *   <li>As a last resource, the usual window remains: should the server stop after this commit but before the
 *       transaction manager records the outcome, the other resources may roll back while the messages stay
 *       published. With XA there is no such window: the transaction manager decides a prepared branch after a
 *       restart, within the XA producers' {@code transaction.timeout.ms} (15 min), after which the cluster has
 *       aborted it (reported as a heuristic rollback).</li>
 * </ul>
 *
 * <h2>Lifecycle</h2>
 * {@link State#OPEN} until {@link #destroy()}. {@link #cleanup()}, called by the container before it pools this
 * connection again, invalidates the handles, rolls back an open transaction, closes the physical session (and so
 * every consumer, producer and browser made through the handles), deletes the temporary destinations made through
 * them and stops the physical connection; the next handle starts like a new JMS connection, on the same physical
 * connection. A broker outage does not break a managed connection: the Kafka clients reconnect by themselves and the
 * operations that fail in the meantime throw to the application, so no connection error event is raised.
 *
 * <p>Threads: the container uses a managed connection from one thread at a time, and calls {@link #cleanup()} and
 * {@link #destroy()} when no application thread uses its handles. The fields below are guarded by this object's
 * monitor; no Kafka I/O runs while it is held.
 */
final class TributaryManagedConnection implements ManagedConnection {

    private static final Logger log = LoggerFactory.getLogger(TributaryManagedConnection.class);

    enum State { OPEN, DESTROYED }

    private final TributaryManagedConnectionFactory factory;
    private final ConnectionRequest request;
    private final String bootstrapServers;
    private final OutboundSettings settings;
    private final Connection connection;
    private final List<ConnectionEventListener> listeners = new CopyOnWriteArrayList<>();
    private final LocalTransaction localTransaction = new ContainerTransaction();
    private final XAResource xaResource = new ManagedXAResource(this);

    private final List<TributaryConnectionHandle> handles = new ArrayList<>();
    private final List<Destination> temporaries = new ArrayList<>();
    /** Consumers the application closed inside a transaction: closed when it ends, so that its commit acks them. */
    private final List<MessageConsumer> closeAtTransactionEnd = new ArrayList<>();
    private Session session;
    private boolean started;
    private boolean inTransaction;
    private State state = State.OPEN;
    private PrintWriter logWriter;

    TributaryManagedConnection(TributaryManagedConnectionFactory factory, OutboundSettings settings,
                               ConnectionRequest request, PrintWriter logWriter) throws ResourceException {
        this.factory = factory;
        this.request = request;
        this.bootstrapServers = settings.bootstrapServers();
        this.settings = settings;
        this.logWriter = logWriter;
        try {
            this.connection = settings.connectionFactory().createPooledConnection(request.user(), request.password());
        } catch (JMSException e) {
            throw new ResourceException("Creating a connection to " + bootstrapServers + " failed: "
                    + e.getMessage(), e);
        }
    }

    TributaryManagedConnectionFactory factory() {
        return factory;
    }

    ConnectionRequest request() {
        return request;
    }

    synchronized boolean isOpen() {
        return state == State.OPEN;
    }

    private void checkOpen() throws jakarta.resource.spi.IllegalStateException {
        if (state != State.OPEN) {
            throw new jakarta.resource.spi.IllegalStateException(this + " was destroyed");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // For the handles (application threads)

    /** The physical session, created on first use after creation or cleanup. */
    synchronized Session session() throws JMSException {
        if (state != State.OPEN) {
            throw new jakarta.jms.IllegalStateException("The pooled connection to " + bootstrapServers
                    + " was destroyed");
        }
        if (session == null) {
            session = connection.createSession(Session.SESSION_TRANSACTED);
        }
        return session;
    }

    /**
     * A new provider connection with this one's settings and user, for the caller to close: for the XA recovery
     * that outlives this connection ({@link ManagedXAResource}).
     */
    Connection openStandalone() throws JMSException {
        return settings.connectionFactory().createPooledConnection(request.user(), request.password());
    }

    Connection physicalConnection() {
        return connection;
    }

    synchronized boolean inTransaction() {
        return inTransaction;
    }

    /** After a send or a receive: outside a container transaction it is committed now (AUTO_ACKNOWLEDGE). */
    void completeOutsideTransaction() throws JMSException {
        Session current;
        synchronized (this) {
            if (inTransaction) {
                return;
            }
            current = session;
        }
        if (current != null) {
            current.commit();
        }
    }

    /** Outside a container transaction: delivers again what the physical session received and did not commit. */
    void redeliverOutsideTransaction() throws JMSException {
        Session current;
        synchronized (this) {
            if (inTransaction) {
                return;
            }
            current = session;
        }
        if (current != null) {
            current.rollback();
        }
    }

    void start() throws JMSException {
        connection.start();
        synchronized (this) {
            started = true;
        }
    }

    /** A temporary destination made through a handle: deleted at cleanup, as closing a JMS connection would. */
    synchronized void temporaryCreated(Destination temporary) {
        temporaries.add(temporary);
    }

    /**
     * Closes a consumer the application closed: now, or inside a transaction when the transaction ends, because
     * the provider forgets a closed consumer's unacknowledged messages and the commit must acknowledge them.
     */
    void closeConsumer(MessageConsumer consumer) throws JMSException {
        synchronized (this) {
            if (inTransaction) {
                closeAtTransactionEnd.add(consumer);
                return;
            }
        }
        consumer.close();
    }

    /** The application closed {@code handle}: tells the container, which may pool this connection again. */
    void handleClosed(TributaryConnectionHandle handle) {
        synchronized (this) {
            if (!handles.remove(handle)) {
                return; // invalidated by cleanup or destroy, or moved to another managed connection
            }
        }
        ConnectionEvent event = new ConnectionEvent(this, ConnectionEvent.CONNECTION_CLOSED);
        event.setConnectionHandle(handle);
        for (ConnectionEventListener listener : listeners) {
            listener.connectionClosed(event);
        }
    }

    synchronized void handleDetached(TributaryConnectionHandle handle) {
        handles.remove(handle);
    }

    // ---------------------------------------------------------------------------------------------------------
    // ManagedConnection (container threads)

    @Override
    public Object getConnection(Subject subject, ConnectionRequestInfo info) throws ResourceException {
        synchronized (this) {
            checkOpen();
            TributaryConnectionHandle handle = new TributaryConnectionHandle(this);
            handles.add(handle);
            return handle;
        }
    }

    /** Moves {@code connection}, a handle of another managed connection, with its session, to this one. */
    @Override
    public void associateConnection(Object connection) throws ResourceException {
        if (!(connection instanceof TributaryConnectionHandle handle)) {
            throw new ResourceException("Not a connection handle of Tributary's resource adapter: " + connection);
        }
        synchronized (this) {
            checkOpen();
        }
        TributaryManagedConnection previous = handle.associate(this);
        if (previous == this) {
            return;
        }
        previous.handleDetached(handle);
        synchronized (this) {
            handles.add(handle);
        }
    }

    @Override
    public void cleanup() throws ResourceException {
        List<TributaryConnectionHandle> invalidated;
        List<Destination> deleted;
        Session closing;
        boolean rollback;
        boolean stop;
        synchronized (this) {
            checkOpen();
            invalidated = List.copyOf(handles);
            handles.clear();
            deleted = List.copyOf(temporaries);
            temporaries.clear();
            closeAtTransactionEnd.clear(); // closed with the session
            closing = session;
            session = null;
            rollback = inTransaction;
            inTransaction = false;
            stop = started;
            started = false;
        }
        for (TributaryConnectionHandle handle : invalidated) {
            handle.invalidate();
        }
        if (rollback) {
            report("Cleanup of " + this + " rolled back the open local transaction: its sends were discarded and "
                    + "its received messages will be delivered again");
        }
        try {
            if (closing != null) {
                closing.close(); // drops unsent messages, closes consumers (unacknowledged: delivered again)
            }
            for (Destination temporary : deleted) {
                deleteQuietly(temporary);
            }
            if (stop) {
                connection.stop();
            }
        } catch (JMSException e) {
            throw new ResourceException("Cleaning up " + this + " failed: " + e.getMessage(), e);
        }
    }

    private void deleteQuietly(Destination temporary) {
        try {
            if (temporary instanceof TemporaryQueue queue) {
                queue.delete();
            } else if (temporary instanceof TemporaryTopic topic) {
                topic.delete();
            }
        } catch (JMSException e) {
            // Already deleted by the application, or the cluster is unreachable: the physical connection
            // deletes what is left when it closes.
            log.debug("Temporary destination {} not deleted at cleanup: {}", temporary, e.getMessage());
        }
    }

    /** Closes the physical connection: open sessions roll back, temporary destinations are deleted. Idempotent. */
    @Override
    public void destroy() throws ResourceException {
        List<TributaryConnectionHandle> invalidated;
        synchronized (this) {
            if (state == State.DESTROYED) {
                return;
            }
            state = State.DESTROYED;
            invalidated = List.copyOf(handles);
            handles.clear();
            temporaries.clear();
            closeAtTransactionEnd.clear();
            session = null;
            inTransaction = false;
        }
        for (TributaryConnectionHandle handle : invalidated) {
            handle.invalidate();
        }
        try {
            connection.close();
        } catch (JMSException e) {
            throw new ResourceException("Closing the connection of " + this + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void addConnectionEventListener(ConnectionEventListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeConnectionEventListener(ConnectionEventListener listener) {
        listeners.remove(listener);
    }

    /**
     * The connection's XA resource ({@link ManagedXAResource}): each branch one Kafka transaction, prepared with a
     * durable record in the XA log and recoverable after a crash (the provider's {@code TributaryXAResource}).
     */
    @Override
    public XAResource getXAResource() {
        return xaResource;
    }

    /** XA {@code start}: the session's sends and receives belong to the branch until {@code end}. */
    void xaStarted() throws XAException {
        synchronized (this) {
            if (state != State.OPEN) {
                throw ManagedXAResource.unavailable(this + " was destroyed", null);
            }
            inTransaction = true;
        }
    }

    /** XA {@code end}: the branch took the session's work. */
    synchronized void xaEnded() {
        inTransaction = false;
    }

    /** The branch was decided: the consumers the application closed inside it can close now. */
    void xaCompleted() {
        List<MessageConsumer> closing;
        synchronized (this) {
            if (inTransaction) {
                return; // another branch already started on this connection: they close when it ends
            }
            closing = List.copyOf(closeAtTransactionEnd);
            closeAtTransactionEnd.clear();
        }
        for (MessageConsumer consumer : closing) {
            try {
                consumer.close();
            } catch (JMSException e) {
                log.warn("Closing a consumer after the transaction on {} failed: {}", this, e.getMessage());
            }
        }
    }

    @Override
    public LocalTransaction getLocalTransaction() {
        return localTransaction;
    }

    @Override
    public ManagedConnectionMetaData getMetaData() throws ResourceException {
        ConnectionMetaData metaData;
        try {
            metaData = connection.getMetaData();
        } catch (JMSException e) {
            throw new ResourceException("Reading the metadata of " + this + " failed: " + e.getMessage(), e);
        }
        return new ManagedConnectionMetaData() {
            @Override
            public String getEISProductName() throws ResourceException {
                return call(metaData::getJMSProviderName);
            }

            @Override
            public String getEISProductVersion() throws ResourceException {
                return call(metaData::getProviderVersion);
            }

            /** No limit of the cluster's: the pool's configuration bounds the connections. */
            @Override
            public int getMaxConnections() {
                return 0;
            }

            @Override
            public String getUserName() {
                return request.user();
            }
        };
    }

    private static String call(UncheckedJms.Call<String> call) throws ResourceException {
        try {
            return call.call();
        } catch (JMSException e) {
            throw new ResourceException(e.getMessage(), e);
        }
    }

    @Override
    public synchronized void setLogWriter(PrintWriter logWriter) {
        this.logWriter = logWriter;
    }

    @Override
    public synchronized PrintWriter getLogWriter() {
        return logWriter;
    }

    /** A warning for the server log and, when the container set one, for the connector log writer. */
    private void report(String message) {
        log.warn(message);
        PrintWriter writer = getLogWriter();
        if (writer != null) {
            writer.println(message);
        }
    }

    @Override
    public String toString() {
        return "TributaryManagedConnection[" + connection + "]";
    }

    /**
     * The container's local transaction: begin marks the physical session as taking part in a transaction, commit
     * and rollback commit or roll it back. The application's own local transactions are not offered (sessions
     * outside a transaction are AUTO_ACKNOWLEDGE), so no local transaction events are raised: the connector
     * specification raises them only for transactions the application demarcates.
     */
    private final class ContainerTransaction implements LocalTransaction {

        @Override
        public void begin() throws ResourceException {
            synchronized (TributaryManagedConnection.this) {
                checkOpen();
                if (inTransaction) {
                    throw new LocalTransactionException("A local transaction is already active on "
                            + TributaryManagedConnection.this);
                }
                inTransaction = true;
            }
        }

        @Override
        public void commit() throws ResourceException {
            end(true);
        }

        @Override
        public void rollback() throws ResourceException {
            end(false);
        }

        private void end(boolean commit) throws ResourceException {
            Session current;
            List<MessageConsumer> closing;
            synchronized (TributaryManagedConnection.this) {
                if (!inTransaction) {
                    throw new LocalTransactionException("No local transaction is active on "
                            + TributaryManagedConnection.this + (state == State.DESTROYED ? " (destroyed)" : ""));
                }
                current = session;
                closing = List.copyOf(closeAtTransactionEnd);
                closeAtTransactionEnd.clear();
            }
            try {
                if (current != null) {
                    if (commit) {
                        current.commit();
                    } else {
                        current.rollback();
                    }
                }
            } catch (JMSException e) {
                throw new LocalTransactionException((commit ? "Commit" : "Rollback") + " on "
                        + TributaryManagedConnection.this + " failed: " + e.getMessage(), e);
            } finally {
                synchronized (TributaryManagedConnection.this) {
                    inTransaction = false;
                }
                for (MessageConsumer consumer : closing) {
                    try {
                        consumer.close();
                    } catch (JMSException e) {
                        log.warn("Closing a consumer after the transaction on {} failed: {}",
                                TributaryManagedConnection.this, e.getMessage());
                    }
                }
            }
        }
    }
}
