package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateManagerTest {

    private static final TopicPartition PARTITION = new TopicPartition("orders", 3);
    private static final long EXPIRATION_MS = 86_400_000L;
    private static final long PRODUCER = 4242L;
    private static final long OTHER_PRODUCER = 7L;

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime();
    private ProducerStateManager manager;
    /** The end of the simulated partition log: where the next appended batch gets its offsets. */
    private long logEndOffset;
    /** Everything "written" to the simulated log, to replay after a restart. */
    private final List<MutableRecordBatch> log = new ArrayList<>();

    @BeforeEach
    void createManager() {
        manager = newManager();
    }

    private ProducerStateManager newManager() {
        return new ProducerStateManager(PARTITION, dir, EXPIRATION_MS, time);
    }


    @Test
    void retryOfEachOfTheLastFiveBatchesIsAnsweredWithItsOriginalOffsets() {
        appendAsLeader(PRODUCER, 0, 0, 3); // pushed out by the five below
        List<BatchMetadata> lastFive = new ArrayList<>();
        for (int sequence = 3; sequence < 13; sequence += 2) {
            lastFive.add(appendAsLeader(PRODUCER, 0, sequence, 2));
        }

        for (BatchMetadata original : lastFive) {
            int count = original.lastSequence() - original.firstSequence() + 1;
            Optional<BatchMetadata> duplicate =
                    manager.checkClientAppend(List.of(batch(PRODUCER, 0, original.firstSequence(), count)));
            assertEquals(Optional.of(original), duplicate);
            assertEquals(original.firstOffset(), duplicate.get().firstOffset());
            assertEquals(original.lastOffset(), duplicate.get().lastOffset());
        }
    }

    @Test
    void retryOfTheSixthNewestBatchIsNoLongerRecognisedAndFailsAsOutOfOrder() {
        for (int sequence = 0; sequence < 6; sequence++) {
            appendAsLeader(PRODUCER, 0, sequence, 1);
        }

        assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 0, 0, 1))));
        assertTrue(manager.checkClientAppend(List.of(batch(PRODUCER, 0, 1, 1))).isPresent());
    }

    @Test
    void batchCoveringOnlyPartOfAnAppendedBatchIsNotADuplicate() {
        appendAsLeader(PRODUCER, 0, 0, 4);

        assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 0, 0, 2))));
    }

    @Test
    void duplicateIsDetectedOnlyWithinTheSameEpoch() {
        appendAsLeader(PRODUCER, 0, 0, 2);
        appendAsLeader(PRODUCER, 1, 0, 2);

        assertThrows(InvalidProducerEpochException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 0, 0, 2))));
        assertTrue(manager.checkClientAppend(List.of(batch(PRODUCER, 1, 0, 2))).isPresent());
    }


    @Test
    void nextBatchMustStartRightAfterTheLastSequence() {
        appendAsLeader(PRODUCER, 0, 0, 5);

        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 0, 5, 1))));
    }

    @Test
    void sequenceGapIsRefusedNamingExpectedAndReceivedSequence() {
        appendAsLeader(PRODUCER, 0, 0, 5);

        OutOfOrderSequenceException e = assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 0, 7, 1))));
        assertTrue(e.getMessage().contains("expected sequence 5"), e.getMessage());
        assertTrue(e.getMessage().contains("received 7"), e.getMessage());
        assertTrue(e.getMessage().contains(PARTITION.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(Long.toString(PRODUCER)), e.getMessage());
    }

    @Test
    void batchFromAnOlderEpochIsFencedNamingPartitionProducerAndBothEpochs() {
        appendAsLeader(PRODUCER, 3, 0, 1);

        InvalidProducerEpochException e = assertThrows(InvalidProducerEpochException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 2, 1, 1))));
        assertTrue(e.getMessage().contains(PARTITION.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(Long.toString(PRODUCER)), e.getMessage());
        assertTrue(e.getMessage().contains("epoch 2"), e.getMessage());
        assertTrue(e.getMessage().contains("epoch 3"), e.getMessage());
    }

    @Test
    void newEpochStartingAtSequenceZeroIsAccepted() {
        appendAsLeader(PRODUCER, 0, 0, 10);

        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 1, 0, 1))));
    }

    @Test
    void newEpochNotStartingAtSequenceZeroIsRefused() {
        appendAsLeader(PRODUCER, 0, 0, 10);

        assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 1, 10, 1))));
    }

    @Test
    void unknownProducerIsAcceptedAtAnySequenceAndEpoch() {
        // Its earlier batches may have been removed by retention, or its state expired.
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 5, 1234, 3))));
    }

    @Test
    void sequenceWrapsFromIntegerMaxValueToZero() {
        appendAsLeader(PRODUCER, 0, Integer.MAX_VALUE - 1, 2);

        assertThrows(OutOfOrderSequenceException.class,
                () -> manager.checkClientAppend(List.of(batch(PRODUCER, 0, 1, 1))));
        appendAsLeader(PRODUCER, 0, 0, 1);
    }

    @Test
    void batchThatWrapsItsSequenceIsContinuedAndRecognisedAsDuplicate() {
        BatchMetadata wrapping = appendAsLeader(PRODUCER, 0, Integer.MAX_VALUE - 1, 3);
        assertEquals(0, wrapping.lastSequence());

        assertEquals(Optional.of(wrapping),
                manager.checkClientAppend(List.of(batch(PRODUCER, 0, Integer.MAX_VALUE - 1, 3))));
        appendAsLeader(PRODUCER, 0, 1, 1);
    }

    @Test
    void batchesOfOneAppendAreCheckedAsIfTheEarlierOnesWereAlreadyAppended() {
        appendAsLeader(PRODUCER, 0, 0, 5);

        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 2), batch(PRODUCER, 0, 7, 3), batch(PRODUCER, 0, 10, 1))));
        assertThrows(OutOfOrderSequenceException.class, () -> manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 2), batch(PRODUCER, 0, 5, 2))));
        assertThrows(OutOfOrderSequenceException.class, () -> manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 2), batch(PRODUCER, 0, 8, 1))));
        assertThrows(InvalidProducerEpochException.class, () -> manager.checkClientAppend(List.of(
                batch(PRODUCER, 1, 0, 2), batch(PRODUCER, 0, 5, 1))));
    }

    @Test
    void batchesOfDifferentProducersInOneAppendAreCheckedIndependently() {
        appendAsLeader(PRODUCER, 0, 0, 5);
        appendAsLeader(OTHER_PRODUCER, 2, 0, 1);

        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 1), batch(OTHER_PRODUCER, 2, 1, 1), batch(PRODUCER, 0, 6, 1))));
        assertThrows(OutOfOrderSequenceException.class, () -> manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 1), batch(OTHER_PRODUCER, 2, 5, 1))));
    }

    @Test
    void checkingAnAppendChangesNoState() {
        appendAsLeader(PRODUCER, 0, 0, 5);
        Map<Long, ProducerStateEntry> before = manager.activeProducers();

        manager.checkClientAppend(List.of(batch(PRODUCER, 0, 5, 2), batch(OTHER_PRODUCER, 0, 0, 1)));
        assertThrows(OutOfOrderSequenceException.class, () -> manager.checkClientAppend(List.of(
                batch(PRODUCER, 0, 5, 2), batch(PRODUCER, 0, 9, 1))));

        assertEquals(before, manager.activeProducers());
        assertEquals(logEndOffset, manager.mapEndOffset());
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 0, 5, 1))));
    }

    @Test
    void batchesWithoutProducerIdAreIgnoredButAdvanceTheMapEndOffset() {
        MutableRecordBatch plain = plainBatch(3);
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(plain)));
        plain.setLastOffset(9);

        manager.update(plain);

        assertTrue(manager.activeProducers().isEmpty());
        assertEquals(10, manager.mapEndOffset());
    }


    @Test
    void updateTrustsTheLogAndRecordsBatchesWithoutChecking() {
        MutableRecordBatch gap = batch(PRODUCER, 0, 100, 2);
        gap.setLastOffset(41);

        manager.update(gap);

        ProducerStateEntry entry = manager.activeProducers().get(PRODUCER);
        assertEquals(List.of(new BatchMetadata(100, 101, 40, 41, time.milliseconds())), entry.batches());
        assertEquals(42, manager.mapEndOffset());
    }

    @Test
    void updateWithAHigherEpochForgetsTheBatchesOfTheOlderEpoch() {
        appendAsLeader(PRODUCER, 0, 0, 1);
        appendAsLeader(PRODUCER, 0, 1, 1);
        BatchMetadata newEpoch = appendAsLeader(PRODUCER, 1, 0, 1);

        ProducerStateEntry entry = manager.activeProducers().get(PRODUCER);
        assertEquals(1, entry.producerEpoch());
        assertEquals(List.of(newEpoch), entry.batches());
    }

    @Test
    void activeProducersIsACopyThatLaterAppendsDoNotChange() {
        appendAsLeader(PRODUCER, 0, 0, 1);
        Map<Long, ProducerStateEntry> view = manager.activeProducers();

        appendAsLeader(PRODUCER, 0, 1, 1);
        appendAsLeader(OTHER_PRODUCER, 0, 0, 1);

        assertEquals(1, view.size());
        assertEquals(1, view.get(PRODUCER).batches().size());
        assertThrows(UnsupportedOperationException.class, () -> view.remove(PRODUCER));
    }


    @Test
    void snapshotIsNamedByTheMapEndOffsetInTwentyDigits() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 3);

        manager.takeSnapshot();

        assertTrue(Files.exists(dir.resolve("00000000000000000003.snapshot")));
        assertEquals(OptionalLong.of(3), manager.latestSnapshotOffset());
        assertTrue(listDir().stream().noneMatch(name -> name.endsWith(".tmp")), listDir().toString());
    }

    @Test
    void takingASnapshotAtAnOffsetThatHasOneKeepsTheExistingFile() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 3);
        manager.takeSnapshot();
        Path file = dir.resolve(ProducerSnapshotFile.fileName(3));
        byte[] first = Files.readAllBytes(file);
        time.advance(1_000);

        manager.removeExpiredProducers(time.milliseconds() + EXPIRATION_MS);
        manager.takeSnapshot();

        assertArrayEquals(first, Files.readAllBytes(file));
    }

    @Test
    void duplicatesAreStillDetectedAfterARestart() throws IOException {
        BatchMetadata first = appendAsLeader(PRODUCER, 0, 0, 2);
        BatchMetadata second = appendAsLeader(PRODUCER, 0, 2, 3);
        appendAsLeader(OTHER_PRODUCER, 4, 0, 1);
        manager.takeSnapshot();
        Map<Long, ProducerStateEntry> beforeRestart = manager.activeProducers();

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(logEndOffset, restarted.mapEndOffset());
        assertEquals(beforeRestart, restarted.activeProducers());
        assertEquals(Optional.of(first), restarted.checkClientAppend(List.of(batch(PRODUCER, 0, 0, 2))));
        assertEquals(Optional.of(second), restarted.checkClientAppend(List.of(batch(PRODUCER, 0, 2, 3))));
        assertThrows(OutOfOrderSequenceException.class,
                () -> restarted.checkClientAppend(List.of(batch(PRODUCER, 0, 6, 1))));
    }

    @Test
    void restartLoadsTheLatestSnapshotAndTheCallerReplaysTheBatchesAfterIt() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();
        long snapshotOffset = logEndOffset;
        BatchMetadata afterSnapshot = appendAsLeader(PRODUCER, 0, 2, 2);
        Map<Long, ProducerStateEntry> beforeRestart = manager.activeProducers();

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);
        assertEquals(snapshotOffset, restarted.mapEndOffset());
        replayFrom(restarted, restarted.mapEndOffset());

        assertEquals(logEndOffset, restarted.mapEndOffset());
        assertEquals(beforeRestart, restarted.activeProducers());
        assertEquals(Optional.of(afterSnapshot), restarted.checkClientAppend(List.of(batch(PRODUCER, 0, 2, 2))));
    }

    @Test
    void restartWithoutSnapshotsStartsAtTheLogStartAndRebuildsFromTheLog() throws IOException {
        BatchMetadata appended = appendAsLeader(PRODUCER, 0, 0, 2);

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);
        assertEquals(0, restarted.mapEndOffset());
        assertTrue(restarted.activeProducers().isEmpty());
        replayFrom(restarted, 0);

        assertEquals(Optional.of(appended), restarted.checkClientAppend(List.of(batch(PRODUCER, 0, 0, 2))));
    }

    @Test
    void corruptSnapshotIsDeletedAndTheNextOlderOneLoaded() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();
        long olderOffset = logEndOffset;
        appendAsLeader(PRODUCER, 0, 2, 2);
        manager.takeSnapshot();
        Path newer = dir.resolve(ProducerSnapshotFile.fileName(logEndOffset));
        flipByte(newer, 30);

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(olderOffset, restarted.mapEndOffset());
        assertFalse(Files.exists(newer));
        assertEquals(OptionalLong.of(olderOffset), restarted.latestSnapshotOffset());
        assertEquals(1, restarted.activeProducers().get(PRODUCER).batches().size());
    }

    @Test
    void truncatedSnapshotIsTreatedAsCorrupt() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();
        Path file = dir.resolve(ProducerSnapshotFile.fileName(logEndOffset));
        byte[] content = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(content, content.length - 5));

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(0, restarted.mapEndOffset());
        assertTrue(restarted.activeProducers().isEmpty());
        assertFalse(Files.exists(file));
    }

    @Test
    void snapshotRenamedToAnotherOffsetIsTreatedAsCorrupt() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();
        Path renamed = dir.resolve(ProducerSnapshotFile.fileName(1));
        Files.move(dir.resolve(ProducerSnapshotFile.fileName(2)), renamed);

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(0, restarted.mapEndOffset());
        assertFalse(Files.exists(renamed));
    }

    @Test
    void truncateAndReloadDeletesSnapshotsAboveTheLogEndAndBelowTheLogStart() throws IOException {
        for (int sequence = 0; sequence < 4; sequence++) {
            appendAsLeader(PRODUCER, 0, sequence, 1);
            manager.takeSnapshot(); // at 1, 2, 3, 4
        }

        manager.truncateAndReload(2, 3);

        assertEquals(List.of(ProducerSnapshotFile.fileName(2), ProducerSnapshotFile.fileName(3)), listDir());
        assertEquals(3, manager.mapEndOffset());
        BatchMetadata last = manager.activeProducers().get(PRODUCER).lastBatch().orElseThrow();
        assertEquals(2, last.lastSequence());
    }

    @Test
    void truncateAndReloadDeletesIncompleteTemporaryFilesAndLeavesOtherFilesAlone() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();
        Files.write(dir.resolve(ProducerSnapshotFile.fileName(2) + ".tmp"), new byte[] {1, 2, 3});
        Files.write(dir.resolve("00000000000000000000.log"), new byte[0]);
        Files.write(dir.resolve("00000000000000000000.index"), new byte[0]);

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(List.of("00000000000000000000.index", "00000000000000000000.log",
                ProducerSnapshotFile.fileName(2)), listDir());
        assertEquals(2, restarted.mapEndOffset());
    }

    @Test
    void deleteSnapshotsBeforeKeepsTheSnapshotsAtAndAboveTheOffset() throws IOException {
        for (int sequence = 0; sequence < 4; sequence++) {
            appendAsLeader(PRODUCER, 0, sequence, 1);
            manager.takeSnapshot(); // at 1, 2, 3, 4
        }
        assertEquals(OptionalLong.of(1), manager.oldestSnapshotOffset());

        manager.deleteSnapshotsBefore(3);

        assertEquals(OptionalLong.of(3), manager.oldestSnapshotOffset());
        assertEquals(OptionalLong.of(4), manager.latestSnapshotOffset());
        assertEquals(List.of(ProducerSnapshotFile.fileName(3), ProducerSnapshotFile.fileName(4)), listDir());
    }

    @Test
    void directoryWithoutSnapshotsHasNoSnapshotOffsets() throws IOException {
        assertEquals(OptionalLong.empty(), manager.latestSnapshotOffset());
        assertEquals(OptionalLong.empty(), manager.oldestSnapshotOffset());
    }

    @Test
    void truncateFullyForgetsAllProducersAndSnapshots() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 2);
        manager.takeSnapshot();

        manager.truncateFullyAndStartAt(500);

        assertTrue(manager.activeProducers().isEmpty());
        assertEquals(500, manager.mapEndOffset());
        assertEquals(OptionalLong.empty(), manager.latestSnapshotOffset());
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 0, 77, 1))));
    }

    @Test
    void snapshotFileHasTheDocumentedLayout() throws IOException {
        BatchMetadata first = appendAsLeader(PRODUCER, 2, 10, 3);
        BatchMetadata second = appendAsLeader(PRODUCER, 2, 13, 1);
        manager.takeSnapshot();

        ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(dir.resolve(ProducerSnapshotFile.fileName(4))));

        assertEquals(18 + 31 + 2 * 32, file.remaining());
        assertEquals(2, file.getShort());
        file.getInt(); // CRC32C, checked by the corruption tests
        assertEquals(4, file.getLong());
        assertEquals(1, file.getInt());
        assertEquals(PRODUCER, file.getLong());
        assertEquals(2, file.getShort());
        assertEquals(second.maxTimestamp(), file.getLong());
        assertEquals(-1, file.getInt()); // no transaction marker seen: no coordinator epoch
        assertEquals(-1, file.getLong()); // no transaction ongoing
        assertEquals(2, file.get());
        for (BatchMetadata batch : List.of(first, second)) {
            assertEquals(batch, new BatchMetadata(file.getInt(), file.getInt(), file.getLong(), file.getLong(),
                    file.getLong()));
        }
        assertFalse(file.hasRemaining());
    }

    @Test
    void snapshotOfNoProducersRoundTrips() throws IOException {
        manager.updateMapEndOffset(12);
        manager.takeSnapshot();

        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, 20);

        assertEquals(12, restarted.mapEndOffset());
        assertTrue(restarted.activeProducers().isEmpty());
    }


    @Test
    void producerIdleForTheExpirationTimeIsForgottenAndThenAcceptedAtAnySequence() {
        appendAsLeader(PRODUCER, 0, 0, 1);
        time.advance(EXPIRATION_MS / 2);
        appendAsLeader(OTHER_PRODUCER, 0, 0, 1);

        time.advance(EXPIRATION_MS / 2 - 1);
        manager.removeExpiredProducers(time.milliseconds());
        assertEquals(2, manager.activeProducers().size());

        time.advance(1);
        manager.removeExpiredProducers(time.milliseconds());
        assertEquals(List.of(OTHER_PRODUCER), List.copyOf(manager.activeProducers().keySet()));
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch(PRODUCER, 0, 99, 1))));
    }

    @Test
    void producerThatExpiredWhileTheBrokerWasDownIsNotLoadedFromTheSnapshot() throws IOException {
        appendAsLeader(PRODUCER, 0, 0, 1);
        time.advance(EXPIRATION_MS / 2);
        appendAsLeader(OTHER_PRODUCER, 0, 0, 1);
        manager.takeSnapshot();

        time.advance(EXPIRATION_MS / 2);
        ProducerStateManager restarted = newManager();
        restarted.truncateAndReload(0, logEndOffset);

        assertEquals(List.of(OTHER_PRODUCER), List.copyOf(restarted.activeProducers().keySet()));
    }


    /**
     * Appends a batch the way the partition log does as leader: check, assign offsets at the log end, update.
     * Returns what the state retains about it.
     */
    private BatchMetadata appendAsLeader(long producerId, int epoch, int firstSequence, int count) {
        MutableRecordBatch batch = batch(producerId, epoch, firstSequence, count);
        assertEquals(Optional.empty(), manager.checkClientAppend(List.of(batch)));
        batch.setLastOffset(logEndOffset + count - 1);
        logEndOffset = batch.nextOffset();
        log.add(batch);
        manager.update(batch);
        return BatchMetadata.of(batch);
    }

    private void replayFrom(ProducerStateManager target, long fromOffset) {
        log.stream().filter(batch -> batch.baseOffset() >= fromOffset).forEach(target::update);
    }

    /** An idempotent batch of {@code count} records stamped with the clock, its offsets not yet assigned. */
    private MutableRecordBatch batch(long producerId, int epoch, int firstSequence, int count) {
        MemoryRecords records = MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, (short) epoch,
                firstSequence, records(count));
        return records.batches().iterator().next();
    }

    private MutableRecordBatch plainBatch(int count) {
        return MemoryRecords.withRecords(Compression.NONE, records(count)).batches().iterator().next();
    }

    private SimpleRecord[] records(int count) {
        return Stream.generate(() -> new SimpleRecord(time.milliseconds(), "key".getBytes(), "value".getBytes()))
                .limit(count)
                .toArray(SimpleRecord[]::new);
    }

    private List<String> listDir() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        }
    }

    private static void flipByte(Path file, int position) throws IOException {
        byte[] content = Files.readAllBytes(file);
        content[position] ^= 0x5A;
        Files.write(file, content);
    }
}
