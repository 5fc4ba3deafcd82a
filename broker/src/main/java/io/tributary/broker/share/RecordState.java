package io.tributary.broker.share;

/**
 * The state of an in-flight record of a share-partition (KIP-932), with Kafka's codes as they are persisted:
 * available to be acquired, acquired by one consumer under a time lock, acknowledged (accepted, done) or archived
 * (rejected, past the delivery limit, or a gap: done without delivery).
 */
public enum RecordState {
    AVAILABLE((byte) 0),
    ACQUIRED((byte) 1),
    ACKNOWLEDGED((byte) 2),
    ARCHIVED((byte) 4);

    public final byte code;

    RecordState(byte code) {
        this.code = code;
    }

    /** Acknowledged or archived: the record will not be delivered again. */
    public boolean isDone() {
        return this == ACKNOWLEDGED || this == ARCHIVED;
    }

    /** @throws IllegalArgumentException for a code that is no state */
    public static RecordState forCode(byte code) {
        for (RecordState state : values()) {
            if (state.code == code) {
                return state;
            }
        }
        throw new IllegalArgumentException("Unknown share record state " + code);
    }
}
