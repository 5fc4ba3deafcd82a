package io.tributary.broker.txn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.api.Test;

/**
 * The {@code __transaction_state} records against Kafka's layout, built here byte by byte from the message
 * definitions (TransactionLogKey v0, TransactionLogValue v0 and v1) rather than from our own writer.
 */
class TransactionLogFormatTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition OFFSETS_7 = new TopicPartition("__consumer_offsets", 7);

    @Test
    void keyIsVersionZeroAndTheTransactionalIdAsAString() {
        byte[] expected = ByteBuffer.allocate(2 + 2 + 5).putShort((short) 0).putShort((short) 5)
                .put("tx-01".getBytes(StandardCharsets.UTF_8)).array();
        assertArrayEquals(expected, TransactionLogFormat.serializeKey("tx-01"));
        assertEquals("tx-01", TransactionLogFormat.deserializeKey(ByteBuffer.wrap(expected)));
    }

    @Test
    void ongoingValueIsWrittenAsKafkasVersionZero() {
        TransactionData data = new TransactionData(4000L, -1L, (short) 3, (short) 2, 60_000,
                TransactionState.ONGOING, Set.of(ORDERS_1, ORDERS_0, OFFSETS_7), 1_000L, 1_500L);
        ByteBuffer expected = ByteBuffer.allocate(200);
        expected.putShort((short) 0).putLong(4000L).putShort((short) 3).putInt(60_000).put((byte) 1);
        expected.putInt(2); // topics in name order: __consumer_offsets, orders
        putString(expected, "__consumer_offsets");
        expected.putInt(1).putInt(7);
        putString(expected, "orders");
        expected.putInt(2).putInt(0).putInt(1);
        expected.putLong(1_500L).putLong(1_000L);
        assertArrayEquals(bytes(expected), TransactionLogFormat.serializeValue(data));

        TransactionData read = TransactionLogFormat.deserializeValue(ByteBuffer.wrap(bytes(expected)));
        assertEquals(new TransactionData(4000L, -1L, (short) 3, TransactionData.NO_EPOCH, 60_000,
                TransactionState.ONGOING, Set.of(ORDERS_0, ORDERS_1, OFFSETS_7), 1_000L, 1_500L), read);
    }

    @Test
    void emptyStateHasNullPartitions() {
        TransactionData data = new TransactionData(5L, -1L, (short) 0, (short) -1, 30_000, TransactionState.EMPTY,
                Set.of(), -1L, 42L);
        ByteBuffer expected = ByteBuffer.allocate(100);
        expected.putShort((short) 0).putLong(5L).putShort((short) 0).putInt(30_000).put((byte) 0);
        expected.putInt(-1);
        expected.putLong(42L).putLong(-1L);
        assertArrayEquals(bytes(expected), TransactionLogFormat.serializeValue(data));
        assertEquals(data.withState(TransactionState.EMPTY, 42L),
                TransactionLogFormat.deserializeValue(ByteBuffer.wrap(bytes(expected))));
    }

    @Test
    void everyStateRoundTrips() {
        for (TransactionState state : TransactionState.values()) {
            Set<TopicPartition> partitions = state == TransactionState.EMPTY ? Set.of() : Set.of(ORDERS_0);
            TransactionData data = new TransactionData(9L, -1L, (short) 1, TransactionData.NO_EPOCH, 10_000, state,
                    partitions, 7L, 8L);
            assertEquals(data, TransactionLogFormat.deserializeValue(
                    ByteBuffer.wrap(TransactionLogFormat.serializeValue(data))), state.name());
        }
    }

    @Test
    void flexibleVersionOneIsReadWithItsPreviousProducerId() {
        ByteBuffer v1 = ByteBuffer.allocate(200);
        v1.putShort((short) 1).putLong(77L).putShort((short) 0).putInt(15_000).put((byte) 2);
        ByteUtils.writeUnsignedVarint(1 + 1, v1); // one topic
        putCompactString(v1, "orders");
        ByteUtils.writeUnsignedVarint(2 + 1, v1); // two partitions
        v1.putInt(0).putInt(1);
        ByteUtils.writeUnsignedVarint(0, v1); // the topic's tagged fields
        v1.putLong(2_000L).putLong(1_000L);
        ByteUtils.writeUnsignedVarint(2, v1); // two tagged fields
        ByteUtils.writeUnsignedVarint(0, v1); // previous producer id
        ByteUtils.writeUnsignedVarint(8, v1);
        v1.putLong(76L);
        ByteUtils.writeUnsignedVarint(2, v1); // client transaction version
        ByteUtils.writeUnsignedVarint(2, v1);
        v1.putShort((short) 2);

        TransactionData read = TransactionLogFormat.deserializeValue(ByteBuffer.wrap(bytes(v1)));
        assertEquals(new TransactionData(77L, 76L, (short) 0, TransactionData.NO_EPOCH, 15_000,
                TransactionState.PREPARE_COMMIT, Set.of(ORDERS_0, ORDERS_1), 1_000L, 2_000L), read);
    }

    @Test
    void damagedValuesAreReportedAsCorrupt() {
        byte[] valid = TransactionLogFormat.serializeValue(new TransactionData(1L, -1L, (short) 0, (short) -1, 1,
                TransactionState.EMPTY, Set.of(), -1L, 0L));
        byte[] trailing = ByteBuffer.allocate(valid.length + 1).put(valid).put((byte) 0).array();
        assertThrows(CorruptRecordException.class,
                () -> TransactionLogFormat.deserializeValue(ByteBuffer.wrap(trailing)));
        byte[] truncated = java.util.Arrays.copyOf(valid, valid.length - 3);
        assertThrows(CorruptRecordException.class,
                () -> TransactionLogFormat.deserializeValue(ByteBuffer.wrap(truncated)));
        byte[] unknownStatus = valid.clone();
        unknownStatus[2 + 8 + 2 + 4] = 42;
        assertThrows(CorruptRecordException.class,
                () -> TransactionLogFormat.deserializeValue(ByteBuffer.wrap(unknownStatus)));
        byte[] unknownVersion = valid.clone();
        unknownVersion[1] = 9;
        assertThrows(CorruptRecordException.class,
                () -> TransactionLogFormat.deserializeValue(ByteBuffer.wrap(unknownVersion)));
    }

    /**
     * Bytes Apache Kafka 4.4 wrote for the same records: its generated {@code TransactionLogKey} and
     * {@code TransactionLogValue} (kafka-transaction-coordinator 4.4.0) through
     * {@code MessageUtil.toVersionPrefixedBytes}, captured once outside this build (which must not depend on Kafka's
     * server artifacts).
     */
    @Test
    void recordsAreByteForByteWhatKafkaWrites() {
        HexFormat hex = HexFormat.of();
        assertArrayEquals(hex.parseHex("0000000574782d3031"), TransactionLogFormat.serializeKey("tx-01"));

        TransactionData prepareCommit = new TransactionData(4000L, -1L, (short) 3, TransactionData.NO_EPOCH, 60_000,
                TransactionState.PREPARE_COMMIT, Set.of(ORDERS_0, ORDERS_1), 1_000L, 1_500L);
        byte[] kafkaV0 = hex.parseHex("00000000000000000fa000030000ea60020000000100066f726465727300000002000000000000"
                + "000100000000000005dc00000000000003e8");
        assertArrayEquals(kafkaV0, TransactionLogFormat.serializeValue(prepareCommit));
        assertEquals(prepareCommit, TransactionLogFormat.deserializeValue(ByteBuffer.wrap(kafkaV0)));

        byte[] kafkaV1 = hex.parseHex("00010000000000000fa000030000ea600202076f72646572730300000000000000010000000000"
                + "000005dc00000000000003e80200080000000000000f9f02020002");
        assertEquals(new TransactionData(4000L, 3999L, (short) 3, TransactionData.NO_EPOCH, 60_000,
                TransactionState.PREPARE_COMMIT, Set.of(ORDERS_0, ORDERS_1), 1_000L, 1_500L),
                TransactionLogFormat.deserializeValue(ByteBuffer.wrap(kafkaV1)));

        TransactionData empty = new TransactionData(5L, -1L, (short) 0, TransactionData.NO_EPOCH, 30_000,
                TransactionState.EMPTY, Set.of(), -1L, 42L);
        assertArrayEquals(hex.parseHex("0000000000000000000500000000753000ffffffff000000000000002affffffffffffffff"),
                TransactionLogFormat.serializeValue(empty));
    }

    private static void putString(ByteBuffer buffer, String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) utf8.length).put(utf8);
    }

    private static void putCompactString(ByteBuffer buffer, String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        ByteUtils.writeUnsignedVarint(utf8.length + 1, buffer);
        buffer.put(utf8);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        return java.util.Arrays.copyOf(buffer.array(), buffer.position());
    }
}
