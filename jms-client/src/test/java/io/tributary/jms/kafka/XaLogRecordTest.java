package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class XaLogRecordTest {

    private static final XaLogRecord.XaXid XID = new XaLogRecord.XaXid(0x4e54,
            "global".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2, 3});
    private static final XaLogRecord RECORD = new XaLogRecord(XID, "app-xa-3", 4711L, (short) 7,
            List.of(new TopicPartition("orders", 2), new TopicPartition("__consumer_offsets", 17)), 1_700_000_000_000L);

    @Test
    void keyAndValueReadBackAsWritten() {
        XaLogRecord.XaXid xid = XaLogRecord.parseKey(XaLogRecord.key(XID));
        assertEquals(XID, xid);
        assertArrayEquals(new byte[] {1, 2, 3}, xid.getBranchQualifier());
        assertEquals(RECORD, XaLogRecord.parse(xid, RECORD.value()));
    }

    @Test
    void xidsOfOtherClassesAreEqualByValue() {
        javax.transaction.xa.Xid foreign = new javax.transaction.xa.Xid() {
            public int getFormatId() {
                return 0x4e54;
            }

            public byte[] getGlobalTransactionId() {
                return "global".getBytes(StandardCharsets.UTF_8);
            }

            public byte[] getBranchQualifier() {
                return new byte[] {1, 2, 3};
            }
        };
        assertEquals(XID, XaLogRecord.XaXid.of(foreign));
        assertArrayEquals(XaLogRecord.key(XID), XaLogRecord.key(foreign));
    }

    @Test
    void truncatedOrUnknownBytesAreRefused() {
        byte[] key = XaLogRecord.key(XID);
        assertThrows(IllegalArgumentException.class,
                () -> XaLogRecord.parseKey(java.util.Arrays.copyOf(key, key.length - 1)));
        byte[] value = RECORD.value();
        value[0] = 9;
        assertThrows(IllegalArgumentException.class, () -> XaLogRecord.parse(XID, value));
    }

    @Test
    void aTransactionIsInDoubtOnlyWhileOngoingWithTheRecordedProducerAndEpoch() {
        assertNull(TransactionEnder.settled(RECORD, described(TransactionState.ONGOING, 4711L, 7)));
        assertEquals(TransactionEnder.Outcome.COMMITTED,
                TransactionEnder.settled(RECORD, described(TransactionState.COMPLETE_COMMIT, 4711L, 7)));
        assertEquals(TransactionEnder.Outcome.COMMITTED,
                TransactionEnder.settled(RECORD, described(TransactionState.PREPARE_COMMIT, 4711L, 7)));
        assertEquals(TransactionEnder.Outcome.ABORTED,
                TransactionEnder.settled(RECORD, described(TransactionState.COMPLETE_ABORT, 4711L, 7)));
        assertEquals(TransactionEnder.Outcome.ABORTED,
                TransactionEnder.settled(RECORD, described(TransactionState.COMPLETE_ABORT, 4711L, 8)),
                "the coordinator's timeout aborts with the next epoch");
        assertEquals(TransactionEnder.Outcome.ABORTED,
                TransactionEnder.settled(RECORD, described(TransactionState.ONGOING, 4711L, 8)),
                "a new producer with the id: its initTransactions aborted ours");
    }

    private static TransactionDescription described(TransactionState state, long producerId, int epoch) {
        return new TransactionDescription(1, state, producerId, epoch, 900_000, OptionalLong.empty(), Set.of());
    }
}
