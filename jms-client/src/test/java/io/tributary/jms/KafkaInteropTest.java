package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.ObjectInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

import io.tributary.jms.kafka.DeliveryDecision;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * JMS and plain Kafka clients share topics through the record layout documented on
 * {@link io.tributary.jms.message.MessageCodec}: a plain {@code KafkaConsumer} reads JMS messages of every body type
 * (key from {@code JMSXGroupID}, timestamp from {@code JMSTimestamp}, the body as the value, headers and typed
 * properties as record headers), a plain {@code KafkaProducer}'s records arrive as {@code BytesMessage}s (or
 * {@code TextMessage}s) with their key, partition, offset and timestamp, and a plain producer that writes the
 * documented headers sends a typed JMS message.
 *
 * <p>The expected bytes are built here from the documented tables (tags, big-endian payloads), not with the
 * provider's encoder, so that the test checks the documentation as well as the code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaInteropTest {

    private static final long WAIT_MS = 20_000;
    private static final String GROUP = "order-42";

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    @Test
    void aPlainKafkaConsumerReadsJmsMessagesOfEveryBodyTypeAsDocumented() throws Exception {
        String queueName = "jms-to-kafka";
        List<Message> sent = new ArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageProducer producer = session.createProducer(queue);

            TextMessage text = session.createTextMessage("grüße");
            setTypedProperties(text);
            text.setStringProperty("JMSXGroupID", GROUP);
            text.setIntProperty("JMSXGroupSeq", 1);
            text.setJMSType("greeting");
            text.setJMSCorrelationID("corr-1");
            text.setJMSReplyTo(session.createQueue("replies"));
            producer.send(text, DeliveryMode.NON_PERSISTENT, 7, 60_000);
            sent.add(text);

            BytesMessage bytes = session.createBytesMessage();
            bytes.writeBytes(new byte[] {1, 2, 3});
            bytes.writeInt(258);
            bytes.setStringProperty("JMSXGroupID", GROUP);
            bytes.setJMSCorrelationIDAsBytes(new byte[] {9, 8});
            producer.send(bytes);
            sent.add(bytes);

            MapMessage map = session.createMapMessage();
            map.setInt("count", 7);
            map.setString("name", "widget");
            map.setBoolean("fragile", true);
            map.setBytes("raw", new byte[] {5, 6});
            map.setChar("grade", 'A');
            map.setStringProperty("JMSXGroupID", GROUP);
            producer.send(map);
            sent.add(map);

            ObjectMessage object = session.createObjectMessage(new ArrayList<>(List.of("a", "b")));
            object.setStringProperty("JMSXGroupID", GROUP);
            producer.send(object);
            sent.add(object);

            StreamMessage stream = session.createStreamMessage();
            stream.writeBoolean(true);
            stream.writeChar('z');
            stream.writeString("s");
            stream.writeBytes(new byte[] {7});
            stream.writeLong(5L);
            stream.writeShort((short) -2);
            stream.setStringProperty("JMSXGroupID", GROUP);
            MessageProducer delayed = session.createProducer(queue);
            delayed.setDeliveryDelay(60_000);
            delayed.send(stream);
            sent.add(stream);

            Message plain = session.createMessage();
            plain.setLongProperty("sequence", 6L);
            MessageProducer bare = session.createProducer(queue);
            bare.setDisableMessageID(true);
            bare.setDisableMessageTimestamp(true);
            bare.send(plain);
            sent.add(plain);
        }

        List<ConsumerRecord<byte[], byte[]>> records = readAll(queueName, 0, sent.size());

        ConsumerRecord<byte[], byte[]> textRecord = records.get(0);
        Message text = sent.get(0);
        assertArrayEquals(utf8(GROUP), textRecord.key(), "JMSXGroupID is the key");
        assertEquals(text.getJMSTimestamp(), textRecord.timestamp(), "JMSTimestamp is the record timestamp");
        assertArrayEquals(utf8("grüße"), textRecord.value());
        Map<String, byte[]> expected = new LinkedHashMap<>(jmsHeaders("text", text));
        expected.put("jms.CorrelationID", utf8("corr-1"));
        expected.put("jms.Type", utf8("greeting"));
        expected.put("jms.ReplyTo", utf8("queue://replies"));
        expected.put("jms.DeliveryMode", utf8("NON_PERSISTENT"));
        expected.put("jms.Priority", utf8("7"));
        expected.put("jms.Expiration", utf8(Long.toString(text.getJMSExpiration())));
        expected.putAll(typedPropertyHeaders());
        expected.put("jms.prop.JMSXGroupID", property(8, utf8(GROUP)));
        expected.put("jms.prop.JMSXGroupSeq", property(4, ByteBuffer.allocate(4).putInt(1).array()));
        assertHeaders(expected, textRecord);
        assertTrue(text.getJMSExpiration() > text.getJMSTimestamp(), "a time to live gives an expiration");

        ConsumerRecord<byte[], byte[]> bytesRecord = records.get(1);
        assertArrayEquals(utf8(GROUP), bytesRecord.key());
        assertEquals(sent.get(1).getJMSTimestamp(), bytesRecord.timestamp());
        assertArrayEquals(new byte[] {1, 2, 3, 0, 0, 1, 2}, bytesRecord.value(), "the bytes written, as they are");
        expected = new LinkedHashMap<>(jmsHeaders("bytes", sent.get(1)));
        expected.put("jms.CorrelationIDBytes", new byte[] {9, 8});
        expected.put("jms.prop.JMSXGroupID", property(8, utf8(GROUP)));
        assertHeaders(expected, bytesRecord);

        ConsumerRecord<byte[], byte[]> mapRecord = records.get(2);
        assertArrayEquals(utf8(GROUP), mapRecord.key());
        assertEquals(sent.get(2).getJMSTimestamp(), mapRecord.timestamp());
        Map<String, Object> entries = BodyReader.map(mapRecord.value());
        assertEquals(Set.of("count", "name", "fragile", "raw", "grade"), entries.keySet());
        assertEquals(7, entries.get("count"));
        assertEquals("widget", entries.get("name"));
        assertEquals(true, entries.get("fragile"));
        assertArrayEquals(new byte[] {5, 6}, (byte[]) entries.get("raw"));
        assertEquals('A', entries.get("grade"));
        expected = new LinkedHashMap<>(jmsHeaders("map", sent.get(2)));
        expected.put("jms.prop.JMSXGroupID", property(8, utf8(GROUP)));
        assertHeaders(expected, mapRecord);

        ConsumerRecord<byte[], byte[]> objectRecord = records.get(3);
        assertArrayEquals(utf8(GROUP), objectRecord.key());
        assertEquals(sent.get(3).getJMSTimestamp(), objectRecord.timestamp());
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(objectRecord.value()))) {
            assertEquals(new ArrayList<>(List.of("a", "b")), in.readObject(), "Java serialization of the object");
        }
        expected = new LinkedHashMap<>(jmsHeaders("object", sent.get(3)));
        expected.put("jms.prop.JMSXGroupID", property(8, utf8(GROUP)));
        assertHeaders(expected, objectRecord);

        ConsumerRecord<byte[], byte[]> streamRecord = records.get(4);
        assertArrayEquals(utf8(GROUP), streamRecord.key());
        assertEquals(sent.get(4).getJMSTimestamp(), streamRecord.timestamp());
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(body); // big-endian, as documented
        out.writeInt(6);
        out.writeByte(1);
        out.writeByte(1);
        out.writeByte(9);
        out.writeChar('z');
        out.writeByte(8);
        out.writeInt(1);
        out.writeBytes("s");
        out.writeByte(10);
        out.writeInt(1);
        out.writeByte(7);
        out.writeByte(5);
        out.writeLong(5L);
        out.writeByte(3);
        out.writeShort(-2);
        assertArrayEquals(body.toByteArray(), streamRecord.value(), "field count, then the tagged values");
        expected = new LinkedHashMap<>(jmsHeaders("stream", sent.get(4)));
        expected.put("jms.DeliveryTime", utf8(Long.toString(sent.get(4).getJMSDeliveryTime())));
        expected.put("jms.prop.JMSXGroupID", property(8, utf8(GROUP)));
        assertHeaders(expected, streamRecord);
        assertTrue(sent.get(4).getJMSDeliveryTime() >= sent.get(4).getJMSTimestamp() + 60_000);

        ConsumerRecord<byte[], byte[]> plainRecord = records.get(5);
        assertNull(plainRecord.key(), "no JMSXGroupID, no key");
        assertNull(plainRecord.value(), "a Message has no body");
        assertEquals(0L, sent.get(5).getJMSTimestamp(), "timestamps disabled");
        assertTrue(plainRecord.timestamp() > 0, "the record is stamped by the producer instead");
        assertNull(sent.get(5).getJMSMessageID(), "message ids disabled");
        expected = new LinkedHashMap<>(jmsHeaders("message", sent.get(5)));
        expected.put("jms.Timestamp", utf8("0"));
        expected.put("jms.prop.sequence", property(5, ByteBuffer.allocate(8).putLong(6L).array()));
        assertHeaders(expected, plainRecord);
    }

    @Test
    void recordsOfAPlainKafkaProducerArriveAsBytesMessagesWithTheirKeyPartitionOffsetAndTimestamp() throws Exception {
        String queueName = "kafka-to-jms";
        cluster.createTopic(queueName, 2);
        long t0 = 1_700_000_000_000L;
        List<ProducerRecord<byte[], byte[]>> records = List.of(
                new ProducerRecord<>(queueName, 0, t0, utf8("key-1"), new byte[] {1, 2, 3},
                        List.of(new RecordHeader("trace-id", utf8("abc")))),
                new ProducerRecord<>(queueName, 1, t0 + 1, null, utf8("no key")),
                new ProducerRecord<>(queueName, 1, t0 + 2, utf8("key-3"), (byte[]) null)); // a tombstone
        List<RecordMetadata> written = produce(records);

        Map<String, BytesMessage> received = new HashMap<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            for (int i = 0; i < records.size(); i++) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "message " + i + " after " + received.keySet());
                BytesMessage bytes = assertInstanceOf(BytesMessage.class, message, "a plain record is a BytesMessage");
                received.put(bytes.getIntProperty("JMS_Tributary_Partition") + "@"
                        + bytes.getLongProperty("JMS_Tributary_Offset"), bytes);
                assertEquals(queue, message.getJMSDestination());
            }
            assertNull(consumer.receive(500));
        }

        for (int i = 0; i < records.size(); i++) {
            ProducerRecord<byte[], byte[]> record = records.get(i);
            RecordMetadata metadata = written.get(i);
            BytesMessage message = received.get(metadata.partition() + "@" + metadata.offset());
            assertNotNull(message, "record " + i + " at " + metadata + " among " + received.keySet());
            byte[] body = new byte[(int) message.getBodyLength()];
            message.readBytes(body);
            assertArrayEquals(record.value() == null ? new byte[0] : record.value(), body, "record " + i);
            assertEquals(record.timestamp(), message.getLongProperty("JMS_Tributary_Timestamp"));
            assertEquals(record.timestamp(), message.getJMSTimestamp());
            if (record.key() == null) {
                assertFalse(message.propertyExists("JMS_Tributary_Key"), "no key, no key property");
            } else {
                assertEquals(new String(record.key(), StandardCharsets.UTF_8),
                        message.getStringProperty("JMS_Tributary_Key"));
            }
            Set<String> expectedNames = new TreeSet<>(Set.of("JMS_Tributary_Partition", "JMS_Tributary_Offset",
                    "JMS_Tributary_Timestamp", "JMSXDeliveryCount"));
            if (record.key() != null) {
                expectedNames.add("JMS_Tributary_Key");
            }
            assertEquals(expectedNames, propertyNames(message),
                    "only the provider's properties; the record's own headers are ignored");
            assertEquals(1, message.getIntProperty("JMSXDeliveryCount"));
            assertFalse(message.getJMSRedelivered());
            assertEquals(DeliveryMode.PERSISTENT, message.getJMSDeliveryMode(), "default headers");
            assertEquals(Message.DEFAULT_PRIORITY, message.getJMSPriority());
            assertEquals(0L, message.getJMSExpiration());
        }
    }

    @Test
    void plainRecordsArriveAsTextMessagesWhenTheConnectionFactorySaysSo() throws Exception {
        String queueName = "kafka-text-to-jms";
        produce(List.of(new ProducerRecord<>(queueName, utf8("key"), utf8("hello, wörld"))));
        TributaryConnectionFactory textFactory = TestConnectionFactory.create(cluster.bootstrapServers());
        textFactory.setPlainRecordsAsText(true);
        try (Connection connection = textFactory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
            connection.start();
            TextMessage message = assertInstanceOf(TextMessage.class, consumer.receive(WAIT_MS));
            assertEquals("hello, wörld", message.getText());
            assertEquals("key", message.getStringProperty("JMS_Tributary_Key"));
        }
    }

    @Test
    void aPlainKafkaProducerWritingTheDocumentedHeadersSendsATypedJmsMessage() throws Exception {
        String queueName = "kafka-encoded-to-jms";
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(body);
        out.writeInt(2);
        out.writeInt(1);
        out.writeBytes("a");
        out.writeByte(4);
        out.writeInt(1);
        out.writeInt(1);
        out.writeBytes("b");
        out.writeByte(8);
        out.writeInt(3);
        out.writeBytes("bee");
        List<Header> headers = List.of(
                new RecordHeader("jms.type", utf8("map")),
                new RecordHeader("jms.MessageID", utf8("ID:from-kafka-1")),
                new RecordHeader("jms.CorrelationID", utf8("corr-k")),
                new RecordHeader("jms.Type", utf8("order")),
                new RecordHeader("jms.ReplyTo", utf8("topic://answers")),
                new RecordHeader("jms.DeliveryMode", utf8("NON_PERSISTENT")),
                new RecordHeader("jms.Priority", utf8("9")),
                new RecordHeader("jms.prop.count", property(4, ByteBuffer.allocate(4).putInt(42).array())),
                new RecordHeader("jms.prop.ratio", property(7, ByteBuffer.allocate(8).putDouble(0.25).array())),
                new RecordHeader("jms.prop.name", property(8, utf8("x"))),
                new RecordHeader("jms.prop.JMSXGroupID", property(8, utf8("g-1"))),
                // Set by the receiving provider only: ignored in a record.
                new RecordHeader("jms.prop.JMSXDeliveryCount", property(4, ByteBuffer.allocate(4).putInt(99)
                        .array())));
        long timestamp = 1_700_000_000_123L;
        produce(List.of(new ProducerRecord<>(queueName, null, timestamp, utf8("g-1"), body.toByteArray(), headers)));

        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
            connection.start();
            MapMessage message = assertInstanceOf(MapMessage.class, consumer.receive(WAIT_MS));
            assertEquals(1, message.getInt("a"));
            assertEquals("bee", message.getString("b"));
            assertEquals("ID:from-kafka-1", message.getJMSMessageID());
            assertEquals("corr-k", message.getJMSCorrelationID());
            assertEquals("order", message.getJMSType());
            assertEquals(TributaryTopic.of("answers"), message.getJMSReplyTo());
            assertEquals(DeliveryMode.NON_PERSISTENT, message.getJMSDeliveryMode());
            assertEquals(9, message.getJMSPriority());
            assertEquals(timestamp, message.getJMSTimestamp());
            assertEquals(42, message.getIntProperty("count"));
            assertEquals(0.25, message.getDoubleProperty("ratio"));
            assertEquals("x", message.getStringProperty("name"));
            assertEquals("g-1", message.getStringProperty("JMSXGroupID"));
            assertEquals("g-1", message.getStringProperty("JMS_Tributary_Key"));
            assertEquals(1, message.getIntProperty("JMSXDeliveryCount"), "set by the receiving provider");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The documented layout, written out by hand

    /** One property of each property type, and a null one; see {@link #typedPropertyHeaders()}. */
    private static void setTypedProperties(Message message) throws Exception {
        message.setBooleanProperty("flag", true);
        message.setByteProperty("tiny", (byte) -5);
        message.setShortProperty("small", (short) 300);
        message.setIntProperty("count", 70_000);
        message.setLongProperty("big", 1L << 40);
        message.setFloatProperty("ratio", 1.5f);
        message.setDoubleProperty("precise", -0.125);
        message.setStringProperty("label", "ünïcode");
        message.setObjectProperty("nothing", null);
    }

    /** The headers {@link #setTypedProperties} must produce: a type tag, then the big-endian payload. */
    private static Map<String, byte[]> typedPropertyHeaders() {
        Map<String, byte[]> headers = new LinkedHashMap<>();
        headers.put("jms.prop.flag", new byte[] {1, 1});
        headers.put("jms.prop.tiny", new byte[] {2, (byte) 0xFB});
        headers.put("jms.prop.small", new byte[] {3, 0x01, 0x2C});
        headers.put("jms.prop.count", new byte[] {4, 0x00, 0x01, 0x11, 0x70});
        headers.put("jms.prop.big", new byte[] {5, 0, 0, 1, 0, 0, 0, 0, 0});
        headers.put("jms.prop.ratio", property(6, ByteBuffer.allocate(4).putInt(Float.floatToRawIntBits(1.5f))
                .array()));
        headers.put("jms.prop.precise", property(7, ByteBuffer.allocate(8)
                .putLong(Double.doubleToRawLongBits(-0.125)).array()));
        headers.put("jms.prop.label", property(8, utf8("ünïcode")));
        headers.put("jms.prop.nothing", new byte[] {0});
        return headers;
    }

    /**
     * The headers every JMS record carries, with this provider's defaults: body type, message id (if any), delivery
     * mode, priority, and the sending connection's id (for {@code noLocal}; its value is opaque).
     */
    private static Map<String, byte[]> jmsHeaders(String bodyType, Message sent) throws Exception {
        Map<String, byte[]> headers = new LinkedHashMap<>();
        headers.put("jms.type", utf8(bodyType));
        if (sent.getJMSMessageID() != null) {
            headers.put("jms.MessageID", utf8(sent.getJMSMessageID()));
        }
        headers.put("jms.DeliveryMode", utf8("PERSISTENT"));
        headers.put("jms.Priority", utf8("4"));
        headers.put(DeliveryDecision.CONNECTION_HEADER, null);
        return headers;
    }

    /** Exactly {@code expected}'s header keys, each once, with the given values (null: any value). */
    private static void assertHeaders(Map<String, byte[]> expected, ConsumerRecord<byte[], byte[]> record) {
        List<String> keys = new ArrayList<>();
        for (Header header : record.headers()) {
            keys.add(header.key());
        }
        assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(keys), "header keys of record " + record.offset());
        assertEquals(keys.size(), new TreeSet<>(keys).size(), "each header once: " + keys);
        for (Map.Entry<String, byte[]> header : expected.entrySet()) {
            if (header.getValue() != null) {
                assertArrayEquals(header.getValue(), record.headers().lastHeader(header.getKey()).value(),
                        header.getKey() + " of record " + record.offset() + ": "
                                + Arrays.toString(record.headers().lastHeader(header.getKey()).value()));
            }
        }
    }

    private static Set<String> propertyNames(Message message) throws Exception {
        Set<String> names = new TreeSet<>();
        for (Enumeration<?> e = message.getPropertyNames(); e.hasMoreElements(); ) {
            names.add((String) e.nextElement());
        }
        return names;
    }

    private static byte[] property(int tag, byte[] payload) {
        byte[] header = new byte[1 + payload.length];
        header[0] = (byte) tag;
        System.arraycopy(payload, 0, header, 1, payload.length);
        return header;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Reads map bodies by the documented table, independently of the provider's decoder. */
    private static final class BodyReader {
        static Map<String, Object> map(byte[] value) {
            ByteBuffer in = ByteBuffer.wrap(value);
            Map<String, Object> entries = new LinkedHashMap<>();
            int count = in.getInt();
            for (int i = 0; i < count; i++) {
                entries.put(new String(sized(in), StandardCharsets.UTF_8), value(in));
            }
            assertFalse(in.hasRemaining(), "nothing after the last entry");
            return entries;
        }

        private static Object value(ByteBuffer in) {
            byte tag = in.get();
            return switch (tag) {
                case 0 -> null;
                case 1 -> in.get() == 1;
                case 2 -> in.get();
                case 3 -> in.getShort();
                case 4 -> in.getInt();
                case 5 -> in.getLong();
                case 6 -> in.getFloat();
                case 7 -> in.getDouble();
                case 8 -> new String(sized(in), StandardCharsets.UTF_8);
                case 9 -> in.getChar();
                case 10 -> sized(in);
                default -> throw new AssertionError("undocumented type tag " + tag);
            };
        }

        private static byte[] sized(ByteBuffer in) {
            byte[] bytes = new byte[in.getInt()];
            in.get(bytes);
            return bytes;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Plain Kafka clients

    private List<RecordMetadata> produce(List<ProducerRecord<byte[], byte[]>> records) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        List<RecordMetadata> written = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (ProducerRecord<byte[], byte[]> record : records) {
                written.add(producer.send(record).get(WAIT_MS, TimeUnit.MILLISECONDS));
            }
        }
        return written;
    }

    /** The first {@code count} records of one partition, read without a group. */
    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partition, int count) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertEquals(count, records.size(), "records in " + topic + "-" + partition);
        return records;
    }
}
