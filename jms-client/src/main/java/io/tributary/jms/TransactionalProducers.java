package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional Kafka producers that transacted sessions borrow to commit: a pool per transactional id prefix
 * and cluster in this JVM (class loader), shared by every connection made with that prefix, so that two connections
 * of one application (a resource adapter's pooled connections, say) never fence each other. A producer is borrowed
 * for one {@code Session.commit()}, the whole of its Kafka transaction, and given back; the pool grows to the number
 * of commits that run at the same time, not to the number of sessions.
 *
 * <p>Transactional ids: {@code <prefix>-<slot>}, the slot being the lowest number no live producer of the pool uses.
 * With the factory's {@code transactionalIdPrefix} set, a restarted application reuses its predecessor's ids from 0
 * up, and each {@code initTransactions} fences the predecessor's producer with that id and aborts the transaction it
 * left open. Without a prefix it is {@code tributary-jms-<random>}, unique to the connection: nothing is fenced,
 * and a transaction a crashed client left open is aborted by the coordinator after {@code transaction.timeout.ms}.
 * Exactly-once consumption does not rest on these ids: the consumed offsets are committed with the consumer's
 * group metadata (KIP-447), so a commit by a member that lost its partitions is refused by the group coordinator,
 * whatever transactional id it uses. That is what makes a pool (any producer for any session's consumers) safe.
 *
 * <p>Threads: any; the state is guarded by this object's monitor, never held while talking to the cluster.
 */
final class TransactionalProducers {

    private static final Logger log = LoggerFactory.getLogger(TransactionalProducers.class);
    /** The pools in use, by cluster and prefix; guarded by its own monitor. */
    private static final Map<String, TransactionalProducers> SHARED = new HashMap<>();

    private final String key;
    private final KafkaClients clients;
    private final String prefix;
    /** Whether the producers are XA branches' ({@link KafkaClients#newXaProducer}). */
    private final boolean xa;
    /** Slots whose transactional ids hold a prepared XA transaction: not initialised until it is resolved. */
    private final BitSet held = new BitSet();
    /** Idle producers, the most recently given back first (its connections are the warmest). */
    private final ArrayDeque<Lease> idle = new ArrayDeque<>();
    /** Slots of the live producers, borrowed or idle. */
    private final BitSet slots = new BitSet();
    /** Connections using this pool; the last one to let go closes it. */
    private int users;
    private boolean closed;
    /**
     * Why a newer instance fenced this one, once it did: from then on every commit fails, rather than initialise a
     * new producer that would fence the newer instance in turn, back and forth.
     */
    private String fencedBy;

    private TransactionalProducers(String key, KafkaClients clients, String prefix) {
        this(key, clients, prefix, false);
    }

    private TransactionalProducers(String key, KafkaClients clients, String prefix, boolean xa) {
        this.key = key;
        this.clients = clients;
        this.prefix = prefix;
        this.xa = xa;
    }

    /**
     * The XA branches' pool of one resource manager ({@link XaResourceManager}, which owns it and releases it once):
     * ids {@code <prefix>-xa-<slot>}, or random ones without a prefix. Apart from the transacted sessions' pool so
     * that a session's {@code initTransactions} never lands on an id that holds a prepared branch: only the XA pool
     * knows (from the XA log, {@link #hold}) which ids those are.
     */
    static TransactionalProducers forXa(KafkaClients clients, String prefix) {
        TransactionalProducers pool = new TransactionalProducers(null, clients,
                prefix == null ? "tributary-xa-" + UUID.randomUUID() : prefix + "-xa", true);
        pool.users = 1;
        return pool;
    }

    /**
     * Keeps the pool off the ids in {@code transactionalIds} that are its own: each holds a prepared transaction
     * (from the XA log), which {@code initTransactions} on that id would abort. Until {@link #unhold}.
     */
    synchronized void hold(Iterable<String> transactionalIds) {
        for (String id : transactionalIds) {
            int slot = slotOf(id);
            if (slot >= 0 && !slots.get(slot)) {
                slots.set(slot);
                held.set(slot);
            }
        }
    }

    /** The prepared transaction on {@code transactionalId} was decided: the pool may use the id again. */
    synchronized void unhold(String transactionalId) {
        int slot = slotOf(transactionalId);
        if (slot >= 0 && held.get(slot)) {
            held.clear(slot);
            slots.clear(slot);
        }
    }

    private int slotOf(String transactionalId) {
        String start = prefix + "-";
        if (!transactionalId.startsWith(start)) {
            return -1;
        }
        try {
            return Integer.parseInt(transactionalId.substring(start.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The pool of {@code prefix} on the cluster of {@code clients}, shared with the other connections that use it, or
     * (null prefix) a pool of this connection's own with a random prefix. Each call must be paired with
     * {@link #release()}. A shared pool's producers are configured by the connection that created it.
     */
    static TransactionalProducers acquire(KafkaClients clients, String bootstrapServers, String prefix) {
        if (prefix == null) {
            TransactionalProducers own = new TransactionalProducers(null, clients,
                    "tributary-jms-" + UUID.randomUUID());
            own.users = 1;
            return own;
        }
        String key = bootstrapServers + " " + prefix;
        synchronized (SHARED) {
            TransactionalProducers pool = SHARED.computeIfAbsent(key,
                    k -> new TransactionalProducers(k, clients, prefix));
            synchronized (pool) {
                pool.users++;
            }
            return pool;
        }
    }

    /**
     * A producer with its transaction state initialised, ready for {@code beginTransaction}: an idle one, or a new
     * one in the lowest free slot, whose {@code initTransactions} fences any other producer with its id.
     *
     * @throws JMSException if the producer cannot be created or initialised (the cluster refuses transactions, or
     *                      does not answer in time)
     */
    Lease borrow() throws JMSException {
        int slot;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("The connection is closed");
            }
            if (fencedBy != null) {
                throw new JMSException(fencedBy);
            }
            Lease lease = idle.pollFirst();
            if (lease != null) {
                return lease;
            }
            slot = slots.nextClearBit(0);
            slots.set(slot);
        }
        String transactionalId = prefix + "-" + slot;
        KafkaProducer<byte[], byte[]> producer = null;
        try {
            producer = xa ? clients.newXaProducer(transactionalId) : clients.newTransactionalProducer(transactionalId);
            producer.initTransactions();
            return new Lease(slot, transactionalId, producer);
        } catch (RuntimeException e) {
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            synchronized (this) {
                slots.clear(slot);
            }
            throw JmsErrors.fromKafka("Initialising the transactional producer " + transactionalId, e);
        }
    }

    /** After a commit or an abort that left the producer usable: it waits for the next commit. */
    void giveBack(Lease lease) {
        synchronized (this) {
            if (!closed) {
                idle.addFirst(lease);
                return;
            }
        }
        lease.producer().close(Duration.ZERO);
    }

    /**
     * After a failure that leaves the producer unusable (fenced, or in an error state a transaction cannot leave):
     * it is closed and its slot is free again, so the next commit that needs one initialises a new producer there.
     */
    void discard(Lease lease) {
        try {
            lease.producer().close(Duration.ZERO);
        } catch (RuntimeException e) {
            log.debug("Closing the transactional producer {} failed: {}", lease.transactionalId(), e.toString());
        }
        synchronized (this) {
            slots.clear(lease.slot());
        }
    }

    /**
     * The lease's producer was fenced by a newer one with its transactional id: another instance of the application
     * runs with this prefix. The producer is closed, and no commit of this pool's connections goes through any more
     * (a new producer would fence the newer instance); closing them all and connecting again starts afresh.
     */
    void fenced(Lease lease) {
        discard(lease);
        synchronized (this) {
            fencedBy = "Transactions of this connection are refused: its producer " + lease.transactionalId()
                    + " was fenced by a newer one with the same id, so another instance of the application runs with "
                    + "transactionalIdPrefix '" + prefix + "'; close this instance's connections";
        }
    }

    /** A connection closed: the last one closes the idle producers (those borrowed close when given back). */
    void release() {
        if (key != null) {
            synchronized (SHARED) {
                synchronized (this) {
                    if (--users > 0) {
                        return;
                    }
                    SHARED.remove(key);
                }
            }
        }
        ArrayDeque<Lease> toClose;
        synchronized (this) {
            closed = true;
            toClose = new ArrayDeque<>(idle);
            idle.clear();
        }
        for (Lease lease : toClose) {
            try {
                lease.producer().close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.debug("Closing the transactional producer {} failed: {}", lease.transactionalId(),
                        e.toString());
            }
        }
    }

    /** A producer borrowed for one transaction, and the slot and id it holds. */
    record Lease(int slot, String transactionalId, KafkaProducer<byte[], byte[]> producer) {
    }
}
