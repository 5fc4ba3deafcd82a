package io.tributary.broker.storage;

/**
 * Who is appending to a partition as its leader, which decides what the log accepts (as Kafka's append origins).
 * A follower's append of the leader's batches is a separate path and needs no origin.
 */
public enum AppendOrigin {

    /**
     * A producer through Produce: control batches (transaction markers) are refused, idempotent and transactional
     * batches are checked against the producer state (epoch, sequence, transaction).
     */
    CLIENT,

    /**
     * The broker's own coordinators: the group coordinator writing {@code __consumer_offsets} (transactional offset
     * commits included, whose batches carry no meaningful sequence), the transaction coordinator writing
     * {@code __transaction_state}, and transaction markers (control batches) written through WriteTxnMarkers.
     * Sequences are not checked; epochs are.
     */
    COORDINATOR
}
