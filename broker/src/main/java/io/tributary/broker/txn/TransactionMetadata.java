package io.tributary.broker.txn;

/**
 * One transactional id held by its coordinator: the current value and, while a change is being written to
 * {@code __transaction_state}, that change. At most one change is in flight at a time; requests arriving meanwhile
 * are answered CONCURRENT_TRANSACTIONS (as in Kafka), so the log and memory never disagree about the order of
 * changes.
 *
 * <p>Threads: every field is guarded by this object's monitor; request-handler threads and the coordinator's thread
 * take it.
 */
final class TransactionMetadata {

    final String transactionalId;
    /** The {@code __transaction_state} partition holding the id. */
    final int partition;

    private TransactionData data;
    private TransactionData pending;
    private boolean pendingRemoval;
    private boolean removed;

    TransactionMetadata(String transactionalId, int partition, TransactionData data) {
        this.transactionalId = transactionalId;
        this.partition = partition;
        this.data = data;
    }

    TransactionData data() {
        return data;
    }

    boolean hasPending() {
        return pending != null || pendingRemoval;
    }

    /** Starts writing {@code next}; the caller has checked that nothing is pending. */
    void begin(TransactionData next) {
        pending = next;
    }

    /** Starts writing the tombstone. */
    void beginRemoval() {
        pendingRemoval = true;
    }

    /** Whether {@code next} is still the change in flight (not dropped by a resignation meanwhile). */
    boolean isPending(TransactionData next) {
        return next == null ? pendingRemoval : pending == next;
    }

    /** The write of the pending change ended: applied when it succeeded, forgotten otherwise. */
    void finish(boolean succeeded) {
        if (succeeded && pending != null) {
            data = pending;
        }
        if (succeeded && pendingRemoval) {
            removed = true;
        }
        pending = null;
        pendingRemoval = false;
    }

    /** Dropped: the coordinator resigned the partition or the id expired; nothing may change it any more. */
    void remove() {
        removed = true;
        pending = null;
        pendingRemoval = false;
    }

    boolean isRemoved() {
        return removed;
    }
}
