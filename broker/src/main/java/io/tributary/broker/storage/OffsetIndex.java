package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Sparse map from offset to byte position in a segment's {@code .log} file, so that a read from any offset scans at
 * most {@code index.interval.bytes} of the log.
 *
 * <p>Format of {@code <base offset>.index}: a sequence of 8-byte big-endian entries, each {@code int relativeOffset}
 * (offset minus the segment's base offset) then {@code int position} (the byte position of the batch that contains
 * that offset), both strictly increasing. One entry every 4 KiB of log: a 1 GiB segment needs 2 MiB of index, which
 * stays in the page cache.
 *
 * <p>Threads: see {@link AbstractIndex}.
 */
final class OffsetIndex extends AbstractIndex {

    static final int ENTRY_SIZE = 8;

    /** An offset and the position of the batch holding it (or of an earlier batch, for a lower bound). */
    record OffsetPosition(long offset, int position) {
    }

    OffsetIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
        super(file, baseOffset, maxIndexSize, ENTRY_SIZE);
    }

    @Override
    protected long keyAt(ByteBuffer buffer, int n) {
        return buffer.getInt(n * ENTRY_SIZE);
    }

    private int positionAt(ByteBuffer buffer, int n) {
        return buffer.getInt(n * ENTRY_SIZE + 4);
    }

    @Override
    protected boolean followsInOrder(ByteBuffer buffer, int n) {
        return keyAt(buffer, n) > keyAt(buffer, n - 1) && positionAt(buffer, n) > positionAt(buffer, n - 1);
    }

    /**
     * The log never indexes a segment's first batch (an entry is written once {@code index.interval.bytes} have
     * passed), so every entry is after the base offset and position 0; a zero-filled slot is neither.
     */
    @Override
    protected String lastEntryProblem(ByteBuffer entries, int last) {
        int relativeOffset = (int) keyAt(entries, last);
        int position = positionAt(entries, last);
        if (relativeOffset == 0 && position == 0) {
            return "the last entry is zero-filled, as in a file left preallocated";
        }
        if (relativeOffset <= 0 || position <= 0) {
            return "the last entry (" + relativeOffset + ", " + position + ") is not after the segment's first batch";
        }
        if (last > 0 && !followsInOrder(entries, last)) {
            return "the last entry (" + relativeOffset + ", " + position + ") does not follow the one before it ("
                    + keyAt(entries, last - 1) + ", " + positionAt(entries, last - 1) + ")";
        }
        return null;
    }

    /** The last indexed offset at or below {@code offset}, or the segment start if none is. */
    OffsetPosition lookup(long offset) {
        lock.lock();
        try {
            ensureOpen();
            int slot = largestLowerBound(offset - baseOffset);
            if (slot < 0) {
                return new OffsetPosition(baseOffset, 0);
            }
            return new OffsetPosition(baseOffset + keyAt(buffer(), slot), positionAt(buffer(), slot));
        } finally {
            lock.unlock();
        }
    }

    /** The largest indexed offset, or the base offset when empty. */
    long lastOffset() {
        lock.lock();
        try {
            int count = entries;
            return count == 0 ? baseOffset : baseOffset + keyAt(buffer(), count - 1);
        } finally {
            lock.unlock();
        }
    }

    /** The position of the last entry, or -1 when empty. */
    int lastPosition() {
        lock.lock();
        try {
            int count = entries;
            return count == 0 ? -1 : positionAt(buffer(), count - 1);
        } finally {
            lock.unlock();
        }
    }

    /** Adds an entry; offsets and positions must grow. The appending thread only. */
    void append(long offset, int position) throws IOException {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " does not fit index " + file()
                    + " with base offset " + baseOffset);
        }
        if (entries > 0 && (offset <= lastOffset() || position <= lastPosition())) {
            throw new IllegalArgumentException("index entry (" + offset + ", " + position + ") is not after the last ("
                    + lastOffset() + ", " + lastPosition() + ") in " + file());
        }
        appendEntry(slot -> slot.putInt((int) relative).putInt(position));
    }

    /** Removes every entry for offsets at or above {@code offset}. */
    void truncateTo(long offset) {
        lock.lock();
        try {
            int slot = largestLowerBound(offset - baseOffset);
            // Keep entries strictly below the offset.
            int keep = slot < 0 ? 0 : (baseOffset + keyAt(buffer(), slot) == offset ? slot : slot + 1);
            truncateToEntries(keep);
        } finally {
            lock.unlock();
        }
    }
}
