package io.tributary.broker.txn;

import java.util.Optional;

/**
 * The state of a transactional id at its coordinator (KIP-98), with the id stored in {@code __transaction_state}
 * ({@link TransactionLogFormat}) and the name DescribeTransactions and ListTransactions use.
 *
 * <pre>
 * Empty ──AddPartitions──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *                             │  └──EndTxn(abort), timeout, fencing──▶ PrepareAbort ──markers──▶ CompleteAbort
 * Complete* ──AddPartitions──▶ Ongoing;  Empty / Complete* ──InitProducerId──▶ Empty (next epoch)
 * Empty / Complete* idle past transactional.id.expiration.ms ──▶ Dead (tombstoned)
 * </pre>
 * {@code PrepareEpochFence} is Kafka's transient state while an InitProducerId fences the producer of an ongoing
 * transaction; this coordinator goes straight to PrepareAbort with the bumped epoch and never writes it, but reads it.
 */
public enum TransactionState {
    EMPTY((byte) 0, "Empty"),
    ONGOING((byte) 1, "Ongoing"),
    PREPARE_COMMIT((byte) 2, "PrepareCommit"),
    PREPARE_ABORT((byte) 3, "PrepareAbort"),
    COMPLETE_COMMIT((byte) 4, "CompleteCommit"),
    COMPLETE_ABORT((byte) 5, "CompleteAbort"),
    DEAD((byte) 6, "Dead"),
    PREPARE_EPOCH_FENCE((byte) 7, "PrepareEpochFence");

    private final byte id;
    private final String wireName;

    TransactionState(byte id, String wireName) {
        this.id = id;
        this.wireName = wireName;
    }

    /** The {@code transaction_status} of the log value. */
    public byte id() {
        return id;
    }

    /** The name in DescribeTransactions, ListTransactions and its state filters. */
    public String wireName() {
        return wireName;
    }

    static Optional<TransactionState> fromId(byte id) {
        for (TransactionState state : values()) {
            if (state.id == id) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }

    public static Optional<TransactionState> fromWireName(String name) {
        for (TransactionState state : values()) {
            if (state.wireName.equals(name)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }

    /** Whether markers are (to be) written: the outcome is decided but not yet on every partition. */
    boolean isPreparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** Whether no transaction is open: a new one may begin, the producer may re-initialise. */
    boolean isIdle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }
}
