package io.tributary.jms;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import jakarta.jms.JMSException;

/**
 * A transacted session's {@link XAResource} ({@link TributarySession#getXAResource()}): associates the session's
 * work with a branch of the {@link XaResourceManager} of its cluster, which prepares and commits it as one Kafka
 * transaction with a durable PREPARED record in the XA log, and recovers the branches a crash left prepared.
 *
 * <p>Transaction timeout: a branch's Kafka transaction is aborted by the cluster once it has been open for the XA
 * producers' {@code transaction.timeout.ms} (15 min, the broker's {@code transaction.max.timeout.ms} default),
 * counted from {@code prepare}; the Kafka timeout is fixed when a producer starts, so
 * {@link #setTransactionTimeout} is refused (returns false) and {@link #getTransactionTimeout} reports it.
 *
 * <p>Threads: the transaction manager's, one call at a time per branch.
 */
public final class TributaryXAResource implements XAResource {

    /** Where the work of a branch comes from at {@code end}: a session's, or an inbound delivery's. */
    @FunctionalInterface
    interface WorkSource {
        XaWork take() throws JMSException;
    }

    private final XaResourceManager manager;
    private final WorkSource source;

    TributaryXAResource(XaResourceManager manager, WorkSource source) {
        this.manager = manager;
        this.source = source;
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        if ((flags & (TMJOIN | TMRESUME)) != 0) {
            manager.join(xid);
        } else if (flags == TMNOFLAGS) {
            manager.begin(xid);
        } else {
            throw XaResourceManager.error(XAException.XAER_INVAL, "start with flags " + flags);
        }
    }

    /** The session's sends and deliveries since {@code start} move to the branch. */
    @Override
    public void end(Xid xid, int flags) throws XAException {
        XaWork work;
        try {
            work = source.take();
        } catch (JMSException e) {
            throw XaResourceManager.error(XAException.XAER_RMERR, "Reading the session's deliveries failed: "
                    + e.getMessage(), e);
        }
        manager.end(xid, work, (flags & TMFAIL) != 0);
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        return manager.prepare(xid);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        manager.commit(xid, onePhase);
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        manager.rollback(xid);
    }

    /** The branches prepared and not decided, from the XA log; listed at {@code TMSTARTRSCAN}, nothing after. */
    @Override
    public Xid[] recover(int flag) throws XAException {
        if ((flag & TMSTARTRSCAN) == 0) {
            return new Xid[0];
        }
        return manager.recover();
    }

    /** Heuristic outcomes are tombstoned when they are reported: nothing left to forget. */
    @Override
    public void forget(Xid xid) {
    }

    /** The same cluster and transactional id prefix: the same resource manager, so branches can be joined. */
    @Override
    public boolean isSameRM(XAResource other) {
        XAResource unwrapped = other instanceof DeliveryXAResource delivery ? delivery.resource() : other;
        return unwrapped instanceof TributaryXAResource resource && resource.manager.sameAs(manager);
    }

    @Override
    public int getTransactionTimeout() {
        return KafkaClients.XA_TRANSACTION_TIMEOUT_MS / 1000;
    }

    @Override
    public boolean setTransactionTimeout(int seconds) {
        return false;
    }

    @Override
    public String toString() {
        return "TributaryXAResource[" + manager + "]";
    }
}
