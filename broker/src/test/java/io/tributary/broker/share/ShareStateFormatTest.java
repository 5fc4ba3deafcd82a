package io.tributary.broker.share;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.tributary.broker.share.SharePartition.StateBatch;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.junit.jupiter.api.Test;

/**
 * The {@code __share_group_state} records against Kafka's layout, built here byte by byte from the message
 * definitions (ShareSnapshotKey, ShareSnapshotValue v0) rather than from our own writer.
 */
class ShareStateFormatTest {

    private static final Uuid TOPIC_ID = new Uuid(0x0102030405060708L, 0x090A0B0C0D0E0F10L);
    private static final ShareKey KEY = new ShareKey("sg", TOPIC_ID, 7);

    @Test
    void keyIsRecordTypeZeroThenGroupTopicIdAndPartition() {
        ByteBuffer expected = ByteBuffer.allocate(2 + 2 + 2 + 16 + 4).putShort((short) 0).putShort((short) 2)
                .put("sg".getBytes(StandardCharsets.UTF_8)).putLong(0x0102030405060708L)
                .putLong(0x090A0B0C0D0E0F10L).putInt(7);
        assertArrayEquals(expected.array(), ShareStateFormat.serializeKey(KEY));
        assertEquals(KEY, ShareStateFormat.deserializeKey(ByteBuffer.wrap(expected.array())));
    }

    @Test
    void valueIsKafkasFlexibleVersionZero() {
        ShareState state = new ShareState(3, 11, 100L, List.of(
                new StateBatch(100L, 104L, RecordState.ACKNOWLEDGED, (short) 1),
                new StateBatch(105L, 105L, RecordState.AVAILABLE, (short) 2)));
        ByteBuffer expected = ByteBuffer.allocate(200);
        expected.putShort((short) 0).putShort((short) 9).putInt(3).putInt(11).putLong(100L);
        expected.put((byte) 3); // compact array: 2 batches + 1
        expected.putLong(100L).putLong(104L).put((byte) 2).putShort((short) 1).put((byte) 0);
        expected.putLong(105L).putLong(105L).put((byte) 0).putShort((short) 2).put((byte) 0);
        expected.put((byte) 0); // no tagged fields
        byte[] bytes = Arrays.copyOf(expected.array(), expected.position());

        assertArrayEquals(bytes, ShareStateFormat.serializeValue(9, state));
        ShareStateFormat.Snapshot read = ShareStateFormat.deserializeValue(ByteBuffer.wrap(bytes));
        assertEquals(9, read.snapshotEpoch());
        assertEquals(state, read.state());
    }

    @Test
    void snapshotEpochIsUnsignedSixteenBits() {
        ShareState empty = new ShareState(0, 0, 0L, List.of());
        byte[] bytes = ShareStateFormat.serializeValue(ShareStateFormat.MAX_SNAPSHOT_EPOCH, empty);
        assertEquals(ShareStateFormat.MAX_SNAPSHOT_EPOCH,
                ShareStateFormat.deserializeValue(ByteBuffer.wrap(bytes)).snapshotEpoch());
    }

    @Test
    void taggedFieldsOfANewerWriterArePassedOver() {
        ByteBuffer value = ByteBuffer.allocate(100);
        value.putShort((short) 0).putShort((short) 1).putInt(0).putInt(4).putLong(5L);
        value.put((byte) 2).putLong(5L).putLong(6L).put((byte) 4).putShort((short) 5);
        value.put((byte) 1).put((byte) 0).put((byte) 1).put((byte) 42); // one tagged field: tag 0, 1 byte
        value.put((byte) 1).put((byte) 3).put((byte) 2).putShort((short) 7); // tag 3, 2 bytes
        ShareStateFormat.Snapshot read = ShareStateFormat.deserializeValue(
                ByteBuffer.wrap(Arrays.copyOf(value.array(), value.position())));
        assertEquals(new ShareState(0, 4, 5L, List.of(new StateBatch(5L, 6L, RecordState.ARCHIVED, (short) 5))),
                read.state());
    }

    @Test
    void shareUpdateRecordsAreReportedNotMisread() {
        byte[] update = ByteBuffer.allocate(2 + 2 + 2 + 16 + 4).putShort((short) 1).putShort((short) 2)
                .put("sg".getBytes(StandardCharsets.UTF_8)).putLong(1L).putLong(2L).putInt(0).array();
        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> ShareStateFormat.deserializeKey(ByteBuffer.wrap(update)));
        assertEquals("Unknown share group state record type 1; only 0 (ShareSnapshot) is written and read here",
                e.getMessage());
    }

    @Test
    void malformedKeysAreCorruptRecords() {
        byte[] key = ShareStateFormat.serializeKey(KEY);
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeKey(ByteBuffer.allocate(1)));
        assertThrows(CorruptRecordException.class,
                () -> ShareStateFormat.deserializeKey(ByteBuffer.wrap(Arrays.copyOf(key, key.length - 1))));
        assertThrows(CorruptRecordException.class,
                () -> ShareStateFormat.deserializeKey(ByteBuffer.wrap(Arrays.copyOf(key, key.length + 1))));
        byte[] hugeGroup = key.clone();
        hugeGroup[2] = 0x7F; // a group id length beyond the buffer
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeKey(ByteBuffer.wrap(hugeGroup)));
    }

    @Test
    void malformedValuesAreCorruptRecords() {
        byte[] value = ShareStateFormat.serializeValue(1, new ShareState(0, 2, 10L,
                List.of(new StateBatch(10L, 12L, RecordState.ARCHIVED, (short) 5))));
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeValue(ByteBuffer.allocate(0)));
        for (int length = 2; length < value.length; length++) {
            byte[] cut = Arrays.copyOf(value, length);
            assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeValue(ByteBuffer.wrap(cut)),
                    "a value cut to " + length + " bytes");
        }
        byte[] version1 = value.clone();
        version1[1] = 1;
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeValue(ByteBuffer.wrap(version1)));

        int stateAt = 2 + 2 + 4 + 4 + 8 + 1 + 8 + 8;
        byte[] unknownState = value.clone();
        unknownState[stateAt] = 3;
        assertEquals("Unknown delivery state 3 in the share state batch from 10 to 12",
                assertThrows(CorruptRecordException.class,
                        () -> ShareStateFormat.deserializeValue(ByteBuffer.wrap(unknownState))).getMessage());

        byte[] reversed = ShareStateFormat.serializeValue(1, new ShareState(0, 2, 10L,
                List.of(new StateBatch(12L, 10L, RecordState.ARCHIVED, (short) 5))));
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeValue(ByteBuffer.wrap(reversed)));

        byte[] hugeCount = value.clone();
        hugeCount[2 + 2 + 4 + 4 + 8] = (byte) 0x7F; // 126 batches announced, one there
        assertThrows(CorruptRecordException.class, () -> ShareStateFormat.deserializeValue(ByteBuffer.wrap(hugeCount)));
    }
}
