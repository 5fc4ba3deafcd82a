package io.tributary.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The rules by which offsets of open transactions become committed, are dropped, or lose to later commits. */
class PendingTxnOffsetsTest {

    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);
    private static final long P1 = 1000L;
    private static final long P2 = 2000L;

    private final PendingTxnOffsets pending = new PendingTxnOffsets();
    private final Map<TopicPartition, CommittedOffset> committed = new HashMap<>();

    private static CommittedOffset at(long offset, long recordOffset) {
        return new CommittedOffset(offset, -1, "", 0L, recordOffset);
    }

    @Test
    void pendingOffsetsAreKeptPerProducerAndCommitOnlyThatProducers() {
        pending.add(P1, T0, at(10, 5));
        pending.add(P2, T1, at(20, 6));

        assertTrue(pending.contains(T0));
        assertEquals(Set.of(T0, T1), pending.partitions());
        assertEquals(1, pending.complete(P1, true, committed));

        assertEquals(Map.of(T0, at(10, 5)), committed);
        assertFalse(pending.hasProducer(P1));
        assertTrue(pending.hasProducer(P2), "the other producer's transaction is still open");
        assertTrue(pending.contains(T1));
        assertFalse(pending.contains(T0));
    }

    @Test
    void anAbortDropsTheProducersOffsetsAndKeepsTheCommittedOnes() {
        committed.put(T0, at(3, 1));
        pending.add(P1, T0, at(10, 5));
        pending.add(P1, T1, at(11, 6));

        assertEquals(0, pending.complete(P1, false, committed));

        assertEquals(Map.of(T0, at(3, 1)), committed);
        assertTrue(pending.isEmpty());
    }

    @Test
    void aLaterCommitOfTheSameTransactionReplacesAnEarlierOne() {
        pending.add(P1, T0, at(10, 5));
        pending.add(P1, T0, at(15, 9));

        pending.complete(P1, true, committed);

        assertEquals(15, committed.get(T0).offset());
    }

    @Test
    void aCommittedTransactionReplacesAnOlderPlainCommit() {
        committed.put(T0, at(3, 1));
        pending.add(P1, T0, at(10, 5));

        pending.complete(P1, true, committed);

        assertEquals(10, committed.get(T0).offset());
    }

    @Test
    void aPlainCommitWrittenAfterTheTransactionalOneWinsWhenTheTransactionCommitsLater() {
        pending.add(P1, T0, at(10, 5));
        committed.put(T0, at(12, 7)); // OffsetCommit after the TxnOffsetCommit, before the marker

        assertEquals(0, pending.complete(P1, true, committed));

        assertEquals(12, committed.get(T0).offset());
    }

    @Test
    void aTombstoneDropsPendingOffsetsOfThatPartitionForEveryProducer() {
        pending.add(P1, T0, at(10, 5));
        pending.add(P2, T0, at(11, 6));
        pending.add(P2, T1, at(12, 7));

        pending.remove(T0);

        assertFalse(pending.contains(T0));
        assertFalse(pending.hasProducer(P1), "a producer with nothing left pending is forgotten");
        pending.complete(P2, true, committed);
        assertEquals(Map.of(T1, at(12, 7)), committed);
    }

    @Test
    void aMarkerOfAProducerWithoutPendingOffsetsChangesNothing() {
        committed.put(T0, at(3, 1));

        assertEquals(0, pending.complete(P1, true, committed));

        assertEquals(Map.of(T0, at(3, 1)), committed);
    }
}
