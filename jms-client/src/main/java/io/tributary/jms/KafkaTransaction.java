package io.tributary.jms;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jakarta.jms.JMSException;
import jakarta.jms.TransactionRolledBackException;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transacted session's commit as one Kafka transaction, on a producer borrowed from the connection's
 * {@link TransactionalProducers}: {@code beginTransaction}, the held sends, which are awaited, the consumed offsets
 * of each group-backed consumer with its group metadata ({@code sendOffsetsToTransaction}), {@code
 * commitTransaction}. The sends and the offsets become visible together, to read_committed consumers and to the
 * groups, or not at all: a client that dies before the coordinator wrote the commit leaves a transaction that is
 * aborted, by its successor's {@code initTransactions} (same transactional id) or by the transaction timeout.
 *
 * <p>The sends are held by the session until commit rather than written as the application sends them: a Kafka
 * transaction then stays open only for the commit's round trips, not for the application's work between its first
 * send and its commit, during which an open transaction would hold back every read_committed consumer of the
 * partitions it wrote to (the last stable offset stays at its first record), and a producer is needed per commit
 * running, not per session with an open transaction.
 *
 * <p>Threads: the session's thread of control, one commit at a time.
 */
final class KafkaTransaction {

    private static final Logger log = LoggerFactory.getLogger(KafkaTransaction.class);
    private static final long SEND_TIMEOUT_MS = 30_000;

    private KafkaTransaction() {
    }

    /**
     * Commits {@code sends} and {@code offsets} in one transaction; on failure aborts it (or, when the producer can
     * no longer abort, discards the producer, and the coordinator aborts it) and throws.
     *
     * @throws TransactionRolledBackException if the transaction was aborted: a send failed, a consumer's group
     *                                        refused its offsets (it lost its partitions), the producer was fenced
     *                                        by another with its transactional id, or the cluster refuses
     *                                        transactions
     * @throws JMSException                   if no producer could be had; nothing was written
     */
    static void commit(TransactionalProducers producers, List<ProducerRecord<byte[], byte[]>> sends,
                       List<OffsetCommitter.TransactionOffsets> offsets) throws JMSException {
        TransactionalProducers.Lease lease = producers.borrow();
        KafkaProducer<byte[], byte[]> producer = lease.producer();
        try {
            producer.beginTransaction();
            List<Future<RecordMetadata>> results = new ArrayList<>(sends.size());
            for (ProducerRecord<byte[], byte[]> record : sends) {
                results.add(producer.send(record));
            }
            for (Future<RecordMetadata> result : results) {
                result.get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            for (OffsetCommitter.TransactionOffsets consumed : offsets) {
                if (consumed.group() != null) {
                    producer.sendOffsetsToTransaction(consumed.positions(), consumed.group());
                }
            }
            commitTransaction(producer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw abort(producers, lease, e);
        } catch (ExecutionException e) {
            throw abort(producers, lease, e.getCause());
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            throw abort(producers, lease, e);
        }
        producers.giveBack(lease);
    }

    /**
     * A commit whose request timed out may have been written or not; Kafka lets it be retried, and the retry learns
     * the outcome. Once: a cluster that does not answer twice fails the commit, which is then aborted.
     */
    private static void commitTransaction(KafkaProducer<byte[], byte[]> producer) {
        try {
            producer.commitTransaction();
        } catch (TimeoutException e) {
            log.debug("Committing the transaction timed out ({}); trying again", e.toString());
            producer.commitTransaction();
        }
    }

    private static TransactionRolledBackException abort(TransactionalProducers producers,
                                                        TransactionalProducers.Lease lease, Throwable cause) {
        RuntimeException abortFailure = null;
        try {
            lease.producer().abortTransaction();
        } catch (RuntimeException e) {
            // Fenced, or in a fatal error state: only a new producer can go on. The coordinator aborts the
            // transaction when the next producer with this id starts, or when the transaction times out.
            log.debug("Aborting the transaction of {} failed: {}", lease.transactionalId(), e.toString());
            abortFailure = e;
        }
        // A send that a newer producer's epoch refused fails as an abortable InvalidProducerEpochException; the
        // abort then learns that the producer is fenced.
        boolean fenced = fenced(cause) || fenced(abortFailure);
        if (fenced) {
            producers.fenced(lease);
        } else if (abortFailure == null) {
            producers.giveBack(lease);
        } else {
            producers.discard(lease);
        }
        Throwable reason = fenced && !fenced(cause) ? abortFailure : cause;
        TransactionRolledBackException e = new TransactionRolledBackException("The transaction was rolled back: "
                + why(lease, reason) + "; nothing it sent was written, and the messages it received will be "
                + "delivered again");
        e.setLinkedException(cause instanceof Exception exception ? exception : new RuntimeException(cause));
        e.initCause(cause);
        return e;
    }

    private static boolean fenced(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ProducerFencedException) {
                return true;
            }
        }
        return false;
    }

    private static String why(TransactionalProducers.Lease lease, Throwable failure) {
        Throwable cause = failure;
        // The producer reports a fencing that happened in its sender thread as a KafkaException ("in an error
        // state") caused by it.
        while (cause.getCause() != null && !(cause instanceof ProducerFencedException
                || cause instanceof InvalidProducerEpochException || cause instanceof CommitFailedException)) {
            cause = cause.getCause();
        }
        if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException) {
            return "its producer (transactional id " + lease.transactionalId() + ") was fenced by a newer one with "
                    + "the same id: another connection with this transactionalIdPrefix started, in another "
                    + "application instance (" + cause + ")";
        }
        if (cause instanceof CommitFailedException || cause instanceof IllegalGenerationException
                || cause instanceof UnknownMemberIdException || cause instanceof FencedInstanceIdException) {
            return "a consumer of the session lost its partitions to another member of its group, which refused "
                    + "the offsets (" + cause + ")";
        }
        return "committing it as Kafka transaction " + lease.transactionalId() + " failed (" + failure + ")";
    }
}
