package io.tributary.broker.txn;

import java.util.concurrent.CompletableFuture;

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
    /** Completed once the current decision's Complete state is written (or the id is dropped); null if not asked. */
    private CompletableFuture<Void> completion;

    TransactionMetadata(String transactionalId, int partition, TransactionData data) {
        this.transactionalId = transactionalId;
        this.partition = partition;
        this.data = data;
    }

    TransactionData data() {
        return data;
    }

    /**
     * A future completed (on another thread) once the transaction's decision is complete, that is its Complete state
     * written, or once the id is dropped. The caller holds the monitor.
     */
    CompletableFuture<Void> completion() {
        if (completion == null || completion.isDone()) {
            completion = new CompletableFuture<>();
        }
        return completion;
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
        if (removed || data.state() == TransactionState.COMPLETE_COMMIT
                || data.state() == TransactionState.COMPLETE_ABORT) {
            signalCompletion();
        }
    }

    /** Off the monitor: the waiting EndTxn answers its client on the common pool, not under this lock. */
    private void signalCompletion() {
        if (completion != null) {
            completion.completeAsync(() -> null);
            completion = null;
        }
    }

    /** Dropped: the coordinator resigned the partition or the id expired; nothing may change it any more. */
    void remove() {
        removed = true;
        pending = null;
        pendingRemoval = false;
        signalCompletion();
    }

    boolean isRemoved() {
        return removed;
    }
}
