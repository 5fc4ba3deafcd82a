package io.tributary.jms;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The sends of a transacted session's current transaction: records held in send order until the session commits
 * them in one Kafka transaction ({@link KafkaTransaction}, which says why they are held rather than written at once);
 * dropped at rollback and close.
 *
 * <p>Threads: the session's thread of control adds and commits; {@code Session.close()} may discard from another
 * thread. The list is guarded by this object's monitor.
 */
final class TransactionSends {

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

    /** Commit: the held sends, in send order; they are no longer held, whether or not the commit succeeds. */
    synchronized List<ProducerRecord<byte[], byte[]>> takeAll() {
        List<ProducerRecord<byte[], byte[]>> taken = List.copyOf(sends);
        sends.clear();
        return taken;
    }
}
