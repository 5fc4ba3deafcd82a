package io.tributary.broker.group;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.tributary.broker.group.OffsetsTopicFormat.GroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.Key;
import io.tributary.broker.group.OffsetsTopicFormat.MemberValue;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetValue;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsValue;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.junit.jupiter.api.Test;

/**
 * The expected bytes are built field by field from Kafka's schemas ({@code OffsetCommitKey}, {@code OffsetCommitValue},
 * {@code GroupMetadataKey}, {@code GroupMetadataValue}) with {@link Layout}, which shares no code with the class under
 * test, so these tests prove the layout rather than only that writing and reading agree.
 */
class OffsetsTopicFormatTest {

    private static final byte[] SUBSCRIPTION = {0, 3, 0, 0, 0, 1, 0, 1, 't'};
    private static final byte[] ASSIGNMENT = {0, 3, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1};

    private static final MemberValue STATIC_MEMBER = new MemberValue("consumer-1-5f1c", "instance-a", "consumer-1",
            "/10.0.0.7", 300_000, 45_000, SUBSCRIPTION, ASSIGNMENT);
    private static final MemberValue DYNAMIC_MEMBER = new MemberValue("consumer-2-9ab0", null, "consumer-2",
            "/10.0.0.8", 60_000, 10_000, new byte[0], new byte[0]);

    private static final GroupValue STABLE_GROUP = new GroupValue("consumer", 7, "range", "consumer-1-5f1c",
            1_700_000_000_123L, List.of(STATIC_MEMBER, DYNAMIC_MEMBER));
    private static final GroupValue EMPTY_GROUP = new GroupValue("consumer", 8, null, null, 1_700_000_001_000L,
            List.of());


    @Test
    void offsetKeyIsVersion1WithGroupTopicAndPartition() {
        byte[] expected = HexFormat.of().parseHex(
                "0001"                      // key version 1
                + "0001" + "67"             // group "g"
                + "0002" + "7431"           // topic "t1"
                + "00000007");              // partition 7

        assertArrayEquals(expected, OffsetsTopicFormat.serializeKey(new OffsetKey("g", "t1", 7)));
    }

    @Test
    void groupKeyIsVersion2WithTheGroupOnly() {
        byte[] expected = HexFormat.of().parseHex(
                "0002"                      // key version 2
                + "0003" + "677270");       // group "grp"

        assertArrayEquals(expected, OffsetsTopicFormat.serializeKey(new GroupKey("grp")));
    }

    @Test
    void offsetValueIsVersion3WithLeaderEpochBeforeMetadata() {
        OffsetValue value = new OffsetValue(42L, 5, "caf\u00e9", 1_700_000_000_000L, -1L);

        byte[] expected = new Layout()
                .int16(3)
                .int64(42L)                 // offset
                .int32(5)                   // leader_epoch
                .string("caf\u00e9")        // metadata: 5 bytes of UTF-8, not 4 chars
                .int64(1_700_000_000_000L)  // commit_timestamp
                .build();

        assertArrayEquals(expected, OffsetsTopicFormat.serializeOffsetValue(value));
        assertEquals(2 + 8 + 4 + 2 + 5 + 8, expected.length);
    }

    @Test
    void groupValueIsVersion3WithStateTimestampAndInstanceIds() {
        byte[] expected = new Layout()
                .int16(3)
                .string("consumer")         // protocol_type
                .int32(7)                   // generation
                .string("range")            // protocol
                .string("consumer-1-5f1c")  // leader
                .int64(1_700_000_000_123L)  // current_state_timestamp
                .int32(2)                   // members
                .member3(STATIC_MEMBER)
                .member3(DYNAMIC_MEMBER)
                .build();

        assertArrayEquals(expected, OffsetsTopicFormat.serializeGroupValue(STABLE_GROUP));
    }

    @Test
    void emptyGroupIsWrittenWithNullProtocolAndLeader() {
        byte[] expected = new Layout()
                .int16(3)
                .string("consumer")
                .int32(8)
                .int16(-1)                  // protocol: null
                .int16(-1)                  // leader: null
                .int64(1_700_000_001_000L)
                .int32(0)                   // no members
                .build();

        assertArrayEquals(expected, OffsetsTopicFormat.serializeGroupValue(EMPTY_GROUP));
    }


    @Test
    void keysRoundTrip() {
        for (Key key : List.of(new OffsetKey("group-\u00fc", "orders", 0), new OffsetKey("", "t", Integer.MAX_VALUE),
                new GroupKey("group-\u00fc"), new GroupKey(""))) {
            byte[] bytes = OffsetsTopicFormat.serializeKey(key);
            assertEquals(Optional.of(key), OffsetsTopicFormat.deserializeKey(wrap(bytes)));
        }
    }

    @Test
    void offsetValuesRoundTrip() {
        for (OffsetValue value : List.of(new OffsetValue(0L, -1, "", 0L, -1L),
                new OffsetValue(Long.MAX_VALUE, Integer.MAX_VALUE, "x".repeat(4096), 1_700_000_000_000L, -1L))) {
            byte[] bytes = OffsetsTopicFormat.serializeOffsetValue(value);
            assertEquals(value, OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));
        }
    }

    @Test
    void groupValuesRoundTripWithNullsAndEmptyArrays() {
        GroupValue noTimestamp = new GroupValue("", 0, null, null, -1L, List.of());
        for (GroupValue value : List.of(STABLE_GROUP, EMPTY_GROUP, noTimestamp)) {
            byte[] bytes = OffsetsTopicFormat.serializeGroupValue(value);
            assertEquals(value, OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)));
        }
    }


    @Test
    void keyVersion0IsAnOffsetKeyLikeVersion1() {
        byte[] bytes = new Layout().int16(0).string("g").string("t").int32(3).build();

        assertEquals(Optional.of(new OffsetKey("g", "t", 3)), OffsetsTopicFormat.deserializeKey(wrap(bytes)));
    }

    @Test
    void offsetValueVersion0HasNoLeaderEpochNorExpiry() {
        byte[] bytes = new Layout().int16(0).int64(100L).string("m").int64(1_000L).build();

        assertEquals(new OffsetValue(100L, -1, "m", 1_000L, -1L),
                OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));
    }

    @Test
    void offsetValueVersion1CarriesTheExpireTimestamp() {
        byte[] bytes = new Layout().int16(1).int64(100L).string("m").int64(1_000L).int64(86_401_000L).build();

        assertEquals(new OffsetValue(100L, -1, "m", 1_000L, 86_401_000L),
                OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));
    }

    @Test
    void offsetValueVersion2IsLaidOutLikeVersion0() {
        byte[] bytes = new Layout().int16(2).int64(100L).string("").int64(1_000L).build();

        assertEquals(new OffsetValue(100L, -1, "", 1_000L, -1L),
                OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));
    }

    @Test
    void offsetValueVersion4IsReadAndItsTaggedTopicIdIgnored() {
        byte[] bytes = new Layout()
                .int16(4)
                .int64(100L)
                .int32(9)
                .compactString("caf\u00e9")
                .int64(1_000L)
                .uvarint(1)                 // one tagged field:
                .uvarint(0).uvarint(16)     // tag 0 (topic id), 16 bytes
                .raw(new byte[16])
                .build();

        assertEquals(new OffsetValue(100L, 9, "caf\u00e9", 1_000L, -1L),
                OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));
    }

    @Test
    void groupValueVersion0UsesTheSessionTimeoutAsRebalanceTimeout() {
        byte[] bytes = new Layout()
                .int16(0)
                .string("consumer").int32(3).string("range").string("m1")
                .int32(1)
                .string("m1").string("client").string("/host")
                .int32(10_000)              // session_timeout, the only timeout in version 0
                .bytes(SUBSCRIPTION).bytes(ASSIGNMENT)
                .build();

        GroupValue expected = new GroupValue("consumer", 3, "range", "m1", -1L, List.of(
                new MemberValue("m1", null, "client", "/host", 10_000, 10_000, SUBSCRIPTION, ASSIGNMENT)));
        assertEquals(expected, OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)));
    }

    @Test
    void groupValueVersion1AddsTheRebalanceTimeout() {
        byte[] bytes = new Layout()
                .int16(1)
                .string("consumer").int32(3).int16(-1).int16(-1)
                .int32(1)
                .string("m1").string("client").string("/host")
                .int32(300_000)             // rebalance_timeout
                .int32(10_000)              // session_timeout
                .bytes(new byte[0]).bytes(new byte[0])
                .build();

        GroupValue expected = new GroupValue("consumer", 3, null, null, -1L, List.of(
                new MemberValue("m1", null, "client", "/host", 300_000, 10_000, new byte[0], new byte[0])));
        assertEquals(expected, OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)));
    }

    @Test
    void groupValueVersion2AddsTheStateTimestampButNoInstanceId() {
        byte[] bytes = new Layout()
                .int16(2)
                .string("consumer").int32(3).string("range").string("m1")
                .int64(1_234L)              // current_state_timestamp
                .int32(1)
                .string("m1").string("client").string("/host").int32(300_000).int32(10_000)
                .bytes(SUBSCRIPTION).bytes(ASSIGNMENT)
                .build();

        GroupValue expected = new GroupValue("consumer", 3, "range", "m1", 1_234L, List.of(
                new MemberValue("m1", null, "client", "/host", 300_000, 10_000, SUBSCRIPTION, ASSIGNMENT)));
        assertEquals(expected, OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)));
    }

    @Test
    void groupValueVersion4IsReadWithCompactFieldsAndTaggedSectionsPerStruct() {
        byte[] bytes = new Layout()
                .int16(4)
                .compactString("consumer").int32(7).compactString("range").compactString(null)
                .int64(1_234L)
                .uvarint(2 + 1)             // two members
                .compactString("m1").compactString("instance-a").compactString("client").compactString("/host")
                .int32(300_000).int32(45_000).compactBytes(SUBSCRIPTION).compactBytes(ASSIGNMENT)
                .uvarint(1).uvarint(5).uvarint(2).raw((byte) 1, (byte) 2)   // a tagged field unknown to anyone
                .compactString("m2").compactString(null).compactString("client").compactString("/host")
                .int32(60_000).int32(10_000).compactBytes(new byte[0]).compactBytes(new byte[0])
                .uvarint(0)                 // member without tagged fields
                .uvarint(0)                 // group value without tagged fields
                .build();

        GroupValue expected = new GroupValue("consumer", 7, "range", null, 1_234L, List.of(
                new MemberValue("m1", "instance-a", "client", "/host", 300_000, 45_000, SUBSCRIPTION, ASSIGNMENT),
                new MemberValue("m2", null, "client", "/host", 60_000, 10_000, new byte[0], new byte[0])));
        assertEquals(expected, OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)));
    }

    @Test
    void keysOfOtherGroupTypesAreSkippedWhateverFollowsTheVersion() {
        for (int version : new int[] {3, 8, 14, 999, Short.MAX_VALUE}) {
            byte[] bytes = new Layout().int16(version).raw((byte) 0xff, (byte) 0xff, (byte) 0xff).build();
            assertEquals(Optional.empty(), OffsetsTopicFormat.deserializeKey(wrap(bytes)), "version " + version);
        }
    }


    @Test
    void negativeKeyVersionIsCorrupt() {
        byte[] bytes = new Layout().int16(-1).string("g").build();

        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> OffsetsTopicFormat.deserializeKey(wrap(bytes)));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void unknownValueVersionsAreCorruptAndNamed() {
        for (int version : new int[] {5, -1}) {
            byte[] offset = new Layout().int16(version).int64(1L).int32(0).string("").int64(0L).build();
            byte[] group = new Layout().int16(version).string("").int32(0).int16(-1).int16(-1).int64(0).int32(0)
                    .build();

            CorruptRecordException e = assertThrows(CorruptRecordException.class,
                    () -> OffsetsTopicFormat.deserializeOffsetValue(wrap(offset)));
            assertTrue(e.getMessage().contains("offset value version " + version), e.getMessage());
            e = assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeGroupValue(wrap(group)));
            assertTrue(e.getMessage().contains("group value version " + version), e.getMessage());
        }
    }

    @Test
    void everyTruncationIsCorrupt() {
        assertEveryProperPrefixIsCorrupt(OffsetsTopicFormat.serializeKey(new OffsetKey("g", "t", 1)),
                OffsetsTopicFormat::deserializeKey);
        assertEveryProperPrefixIsCorrupt(OffsetsTopicFormat.serializeKey(new GroupKey("group")),
                OffsetsTopicFormat::deserializeKey);
        assertEveryProperPrefixIsCorrupt(
                OffsetsTopicFormat.serializeOffsetValue(new OffsetValue(1L, 2, "meta", 3L, -1L)),
                OffsetsTopicFormat::deserializeOffsetValue);
        assertEveryProperPrefixIsCorrupt(OffsetsTopicFormat.serializeGroupValue(STABLE_GROUP),
                OffsetsTopicFormat::deserializeGroupValue);
    }

    @Test
    void bytesAfterTheLastFieldAreCorrupt() {
        byte[] key = append(OffsetsTopicFormat.serializeKey(new GroupKey("g")), (byte) 0);
        byte[] offset = append(OffsetsTopicFormat.serializeOffsetValue(new OffsetValue(1L, 2, "", 3L, -1L)),
                (byte) 0, (byte) 0);
        byte[] group = append(OffsetsTopicFormat.serializeGroupValue(EMPTY_GROUP), (byte) 7);

        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> OffsetsTopicFormat.deserializeKey(wrap(key)));
        assertTrue(e.getMessage().contains("1 bytes follow"), e.getMessage());
        e = assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeOffsetValue(wrap(offset)));
        assertTrue(e.getMessage().contains("2 bytes follow"), e.getMessage());
        assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeGroupValue(wrap(group)));
    }

    @Test
    void negativeAndOversizedLengthsAreCorrupt() {
        List<byte[]> offsetValues = List.of(
                new Layout().int16(3).int64(1L).int32(0).int16(-1).int64(0L).build(),         // null metadata
                new Layout().int16(3).int64(1L).int32(0).int16(-2).int64(0L).build(),         // negative length
                new Layout().int16(3).int64(1L).int32(0).int16(0x7fff).int64(0L).build(),     // beyond the end
                new Layout().int16(4).int64(1L).int32(0).uvarint(0).int64(0L).uvarint(0).build(),         // null
                new Layout().int16(4).int64(1L).int32(0).uvarint(-1).int64(0L).uvarint(0).build(),        // 2^32-1
                new Layout().int16(4).int64(1L).int32(0).compactString("").int64(0L)
                        .uvarint(1).uvarint(0).uvarint(Integer.MAX_VALUE).build());                       // tag size
        for (byte[] bytes : offsetValues) {
            assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)),
                    HexFormat.of().formatHex(bytes));
        }

        Layout groupHead = new Layout().int16(3).string("consumer").int32(1).int16(-1).int16(-1).int64(0L);
        Layout memberHead = new Layout().string("m").int16(-1).string("c").string("h").int32(1).int32(1);
        List<byte[]> groupValues = List.of(
                groupHead.copy().int32(-1).build(),                                           // member count
                groupHead.copy().int32(Integer.MAX_VALUE).build(),
                groupHead.copy().int32(1).append(memberHead).int32(-1).int32(0).build(),      // subscription
                groupHead.copy().int32(1).append(memberHead).int32(Integer.MAX_VALUE).int32(0).build(),
                groupHead.copy().int32(1).append(memberHead).int32(0).int32(-7).build());     // assignment
        for (byte[] bytes : groupValues) {
            assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeGroupValue(wrap(bytes)),
                    HexFormat.of().formatHex(bytes));
        }

        byte[] key = new Layout().int16(1).int16(-5).string("t").int32(0).build();
        assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeKey(wrap(key)));
    }

    @Test
    void corruptMessageSaysWhatWasWrong() {
        byte[] bytes = new Layout().int16(3).int64(1L).int32(0).int16(-2).int64(0L).build();

        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> OffsetsTopicFormat.deserializeOffsetValue(wrap(bytes)));

        assertTrue(e.getMessage().contains("offset value version 3"), e.getMessage());
        assertTrue(e.getMessage().contains("metadata"), e.getMessage());
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
    }


    @Test
    void readingLeavesTheCallersBufferAsItWas() {
        OffsetValue offset = new OffsetValue(5L, 1, "m", 6L, -1L);
        ByteBuffer key = inTheMiddleOfALargerBuffer(OffsetsTopicFormat.serializeKey(new OffsetKey("g", "t", 1)));
        ByteBuffer offsetValue = inTheMiddleOfALargerBuffer(OffsetsTopicFormat.serializeOffsetValue(offset));
        ByteBuffer groupValue = inTheMiddleOfALargerBuffer(OffsetsTopicFormat.serializeGroupValue(STABLE_GROUP));

        assertEquals(Optional.of(new OffsetKey("g", "t", 1)), OffsetsTopicFormat.deserializeKey(key));
        assertEquals(offset, OffsetsTopicFormat.deserializeOffsetValue(offsetValue));
        assertEquals(STABLE_GROUP, OffsetsTopicFormat.deserializeGroupValue(groupValue));

        for (ByteBuffer buffer : List.of(key, offsetValue, groupValue)) {
            assertEquals(10, buffer.position());
            assertEquals(buffer.capacity() - 10, buffer.limit());
            assertEquals(ByteOrder.LITTLE_ENDIAN, buffer.order());
        }
    }

    @Test
    void failedReadLeavesTheCallersBufferAsItWas() {
        ByteBuffer in = wrap(new Layout().int16(3).int64(1L).build());

        assertThrows(CorruptRecordException.class, () -> OffsetsTopicFormat.deserializeOffsetValue(in));
        assertEquals(0, in.position());
    }

    @Test
    void readArraysDoNotShareTheCallersBytes() {
        byte[] bytes = OffsetsTopicFormat.serializeGroupValue(STABLE_GROUP);
        GroupValue read = OffsetsTopicFormat.deserializeGroupValue(wrap(bytes));

        Arrays.fill(bytes, (byte) 0);

        assertEquals(STABLE_GROUP, read);
    }


    @Test
    void anExpireTimestampCannotBeWrittenInVersion3() {
        OffsetValue value = new OffsetValue(1L, 0, "", 2L, 3L);

        assertThrows(IllegalArgumentException.class, () -> OffsetsTopicFormat.serializeOffsetValue(value));
    }

    @Test
    void aStringLongerThanInt16IsRejectedWhenWritten() {
        OffsetValue value = new OffsetValue(1L, 0, "x".repeat(Short.MAX_VALUE + 1), 2L, -1L);

        assertThrows(IllegalArgumentException.class, () -> OffsetsTopicFormat.serializeOffsetValue(value));
    }

    @Test
    void membersCompareByArrayContents() {
        MemberValue copy = new MemberValue("consumer-1-5f1c", "instance-a", "consumer-1", "/10.0.0.7", 300_000,
                45_000, SUBSCRIPTION.clone(), ASSIGNMENT.clone());
        MemberValue otherAssignment = new MemberValue("consumer-1-5f1c", "instance-a", "consumer-1", "/10.0.0.7",
                300_000, 45_000, SUBSCRIPTION.clone(), new byte[] {1});

        assertEquals(STATIC_MEMBER, copy);
        assertEquals(STATIC_MEMBER.hashCode(), copy.hashCode());
        assertEquals(STATIC_MEMBER.toString(), copy.toString());
        assertNotEquals(STATIC_MEMBER, otherAssignment);
        assertTrue(STATIC_MEMBER.toString().contains("subscription=000300000001000174"), STATIC_MEMBER.toString());
    }


    private static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes);
    }

    /**
     * The bytes between position 10 and a limit 10 before the end, as the log hands a record's key or value over,
     * and little-endian, which the reader must ignore.
     */
    private static ByteBuffer inTheMiddleOfALargerBuffer(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 20).order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(10).mark();
        buffer.put(bytes).limit(buffer.position()).reset();
        return buffer;
    }

    private static byte[] append(byte[] bytes, byte... extra) {
        byte[] result = Arrays.copyOf(bytes, bytes.length + extra.length);
        System.arraycopy(extra, 0, result, bytes.length, extra.length);
        return result;
    }

    private static void assertEveryProperPrefixIsCorrupt(byte[] bytes, Function<ByteBuffer, ?> read) {
        read.apply(wrap(bytes));
        for (int length = 0; length < bytes.length; length++) {
            ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, length);
            int cut = length;
            assertThrows(CorruptRecordException.class, () -> read.apply(prefix),
                    () -> "first " + cut + " of " + bytes.length + " bytes");
        }
    }

    /** Big-endian bytes in the order written, as in Kafka's schema files. */
    private static final class Layout {

        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Layout int16(int value) {
            out.write(value >>> 8);
            out.write(value);
            return this;
        }

        Layout int32(int value) {
            return int16(value >>> 16).int16(value);
        }

        Layout int64(long value) {
            return int32((int) (value >>> 32)).int32((int) value);
        }

        /** int16 length, then UTF-8; length -1 for null. */
        Layout string(String value) {
            if (value == null) {
                return int16(-1);
            }
            byte[] utf8 = value.getBytes(UTF_8);
            return int16(utf8.length).raw(utf8);
        }

        /** int32 length, then the bytes. */
        Layout bytes(byte[] value) {
            return int32(value.length).raw(value);
        }

        /** Unsigned LEB128: 7 bits a byte, least significant first, high bit set on all but the last. */
        Layout uvarint(int value) {
            while ((value & ~0x7f) != 0) {
                out.write((value & 0x7f) | 0x80);
                value >>>= 7;
            }
            out.write(value);
            return this;
        }

        /** Unsigned varint of length + 1, then UTF-8; 0 for null. */
        Layout compactString(String value) {
            if (value == null) {
                return uvarint(0);
            }
            byte[] utf8 = value.getBytes(UTF_8);
            return uvarint(utf8.length + 1).raw(utf8);
        }

        Layout compactBytes(byte[] value) {
            return uvarint(value.length + 1).raw(value);
        }

        /** A group value's member in version 3. */
        Layout member3(MemberValue member) {
            return string(member.memberId())
                    .string(member.groupInstanceId())
                    .string(member.clientId())
                    .string(member.clientHost())
                    .int32(member.rebalanceTimeoutMs())
                    .int32(member.sessionTimeoutMs())
                    .bytes(member.subscription())
                    .bytes(member.assignment());
        }

        Layout raw(byte... bytes) {
            out.writeBytes(bytes);
            return this;
        }

        Layout append(Layout other) {
            return raw(other.build());
        }

        Layout copy() {
            return new Layout().raw(build());
        }

        byte[] build() {
            return out.toByteArray();
        }
    }

    @Test
    void shareStatePartitionsAreKafkasShareGroupStatePartitionMetadataRecord() {
        Uuid topicId = new Uuid(1L, 2L);
        ShareStatePartitionsValue value = new ShareStatePartitionsValue(Map.of(topicId,
                new ShareGroup.StateTopic("t", new java.util.TreeSet<>(List.of(1, 0)))));
        byte[] bytes = OffsetsTopicFormat.serializeShareStatePartitionsValue(value);
        ByteBuffer expected = ByteBuffer.allocate(2 + 1 + 1 + 16 + 2 + 1 + 8 + 1 + 1 + 1);
        expected.putShort((short) 0);       // value version 0
        expected.put((byte) 1);             // initializing topics: none (compact count + 1)
        expected.put((byte) 2);             // initialized topics: one
        expected.putLong(1L).putLong(2L);   // topic id
        expected.put((byte) 2).put((byte) 't');
        expected.put((byte) 3).putInt(0).putInt(1);
        expected.put((byte) 0);             // the topic's tagged fields
        expected.put((byte) 1);             // deleting topics: none
        expected.put((byte) 0);             // tagged fields
        assertArrayEquals(expected.array(), bytes);
        assertEquals(value, OffsetsTopicFormat.deserializeShareStatePartitionsValue(ByteBuffer.wrap(bytes)));

        byte[] key = OffsetsTopicFormat.serializeKey(new ShareStatePartitionsKey("g"));
        assertArrayEquals(new byte[] {0, 15, 0, 1, 'g'}, key);
        assertEquals(Optional.of(new ShareStatePartitionsKey("g")),
                OffsetsTopicFormat.deserializeKey(ByteBuffer.wrap(key)));
    }
}
