package io.tributary.jms;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.jms.JMSException;
import jakarta.jms.Session;
import jakarta.jms.TransactionRolledBackException;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What a session's mode does to its consumers' acknowledgements (Jakarta Messaging 3.1 §6.2). AUTO commits a
 * consumer's position after each delivery without waiting, and waits for that commit before any consumer of the
 * session hands over its next message (so only the last message handed over can come again after a crash,
 * §6.2.10); DUPS_OK commits in batches without waiting; CLIENT commits everything the session delivered when a
 * message is acknowledged; a transacted session holds its sends ({@link TransactionSends}) and at commit writes them
 * and its consumers' positions in one Kafka transaction ({@link KafkaTransaction}), and at rollback drops the sends
 * and redelivers. The session checks that a
 * call is allowed in its mode; this class does what the call means.
 *
 * <p>Receivers of share-group queues acknowledge per message instead of committing a position: AUTO accepts each
 * delivery before the next (not pipelined), CLIENT accepts what the session delivered, and a transacted commit
 * accepts the share receivers' deliveries after its sends are written. KIP-932 acknowledgements cannot join a Kafka
 * transaction, so consume-and-send on a share-group queue is at least once, not atomic: a crash between the
 * transaction's commit and the acceptance delivers the messages again.
 *
 * <p>Threads: the session's thread of control (the application's thread, or the delivery thread while a listener
 * runs, one at a time, §6.2); the held sends are thread-safe, for {@code Session.close()} from another thread.
 */
final class SessionAcknowledgement {

    private static final long SEND_TIMEOUT_MS = 30_000;

    private final int mode;
    private final TributaryConnection connection;
    /** The session's live consumer list (thread-safe). */
    private final List<TributaryMessageConsumer> consumers;
    /** Sends of the current transaction, written at commit. */
    private final TransactionSends transactionSends = new TransactionSends();
    /**
     * AUTO_ACKNOWLEDGE: the consumer whose commit of the last delivery may still be in flight, or null. Written by
     * the thread delivering (the application's or the delivery thread, one at a time, §6.2); volatile for close.
     */
    private volatile TributaryMessageConsumer pipelinedAcknowledgement;

    SessionAcknowledgement(int mode, TributaryConnection connection, List<TributaryMessageConsumer> consumers) {
        this.mode = mode;
        this.connection = connection;
        this.consumers = consumers;
    }

    /** A send inside a transaction: kept until commit. */
    void addTransactionSend(ProducerRecord<byte[], byte[]> record) {
        transactionSends.add(record);
    }

    /** Drops the transaction's sends (at close); returns how many there were. */
    int discardTransactionSends() {
        return transactionSends.discard();
    }

    /**
     * A transacted session's commit: the held sends and the offsets of what its consumers delivered in one Kafka
     * transaction ({@link KafkaTransaction}), all visible at once or not at all. A commit that is a single write is
     * made without a transaction, as that write is all or nothing by itself ({@link CommitKind}): the offsets of one group-backed consumer
     * and no send (one offset commit), or one send and no group offsets (one record through the connection's
     * idempotent producer). That is one round trip instead of a transaction's five or so, and what a resource
     * adapter's connection does outside a container transaction, where it commits after every send or receive; it
     * also lets a session that only consumes, or sends one message at a time, work on a cluster without
     * transactions. On failure the consumption is rolled back (the messages come again, §6.2.7) and the sends are
     * dropped.
     *
     * @throws TransactionRolledBackException if the transaction was not committed
     */
    void commit() throws JMSException {
        List<ProducerRecord<byte[], byte[]>> sends = transactionSends.takeAll();
        List<TributaryMessageConsumer> delivered = new ArrayList<>();
        List<OffsetCommitter.TransactionOffsets> offsets = new ArrayList<>();
        int groupCommits = 0;
        try {
            for (TributaryMessageConsumer consumer : consumers) {
                OffsetCommitter.TransactionOffsets consumed = consumer.transactionOffsets();
                if (consumed != null) {
                    delivered.add(consumer);
                    offsets.add(consumed);
                    groupCommits += consumed.group() == null ? 0 : 1;
                }
            }
        } catch (JMSException e) {
            throw rolledBack(e);
        }
        switch (CommitKind.of(sends.size(), groupCommits)) {
            case OFFSETS -> commitOffsets();
            case SINGLE_SEND -> {
                sendAlone(sends.get(0));
                acknowledgeAll(); // consumers without a group: only marked acknowledged
            }
            case TRANSACTION -> {
                commitInTransaction(sends, delivered, offsets);
                acceptSharedDeliveries();
            }
        }
    }

    /**
     * After a transaction committed: the share receivers' deliveries are accepted. A failure here cannot undo the
     * transaction; the messages not accepted are delivered again (at least once), which the exception says.
     */
    private void acceptSharedDeliveries() throws JMSException {
        for (TributaryMessageConsumer consumer : consumers) {
            if (consumer.isShareMember()) {
                try {
                    consumer.acceptSharedDeliveries();
                } catch (JMSException e) {
                    JMSException failed = new JMSException("The transaction committed, but acknowledging the "
                            + "share-group messages it consumed failed; they will be delivered again: "
                            + e.getMessage());
                    failed.setLinkedException(e);
                    failed.initCause(e);
                    throw failed;
                }
            }
        }
    }

    private void commitOffsets() throws JMSException {
        try {
            acknowledgeAll();
        } catch (JMSException e) {
            throw rolledBack(e);
        }
    }

    private void commitInTransaction(List<ProducerRecord<byte[], byte[]>> sends,
                                     List<TributaryMessageConsumer> delivered,
                                     List<OffsetCommitter.TransactionOffsets> offsets) throws JMSException {
        try {
            KafkaTransaction.commit(connection.transactionalProducers(), sends, offsets);
        } catch (TransactionRolledBackException e) {
            redeliverAll();
            throw e;
        } catch (JMSException e) {
            throw rolledBack(e);
        }
        for (int i = 0; i < delivered.size(); i++) {
            delivered.get(i).transactionCommitted(offsets.get(i));
        }
    }

    /** The one send of a commit, through the connection's idempotent producer; awaited. */
    private void sendAlone(ProducerRecord<byte[], byte[]> record) throws JMSException {
        try {
            connection.producer().send(record).get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw rolledBack(JmsErrors.fromKafka("Sending to " + record.topic(), e));
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw rolledBack(JmsErrors.fromKafka("Sending to " + record.topic(), e));
        }
    }

    private TransactionRolledBackException rolledBack(JMSException cause) throws JMSException {
        redeliverAll();
        TransactionRolledBackException e = new TransactionRolledBackException("The transaction was rolled back: "
                + cause.getMessage());
        e.setLinkedException(cause);
        e.initCause(cause);
        return e;
    }

    /**
     * XA, at the end of the session's association with a branch: its held sends and its consumers' delivered
     * positions, taken out of the session for the branch ({@link XaResourceManager}). Nothing counts as
     * acknowledged until {@link #xaCompleted}.
     */
    SessionWork takeXaWork() throws JMSException {
        for (TributaryMessageConsumer consumer : consumers) {
            if (consumer.hasSharedDeliveries()) {
                // KIP-932 acknowledgements cannot join a Kafka transaction, so they cannot be prepared.
                throw new JMSException("A share-group member (a queue receiver or a shared subscription's consumer) "
                        + "cannot consume in an XA transaction: its acknowledgements cannot be part of it; use "
                        + "queueMode=group and subscriptionMode=group for this connection factory");
            }
        }
        List<ProducerRecord<byte[], byte[]>> sends = transactionSends.takeAll();
        List<TributaryMessageConsumer> delivered = new ArrayList<>();
        List<OffsetCommitter.TransactionOffsets> offsets = new ArrayList<>();
        for (TributaryMessageConsumer consumer : consumers) {
            OffsetCommitter.TransactionOffsets consumed = consumer.transactionOffsets();
            if (consumed != null) {
                delivered.add(consumer);
                offsets.add(consumed);
            }
        }
        return new SessionWork(this, sends, delivered, offsets);
    }

    /** XA: the branch that holds {@code work} committed (its deliveries are acknowledged) or rolled back. */
    void xaCompleted(SessionWork work, boolean committed) throws JMSException {
        for (int i = 0; i < work.delivered().size(); i++) {
            TributaryMessageConsumer consumer = work.delivered().get(i);
            if (committed) {
                consumer.transactionCommitted(work.offsets().get(i));
            } else {
                consumer.redeliverUnacknowledged();
            }
        }
    }

    /** One session's part of an XA branch: its sends, and what its consumers delivered, with their offsets. */
    record SessionWork(SessionAcknowledgement session, List<ProducerRecord<byte[], byte[]>> sends,
                       List<TributaryMessageConsumer> delivered, List<OffsetCommitter.TransactionOffsets> offsets)
            implements XaWork {

        @Override
        public void completed(boolean committed) throws JMSException {
            session.xaCompleted(this, committed);
        }
    }

    /** A transacted session's rollback: drops the sends and redelivers what was consumed. */
    void rollback() throws JMSException {
        transactionSends.discard();
        redeliverAll();
    }

    /** Every consumer goes back to its first unacknowledged message (recover, rollback). */
    void redeliverAll() throws JMSException {
        for (TributaryMessageConsumer consumer : consumers) {
            consumer.redeliverUnacknowledged();
        }
    }

    /** {@code Message.acknowledge()}: in CLIENT_ACKNOWLEDGE mode, every message this session delivered. */
    void acknowledgeFromMessage() throws JMSException {
        if (mode == Session.CLIENT_ACKNOWLEDGE) {
            acknowledgeAll();
        }
    }

    private void acknowledgeAll() throws JMSException {
        for (TributaryMessageConsumer consumer : consumers) {
            consumer.acknowledgeDelivered(true);
        }
    }

    /**
     * After a delivery: AUTO sends the commit of the consumer's position and returns; the commit must be complete
     * before the session hands over its next message ({@link #awaitPipelinedAcknowledgement()}), so a crash can
     * redeliver at most the message being processed. DUPS_OK commits lazily, in batches, without waiting.
     */
    void afterDelivery(TributaryMessageConsumer consumer) throws JMSException {
        if (mode == Session.AUTO_ACKNOWLEDGE) {
            if (consumer.acknowledgePipelined()) {
                pipelinedAcknowledgement = consumer;
            }
        } else if (mode == Session.DUPS_OK_ACKNOWLEDGE) {
            consumer.acknowledgeLazily();
        }
    }

    /**
     * Before any consumer of this session hands over a message: waits for the AUTO commit of the previous
     * delivery, which may belong to another consumer of the session. Its failure is thrown here, to the receive
     * call or (through the connection's ExceptionListener) from the delivery thread.
     */
    void awaitPipelinedAcknowledgement() throws JMSException {
        TributaryMessageConsumer consumer = pipelinedAcknowledgement;
        if (consumer != null) {
            pipelinedAcknowledgement = null;
            consumer.awaitPipelinedCommit();
        }
    }
}
