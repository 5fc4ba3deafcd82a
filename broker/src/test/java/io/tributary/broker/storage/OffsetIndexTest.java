package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tributary.broker.storage.OffsetIndex.OffsetPosition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetIndexTest {

    private static final long BASE = 1_000L;
    /** Room for 16 entries of 8 bytes. */
    private static final int MAX_BYTES = 16 * OffsetIndex.ENTRY_SIZE;

    @TempDir
    Path dir;

    private OffsetIndex index;

    private Path file() {
        return dir.resolve("00000000000000001000.index");
    }

    private OffsetIndex open() throws IOException {
        index = new OffsetIndex(file(), BASE, MAX_BYTES);
        return index;
    }

    @AfterEach
    void closeIndex() {
        if (index != null) {
            index.closeWithoutTrim();
        }
    }

    /** Entries (BASE + 10k, 100k) for k = 1..count. */
    private static void appendEntries(OffsetIndex index, int count) throws IOException {
        for (int k = 1; k <= count; k++) {
            index.append(BASE + 10L * k, 100 * k);
        }
    }

    @Test
    void newIndexIsPreallocatedAndEmpty() throws IOException {
        open();

        assertEquals(0, index.entries());
        assertEquals(16, index.maxEntries());
        assertEquals(MAX_BYTES, Files.size(file()));
        assertEquals(BASE, index.lastOffset());
        assertEquals(-1, index.lastPosition());
    }

    @Test
    void lookupReturnsTheLastEntryAtOrBelowTheOffset() throws IOException {
        open();
        appendEntries(index, 5);

        assertEquals(new OffsetPosition(BASE + 10, 100), index.lookup(BASE + 10));
        assertEquals(new OffsetPosition(BASE + 10, 100), index.lookup(BASE + 19));
        assertEquals(new OffsetPosition(BASE + 20, 200), index.lookup(BASE + 20));
        assertEquals(new OffsetPosition(BASE + 30, 300), index.lookup(BASE + 35));
        assertEquals(new OffsetPosition(BASE + 50, 500), index.lookup(BASE + 50));
        assertEquals(new OffsetPosition(BASE + 50, 500), index.lookup(BASE + 1_000_000));
    }

    @Test
    void lookupBelowTheFirstEntryReturnsTheStartOfTheSegment() throws IOException {
        open();
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 7), "empty index");

        appendEntries(index, 3);

        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE));
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 9));
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE - 5), "below the base offset");
    }

    @Test
    void appendRefusesAnEntryThatDoesNotGrowInOffsetAndPosition() throws IOException {
        open();
        index.append(BASE + 10, 100);

        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 10, 200));
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 5, 200));
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 20, 100));
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE - 1, 200), "below the base offset");
        assertThrows(IllegalArgumentException.class, () -> index.append(BASE + Integer.MAX_VALUE + 1L, 200),
                "relative offset past an int");
        assertEquals(1, index.entries());
    }

    @Test
    void truncateToRemovesTheEntriesAtAndAboveTheOffset() throws IOException {
        open();
        appendEntries(index, 5);

        index.truncateTo(BASE + 35);
        assertEquals(3, index.entries());
        assertEquals(BASE + 30, index.lastOffset());

        index.truncateTo(BASE + 30);
        assertEquals(2, index.entries());
        assertEquals(new OffsetPosition(BASE + 20, 200), index.lookup(BASE + 1_000));

        index.truncateTo(BASE + 5);
        assertEquals(0, index.entries());
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 1_000));
    }

    @Test
    void truncateAboveTheLastEntryKeepsEverything() throws IOException {
        open();
        appendEntries(index, 3);

        index.truncateTo(BASE + 31);

        assertEquals(3, index.entries());
    }

    @Test
    void entriesAfterATruncationMayReuseTheRemovedOffsetsAndPositions() throws IOException {
        open();
        appendEntries(index, 5);
        index.truncateTo(BASE + 30);

        index.append(BASE + 25, 250);

        assertEquals(new OffsetPosition(BASE + 25, 250), index.lookup(BASE + 40));
        assertEquals(3, index.entries());
    }

    @Test
    void fullIndexRefusesAnotherEntry() throws IOException {
        open();
        appendEntries(index, 15);
        assertFalse(index.isFull());

        index.append(BASE + 1_000, 100_000);

        assertTrue(index.isFull());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.append(BASE + 2_000, 200_000));
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        assertEquals(new OffsetPosition(BASE + 1_000, 100_000), index.lookup(BASE + 5_000));
    }

    @Test
    void closeTrimsTheFileToItsEntries() throws IOException {
        open();
        appendEntries(index, 3);

        index.close();

        assertEquals(3L * OffsetIndex.ENTRY_SIZE, Files.size(file()));
        index.close(); // idempotent
    }

    @Test
    void reopenAfterTrimCountsTheEntriesByTheFileLengthAndTakesNewOnesOnceGrown() throws IOException {
        open();
        appendEntries(index, 4);
        index.trimToValidSize();
        index.close();

        open();

        assertEquals(4, index.entries());
        assertEquals(new OffsetPosition(BASE + 30, 300), index.lookup(BASE + 33));
        assertEquals(4, index.maxEntries(), "mapped at its length: the index of a segment that is not active is read");
        assertEquals(4L * OffsetIndex.ENTRY_SIZE, Files.size(file()));
        index.growToMaximum();
        assertEquals(16, index.maxEntries(), "grown back to its maximum size when its segment becomes active");
        index.append(BASE + 50, 500);
        assertEquals(new OffsetPosition(BASE + 50, 500), index.lookup(BASE + 99));
    }

    @Test
    void preallocatedFileLeftByACrashIsCorruptByItsZeroFilledLastSlot() throws IOException {
        open();
        appendEntries(index, 6);
        index.flush();
        index.closeWithoutTrim(); // a crash: the file keeps its zero-filled tail
        assertEquals(MAX_BYTES, Files.size(file()));

        // Its length says 16 entries; the last is zero-filled. Only the last two are read, never the fill before
        // them: the segment rebuilds such an index from its log (LogSegmentTest), and after an unclean shutdown the
        // index of the segment that was active is not opened at all (PartitionLogTest).
        CorruptIndexException e = assertThrows(CorruptIndexException.class, this::open);
        assertTrue(e.getMessage().contains("zero-filled"), e.getMessage());
    }

    @Test
    void preallocatedFileWithoutEntriesLeftByACrashIsCorrupt() throws IOException {
        open();
        index.closeWithoutTrim();

        assertThrows(CorruptIndexException.class, this::open);
    }

    @Test
    void emptyTrimmedFileHasNoEntries() throws IOException {
        open();
        index.close();
        assertEquals(0, Files.size(file()));

        open();

        assertEquals(0, index.entries());
        assertEquals(-1, index.lastPosition());
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 3));
    }

    @Test
    void lastEntryOutOfOrderOnDiskIsCorrupt() throws IOException {
        writeEntries(new int[][] {{10, 100}, {20, 200}, {30, 300}, {25, 400}});

        CorruptIndexException e = assertThrows(CorruptIndexException.class, this::open);
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
    }

    @Test
    void lastEntryWhosePositionGoesBackOnDiskIsCorrupt() throws IOException {
        writeEntries(new int[][] {{10, 100}, {20, 50}});

        assertThrows(CorruptIndexException.class, this::open);
    }

    @Test
    void lastEntryAtTheBaseOffsetOrPositionZeroIsCorrupt() throws IOException {
        writeEntries(new int[][] {{0, 100}});
        assertThrows(CorruptIndexException.class, this::open, "the first batch is never indexed");

        writeEntries(new int[][] {{10, 0}});
        assertThrows(CorruptIndexException.class, this::open);
    }

    /**
     * This test once required a zero-filled entry before the last to be refused on open. Finding it means reading
     * every entry, the page-by-page read this index no longer does (a preallocated file cost 10 MiB of page cache,
     * and a SIGBUS on a full tmpfs). It is harmless where it can still occur: in a trimmed file (flushed before the
     * recovery point passed its segment, so only a damaged disk leaves one) such an entry only sends lookups to the
     * start of the segment, since a lookup never returns an entry whose key is above the target. The crash-left
     * shape, a zero fill at the end of a preallocated file, is refused by the last-entry check (above), and the index
     * of the segment active at a crash is rebuilt from the log without being read (PartitionLogTest).
     */
    @Test
    void zeroFilledEntryBeforeTheLastOnlySendsLookupsToTheStartOfTheSegment() throws IOException {
        writeEntries(new int[][] {{10, 100}, {0, 0}, {30, 300}});

        open();

        assertEquals(3, index.entries());
        assertEquals(new OffsetPosition(BASE, 0), index.lookup(BASE + 20), "a wider scan, never a later start");
        assertEquals(new OffsetPosition(BASE + 30, 300), index.lookup(BASE + 35));
        for (long offset = BASE; offset <= BASE + 40; offset++) {
            assertTrue(index.lookup(offset).offset() <= Math.max(BASE, offset), "lookup of " + offset);
        }
    }

    @Test
    void fileOfPartialEntriesIsCorrupt() throws IOException {
        Files.write(file(), new byte[OffsetIndex.ENTRY_SIZE + 3]);

        assertThrows(CorruptIndexException.class, this::open);
    }

    @Test
    void closedIndexRefusesLookupsAndAppends() throws IOException {
        open();
        index.close();

        assertThrows(IllegalStateException.class, () -> index.lookup(BASE));
        assertThrows(IllegalStateException.class, () -> index.append(BASE + 1, 1));
    }

    @Test
    void deleteIfExistsRemovesTheFileAndMayBeRepeated() throws IOException {
        open();
        appendEntries(index, 2);

        index.deleteIfExists();
        index.deleteIfExists();

        assertFalse(Files.exists(file()));
    }

    private void writeEntries(int[][] entries) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(entries.length * OffsetIndex.ENTRY_SIZE);
        for (int[] entry : entries) {
            buffer.putInt(entry[0]).putInt(entry[1]);
        }
        Files.write(file(), buffer.array());
    }
}
