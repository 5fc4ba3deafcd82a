package io.tributary.jms.message;

import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTemporaryQueue;
import io.tributary.jms.TributaryTemporaryTopic;
import io.tributary.jms.TributaryTopic;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.Queue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageCodecTest {

    private static final Function<String, Destination> AS_QUEUE = topic -> {
        try {
            return TributaryQueue.of(topic);
        } catch (InvalidDestinationException e) {
            throw new AssertionError(e);
        }
    };

    @Test
    void aTextMessageRoundTripsWithEveryHeaderAndPropertyType() throws JMSException {
        TributaryTextMessage sent = new TributaryTextMessage("héllo");
        sent.setJMSMessageID("ID:42");
        sent.setJMSTimestamp(1_700_000_000_000L);
        sent.setJMSCorrelationID("corr");
        sent.setJMSType("greeting");
        sent.setJMSReplyTo(TributaryTopic.of("replies"));
        sent.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        sent.setJMSPriority(7);
        sent.setJMSExpiration(1_700_000_060_000L);
        sent.setJMSDeliveryTime(1_700_000_001_000L);
        sent.setBooleanProperty("bool", true);
        sent.setByteProperty("byte", (byte) -8);
        sent.setShortProperty("short", (short) -300);
        sent.setIntProperty("int", Integer.MIN_VALUE);
        sent.setLongProperty("long", Long.MAX_VALUE);
        sent.setFloatProperty("float", Float.NaN);
        sent.setDoubleProperty("double", -0.0);
        sent.setStringProperty("string", "żółw ✓");
        sent.setStringProperty("empty", "");
        sent.setStringProperty("nothing", null);
        sent.setIntProperty("JMSXGroupSeq", 4);
        sent.setStringProperty("JMSXUserID", "alice");

        TributaryMessage received = roundTrip(sent);

        TributaryTextMessage text = assertInstanceOf(TributaryTextMessage.class, received);
        assertEquals("héllo", text.getText());
        assertEquals("ID:42", received.getJMSMessageID());
        assertEquals(1_700_000_000_000L, received.getJMSTimestamp());
        assertEquals("corr", received.getJMSCorrelationID());
        assertEquals("greeting", received.getJMSType());
        assertEquals(TributaryTopic.of("replies"), received.getJMSReplyTo());
        assertEquals(DeliveryMode.NON_PERSISTENT, received.getJMSDeliveryMode());
        assertEquals(7, received.getJMSPriority());
        assertEquals(1_700_000_060_000L, received.getJMSExpiration());
        assertEquals(1_700_000_001_000L, received.getJMSDeliveryTime());
        assertEquals(TributaryQueue.of("orders"), received.getJMSDestination());
        assertFalse(received.getJMSRedelivered());

        assertEquals(Boolean.TRUE, received.getObjectProperty("bool"));
        assertEquals((byte) -8, received.getObjectProperty("byte"));
        assertEquals((short) -300, received.getObjectProperty("short"));
        assertEquals(Integer.MIN_VALUE, received.getObjectProperty("int"));
        assertEquals(Long.MAX_VALUE, received.getObjectProperty("long"));
        assertEquals(Float.NaN, received.getObjectProperty("float"));
        assertEquals(-0.0, received.getObjectProperty("double"));
        assertEquals("żółw ✓", received.getObjectProperty("string"));
        assertEquals("", received.getObjectProperty("empty"));
        assertTrue(received.propertyExists("nothing"));
        assertNull(received.getObjectProperty("nothing"));
        assertEquals(4, received.getObjectProperty("JMSXGroupSeq"));
        assertEquals("alice", received.getObjectProperty("JMSXUserID"));
        assertEquals(1, received.getIntProperty("JMSXDeliveryCount"));
    }

    @Test
    void theRecordLayoutIsTheDocumentedOne() throws JMSException {
        TributaryTextMessage m = new TributaryTextMessage("hi");
        m.setJMSMessageID("ID:1");
        m.setJMSTimestamp(5);
        m.setJMSReplyTo(TributaryQueue.of("back"));
        m.setIntProperty("count", 42);
        m.setStringProperty("colour", "red");
        m.setBooleanProperty("ok", true);
        m.setDoubleProperty("ratio", 1.0);

        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(m, "orders");

        assertEquals("orders", record.topic());
        assertNull(record.partition());
        assertNull(record.key());
        assertEquals(5L, record.timestamp());
        assertArrayEquals("hi".getBytes(StandardCharsets.UTF_8), record.value());
        assertEquals("text", header(record, "jms.type"));
        assertEquals("ID:1", header(record, "jms.MessageID"));
        assertEquals("queue://back", header(record, "jms.ReplyTo"));
        assertEquals("PERSISTENT", header(record, "jms.DeliveryMode"));
        assertEquals("4", header(record, "jms.Priority"));
        assertNull(record.headers().lastHeader("jms.Expiration"));
        assertNull(record.headers().lastHeader("jms.DeliveryTime"));
        assertNull(record.headers().lastHeader("jms.Timestamp"));
        assertArrayEquals(new byte[] {4, 0, 0, 0, 42}, record.headers().lastHeader("jms.prop.count").value());
        assertArrayEquals(new byte[] {8, 'r', 'e', 'd'}, record.headers().lastHeader("jms.prop.colour").value());
        assertArrayEquals(new byte[] {1, 1}, record.headers().lastHeader("jms.prop.ok").value());
        assertArrayEquals(new byte[] {7, 0x3F, (byte) 0xF0, 0, 0, 0, 0, 0, 0},
                record.headers().lastHeader("jms.prop.ratio").value());
    }

    @Test
    void theGroupIdIsTheRecordKeyAndComesBackAsAProperty() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setStringProperty("JMSXGroupID", "customer-7");
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(m, "orders");
        assertArrayEquals("customer-7".getBytes(StandardCharsets.UTF_8), record.key());

        TributaryMessage received = MessageCodec.fromRecord(consumed(record, 0, 0), AS_QUEUE, false);
        assertEquals("customer-7", received.getStringProperty("JMSXGroupID"));
        assertEquals("customer-7", received.getStringProperty("JMS_Tributary_Key"));
    }

    @Test
    void correlationIdBytesTravelByteForByte() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        byte[] id = {0, (byte) 0xFF, (byte) 0xC3, 0x28};
        m.setJMSCorrelationIDAsBytes(id);
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(m, "orders");
        assertNull(record.headers().lastHeader("jms.CorrelationID"));
        assertArrayEquals(id, record.headers().lastHeader("jms.CorrelationIDBytes").value());
        assertArrayEquals(id, roundTrip(m).getJMSCorrelationIDAsBytes());
    }

    @ParameterizedTest
    @CsvSource({"queue,queue://q1", "topic,topic://t1", "temp-queue,temp-queue://tq1", "temp-topic,temp-topic://tt1"})
    void replyToTravelsAsAUriOfItsKind(String kind, String uri) throws JMSException {
        Destination replyTo = switch (kind) {
            case "queue" -> TributaryQueue.of("q1");
            case "topic" -> TributaryTopic.of("t1");
            case "temp-queue" -> TributaryTemporaryQueue.create("tq1", d -> { });
            default -> TributaryTemporaryTopic.create("tt1", d -> { });
        };
        TributaryMessage m = new TributaryMessage();
        m.setJMSReplyTo(replyTo);
        assertEquals(uri, header(MessageCodec.toRecord(m, "orders"), "jms.ReplyTo"));
        Destination received = roundTrip(m).getJMSReplyTo();
        assertEquals(replyTo, received);
        assertEquals(replyTo.getClass(), received.getClass());
    }

    @Test
    void aForeignQueueIsAcceptedAsReplyToWhenItsNameIsATopicName() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setJMSReplyTo((Queue) () -> "foreign.replies");
        assertEquals(TributaryQueue.of("foreign.replies"), roundTrip(m).getJMSReplyTo());

        m.setJMSReplyTo((Queue) () -> "not a topic name");
        assertThrows(InvalidDestinationException.class, () -> MessageCodec.toRecord(m, "orders"));
        m.setJMSReplyTo(new Destination() { });
        assertThrows(InvalidDestinationException.class, () -> MessageCodec.toRecord(m, "orders"));
    }

    @Test
    void aZeroTimestampLetsTheProducerStampTheRecordAndReadsBackAsZero() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(m, "orders");
        assertNull(record.timestamp());
        assertEquals("0", header(record, "jms.Timestamp"));
        ConsumerRecord<byte[], byte[]> stamped = consumed(record, 0, 3, 1234L);
        TributaryMessage received = MessageCodec.fromRecord(stamped, AS_QUEUE, false);
        assertEquals(0, received.getJMSTimestamp());
        assertEquals(1234L, received.getLongProperty("JMS_Tributary_Timestamp"));
    }

    @Test
    void aBytesMessageRoundTripsReadableAndStillWritableOnTheSendingSide() throws JMSException {
        TributaryBytesMessage sent = new TributaryBytesMessage();
        sent.writeInt(7);
        sent.writeUTF("x");
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(sent, "orders");
        sent.writeByte((byte) 1);

        TributaryBytesMessage received = assertInstanceOf(TributaryBytesMessage.class,
                MessageCodec.fromRecord(consumed(record, 0, 0), AS_QUEUE, false));
        assertEquals(7, received.readInt());
        assertEquals("x", received.readUTF());
        assertEquals(7, received.getBodyLength());
        assertThrows(MessageNotWriteableException.class, () -> received.writeInt(1));
    }

    @Test
    void aMapMessageRoundTripsEveryValueType() throws JMSException {
        TributaryMapMessage sent = new TributaryMapMessage();
        sent.setBoolean("bool", false);
        sent.setByte("byte", Byte.MIN_VALUE);
        sent.setShort("short", Short.MAX_VALUE);
        sent.setChar("char", '✓');
        sent.setInt("int", -1);
        sent.setLong("long", Long.MIN_VALUE);
        sent.setFloat("float", 3.25f);
        sent.setDouble("double", Double.MAX_VALUE);
        sent.setString("string", "żółw");
        sent.setBytes("bytes", new byte[] {1, 2});
        sent.setBytes("empty bytes", new byte[0]);
        sent.setString("null", null);
        sent.setString("ünïcode name", "v");

        TributaryMapMessage received = assertInstanceOf(TributaryMapMessage.class, roundTrip(sent));
        assertEquals(Collections.list(sent.getMapNames()), Collections.list(received.getMapNames()));
        for (String name : Collections.list(sent.getMapNames())) {
            Object expected = sent.getObject(name);
            if (expected instanceof byte[] bytes) {
                assertArrayEquals(bytes, (byte[]) received.getObject(name), name);
            } else {
                assertEquals(expected, received.getObject(name), name);
            }
        }
        assertThrows(MessageNotWriteableException.class, () -> received.setInt("x", 1));
    }

    @Test
    void aStreamMessageRoundTripsEveryValueTypeInOrderAndArrivesReadable() throws JMSException {
        TributaryStreamMessage sent = new TributaryStreamMessage();
        List<Object> values = new ArrayList<>(List.of(true, (byte) 1, (short) 2, 'c', 3, 4L, 5.5f, 6.5, "s"));
        values.add(null);
        for (Object value : values) {
            sent.writeObject(value);
        }
        sent.writeBytes(new byte[] {9, 8});

        TributaryStreamMessage received = assertInstanceOf(TributaryStreamMessage.class, roundTrip(sent));
        for (Object value : values) {
            assertEquals(value, received.readObject());
        }
        assertArrayEquals(new byte[] {9, 8}, (byte[]) received.readObject());
        assertThrows(MessageNotWriteableException.class, () -> received.writeInt(1));
    }

    @Test
    void anObjectMessageRoundTripsAsJavaSerialization() throws JMSException {
        TributaryObjectMessage sent = new TributaryObjectMessage();
        sent.setObject(new ArrayList<>(List.of("a", 1)));
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(sent, "orders");
        assertEquals((byte) 0xAC, record.value()[0]);
        assertEquals((byte) 0xED, record.value()[1]);
        TributaryObjectMessage received = assertInstanceOf(TributaryObjectMessage.class,
                MessageCodec.fromRecord(consumed(record, 0, 0), AS_QUEUE, false));
        assertEquals(List.of("a", 1), received.getObject());
        assertThrows(MessageNotWriteableException.class, () -> received.setObject("b"));
    }

    @Test
    void nullBodiesTravelAsNullValues() throws JMSException {
        assertNull(MessageCodec.toRecord(new TributaryTextMessage(), "t").value());
        assertNull(MessageCodec.toRecord(new TributaryObjectMessage(), "t").value());
        assertNull(MessageCodec.toRecord(new TributaryMessage(), "t").value());
        assertNull(((TributaryTextMessage) roundTrip(new TributaryTextMessage())).getText());
        assertEquals("", ((TributaryTextMessage) roundTrip(new TributaryTextMessage(""))).getText());
        assertNull(((TributaryObjectMessage) roundTrip(new TributaryObjectMessage())).getObject());
        assertEquals(TributaryMessage.class, roundTrip(new TributaryMessage()).getClass());
    }

    @Test
    void providerOwnedPropertiesAreNotWrittenAndAreSetByTheReceiver() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        m.setDeliveryCount(5);
        m.putProviderProperty("JMS_Tributary_Offset", 99L);
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(m, "orders");
        assertNull(record.headers().lastHeader("jms.prop.JMSXDeliveryCount"));
        assertNull(record.headers().lastHeader("jms.prop.JMS_Tributary_Offset"));

        record.headers().add("jms.prop.JMSXDeliveryCount", new byte[] {4, 0, 0, 0, 9});
        TributaryMessage received = MessageCodec.fromRecord(consumed(record, 2, 17), AS_QUEUE, false);
        assertEquals(1, received.getIntProperty("JMSXDeliveryCount"));
        assertEquals(17L, received.getLongProperty("JMS_Tributary_Offset"));
        assertEquals(2, received.getIntProperty("JMS_Tributary_Partition"));
    }

    @Test
    void aPlainKafkaRecordArrivesAsABytesMessageWithItsKafkaCoordinates() throws JMSException {
        ConsumerRecord<byte[], byte[]> plain = new ConsumerRecord<>("events", 3, 1001L, 1_700_000_000_123L,
                TimestampType.CREATE_TIME, 3, 4, "key".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2, 3, 4},
                new RecordHeaders(List.of(new RecordHeader("trace", new byte[] {1}))), Optional.empty());

        TributaryBytesMessage m = assertInstanceOf(TributaryBytesMessage.class,
                MessageCodec.fromRecord(plain, AS_QUEUE, false));

        assertEquals(4, m.getBodyLength());
        assertEquals(0x01020304, m.readInt());
        assertEquals(3, m.getIntProperty("JMS_Tributary_Partition"));
        assertEquals(1001L, m.getLongProperty("JMS_Tributary_Offset"));
        assertEquals(1_700_000_000_123L, m.getLongProperty("JMS_Tributary_Timestamp"));
        assertEquals("key", m.getStringProperty("JMS_Tributary_Key"));
        assertEquals(1_700_000_000_123L, m.getJMSTimestamp());
        assertEquals(TributaryQueue.of("events"), m.getJMSDestination());
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(Message.DEFAULT_PRIORITY, m.getJMSPriority());
        assertNull(m.getJMSMessageID());
        assertEquals(1, m.getIntProperty("JMSXDeliveryCount"));
        assertEquals(List.of("JMS_Tributary_Partition", "JMS_Tributary_Offset", "JMS_Tributary_Timestamp",
                "JMS_Tributary_Key", "JMSXDeliveryCount"), names(m));
        assertThrows(MessageNotWriteableException.class, () -> m.setIntProperty("x", 1));
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
    }

    @Test
    void aPlainKafkaRecordArrivesAsATextMessageWhenConfigured() throws JMSException {
        ConsumerRecord<byte[], byte[]> plain =
                new ConsumerRecord<>("events", 0, 5L, null, "{\"a\":\"ż\"}".getBytes(StandardCharsets.UTF_8));
        TributaryTextMessage m = assertInstanceOf(TributaryTextMessage.class,
                MessageCodec.fromRecord(plain, AS_QUEUE, true));
        assertEquals("{\"a\":\"ż\"}", m.getText());
        assertFalse(m.propertyExists("JMS_Tributary_Key"));
        assertEquals(-1L, m.getLongProperty("JMS_Tributary_Timestamp"));
        assertEquals(0, m.getJMSTimestamp());
    }

    @Test
    void aPlainTombstoneArrivesAsAnEmptyBytesMessageOrANullText() throws JMSException {
        ConsumerRecord<byte[], byte[]> tombstone = new ConsumerRecord<>("events", 0, 5L, new byte[] {1}, null);
        assertEquals(0, ((TributaryBytesMessage) MessageCodec.fromRecord(tombstone, AS_QUEUE, false))
                .getBodyLength());
        assertNull(((TributaryTextMessage) MessageCodec.fromRecord(tombstone, AS_QUEUE, true)).getText());
    }

    @Test
    void aJmsRecordFromANonJavaProducerNeedsOnlyTheTypeHeader() throws JMSException {
        RecordHeaders headers = new RecordHeaders();
        headers.add("jms.type", "text".getBytes(StandardCharsets.UTF_8));
        headers.add("jms.prop.region", new byte[] {8, 'e', 'u'});
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("orders", 0, 0L, 9L, TimestampType.CREATE_TIME,
                0, 2, null, "hi".getBytes(StandardCharsets.UTF_8), headers, Optional.empty());
        TributaryTextMessage m = (TributaryTextMessage) MessageCodec.fromRecord(record, AS_QUEUE, false);
        assertEquals("hi", m.getText());
        assertEquals("eu", m.getStringProperty("region"));
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(9L, m.getJMSTimestamp());
    }

    static Stream<Arguments> malformedHeaders() {
        return Stream.of(
                Arguments.of("jms.type", text("xml")),
                Arguments.of("jms.DeliveryMode", text("2")),
                Arguments.of("jms.Priority", text("10")),
                Arguments.of("jms.Priority", text("high")),
                Arguments.of("jms.Expiration", text("tomorrow")),
                Arguments.of("jms.DeliveryTime", text("1.5")),
                Arguments.of("jms.Timestamp", text("-")),
                Arguments.of("jms.ReplyTo", text("mailto://x")),
                Arguments.of("jms.ReplyTo", text("queue://bad name")),
                Arguments.of("jms.prop.1st", new byte[] {8, 'x'}),
                Arguments.of("jms.prop.NOT", new byte[] {8, 'x'}),
                Arguments.of("jms.prop.x", new byte[0]),
                Arguments.of("jms.prop.x", new byte[] {99}),
                Arguments.of("jms.prop.x", new byte[] {4, 1}),
                Arguments.of("jms.prop.x", new byte[] {5, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                Arguments.of("jms.prop.x", new byte[] {1, 2}),
                Arguments.of("jms.prop.x", new byte[] {9, 0, 'c'}),
                Arguments.of("jms.prop.x", new byte[] {10, 0, 0, 0, 0}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedHeaders")
    void aMalformedJmsHeaderIsAFormatErrorNamingTheRecordAndTheHeader(String key, byte[] value)
            throws JMSException {
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(new TributaryTextMessage("x"), "orders");
        record.headers().remove(key);
        record.headers().add(key, value);
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> MessageCodec.fromRecord(consumed(record, 4, 77), AS_QUEUE, false));
        assertTrue(e.getMessage().contains("orders-4@77"), e.getMessage());
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"map,0:0:0:5", "map,0:0:0:1:0:0:0:9:1", "stream,0:0:0:1:42", "stream,0:0:0:1:4:0:0:0:1:7",
        "stream,255:255:255:255"})
    void aMalformedMapOrStreamBodyIsAFormatError(String type, String bytes) {
        String[] parts = bytes.split(":");
        byte[] value = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            value[i] = (byte) Integer.parseInt(parts[i]);
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add("jms.type", type.getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("orders", 1, 2L, 0L, TimestampType.CREATE_TIME,
                0, value.length, null, value, headers, Optional.empty());
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> MessageCodec.fromRecord(record, AS_QUEUE, false));
        assertTrue(e.getMessage().contains("orders-1@2"), e.getMessage());
        assertTrue(e.getMessage().contains(type + " body"), e.getMessage());
    }

    @Test
    void aReceivedObjectMessageKeepsTheDefaultAllowList() throws JMSException {
        record Secret(String value) implements Serializable {
        }
        TributaryObjectMessage sent = new TributaryObjectMessage();
        sent.setObject(new Secret("s"));
        TributaryObjectMessage received = (TributaryObjectMessage) roundTrip(sent);
        assertEquals(ObjectMessageAllowList.DEFAULT, received.getAllowList());
        assertThrows(MessageFormatException.class, received::getObject);
        received.setAllowList(ObjectMessageAllowList.parse("io.tributary"));
        assertEquals(new Secret("s"), received.getObject());
    }

    @Test
    void theResolverChoosesTheDestinationKind() throws JMSException {
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(new TributaryMessage(), "news");
        Function<String, Destination> asTopic = topic -> {
            try {
                return TributaryTopic.of(topic);
            } catch (InvalidDestinationException e) {
                throw new AssertionError(e);
            }
        };
        assertEquals(TributaryTopic.of("news"),
                MessageCodec.fromRecord(consumed(record, 0, 0), asTopic, false).getJMSDestination());
    }

    @Test
    void propertyHeadersComeBackInTheOrderTheyWereSet() throws JMSException {
        TributaryMessage m = new TributaryMessage();
        for (String name : List.of("z", "a", "m")) {
            m.setIntProperty(name, 1);
        }
        List<String> received = names(roundTrip(m));
        assertEquals(List.of("z", "a", "m"), received.subList(0, 3));
    }

    @Test
    void headerNameConstantsAreTheDocumentedStrings() {
        Map<String, String> expected = Map.ofEntries(
                Map.entry(MessageCodec.HEADER_BODY_TYPE, "jms.type"),
                Map.entry(MessageCodec.HEADER_MESSAGE_ID, "jms.MessageID"),
                Map.entry(MessageCodec.HEADER_CORRELATION_ID, "jms.CorrelationID"),
                Map.entry(MessageCodec.HEADER_CORRELATION_ID_BYTES, "jms.CorrelationIDBytes"),
                Map.entry(MessageCodec.HEADER_JMS_TYPE, "jms.Type"),
                Map.entry(MessageCodec.HEADER_REPLY_TO, "jms.ReplyTo"),
                Map.entry(MessageCodec.HEADER_DELIVERY_MODE, "jms.DeliveryMode"),
                Map.entry(MessageCodec.HEADER_PRIORITY, "jms.Priority"),
                Map.entry(MessageCodec.HEADER_EXPIRATION, "jms.Expiration"),
                Map.entry(MessageCodec.HEADER_DELIVERY_TIME, "jms.DeliveryTime"),
                Map.entry(MessageCodec.HEADER_TIMESTAMP, "jms.Timestamp"),
                Map.entry(MessageCodec.HEADER_PROPERTY_PREFIX, "jms.prop."));
        expected.forEach((constant, documented) -> assertEquals(documented, constant));
    }

    private static TributaryMessage roundTrip(TributaryMessage sent) throws JMSException {
        return MessageCodec.fromRecord(consumed(MessageCodec.toRecord(sent, "orders"), 0, 0), AS_QUEUE, false);
    }

    /** The record a consumer would read back, with the producer's timestamp or, if none, 0. */
    private static ConsumerRecord<byte[], byte[]> consumed(ProducerRecord<byte[], byte[]> r, int partition,
                                                           long offset) {
        return consumed(r, partition, offset, r.timestamp() == null ? 0L : r.timestamp());
    }

    private static ConsumerRecord<byte[], byte[]> consumed(ProducerRecord<byte[], byte[]> r, int partition,
                                                           long offset, long timestamp) {
        return new ConsumerRecord<>(r.topic(), partition, offset, timestamp, TimestampType.CREATE_TIME,
                r.key() == null ? -1 : r.key().length, r.value() == null ? -1 : r.value().length, r.key(), r.value(),
                new RecordHeaders(r.headers().toArray()), Optional.empty());
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static List<String> names(Message m) throws JMSException {
        List<String> names = new ArrayList<>();
        Enumeration<?> e = m.getPropertyNames();
        while (e.hasMoreElements()) {
            names.add((String) e.nextElement());
        }
        return names;
    }
}
