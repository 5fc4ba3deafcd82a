package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class ProducerStateEntryTest {

    private static final long PRODUCER = 4242L;

    @Test
    void keepsTheLastFiveBatchesOldestFirst() {
        List<BatchMetadata> appended = new ArrayList<>();
        ProducerStateEntry entry = null;
        for (int i = 0; i < 8; i++) {
            BatchMetadata batch = batchAt(i);
            appended.add(batch);
            entry = entry == null ? ProducerStateEntry.first(PRODUCER, (short) 0, batch) : entry.append((short) 0, batch);
        }

        assertEquals(appended.subList(3, 8), entry.batches());
        assertEquals(Optional.of(appended.get(7)), entry.lastBatch());
    }

    @Test
    void appendLeavesTheOriginalEntryUnchanged() {
        ProducerStateEntry original = ProducerStateEntry.first(PRODUCER, (short) 0, batchAt(0));

        original.append((short) 0, batchAt(1));

        assertEquals(List.of(batchAt(0)), original.batches());
    }

    @Test
    void anotherEpochStartsWithOnlyItsOwnBatch() {
        ProducerStateEntry entry = ProducerStateEntry.first(PRODUCER, (short) 0, batchAt(0))
                .append((short) 0, batchAt(1));

        ProducerStateEntry bumped = entry.append((short) 1, batchAt(0));

        assertEquals(1, bumped.producerEpoch());
        assertEquals(List.of(batchAt(0)), bumped.batches());
    }

    @Test
    void lastTimestampIsTheMaxTimestampOfTheLatestBatch() {
        BatchMetadata later = new BatchMetadata(1, 1, 11, 11, 5_000);
        BatchMetadata earlierClock = new BatchMetadata(2, 2, 12, 12, 4_000);

        ProducerStateEntry entry = ProducerStateEntry.first(PRODUCER, (short) 0, later).append((short) 0, earlierClock);

        assertEquals(4_000, entry.lastTimestamp());
    }

    @Test
    void findsARetainedBatchOnlyByItsExactSequenceRange() {
        BatchMetadata batch = new BatchMetadata(10, 14, 100, 104, 1_000);
        ProducerStateEntry entry = ProducerStateEntry.first(PRODUCER, (short) 0, batch);

        assertEquals(Optional.of(batch), entry.findBatch(10, 14));
        assertEquals(Optional.empty(), entry.findBatch(10, 12));
        assertEquals(Optional.empty(), entry.findBatch(11, 14));
    }

    @Test
    void refusesMoreThanFiveRetainedBatches() {
        List<BatchMetadata> six = List.of(batchAt(0), batchAt(1), batchAt(2), batchAt(3), batchAt(4), batchAt(5));

        assertThrows(IllegalArgumentException.class, () -> new ProducerStateEntry(PRODUCER, (short) 0, 0, six));
    }

    /** The i-th one-record batch of a producer that is alone on the partition. */
    private static BatchMetadata batchAt(int i) {
        return new BatchMetadata(i, i, i, i, 1_000 + i);
    }
}
