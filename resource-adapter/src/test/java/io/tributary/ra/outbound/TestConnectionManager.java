package io.tributary.ra.outbound;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;

/**
 * What an application server does with the outbound side, reduced to what the tests need: a pool of managed
 * connections (matched with {@code matchManagedConnections}, made with {@code createManagedConnection}, given back
 * on {@code CONNECTION_CLOSED} after {@code cleanup}) and a container transaction that enlists every managed
 * connection used in it through its {@code LocalTransaction} (last-resource style), shares an enlisted connection
 * between allocations, and pools connections whose handles were closed during the transaction only when it ends.
 *
 * <p>Threads: the test's, plus the application threads of a test; methods are synchronized.
 */
final class TestConnectionManager implements ConnectionManager, ConnectionEventListener {

    private static final long serialVersionUID = 1L;

    private final List<ManagedConnection> created = new ArrayList<>();
    private final Set<ManagedConnection> idle = new LinkedHashSet<>();
    private final Map<ManagedConnection, Integer> openHandles = new HashMap<>();
    private final Set<ManagedConnection> enlisted = new LinkedHashSet<>();
    private final List<Exception> errors = new ArrayList<>();
    private boolean inTransaction;

    @Override
    public synchronized Object allocateConnection(ManagedConnectionFactory factory, ConnectionRequestInfo info)
            throws ResourceException {
        ManagedConnection connection = null;
        if (inTransaction) {
            connection = factory.matchManagedConnections(new LinkedHashSet<>(enlisted), null, info);
        }
        if (connection == null) {
            connection = factory.matchManagedConnections(new LinkedHashSet<>(idle), null, info);
            if (connection != null) {
                idle.remove(connection);
            } else {
                connection = factory.createManagedConnection(null, info);
                connection.addConnectionEventListener(this);
                created.add(connection);
            }
            if (inTransaction && enlisted.add(connection)) {
                connection.getLocalTransaction().begin();
            }
        }
        Object handle = connection.getConnection(null, info);
        openHandles.merge(connection, 1, Integer::sum);
        return handle;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The container's transaction

    synchronized void begin() {
        if (inTransaction) {
            throw new IllegalStateException("A transaction is already active");
        }
        inTransaction = true;
    }

    synchronized void commit() throws ResourceException {
        end(true);
    }

    synchronized void rollback() throws ResourceException {
        end(false);
    }

    private void end(boolean commit) throws ResourceException {
        if (!inTransaction) {
            throw new IllegalStateException("No transaction is active");
        }
        inTransaction = false;
        List<ManagedConnection> ended = List.copyOf(enlisted);
        enlisted.clear();
        ResourceException failure = null;
        for (ManagedConnection connection : ended) {
            try {
                if (commit) {
                    connection.getLocalTransaction().commit();
                } else {
                    connection.getLocalTransaction().rollback();
                }
            } catch (ResourceException e) {
                failure = failure == null ? e : failure;
            }
            if (openHandles.getOrDefault(connection, 0) == 0) {
                giveBack(connection);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Pool

    private void giveBack(ManagedConnection connection) throws ResourceException {
        openHandles.remove(connection);
        connection.cleanup();
        idle.add(connection);
    }

    synchronized List<ManagedConnection> created() {
        return List.copyOf(created);
    }

    synchronized Set<ManagedConnection> idle() {
        return Set.copyOf(idle);
    }

    synchronized List<Exception> errors() {
        return List.copyOf(errors);
    }

    /** Destroys every managed connection, as a server does when the pool shuts down. */
    synchronized void destroyAll() throws ResourceException {
        for (ManagedConnection connection : created) {
            connection.destroy();
        }
        idle.clear();
        openHandles.clear();
    }

    @Override
    public synchronized void connectionClosed(ConnectionEvent event) {
        ManagedConnection connection = (ManagedConnection) event.getSource();
        int left = openHandles.merge(connection, -1, Integer::sum);
        if (left == 0 && !enlisted.contains(connection)) {
            try {
                giveBack(connection);
            } catch (ResourceException e) {
                errors.add(e);
            }
        }
    }

    @Override
    public synchronized void connectionErrorOccurred(ConnectionEvent event) {
        errors.add(event.getException());
    }

    @Override
    public synchronized void localTransactionStarted(ConnectionEvent event) {
        errors.add(new IllegalStateException("Unexpected application local transaction event"));
    }

    @Override
    public synchronized void localTransactionCommitted(ConnectionEvent event) {
        errors.add(new IllegalStateException("Unexpected application local transaction event"));
    }

    @Override
    public synchronized void localTransactionRolledback(ConnectionEvent event) {
        errors.add(new IllegalStateException("Unexpected application local transaction event"));
    }
}
