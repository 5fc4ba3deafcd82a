package io.tributary.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.tributary.broker.share.SharePartition.AcquiredRange;
import io.tributary.broker.share.SharePartition.BatchSpan;
import io.tributary.broker.share.SharePartition.StateBatch;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class SharePartitionTest {

    private static final TopicIdPartition TP = new TopicIdPartition(Uuid.randomUuid(), 0, "t");
    private static final ShareGroupSettings SETTINGS = new ShareGroupSettings(ShareAutoOffsetReset.EARLIEST, 1_000,
            IsolationLevel.READ_UNCOMMITTED, 3, 100);

    private static SharePartition partition() {
        return new SharePartition("g", TP, SETTINGS, 0L, List.of());
    }

    private static List<BatchSpan> batches(long... baseAndLast) {
        List<BatchSpan> spans = new java.util.ArrayList<>();
        for (int i = 0; i < baseAndLast.length; i += 2) {
            spans.add(new BatchSpan(baseAndLast[i], baseAndLast[i + 1]));
        }
        return spans;
    }

    @Test
    void newRecordsAreAcquiredInWholeBatchesByOneMemberOnly() {
        SharePartition sp = partition();
        List<AcquiredRange> first = sp.acquire("a", batches(0, 4, 5, 9), 3, 0).ranges();
        assertEquals(List.of(new AcquiredRange(0, 4, (short) 1)), first);
        assertEquals(5, sp.nextFetchOffset());
        List<AcquiredRange> second = sp.acquire("b", batches(0, 4, 5, 9), 100, 0).ranges();
        assertEquals(List.of(new AcquiredRange(5, 9, (short) 1)), second);
        assertEquals(Errors.INVALID_RECORD_STATE, sp.acknowledge("b", 0, 0, List.of(SharePartition.ACCEPT), 0));
    }

    @Test
    void aFilteredMemberTakesOnlyWhatItSelectsAndLeavesTheRestAvailableUncounted() {
        SharePartition sp = partition();
        SharePartition.RecordFilter evens = (offset, deliveryCount) -> offset % 2 == 0;
        assertEquals(List.of(new AcquiredRange(0, 0, (short) 1), new AcquiredRange(2, 2, (short) 1),
                new AcquiredRange(4, 4, (short) 1)), sp.acquire("even", batches(0, 4), 100, 0, evens).ranges());
        assertEquals(1, sp.nextFetchOffset(), "odd records stay available to the others");
        assertEquals(5, sp.nextFetchOffsetFor("even"), "the filtered member reads on past what it passed over");
        assertEquals(List.of(new AcquiredRange(1, 1, (short) 1), new AcquiredRange(3, 3, (short) 1)),
                sp.acquire("any", batches(0, 4), 100, 0).ranges(), "first delivery of the passed-over records");
    }

    @Test
    void aReleaseMakesAFilteredMemberLookAgainFromTheStart() {
        SharePartition sp = partition();
        SharePartition.RecordFilter fromTwo = (offset, deliveryCount) -> offset >= 2;
        sp.acquire("low", batches(0, 1), 100, 0);
        assertEquals(List.of(new AcquiredRange(2, 3, (short) 1)),
                sp.acquire("high", batches(0, 1, 2, 3), 100, 0, fromTwo).ranges());
        assertEquals(4, sp.nextFetchOffsetFor("high"));
        assertEquals(Errors.NONE, sp.acknowledge("high", 2, 3, List.of(SharePartition.RELEASE), 0));
        assertEquals(2, sp.nextFetchOffsetFor("high"), "released records are looked at again");
        assertEquals(List.of(new AcquiredRange(2, 3, (short) 2)),
                sp.acquire("high", batches(2, 3), 100, 0, fromTwo).ranges());
    }

    @Test
    void acceptedRecordsMoveTheStartAndAreNeverAcquiredAgain() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 4), 100, 0);
        assertEquals(Errors.NONE, sp.acknowledge("a", 0, 4, List.of(SharePartition.ACCEPT), 0));
        assertEquals(5, sp.startOffset());
        assertEquals(List.of(), sp.acquire("b", batches(0, 4), 100, 0).ranges());
    }

    @Test
    void releasedRecordsGoToTheNextMemberWithTheirDeliveryCount() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 4), 100, 0);
        assertEquals(Errors.NONE, sp.acknowledge("a", 0, 4,
                List.of(SharePartition.ACCEPT, SharePartition.RELEASE, SharePartition.ACCEPT, SharePartition.GAP,
                        SharePartition.RELEASE), 0));
        assertEquals(1, sp.startOffset());
        assertEquals(1, sp.nextFetchOffset());
        List<AcquiredRange> again = sp.acquire("b", batches(0, 4, 5, 6), 100, 0).ranges();
        assertEquals(List.of(new AcquiredRange(1, 1, (short) 2), new AcquiredRange(4, 4, (short) 2),
                new AcquiredRange(5, 6, (short) 1)), again);
    }

    @Test
    void anExpiredLockMakesTheRecordAvailableAndTheDeliveryLimitArchivesIt() {
        SharePartition sp = partition();
        long now = 0;
        for (int delivery = 1; delivery <= 3; delivery++) {
            List<AcquiredRange> got = sp.acquire("m" + delivery, batches(0, 0), 100, now).ranges();
            assertEquals(List.of(new AcquiredRange(0, 0, (short) delivery)), got);
            now += 1_000;
            assertEquals(1, sp.expireLocks(now));
        }
        assertEquals(1, sp.startOffset(), "archived after 3 deliveries");
        assertEquals(List.of(), sp.acquire("m4", batches(0, 0), 100, now).ranges());
    }

    @Test
    void aLockIsNotExpiredBeforeItsTimeAndRenewExtendsIt() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 0), 100, 0);
        assertEquals(0, sp.expireLocks(999));
        assertEquals(Errors.NONE, sp.acknowledge("a", 0, 0, List.of(SharePartition.RENEW), 900));
        assertEquals(0, sp.expireLocks(1_500));
        assertEquals(1, sp.expireLocks(1_900));
    }

    @Test
    void releasingAMemberFreesOnlyItsRecords() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 1), 100, 0);
        sp.acquire("b", batches(2, 3), 100, 0);
        assertEquals(2, sp.releaseMember("a"));
        assertEquals(0, sp.nextFetchOffset());
        assertEquals(2, sp.acquiredCount());
    }

    @Test
    void theWindowStopsNewAcquisitionsAtTheLockLimit() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 59, 60, 119, 120, 130), 1_000, 0);
        assertEquals(120, sp.endOffset(), "the batch starting at the limit is not taken");
        assertEquals(-1, sp.nextFetchOffset());
        sp.acknowledge("a", 0, 59, List.of(SharePartition.ACCEPT), 0);
        assertEquals(120, sp.nextFetchOffset());
    }

    @Test
    void controlAndAbortedBatchesArePassedOverAsDone() {
        SharePartition sp = partition();
        List<BatchSpan> read = List.of(new BatchSpan(0, 1), new BatchSpan(2, 2, false), new BatchSpan(3, 4, false));
        assertEquals(List.of(new AcquiredRange(0, 1, (short) 1)), sp.acquire("a", read, 100, 0).ranges());
        assertEquals(5, sp.nextFetchOffset());
        sp.acknowledge("a", 0, 1, List.of(SharePartition.ACCEPT), 0);
        assertEquals(5, sp.startOffset());
    }

    @Test
    void onlyTheBatchesUpToMaxRecordsAreUsed() {
        SharePartition sp = partition();
        SharePartition.Acquisition got = sp.acquire("a", batches(0, 4, 5, 9, 10, 14), 6, 0);
        assertEquals(2, got.batchesUsed());
        assertEquals(10, sp.endOffset());
    }

    @Test
    void malformedAcknowledgementsAreRefusedWithoutChange() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 2), 100, 0);
        assertEquals(Errors.INVALID_REQUEST, sp.acknowledge("a", 0, 2,
                List.of(SharePartition.ACCEPT, SharePartition.ACCEPT), 0));
        assertEquals(Errors.INVALID_REQUEST, sp.acknowledge("a", 2, 0, List.of(SharePartition.ACCEPT), 0));
        assertEquals(Errors.INVALID_REQUEST, sp.acknowledge("a", 0, 2, List.of((byte) 9), 0));
        assertEquals(Errors.INVALID_RECORD_STATE, sp.acknowledge("a", 0, 3, List.of(SharePartition.ACCEPT), 0));
        assertEquals(3, sp.acquiredCount());
    }

    @Test
    void stateBatchesRestoreTheWindowWithAcquiredRecordsAvailable() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 9), 100, 0);
        sp.acknowledge("a", 0, 1, List.of(SharePartition.ACCEPT), 0);
        sp.acknowledge("a", 3, 3, List.of(SharePartition.RELEASE), 0);
        sp.acknowledge("a", 4, 4, List.of(SharePartition.REJECT), 0);
        List<StateBatch> state = sp.stateBatches();
        SharePartition restored = new SharePartition("g", TP, SETTINGS, sp.startOffset(), state);
        assertEquals(2, restored.startOffset());
        assertEquals(10, restored.endOffset());
        assertEquals(2, restored.nextFetchOffset());
        List<AcquiredRange> got = restored.acquire("b", batches(0, 9), 100, 0).ranges();
        assertEquals(List.of(new AcquiredRange(2, 3, (short) 2), new AcquiredRange(5, 9, (short) 2)), got);
        assertTrue(restored.stateBatches().stream().anyMatch(b -> b.state() == RecordState.ARCHIVED));
    }

    @Test
    void theDurableStateHoldsAcquiredRecordsAsAvailableWithTheirDeliveryCount() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 3), 100, 0);
        sp.acknowledge("a", 2, 2, List.of(SharePartition.RELEASE), 0);
        sp.acknowledge("a", 3, 3, List.of(SharePartition.ACCEPT), 0);
        ShareState state = sp.toState(4, 7);
        assertEquals(new ShareState(4, 7, 0, List.of(new StateBatch(0, 2, RecordState.AVAILABLE, (short) 1),
                new StateBatch(3, 3, RecordState.ACKNOWLEDGED, (short) 1))), state);
    }

    @Test
    void theLogStartMovingPastTheWindowDropsWhatIsGone() {
        SharePartition sp = partition();
        sp.acquire("a", batches(0, 9), 100, 0);
        sp.onLogStartOffset(5);
        assertEquals(5, sp.startOffset());
        assertEquals(Errors.INVALID_RECORD_STATE, sp.acknowledge("a", 4, 4, List.of(SharePartition.ACCEPT), 0));
        sp.onLogStartOffset(20);
        assertEquals(20, sp.startOffset());
        assertEquals(20, sp.nextFetchOffset());
    }
}
