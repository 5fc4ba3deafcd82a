package io.tributary.broker.storage;

/**
 * The first offset of a partition's log written under one leader epoch. Epoch {@code epoch} owns the offsets from
 * {@code startOffset} up to the next entry's start offset, or up to the log end offset if it is the latest entry.
 * Stored as the line {@code "epoch startOffset"} of a {@code leader-epoch-checkpoint} (see {@link LeaderEpochCache}).
 *
 * @param epoch       the leader epoch, {@code >= 0}
 * @param startOffset the offset of the first record written in that epoch, {@code >= 0}
 */
public record EpochEntry(int epoch, long startOffset) {

    public EpochEntry {
        if (epoch < 0) {
            throw new IllegalArgumentException("Leader epoch must be >= 0 but was " + epoch);
        }
        if (startOffset < 0) {
            throw new IllegalArgumentException("Start offset of epoch " + epoch + " must be >= 0 but was " + startOffset);
        }
    }
}
