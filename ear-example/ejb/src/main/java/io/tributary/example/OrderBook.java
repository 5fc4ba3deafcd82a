package io.tributary.example;

import java.time.Instant;
import java.util.List;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The stored orders, in the server's default datasource (persistence unit {@code orders}, META-INF/persistence.xml):
 * the {@link OrderListener} stores each order it receives, the REST endpoint lists them.
 *
 * <p>Stateless; the container serializes calls per instance, so any thread may call it.
 */
@Stateless
public class OrderBook {

    @PersistenceContext(unitName = "orders")
    private EntityManager entities;

    /**
     * Stores the order read from {@code offset} of {@code partition}, in the caller's transaction, unless that record
     * is stored already. Returns whether it stored it.
     *
     * <p>Exactly once: the adapter commits the MDB's offset only after the MDB's transaction (this insert) has
     * committed, so a crash or a failed offset commit between the two makes it deliver the same record again, with
     * the same partition and offset. The row is then found here and the delivery succeeds without a second row. The
     * log position, not an order id, is the key because it names the record itself: it catches every redelivery
     * without the publisher minting ids (an order posted twice is two records and two orders; catching that would
     * take a client-supplied idempotency key). The unique constraint on the position (see {@link Order}) covers
     * what the look-up cannot: two deliveries of one record in flight at once (two servers during a rebalance). The
     * second insert then fails at the flush below, inside {@code onMessage}, its transaction rolls back, and its
     * redelivery finds the row.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean store(OrderLine line, int partition, long offset, Instant sentAt) {
        boolean alreadyStored = !entities.createQuery("SELECT o.id FROM StoredOrder o"
                        + " WHERE o.logPartition = :logPartition AND o.logOffset = :logOffset", Long.class)
                .setParameter("logPartition", partition)
                .setParameter("logOffset", offset)
                .getResultList().isEmpty();
        if (alreadyStored) {
            return false;
        }
        entities.persist(new Order(line, partition, offset, sentAt, Instant.now()));
        entities.flush();
        return true;
    }

    /** Every stored order, in log order (by partition, then offset). */
    public List<StoredOrder> orders() {
        return entities.createQuery("SELECT o FROM StoredOrder o ORDER BY o.logPartition, o.logOffset", Order.class)
                .getResultList().stream().map(StoredOrder::of).toList();
    }
}
