package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import jakarta.jms.JMSException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.tributary.jms.kafka.TransactionEnder;
import io.tributary.jms.kafka.XaLog;
import io.tributary.jms.kafka.XaLogRecord;
import io.tributary.jms.kafka.XaLogRecord.XaXid;

/**
 * The XA resource manager of one cluster and transactional id prefix in this JVM: the branches in progress, the
 * producers they commit with ({@link TransactionalProducers#forXa}), the XA log ({@link XaLog}) and, for branches
 * prepared before a crash, the {@link TransactionEnder}. Every {@link TributaryXAResource} of the same cluster and
 * prefix answers through the same manager, so {@code isSameRM} is true between them and a branch joined
 * ({@code TMJOIN}) from another session is committed with the first.
 *
 * <h2>A branch</h2>
 * The sessions associated with a branch hold their sends and deliveries as in any transacted session; at
 * {@code end} their work moves to the branch ({@link SessionAcknowledgement#takeXaWork()}). {@code prepare} runs the
 * branch's Kafka transaction up to its commit: begin, the sends (each acknowledged), the consumed offsets with each
 * consumer's group metadata; then writes the PREPARED record (transactional id, producer id and epoch, as the
 * coordinator describes the transaction) to the XA log, awaited, and answers {@code XA_OK}, or {@code XA_RDONLY}
 * for a branch that wrote nothing. {@code commit} commits the Kafka transaction, then writes a tombstone; one-phase
 * commit writes no PREPARED record at all. The Kafka transaction is opened at {@code prepare}, not at
 * {@code start}, for the reason transacted sessions hold their sends ({@link KafkaTransaction}): an open
 * transaction holds back every read_committed consumer of its partitions.
 *
 * <h2>After a crash</h2>
 * The producer that opened a prepared transaction is gone; the coordinator keeps the transaction open until its
 * timeout ({@link KafkaClients#XA_TRANSACTION_TIMEOUT_MS}). {@code recover} reads the XA log and returns the Xids
 * whose transaction is still open with the recorded producer id and epoch (the others are tombstoned);
 * {@code commit} and {@code rollback} of such an Xid send EndTxn with them. A transaction the coordinator aborted
 * meanwhile makes {@code commit} report {@code XA_HEURRB}.
 *
 * <p>Threads: any; the branch table is guarded by this object's monitor, which is never held during Kafka I/O. A
 * branch is driven by one thread at a time (the transaction manager's), as XA requires.
 */
final class XaResourceManager {

    private static final Logger log = LoggerFactory.getLogger(XaResourceManager.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long SEND_TIMEOUT_MS = 30_000;
    /** The managers in use, by cluster and prefix; guarded by its own monitor. */
    private static final Map<String, XaResourceManager> SHARED = new HashMap<>();

    enum BranchState { ACTIVE, ROLLBACK_ONLY, PREPARED }

    private final String key;
    private final Admin admin;
    private final TransactionalProducers producers;
    private final XaLog xaLog;
    private final TransactionEnder ender;
    private final Map<XaXid, Branch> branches = new HashMap<>();
    /** Whether the pool was kept off the ids of prepared transactions found in the log. */
    private boolean heldPrepared;
    private int users;

    private XaResourceManager(String key, KafkaClients clients, String prefix, String logTopic) {
        this.key = key;
        this.admin = clients.newAdmin();
        this.producers = TransactionalProducers.forXa(clients, prefix);
        this.xaLog = new XaLog(logTopic, admin, clients.newXaLogProducer(), clients.xaLogConsumer(),
                TIMEOUT);
        this.ender = new TransactionEnder(admin, clients.admin(), TIMEOUT);
    }

    /**
     * Whether {@code other} manages the same branches: the same cluster, prefix and XA log, even if one of the two
     * was closed since (a transaction manager compares resources it keeps across recovery scans).
     */
    boolean sameAs(XaResourceManager other) {
        return key.equals(other.key);
    }

    /** The manager of this cluster, prefix and XA log, shared; each call paired with {@link #release()}. */
    static XaResourceManager acquire(KafkaClients clients, String bootstrapServers, String prefix, String logTopic) {
        String key = bootstrapServers + " " + prefix + " " + logTopic;
        synchronized (SHARED) {
            XaResourceManager manager = SHARED.computeIfAbsent(key,
                    k -> new XaResourceManager(k, clients, prefix, logTopic));
            manager.users++;
            return manager;
        }
    }

    /** The last user closes the manager's clients; prepared branches stay in the log for recovery. */
    void release() {
        synchronized (SHARED) {
            if (--users > 0) {
                return;
            }
            SHARED.remove(key);
        }
        List<Branch> prepared;
        synchronized (this) {
            prepared = branches.values().stream().filter(b -> b.state == BranchState.PREPARED).toList();
        }
        for (Branch branch : prepared) {
            // Closed without a word to the coordinator (a graceful close would abort the transaction): the branch
            // stays prepared, in the log, for the transaction manager's recovery.
            log.warn("{} is still prepared as the last connection closes; recovery will decide it", branch.xid);
            branch.lease.producer().close(Duration.ZERO);
        }
        producers.release();
        xaLog.close();
        ender.close();
        admin.close(Duration.ofSeconds(5));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Association

    /** {@code start(xid, TMNOFLAGS)}: a new branch. */
    synchronized void begin(Xid xid) throws XAException {
        XaXid id = XaXid.of(xid);
        if (branches.containsKey(id)) {
            throw error(XAException.XAER_DUPID, xid + " is already in progress");
        }
        branches.put(id, new Branch(id));
    }

    /** {@code start(xid, TMJOIN or TMRESUME)}: the branch must be in progress and not prepared. */
    synchronized void join(Xid xid) throws XAException {
        Branch branch = branches.get(XaXid.of(xid));
        if (branch == null) {
            throw error(XAException.XAER_NOTA, xid + " is not in progress here");
        }
        if (branch.state == BranchState.PREPARED) {
            throw error(XAException.XAER_PROTO, xid + " is prepared");
        }
    }

    /** {@code end}: the session's work joins the branch; {@code failed} marks the branch rollback-only. */
    synchronized void end(Xid xid, XaWork work, boolean failed) throws XAException {
        Branch branch = branches.get(XaXid.of(xid));
        if (branch == null) {
            throw error(XAException.XAER_NOTA, xid + " is not in progress here");
        }
        branch.work.add(work);
        if (failed) {
            branch.state = BranchState.ROLLBACK_ONLY;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Two-phase commit

    int prepare(Xid xid) throws XAException {
        Branch branch = local(xid);
        if (branch == null) {
            throw error(XAException.XAER_NOTA, xid + " is not in progress here");
        }
        if (branch.state == BranchState.ROLLBACK_ONLY) {
            rollbackLocal(branch);
            throw error(XAException.XA_RBROLLBACK, xid + " was marked rollback-only (end with TMFAIL)");
        }
        if (branch.state == BranchState.PREPARED) {
            throw error(XAException.XAER_PROTO, xid + " is already prepared");
        }
        if (!branch.writes()) {
            complete(branch, true);
            return XAResource.XA_RDONLY;
        }
        holdPreparedIds();
        try {
            branch.lease = producers.borrow();
        } catch (JMSException e) {
            rollbackLocal(branch);
            throw error(XAException.XA_RBCOMMFAIL, "No producer for " + xid + ": " + e.getMessage(), e);
        }
        try {
            writeTransaction(branch);
            TransactionDescription described = admin.describeTransactions(List.of(branch.lease.transactionalId()))
                    .description(branch.lease.transactionalId()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (described.state() != TransactionState.ONGOING) {
                throw new IllegalStateException("the coordinator describes transaction "
                        + branch.lease.transactionalId() + " as " + described.state() + ", not Ongoing");
            }
            branch.record = new XaLogRecord(branch.xid, branch.lease.transactionalId(), described.producerId(),
                    (short) described.producerEpoch(), List.copyOf(described.topicPartitions()),
                    System.currentTimeMillis());
            xaLog.prepared(branch.record);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw abortPrepare(branch, e);
        } catch (ExecutionException e) {
            throw abortPrepare(branch, e.getCause());
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            throw abortPrepare(branch, e);
        }
        synchronized (this) {
            branch.state = BranchState.PREPARED;
        }
        return XAResource.XA_OK;
    }

    /** The branch's sends, each acknowledged, and its consumed offsets, in the lease's new Kafka transaction. */
    private static void writeTransaction(Branch branch)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        KafkaProducer<byte[], byte[]> producer = branch.lease.producer();
        producer.beginTransaction();
        List<Future<RecordMetadata>> results = new ArrayList<>();
        for (XaWork work : branch.work) {
            for (ProducerRecord<byte[], byte[]> record : work.sends()) {
                results.add(producer.send(record));
            }
        }
        for (Future<RecordMetadata> result : results) {
            result.get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        for (XaWork work : branch.work) {
            for (OffsetCommitter.TransactionOffsets consumed : work.offsets()) {
                if (consumed.group() != null) {
                    // Blocks until the group coordinator took the offsets into the transaction.
                    producer.sendOffsetsToTransaction(consumed.positions(), consumed.group());
                }
            }
        }
    }

    private XAException abortPrepare(Branch branch, Throwable cause) {
        abortProducer(branch);
        rollbackLocal(branch);
        return error(XAException.XA_RBROLLBACK, "Preparing " + branch.xid + " failed, it was rolled back: "
                + cause, cause);
    }

    void commit(Xid xid, boolean onePhase) throws XAException {
        Branch branch = local(xid);
        if (branch == null) {
            if (onePhase) {
                throw error(XAException.XAER_NOTA, xid + " is not in progress here");
            }
            commitRecovered(xid);
            return;
        }
        if (onePhase) {
            commitOnePhase(branch);
            return;
        }
        if (branch.state != BranchState.PREPARED) {
            throw error(XAException.XAER_PROTO, xid + " is not prepared");
        }
        try {
            branch.lease.producer().commitTransaction();
            producers.giveBack(branch.lease);
        } catch (RuntimeException e) {
            // The producer could not finish (fenced, timed out): the coordinator may still hold the transaction.
            log.warn("Committing {} through its producer failed ({}); ending it with EndTxn", xid, e.toString());
            producers.discard(branch.lease);
            decideLocal(branch, true);
            return;
        }
        resolved(xid);
        complete(branch, true);
    }

    private void commitOnePhase(Branch branch) throws XAException {
        if (branch.state == BranchState.ROLLBACK_ONLY) {
            rollbackLocal(branch);
            throw error(XAException.XA_RBROLLBACK, branch.xid + " was marked rollback-only (end with TMFAIL)");
        }
        if (branch.writes()) {
            List<org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]>> sends = new ArrayList<>();
            List<OffsetCommitter.TransactionOffsets> offsets = new ArrayList<>();
            for (XaWork work : branch.work) {
                sends.addAll(work.sends());
                offsets.addAll(work.offsets());
            }
            try {
                KafkaTransaction.commit(producers, sends, offsets);
            } catch (JMSException e) {
                rollbackLocal(branch);
                throw error(XAException.XA_RBROLLBACK, e.getMessage(), e);
            }
        }
        complete(branch, true);
    }

    void rollback(Xid xid) throws XAException {
        Branch branch = local(xid);
        if (branch == null) {
            rollbackRecovered(xid);
            return;
        }
        if (branch.state == BranchState.PREPARED) {
            try {
                branch.lease.producer().abortTransaction();
                producers.giveBack(branch.lease);
            } catch (RuntimeException e) {
                log.warn("Aborting {} through its producer failed ({}); ending it with EndTxn", xid, e.toString());
                producers.discard(branch.lease);
                decideLocal(branch, false);
                return;
            }
            resolved(xid);
        }
        complete(branch, false);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Recovery

    /** The prepared branches still in doubt; those the coordinator already decided are tombstoned. */
    Xid[] recover() throws XAException {
        Map<XaXid, XaLogRecord> prepared;
        try {
            prepared = xaLog.read();
        } catch (RuntimeException e) {
            throw error(XAException.XAER_RMFAIL, "Reading the XA log failed: " + e, e);
        }
        List<Xid> inDoubt = new ArrayList<>();
        for (XaLogRecord record : prepared.values()) {
            try {
                if (local(record.xid()) != null || ender.inDoubt(record)) {
                    inDoubt.add(record.xid());
                } else {
                    log.info("Prepared {} on transactional id {} was decided already; forgetting it",
                            record.xid(), record.transactionalId());
                    resolved(record.xid());
                    producers.unhold(record.transactionalId());
                }
            } catch (RuntimeException e) {
                throw error(XAException.XAER_RMFAIL, "Checking " + record.xid() + " failed: " + e, e);
            }
        }
        log.debug("Recovery scan of {}: in doubt {}", xaLog.topic(), inDoubt);
        return inDoubt.toArray(new Xid[0]);
    }

    private void commitRecovered(Xid xid) throws XAException {
        decide(find(xid), true);
    }

    private void rollbackRecovered(Xid xid) throws XAException {
        decide(find(xid), false);
    }

    private XaLogRecord find(Xid xid) throws XAException {
        try {
            return xaLog.find(xid).orElseThrow(() -> error(XAException.XAER_NOTA, xid + " is not prepared"));
        } catch (RuntimeException e) {
            throw error(XAException.XAER_RMFAIL, "Reading the XA log failed: " + e, e);
        }
    }

    /**
     * Ends the recorded transaction with EndTxn; a decision the coordinator had taken otherwise (the timeout's abort)
     * is a heuristic outcome. The log's record is tombstoned either way: the transaction manager is told now.
     */
    private void decide(XaLogRecord record, boolean commit) throws XAException {
        log.info("{} the recovered branch {} (transactional id {})", commit ? "Committing" : "Rolling back",
                record.xid(), record.transactionalId());
        TransactionEnder.Outcome outcome;
        try {
            outcome = ender.end(record, commit);
        } catch (RuntimeException e) {
            throw error(XAException.XAER_RMFAIL, (commit ? "Committing " : "Rolling back ") + record.xid()
                    + " failed; try again: " + e, e);
        }
        resolved(record.xid());
        producers.unhold(record.transactionalId());
        if (commit && outcome == TransactionEnder.Outcome.ABORTED) {
            throw error(XAException.XA_HEURRB, record.xid() + " was aborted by the cluster before its commit (its "
                    + "Kafka transaction " + record.transactionalId() + " outlived transaction.timeout.ms, or was "
                    + "fenced)");
        }
        if (!commit && outcome == TransactionEnder.Outcome.COMMITTED) {
            throw error(XAException.XA_HEURCOM, record.xid() + " was committed before its rollback");
        }
    }

    /** {@link #decide} for a branch of this JVM whose producer failed; the branch ends unless the cluster is away. */
    private void decideLocal(Branch branch, boolean commit) throws XAException {
        try {
            decide(branch.record, commit);
        } catch (XAException e) {
            if (e.errorCode != XAException.XAER_RMFAIL) {
                complete(branch, !commit);
            }
            throw e;
        }
        complete(branch, commit);
    }

    /** Once per manager, before its first producer: keeps the pool off the ids of prepared transactions. */
    private void holdPreparedIds() throws XAException {
        synchronized (this) {
            if (heldPrepared) {
                return;
            }
        }
        List<String> ids;
        try {
            ids = XaLog.transactionalIds(xaLog.read().values());
        } catch (RuntimeException e) {
            throw error(XAException.XAER_RMFAIL, "Reading the XA log failed: " + e, e);
        }
        producers.hold(ids);
        synchronized (this) {
            heldPrepared = true;
        }
    }

    private void resolved(Xid xid) {
        try {
            xaLog.resolved(xid);
        } catch (RuntimeException e) {
            // recover() finds the record, sees the transaction decided and tombstones it then.
            log.warn("The tombstone of {} was not written: {}", xid, e.toString());
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private synchronized Branch local(Xid xid) {
        return branches.get(XaXid.of(xid));
    }

    private void abortProducer(Branch branch) {
        if (branch.lease == null) {
            return;
        }
        try {
            branch.lease.producer().abortTransaction();
            producers.giveBack(branch.lease);
        } catch (RuntimeException e) {
            producers.discard(branch.lease);
        }
        branch.lease = null;
    }

    private void rollbackLocal(Branch branch) {
        complete(branch, false);
    }

    /** The branch is over: its sessions learn the outcome (acknowledged, or delivered again). */
    private void complete(Branch branch, boolean committed) {
        synchronized (this) {
            branches.remove(branch.xid);
        }
        for (XaWork work : branch.work) {
            try {
                work.completed(committed);
            } catch (JMSException e) {
                log.warn("Telling a session that {} {} failed: {}", branch.xid,
                        committed ? "committed" : "rolled back", e.toString());
            }
        }
    }

    static XAException error(int code, String message) {
        return error(code, message, null);
    }

    static XAException error(int code, String message, Throwable cause) {
        XAException e = new XAException(message);
        e.errorCode = code;
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /** A branch in progress in this JVM. Fields written by the thread driving the branch. */
    private static final class Branch {
        final XaXid xid;
        final List<XaWork> work = new ArrayList<>();
        BranchState state = BranchState.ACTIVE;
        TransactionalProducers.Lease lease;
        XaLogRecord record;

        Branch(XaXid xid) {
            this.xid = xid;
        }

        /** Whether committing writes anything: sends, or offsets of a group. */
        boolean writes() {
            for (XaWork w : work) {
                if (!w.sends().isEmpty() || w.offsets().stream().anyMatch(o -> o.group() != null)) {
                    return true;
                }
            }
            return false;
        }
    }
}
