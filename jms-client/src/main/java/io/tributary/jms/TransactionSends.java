package io.tributary.jms;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.jms.JMSException;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The sends of a transacted session's current transaction: records held in send order until the session commits,
 * then sent through the connection's producer and awaited together (each for up to 30 s); dropped at rollback and
 * close. Without broker transactions the sends are not atomic: when one fails, those before it may have been written.
 *
 * <p>Threads: the session's thread of control adds and commits; {@code Session.close()} may discard from another
 * thread. The list is guarded by this object's monitor, which is not held while sending.
 */
final class TransactionSends {

    private static final long SEND_TIMEOUT_MS = 30_000;

    private final List<ProducerRecord<byte[], byte[]>> sends = new ArrayList<>();

    /** A send inside the transaction: kept until commit. */
    synchronized void add(ProducerRecord<byte[], byte[]> record) {
        sends.add(record);
    }

    /** Drops the held sends (rollback, close); returns how many there were. */
    synchronized int discard() {
        int discarded = sends.size();
        sends.clear();
        return discarded;
    }

    private synchronized List<ProducerRecord<byte[], byte[]>> takeAll() {
        List<ProducerRecord<byte[], byte[]>> taken = List.copyOf(sends);
        sends.clear();
        return taken;
    }

    /**
     * Commit: sends the held records through {@code connection}'s producer and waits until the cluster has them all.
     * They are no longer held afterwards, whether or not this succeeds.
     *
     * @throws JMSException if the producer cannot be had, or as {@link Future#get} throws for the first send that
     *                      failed or did not complete in time
     */
    void sendAll(TributaryConnection connection)
            throws InterruptedException, ExecutionException, TimeoutException, JMSException {
        List<ProducerRecord<byte[], byte[]>> records = takeAll();
        if (records.isEmpty()) {
            return;
        }
        List<Future<RecordMetadata>> results = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> record : records) {
            results.add(connection.producer().send(record));
        }
        for (Future<RecordMetadata> result : results) {
            result.get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
    }
}
