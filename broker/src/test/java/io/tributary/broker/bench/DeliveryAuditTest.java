package io.tributary.broker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class DeliveryAuditTest {

    /** One partition, records 0..count-1 sent; {@code acked} of them acknowledged at offset = sequence number. */
    private static AckLog.Snapshot sentAndAcked(int count, int... acked) {
        AckLog log = new AckLog(1);
        for (int i = 0; i < count; i++) {
            log.sent(0, i);
        }
        for (int seq : acked) {
            log.acked(0, seq, seq, 100);
        }
        return log.snapshot();
    }

    private static DeliveryAudit.Result audit(AckLog.Snapshot acks, long[] offsets, long[] sequences) {
        return DeliveryAudit.audit(acks, List.of(new DeliveryAudit.ReadBack(offsets, sequences, 0)));
    }

    @Test
    void logHoldingEveryAckedRecordOnceInOrderPasses() {
        DeliveryAudit.Result result = audit(sentAndAcked(4, 0, 1, 2), new long[] {0, 1, 2, 3},
                new long[] {0, 1, 2, 3});

        assertTrue(result.ok());
        assertEquals(4, result.inLog());
        assertEquals(1, result.unackedInLog()); // seq 3: written, acknowledgement never arrived
    }

    @Test
    void ackedRecordMissingFromTheLogIsLost() {
        DeliveryAudit.Result result = audit(sentAndAcked(3, 0, 1, 2), new long[] {0, 1}, new long[] {0, 1});

        assertFalse(result.ok());
        assertEquals(1, result.lost());
        assertEquals(List.of("lost: partition 0 seq 2 acked at offset 2"), result.examples());
    }

    @Test
    void secondCopyIsADuplicateEvenOfAnUnackedRecordAndNotAReordering() {
        DeliveryAudit.Result result = audit(sentAndAcked(3, 0, 1), new long[] {0, 1, 2, 3, 4},
                new long[] {0, 1, 0, 2, 2});

        assertEquals(2, result.duplicated());
        assertEquals(0, result.reordered());
        assertEquals(1, result.unackedInLog());
    }

    @Test
    void ackedSequenceGoingBackwardsIsReorderedAndOneAtAnotherOffsetMoved() {
        AckLog log = new AckLog(1);
        for (int i = 0; i < 3; i++) {
            log.sent(0, i);
        }
        log.acked(0, 0, 0, 10);
        log.acked(0, 1, 2, 10);
        log.acked(0, 2, 1, 10);

        DeliveryAudit.Result result = audit(log.snapshot(), new long[] {0, 1, 2}, new long[] {0, 2, 1});

        assertEquals(1, result.reordered());
        assertEquals(0, result.moved());
        DeliveryAudit.Result shifted = audit(log.snapshot(), new long[] {0, 5, 6}, new long[] {0, 2, 1});
        assertEquals(2, shifted.moved());
        assertFalse(shifted.ok());
    }

    @Test
    void sequenceNeverSentIsForeign() {
        DeliveryAudit.Result result = audit(sentAndAcked(1, 0), new long[] {0, 1}, new long[] {0, 9});

        assertTrue(result.ok());
        assertEquals(1, result.foreign());
    }
}
