package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Sparse map from timestamp to offset in one segment, for replay by time (ListOffsets by timestamp) and time-based
 * retention.
 *
 * <p>Format of {@code <base offset>.timeindex}: a sequence of 12-byte big-endian entries, each {@code long timestamp}
 * then {@code int relativeOffset}. An entry {@code (t, o)} says that the largest timestamp among the records up to and
 * including offset {@code o} is {@code t}. Timestamps are strictly increasing, offsets never decrease. Entries are
 * written at the same interval as the offset index, and once more when the segment stops being active, so that the
 * last entry holds the segment's largest timestamp.
 *
 * <p>Threads: see {@link AbstractIndex}.
 */
final class TimeIndex extends AbstractIndex {

    static final int ENTRY_SIZE = 12;

    /** A timestamp and the offset of the record that has it (for a lower bound: an offset at or before it). */
    record TimestampOffset(long timestamp, long offset) {
    }

    TimeIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
        super(file, baseOffset, maxIndexSize, ENTRY_SIZE);
    }

    @Override
    protected long keyAt(ByteBuffer buffer, int n) {
        return buffer.getLong(n * ENTRY_SIZE);
    }

    private int relativeOffsetAt(ByteBuffer buffer, int n) {
        return buffer.getInt(n * ENTRY_SIZE + 8);
    }

    @Override
    protected boolean followsInOrder(ByteBuffer buffer, int n) {
        return keyAt(buffer, n) > keyAt(buffer, n - 1) && relativeOffsetAt(buffer, n) >= relativeOffsetAt(buffer, n - 1);
    }

    /**
     * Full one entry early: the last slot is kept for the entry {@link LogSegment} writes when the segment stops being
     * active, which must always fit, because a reopened segment takes its largest timestamp from the last entry.
     */
    @Override
    protected int reservedEntries() {
        return 1;
    }

    /**
     * A zero-filled slot would read as timestamp 0 at the base offset; no record is stamped 1970-01-01T00:00:00Z in
     * practice, so an all-zero last entry is taken for the fill of a file that was never trimmed.
     */
    @Override
    protected String lastEntryProblem(ByteBuffer entries, int last) {
        long timestamp = keyAt(entries, last);
        int relativeOffset = relativeOffsetAt(entries, last);
        if (timestamp == 0 && relativeOffset == 0) {
            return "the last entry is zero-filled, as in a file left preallocated";
        }
        if (relativeOffset < 0) {
            return "the last entry (" + timestamp + ", " + relativeOffset + ") is before the base offset";
        }
        if (last > 0 && !followsInOrder(entries, last)) {
            return "the last entry (" + timestamp + ", " + relativeOffset + ") does not follow the one before it ("
                    + keyAt(entries, last - 1) + ", " + relativeOffsetAt(entries, last - 1) + ")";
        }
        return null;
    }

    /**
     * The last entry whose timestamp is strictly below {@code timestamp}: every record up to its offset is older than
     * {@code timestamp}, so a search for the first record at or after {@code timestamp} may start after it. Returns
     * {@code (-1, baseOffset)} when no entry qualifies.
     */
    TimestampOffset lookupBefore(long timestamp) {
        lock.lock();
        try {
            ensureOpen();
            int slot = timestamp == Long.MIN_VALUE ? -1 : largestLowerBound(timestamp - 1);
            if (slot < 0) {
                return new TimestampOffset(-1L, baseOffset);
            }
            return new TimestampOffset(keyAt(buffer(), slot), baseOffset + relativeOffsetAt(buffer(), slot));
        } finally {
            lock.unlock();
        }
    }

    /** The last entry, or {@code (-1, baseOffset)} when empty. */
    TimestampOffset lastEntry() {
        lock.lock();
        try {
            int count = entries;
            if (count == 0) {
                return new TimestampOffset(-1L, baseOffset);
            }
            return new TimestampOffset(keyAt(buffer(), count - 1), baseOffset + relativeOffsetAt(buffer(), count - 1));
        } finally {
            lock.unlock();
        }
    }

    /** Adds {@code (timestamp, offset)} if the timestamp is larger than the last entry's. The appending thread only. */
    void maybeAppend(long timestamp, long offset) throws IOException {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " does not fit time index " + file()
                    + " with base offset " + baseOffset);
        }
        TimestampOffset last = lastEntry();
        if (entries > 0 && timestamp <= last.timestamp()) {
            return;
        }
        if (entries > 0 && offset < last.offset()) {
            throw new IllegalArgumentException("time index entry (" + timestamp + ", " + offset
                    + ") goes back from offset " + last.offset() + " in " + file());
        }
        appendEntry(slot -> slot.putLong(timestamp).putInt((int) relative));
    }

    /** Removes every entry for offsets at or above {@code offset}. */
    void truncateTo(long offset) {
        lock.lock();
        try {
            int keep = entries;
            while (keep > 0 && baseOffset + relativeOffsetAt(buffer(), keep - 1) >= offset) {
                keep--;
            }
            truncateToEntries(keep);
        } finally {
            lock.unlock();
        }
    }
}
