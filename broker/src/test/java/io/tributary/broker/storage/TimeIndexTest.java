package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tributary.broker.storage.TimeIndex.TimestampOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeIndexTest {

    private static final long BASE = 500L;
    private static final long T0 = ManualTime.DEFAULT_START_MS;
    /** Room for 8 entries of 12 bytes. */
    private static final int MAX_BYTES = 8 * TimeIndex.ENTRY_SIZE;
    private static final TimestampOffset NONE = new TimestampOffset(-1L, BASE);

    @TempDir
    Path dir;

    private TimeIndex index;

    private Path file() {
        return dir.resolve("00000000000000000500.timeindex");
    }

    private TimeIndex open() throws IOException {
        index = new TimeIndex(file(), BASE, MAX_BYTES);
        return index;
    }

    @AfterEach
    void closeIndex() {
        if (index != null) {
            index.closeWithoutTrim();
        }
    }

    /** Entries (T0 + 1000k, BASE + 10k) for k = 1..count. */
    private static void appendEntries(TimeIndex index, int count) throws IOException {
        for (int k = 1; k <= count; k++) {
            index.maybeAppend(T0 + 1000L * k, BASE + 10L * k);
        }
    }

    @Test
    void emptyIndexHasNoEntryBeforeAnyTimestamp() throws IOException {
        open();

        assertEquals(0, index.entries());
        assertEquals(NONE, index.lastEntry());
        assertEquals(NONE, index.lookupBefore(T0));
        assertEquals(NONE, index.lookupBefore(Long.MAX_VALUE));
    }

    @Test
    void lookupBeforeReturnsTheLastEntryWithAStrictlySmallerTimestamp() throws IOException {
        open();
        appendEntries(index, 4);

        assertEquals(NONE, index.lookupBefore(T0 + 1000), "equal timestamp is not before");
        assertEquals(new TimestampOffset(T0 + 1000, BASE + 10), index.lookupBefore(T0 + 1001));
        assertEquals(new TimestampOffset(T0 + 1000, BASE + 10), index.lookupBefore(T0 + 2000));
        assertEquals(new TimestampOffset(T0 + 3000, BASE + 30), index.lookupBefore(T0 + 3500));
        assertEquals(new TimestampOffset(T0 + 4000, BASE + 40), index.lookupBefore(Long.MAX_VALUE));
        assertEquals(NONE, index.lookupBefore(Long.MIN_VALUE));
        assertEquals(NONE, index.lookupBefore(0));
    }

    @Test
    void maybeAppendSkipsATimestampThatIsNotLargerThanTheLast() throws IOException {
        open();
        index.maybeAppend(T0 + 100, BASE + 5);

        index.maybeAppend(T0 + 100, BASE + 9);
        index.maybeAppend(T0 + 50, BASE + 12);

        assertEquals(1, index.entries());
        assertEquals(new TimestampOffset(T0 + 100, BASE + 5), index.lastEntry());
    }

    @Test
    void maybeAppendAcceptsTheSameOffsetWithALargerTimestampButRefusesAnOffsetGoingBack() throws IOException {
        open();
        index.maybeAppend(T0 + 100, BASE + 5);

        index.maybeAppend(T0 + 200, BASE + 5);
        assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(T0 + 300, BASE + 4));
        assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(T0 + 300, BASE - 1));

        assertEquals(new TimestampOffset(T0 + 200, BASE + 5), index.lastEntry());
    }

    @Test
    void truncateToRemovesTheEntriesAtAndAboveTheOffset() throws IOException {
        open();
        appendEntries(index, 5);

        index.truncateTo(BASE + 31);
        assertEquals(new TimestampOffset(T0 + 3000, BASE + 30), index.lastEntry());

        index.truncateTo(BASE + 30);
        assertEquals(new TimestampOffset(T0 + 2000, BASE + 20), index.lastEntry());

        index.truncateTo(BASE);
        assertEquals(NONE, index.lastEntry());
        assertEquals(0, index.entries());

        index.maybeAppend(T0 + 10, BASE + 1);
        assertEquals(new TimestampOffset(T0 + 10, BASE + 1), index.lastEntry());
    }

    @Test
    void isFullKeepsTheLastSlotForTheEntryWrittenWhenTheSegmentIsRolled() throws IOException {
        open();
        appendEntries(index, 6);
        assertFalse(index.isFull());

        index.maybeAppend(T0 + 7000, BASE + 70);
        assertTrue(index.isFull(), "7 of 8 slots used: the segment must roll now");

        index.maybeAppend(T0 + 7500, BASE + 75); // the final entry at roll or close
        assertEquals(new TimestampOffset(T0 + 7500, BASE + 75), index.lastEntry());
        assertThrows(IllegalStateException.class, () -> index.maybeAppend(T0 + 9000, BASE + 90));
    }

    @Test
    void reopenAfterTrimFindsEveryEntryAndTakesNewOnesOnceGrown() throws IOException {
        open();
        appendEntries(index, 3);
        index.close();
        assertEquals(3L * TimeIndex.ENTRY_SIZE, Files.size(file()));

        open();

        assertEquals(3, index.entries());
        assertEquals(new TimestampOffset(T0 + 2000, BASE + 20), index.lookupBefore(T0 + 2500));
        assertEquals(new TimestampOffset(T0 + 3000, BASE + 30), index.lastEntry());
        index.growToMaximum();
        index.maybeAppend(T0 + 4000, BASE + 40);
        assertEquals(new TimestampOffset(T0 + 4000, BASE + 40), index.lastEntry());
    }

    @Test
    void preallocatedFileLeftByACrashIsCorruptByItsZeroFilledLastSlot() throws IOException {
        open();
        appendEntries(index, 5);
        index.closeWithoutTrim();
        assertEquals(MAX_BYTES, Files.size(file()));

        CorruptIndexException e = assertThrows(CorruptIndexException.class, this::open);
        assertTrue(e.getMessage().contains("zero-filled"), e.getMessage());
    }

    @Test
    void preallocatedFileWithoutEntriesLeftByACrashIsCorrupt() throws IOException {
        open();
        index.closeWithoutTrim();

        assertThrows(CorruptIndexException.class, this::open, "a zero-filled slot is not an entry (timestamp 0, "
                + "base offset)");
    }

    @Test
    void lastTimestampThatGoesBackOnDiskIsCorrupt() throws IOException {
        writeEntries(new long[][] {{T0 + 10, 1}, {T0 + 30, 2}, {T0 + 20, 3}});

        CorruptIndexException e = assertThrows(CorruptIndexException.class, this::open);
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
    }

    @Test
    void lastOffsetThatGoesBackOnDiskIsCorrupt() throws IOException {
        writeEntries(new long[][] {{T0 + 10, 5}, {T0 + 30, 2}});

        assertThrows(CorruptIndexException.class, this::open);
    }

    @Test
    void fileOfPartialEntriesIsCorrupt() throws IOException {
        Files.write(file(), new byte[TimeIndex.ENTRY_SIZE * 2 + 1]);

        assertThrows(CorruptIndexException.class, this::open);
    }

    private void writeEntries(long[][] entries) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(entries.length * TimeIndex.ENTRY_SIZE);
        for (long[] entry : entries) {
            buffer.putLong(entry[0]).putInt((int) entry[1]);
        }
        Files.write(file(), buffer.array());
    }
}
