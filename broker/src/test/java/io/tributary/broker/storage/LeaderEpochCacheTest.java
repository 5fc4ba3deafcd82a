package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tributary.broker.storage.LeaderEpochCache.EpochEndOffset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderEpochCacheTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final long LOG_END_OFFSET = 400;

    @TempDir
    Path dir;

    private Path file;
    private LeaderEpochCache cache;

    @BeforeEach
    void setUp() throws IOException {
        file = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        cache = new LeaderEpochCache(TP, file);
    }

    private static EpochEntry e(int epoch, long startOffset) {
        return new EpochEntry(epoch, startOffset);
    }

    /** Epochs 1, 3 and 5, as after leaders in epochs 2 and 4 were elected but wrote nothing. */
    private void assignEpochsOneThreeFive() throws IOException {
        cache.assign(1, 10);
        cache.assign(3, 100);
        cache.assign(5, 250);
    }

    private List<EpochEntry> reloaded() throws IOException {
        return new LeaderEpochCache(TP, file).entries();
    }

    /** Deleting the file makes any later write visible: the file exists again only if something was written. */
    private void forgetCheckpointFile() throws IOException {
        Files.delete(file);
    }

    @Test
    void cacheWithoutCheckpointFileStartsEmptyAndWritesNothing() {
        assertEquals(List.of(), cache.entries());
        assertEquals(OptionalInt.empty(), cache.latestEpoch());
        assertEquals(OptionalInt.empty(), cache.earliestEpoch());
        assertEquals(Optional.empty(), cache.latestEntry());
        assertFalse(Files.exists(file));
    }

    @Test
    void emptyCacheCannotTellWhereAnyEpochEnded() {
        assertEquals(EpochEndOffset.UNDEFINED, cache.endOffsetFor(0, 0));
        assertEquals(EpochEndOffset.UNDEFINED, cache.endOffsetFor(5, 100));
        assertEquals(new EpochEndOffset(-1, -1L), EpochEndOffset.UNDEFINED);
    }

    @ParameterizedTest(name = "epoch {0} ended at ({1}, {2}): {3}")
    @CsvSource(delimiter = '|', textBlock = """
             0 |  0 |  10 | older than every entry: at most where the earliest entry starts
             1 |  1 | 100 | oldest entry: where the next entry starts
             2 |  1 | 100 | gap: the epoch below it, up to where the next entry starts
             3 |  3 | 250 | middle entry: where the next entry starts
             4 |  3 | 250 | gap before the latest: epoch 3, up to the start of epoch 5
             5 |  5 | 400 | latest epoch: still open, so the log end offset
             6 | -1 |  -1 | future epoch: unknown here
            -1 | -1 |  -1 | no epoch in the request (UNDEFINED_EPOCH): unknown
            """)
    void endOffsetForAnswersLikeOffsetForLeaderEpoch(int requested, int epoch, long endOffset, String why)
            throws IOException {
        assignEpochsOneThreeFive();

        assertEquals(new EpochEndOffset(epoch, endOffset), cache.endOffsetFor(requested, LOG_END_OFFSET), why);
    }

    @Test
    void assignAppendsEachNewEpochAndPersistsIt() throws IOException {
        assignEpochsOneThreeFive();

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 250)), cache.entries());
        assertEquals("0\n3\n1 10\n3 100\n5 250\n", Files.readString(file, UTF_8));
    }

    @Test
    void accessorsReportTheEarliestAndLatestEpochs() throws IOException {
        assignEpochsOneThreeFive();

        assertEquals(OptionalInt.of(1), cache.earliestEpoch());
        assertEquals(OptionalInt.of(5), cache.latestEpoch());
        assertEquals(Optional.of(e(5, 250)), cache.latestEntry());
    }

    @Test
    void assignOfTheLatestEpochAtALaterOffsetChangesNothing() throws IOException {
        assignEpochsOneThreeFive();
        forgetCheckpointFile();

        cache.assign(5, 250);
        cache.assign(5, 300);

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 250)), cache.entries());
        assertFalse(Files.exists(file));
    }

    @Test
    void assignOfTheLatestEpochAtAnEarlierOffsetMovesItsStartBack() throws IOException {
        assignEpochsOneThreeFive();

        cache.assign(5, 200);

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 200)), cache.entries());
        assertEquals(cache.entries(), reloaded());
    }

    @Test
    void assignOfAnOlderEpochIsIgnored() throws IOException {
        assignEpochsOneThreeFive();
        forgetCheckpointFile();

        cache.assign(3, 300);
        cache.assign(4, 300);
        cache.assign(0, 0);

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 250)), cache.entries());
        assertFalse(Files.exists(file));
    }

    @Test
    void assignOfANewerEpochStartingEarlierRemovesEntriesStartingAtOrAfterIt() throws IOException {
        assignEpochsOneThreeFive();

        cache.assign(6, 100);

        assertEquals(List.of(e(1, 10), e(6, 100)), cache.entries());
        assertEquals(cache.entries(), reloaded());
    }

    @Test
    void assignOfANewerEpochAtTheSameOffsetReplacesAnEpochThatWroteNothing() throws IOException {
        assignEpochsOneThreeFive();

        cache.assign(6, 250);

        assertEquals(List.of(e(1, 10), e(3, 100), e(6, 250)), cache.entries());
        assertEquals(new EpochEndOffset(3, 250), cache.endOffsetFor(5, LOG_END_OFFSET));
    }

    @Test
    void assignRejectsNegativeEpochOrOffset() {
        assertThrows(IllegalArgumentException.class, () -> cache.assign(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> cache.assign(0, -1));
        assertEquals(List.of(), cache.entries());
    }

    @Test
    void entriesIsAnImmutableSnapshot() throws IOException {
        cache.assign(1, 10);
        List<EpochEntry> snapshot = cache.entries();

        cache.assign(2, 20);

        assertEquals(List.of(e(1, 10)), snapshot);
        assertThrows(UnsupportedOperationException.class, () -> snapshot.add(e(9, 90)));
    }

    @Test
    void truncateFromEndRemovesEpochsStartingAtOrAfterTheNewEnd() throws IOException {
        assignEpochsOneThreeFive();

        cache.truncateFromEnd(250);

        assertEquals(List.of(e(1, 10), e(3, 100)), cache.entries());
        assertEquals(new EpochEndOffset(3, 250), cache.endOffsetFor(3, 250));
        assertEquals(cache.entries(), reloaded());
    }

    @Test
    void truncateFromEndInsideTheLatestEpochChangesNothing() throws IOException {
        assignEpochsOneThreeFive();
        forgetCheckpointFile();

        cache.truncateFromEnd(251);

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 250)), cache.entries());
        assertFalse(Files.exists(file));
    }

    @Test
    void truncateFromEndBeforeEveryEpochEmptiesTheCache() throws IOException {
        assignEpochsOneThreeFive();

        cache.truncateFromEnd(10);

        assertEquals(List.of(), cache.entries());
        assertEquals(List.of(), reloaded());
    }

    @Test
    void truncateFromEndRejectsNegativeOffset() {
        assertThrows(IllegalArgumentException.class, () -> cache.truncateFromEnd(-1));
    }

    @Test
    void truncateFromStartInsideAnEpochMovesThatEpochsStartUpAndDropsOlderEpochs() throws IOException {
        assignEpochsOneThreeFive();

        cache.truncateFromStart(150);

        assertEquals(List.of(e(3, 150), e(5, 250)), cache.entries());
        assertEquals(cache.entries(), reloaded());
    }

    @Test
    void truncateFromStartOnAnEpochBoundaryDropsTheEpochBeforeIt() throws IOException {
        assignEpochsOneThreeFive();

        cache.truncateFromStart(250);

        assertEquals(List.of(e(5, 250)), cache.entries());
    }

    @Test
    void truncateFromStartAtOrBeforeTheEarliestEpochChangesNothing() throws IOException {
        assignEpochsOneThreeFive();
        forgetCheckpointFile();

        cache.truncateFromStart(0);
        cache.truncateFromStart(10);

        assertEquals(List.of(e(1, 10), e(3, 100), e(5, 250)), cache.entries());
        assertFalse(Files.exists(file));
    }

    @Test
    void truncateFromStartPastEveryEpochKeepsTheLatestEpochAtTheNewStart() throws IOException {
        assignEpochsOneThreeFive();

        cache.truncateFromStart(1000);
        assertEquals(List.of(e(5, 1000)), cache.entries());

        // A leader elected now writes its first batch at the log start; epoch 5 had no records left, so it goes.
        cache.assign(6, 1000);
        assertEquals(List.of(e(6, 1000)), cache.entries());
    }

    @Test
    void truncateFromStartRejectsNegativeOffset() {
        assertThrows(IllegalArgumentException.class, () -> cache.truncateFromStart(-1));
    }

    @Test
    void clearAndFlushEmptiesTheCacheAndItsCheckpoint() throws IOException {
        assignEpochsOneThreeFive();

        cache.clearAndFlush();

        assertEquals(List.of(), cache.entries());
        assertEquals("0\n0\n", Files.readString(file, UTF_8));
        assertEquals(EpochEndOffset.UNDEFINED, cache.endOffsetFor(5, LOG_END_OFFSET));

        cache.assign(7, 0);
        assertEquals(List.of(e(7, 0)), reloaded());
    }

    @Test
    void everyChangeSurvivesAReload() throws IOException {
        cache.assign(0, 0);
        assertEquals(cache.entries(), reloaded());
        cache.assign(2, 40);
        assertEquals(cache.entries(), reloaded());
        cache.assign(4, 90);
        cache.truncateFromEnd(60);
        assertEquals(List.of(e(0, 0), e(2, 40)), reloaded());
        cache.assign(5, 60);
        cache.truncateFromStart(50);
        assertEquals(List.of(e(2, 50), e(5, 60)), reloaded());

        LeaderEpochCache reopened = new LeaderEpochCache(TP, file);
        assertEquals(new EpochEndOffset(2, 60), reopened.endOffsetFor(3, 100));
    }

    @Test
    void loadRejectsACheckpointWhoseEpochsDoNotIncrease() throws IOException {
        Files.writeString(file, "0\n2\n3 100\n1 200\n", UTF_8);

        CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
                () -> new LeaderEpochCache(TP, file));

        assertEquals(file, e.file());
        assertTrue(e.getMessage().contains("must both increase"), e.getMessage());
    }

    @Test
    void loadRejectsACheckpointWhoseStartOffsetsDoNotIncrease() throws IOException {
        Files.writeString(file, "0\n2\n1 100\n3 100\n", UTF_8);

        assertThrows(CorruptCheckpointException.class, () -> new LeaderEpochCache(TP, file));
    }

    @Test
    void loadRejectsANegativeEpochAtItsLine() throws IOException {
        Files.writeString(file, "0\n2\n1 100\n-3 200\n", UTF_8);

        CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
                () -> new LeaderEpochCache(TP, file));

        assertEquals(OptionalInt.of(4), e.lineNumber());
    }

    @Test
    void loadRejectsAnotherVersion() throws IOException {
        Files.writeString(file, "1\n1\n1 100\n", UTF_8);

        assertThrows(CorruptCheckpointException.class, () -> new LeaderEpochCache(TP, file));
    }

    @Test
    void failedPersistLeavesTheCacheAndItsCheckpointUnchanged() throws IOException {
        assignEpochsOneThreeFive();
        // A non-empty directory where the temporary file must go: opening it for writing fails, and so does cleanup.
        Path blockedTmp = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME + ".tmp");
        Files.createDirectory(blockedTmp);
        Files.writeString(blockedTmp.resolve("keep"), "x", UTF_8);

        assertThrows(IOException.class, () -> cache.assign(6, 300));
        assertThrows(IOException.class, () -> cache.truncateFromEnd(100));
        assertThrows(IOException.class, () -> cache.truncateFromStart(150));
        assertThrows(IOException.class, () -> cache.clearAndFlush());

        List<EpochEntry> before = List.of(e(1, 10), e(3, 100), e(5, 250));
        assertEquals(before, cache.entries());
        assertEquals(before, reloaded());
    }
}
