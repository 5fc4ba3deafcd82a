package io.tributary.ra.outbound;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;

import io.tributary.jms.TributaryConnection;
import io.tributary.jms.TributarySession;

/**
 * A managed connection's {@link XAResource}: the provider's ({@link TributarySession#getXAResource()}) for the
 * physical session, which may change between transactions (cleanup closes it), plus what the managed connection
 * must know: from {@code start} to {@code end} its session takes part in a transaction, so sends are held and
 * receives wait for the branch's outcome instead of being committed one by one.
 *
 * <p>Threads: the transaction manager's; the managed connection's state is changed under its monitor.
 */
final class ManagedXAResource implements XAResource {

    private final TributaryManagedConnection connection;
    /** The provider's resource last used: what {@link #isSameRM} compares once the connection is destroyed. */
    private volatile XAResource lastProvider;

    ManagedXAResource(TributaryManagedConnection connection) {
        this.connection = connection;
    }

    /** The provider's resource for the current physical session (created for it if there is none yet). */
    XAResource provider() throws XAException {
        try {
            XAResource provider = ((TributarySession) connection.session()).getXAResource();
            lastProvider = provider;
            return provider;
        } catch (JMSException e) {
            throw unavailable("No session on " + connection + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        provider().start(xid, flags);
        connection.xaStarted();
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        try {
            provider().end(xid, flags);
        } finally {
            connection.xaEnded();
        }
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        int vote = provider().prepare(xid);
        if (vote == XA_RDONLY) {
            connection.xaCompleted();
        }
        return vote;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        try {
            decide(resource -> {
                resource.commit(xid, onePhase);
                return null;
            });
        } finally {
            connection.xaCompleted();
        }
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        try {
            decide(resource -> {
                resource.rollback(xid);
                return null;
            });
        } finally {
            connection.xaCompleted();
        }
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return decide(resource -> resource.recover(flag));
    }

    @Override
    public void forget(Xid xid) throws XAException {
        decide(resource -> {
            resource.forget(xid);
            return null;
        });
    }

    /** A call on the provider's resource that needs no session: the outcome of a branch, or the recovery scan. */
    @FunctionalInterface
    private interface Decision<T> {
        T on(XAResource resource) throws XAException;
    }

    /**
     * Runs {@code decision} on the session's resource or, once the managed connection is destroyed, on a resource
     * of a provider connection opened for the call: a transaction manager may end the branches its recovery scan
     * found through the resource of a connection it has destroyed since (IronJacamar destroys its recovery
     * connection after the scan; Narayana commits in the next pass). Ending a branch by its Xid needs only the
     * cluster: the resource manager finds it in memory or in the XA log.
     */
    private <T> T decide(Decision<T> decision) throws XAException {
        if (connection.isOpen()) {
            return decision.on(provider());
        }
        try (Connection standalone = connection.openStandalone()) {
            return decision.on(((TributaryConnection) standalone).createDeliveryXAResource());
        } catch (JMSException e) {
            throw unavailable("No connection to the cluster of " + connection + ": " + e.getMessage(), e);
        }
    }

    /**
     * The same resource manager: the same cluster, transactional id prefix and XA log, compared through the
     * provider's resources, those of destroyed connections included (a transaction manager matches a recovery
     * scan's resources with those of the scan before, whose connections may have been destroyed since).
     */
    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        XAResource otherProvider = other instanceof ManagedXAResource managed ? managed.comparable() : other;
        return otherProvider != null && comparable().isSameRM(otherProvider);
    }

    private XAResource comparable() throws XAException {
        XAResource last = lastProvider;
        return last != null && !connection.isOpen() ? last : provider();
    }

    @Override
    public int getTransactionTimeout() throws XAException {
        return provider().getTransactionTimeout();
    }

    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        return provider().setTransactionTimeout(seconds);
    }

    /** XAER_RMFAIL: the resource manager cannot be reached through this resource now; {@code cause} may be null. */
    static XAException unavailable(String message, Throwable cause) {
        XAException failure = new XAException(message);
        failure.errorCode = XAException.XAER_RMFAIL;
        if (cause != null) {
            failure.initCause(cause);
        }
        return failure;
    }
}
