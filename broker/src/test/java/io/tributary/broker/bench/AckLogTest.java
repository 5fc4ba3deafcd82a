package io.tributary.broker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class AckLogTest {

    /** Partition 0: records sent at 0, 10, ..., 90 ms; those sent up to {@code lastAckedSend} acked 5 ms later. */
    private static AckLog partitionZeroAckedUpTo(long lastAckedSend) {
        AckLog log = new AckLog(2);
        for (long t = 0; t < 100; t += 10) {
            long seq = log.sent(0, t);
            if (t <= lastAckedSend) {
                log.acked(0, seq, 1000 + seq, t + 5);
            }
        }
        return log;
    }

    @Test
    void sequenceNumbersAreDensePerPartition() {
        AckLog log = new AckLog(2);

        assertEquals(0, log.sent(0, 1));
        assertEquals(0, log.sent(1, 2));
        assertEquals(1, log.sent(0, 3));
        for (int i = 2; i < 5000; i++) {
            assertEquals(i, log.sent(0, 4));
        }
        assertEquals(5000, log.snapshot().sentAtMs()[0].length);
    }

    @Test
    void stallEndsWithFirstAckOfARecordSentAfterTheKillNotWithALateAckOfAnOlderOne() {
        AckLog log = new AckLog(1);
        long before = log.sent(0, 100);
        long after = log.sent(0, 300);
        log.acked(0, before, 0, 2_000); // retried after the failover: acknowledged late, sent before the kill at 200
        log.acked(0, after, 1, 2_500);

        assertEquals(2_500, log.snapshot().firstAckOfSentSince(0, 200));
        assertEquals(List.of(), log.partitionsWithoutAckOfSentSince(200));
        assertEquals(List.of(0), log.partitionsWithoutAckOfSentSince(301));
    }

    @Test
    void partitionWithoutAnyAckAfterTheKillHasNoStallEnd() {
        AckLog.Snapshot acks = partitionZeroAckedUpTo(40).snapshot();

        assertEquals(AckLog.NOT_ACKED, acks.firstAckOfSentSince(0, 41));
        assertEquals(AckLog.NOT_ACKED, acks.firstAckOfSentSince(1, 0));
    }

    @Test
    void maxAckGapStartsAtTheLastAckBeforeTheWindowAndCountsAnOpenGapToItsEnd() {
        AckLog.Snapshot acks = partitionZeroAckedUpTo(40).snapshot(); // acks at 5, 15, 25, 35, 45

        assertEquals(10, acks.maxAckGap(0, 10, 45));
        assertEquals(55, acks.maxAckGap(0, 30, 100)); // 45 -> 100, still open at the window's end
        assertEquals(100, acks.maxAckGap(1, 0, 100)); // nothing at all
    }

    @Test
    void failedRecordsAreCountedByCauseAndUnknownSequencesAreRefused() {
        AckLog log = new AckLog(1);
        long seq = log.sent(0, 1);
        log.failed(0, seq, new IllegalStateException("x"), 51);

        assertEquals(1, log.snapshot().failed());
        assertEquals(List.of("partition 0 seq 0 sent_at_ms 1 failed 50 ms later: java.lang.IllegalStateException: x"),
                log.snapshot().failureExamples());
        assertEquals(0, log.snapshot().acked());
        assertThrows(IllegalArgumentException.class, () -> log.acked(0, 7, 0, 2));
    }
}
