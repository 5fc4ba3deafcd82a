package io.tributary.jms;

import java.util.List;
import java.util.Map;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The XAResource of one message endpoint of an inbound (message-driven) delivery, for a container that delivers in
 * a transaction: the resource adapter says which record it delivers ({@link #delivering}) before
 * {@code onMessage}; at {@code end} the record's next offset, with the delivering consumer's group metadata (KIP-447),
 * joins the branch, and the branch's Kafka transaction commits it, so the record counts as consumed exactly when the
 * transaction commits, together with the bean's database work. A rollback commits nothing: the adapter delivers
 * the record again. Preparing, committing and recovery are the resource manager's ({@link XaResourceManager}), as
 * for a session's {@link TributaryXAResource}.
 *
 * <p>Threads: the endpoint's delivery thread and the transaction manager's, one call at a time.
 */
public final class DeliveryXAResource implements XAResource {

    private final TributaryXAResource resource;
    /** The offset to commit in the branch being delivered; set by the delivery thread before onMessage. */
    private volatile OffsetCommitter.TransactionOffsets pending;

    DeliveryXAResource(XaResourceManager manager) {
        this.resource = new TributaryXAResource(manager, this::take);
    }

    TributaryXAResource resource() {
        return resource;
    }

    /**
     * The record at {@code offset} of {@code partition} is delivered next, in the branch the container starts for
     * it: at {@code end} its successor offset is committed in that branch.
     *
     * @param group the delivering consumer's group metadata, as of its last poll; null for a delivery without a
     *              group (a non-durable subscription), whose branch then commits no offset
     */
    public void delivering(TopicPartition partition, long offset, ConsumerGroupMetadata group) {
        pending = group == null ? null
                : new OffsetCommitter.TransactionOffsets(Map.of(partition, new OffsetAndMetadata(offset + 1)), group);
    }

    private XaWork take() {
        OffsetCommitter.TransactionOffsets offsets = pending;
        pending = null;
        return new XaWork() {
            @Override
            public List<org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]>> sends() {
                return List.of();
            }

            @Override
            public List<OffsetCommitter.TransactionOffsets> offsets() {
                return offsets == null ? List.of() : List.of(offsets);
            }

            /** Nothing to tell: the adapter learns the outcome from the container (afterDelivery). */
            @Override
            public void completed(boolean committed) {
            }
        };
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        resource.start(xid, flags);
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        resource.end(xid, flags);
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        return resource.prepare(xid);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        resource.commit(xid, onePhase);
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        resource.rollback(xid);
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return resource.recover(flag);
    }

    @Override
    public void forget(Xid xid) {
        resource.forget(xid);
    }

    @Override
    public boolean isSameRM(XAResource other) {
        return resource.isSameRM(other);
    }

    @Override
    public int getTransactionTimeout() {
        return resource.getTransactionTimeout();
    }

    @Override
    public boolean setTransactionTimeout(int seconds) {
        return resource.setTransactionTimeout(seconds);
    }
}
