package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionIndexTest {

    @TempDir
    Path dir;

    private static final AbortedTxn FIRST = new AbortedTxn(7, 100, 120, 121);
    private static final AbortedTxn SECOND = new AbortedTxn(8, 105, 140, 130);

    @Test
    void entriesAreWrittenInKafkasThirtyFourByteFormat() throws IOException {
        Path file = dir.resolve("00000000000000000100.txnindex");
        TransactionIndex index = TransactionIndex.open(file);
        assertFalse(Files.exists(file), "no file until the first abort");
        index.append(FIRST);
        index.append(SECOND);
        index.flush();

        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        assertEquals(2 * 34, bytes.remaining());
        assertEquals(0, bytes.getShort());
        assertEquals(7, bytes.getLong());
        assertEquals(100, bytes.getLong());
        assertEquals(120, bytes.getLong());
        assertEquals(121, bytes.getLong());
        assertEquals(List.of(FIRST, SECOND), TransactionIndex.open(file).entries());
    }

    @Test
    void replayingAnAbortAlreadyIndexedAddsNothing() throws IOException {
        TransactionIndex index = TransactionIndex.open(dir.resolve("0.txnindex"));
        index.append(FIRST);
        index.append(SECOND);
        index.append(FIRST);
        index.append(SECOND);
        assertEquals(List.of(FIRST, SECOND), index.entries());
    }

    @Test
    void truncationDropsTheEntriesWhoseMarkerIsAtOrAboveTheOffset() throws IOException {
        Path file = dir.resolve("0.txnindex");
        TransactionIndex index = TransactionIndex.open(file);
        index.append(FIRST);
        index.append(SECOND);
        index.truncateTo(140);
        assertEquals(List.of(FIRST), index.entries());
        assertEquals(34, Files.size(file));
        assertEquals(List.of(FIRST), TransactionIndex.open(file).entries());
    }

    @Test
    void aTornEntryAtTheEndIsIgnoredAndOverwritten() throws IOException {
        Path file = dir.resolve("0.txnindex");
        TransactionIndex index = TransactionIndex.open(file);
        index.append(FIRST);
        Files.write(file, new byte[] {0, 0, 0, 0, 0, 9}, StandardOpenOption.APPEND); // a crash mid-write

        TransactionIndex reopened = TransactionIndex.open(file);
        assertEquals(List.of(FIRST), reopened.entries());
        reopened.append(SECOND);
        assertEquals(2 * 34, Files.size(file));
        assertEquals(List.of(FIRST, SECOND), TransactionIndex.open(file).entries());
    }

    @Test
    void collectStopsAtTheFirstEntryWhoseLastStableOffsetReachesTheBound() throws IOException {
        TransactionIndex index = TransactionIndex.open(dir.resolve("0.txnindex"));
        index.append(FIRST);
        index.append(SECOND);
        List<AbortedTxn> found = new ArrayList<>();
        assertTrue(index.collect(0, 110, found), "FIRST's last stable offset 121 is past 110");
        assertEquals(List.of(FIRST), found);

        found.clear();
        assertFalse(index.collect(125, 200, found));
        assertEquals(List.of(SECOND), found, "FIRST ended below the fetch offset");
    }
}
