package io.tributary.jms.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import io.tributary.jms.TributaryQueue;
import io.tributary.jms.format.RecordSelectorValues;
import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The broker's view of a stored record ({@link RecordSelectorValues}) selects exactly what a receiver's selector
 * selects on the message the provider decodes from the same record: for JMS messages with every selectable header
 * field and property type, for plain Kafka records, and for the provider properties. A JMS record the provider
 * cannot decode is selected, so that its receiver dead-letters it.
 */
class RecordSelectorValuesTest {

    private static final List<String> SELECTORS = List.of(
            "colour = 'red'", "colour <> 'red'", "colour IN ('red', 'blue')", "colour NOT IN ('red')",
            "weight > 10", "weight BETWEEN 1 AND 5", "price < 2.5", "urgent", "NOT urgent", "code = 7",
            "big = 123456789012", "small = 3", "tiny = 1", "ratio > 0.1", "colour IS NULL", "missing IS NULL",
            "JMSPriority > 4", "JMSPriority = 4", "JMSDeliveryMode = 'PERSISTENT'",
            "JMSDeliveryMode = 'NON_PERSISTENT'", "JMSType = 'order'", "JMSCorrelationID LIKE 'corr%'",
            "JMSMessageID IS NOT NULL", "JMSTimestamp > 0", "JMSTimestamp = 0", "JMSXDeliveryCount = 1",
            "JMSXDeliveryCount > 1", "JMS_Tributary_Partition = 2", "JMS_Tributary_Offset = 17",
            "JMS_Tributary_Key = 'k1'", "JMS_Tributary_Key IS NULL", "JMS_Tributary_Timestamp > 0",
            "JMSXGroupID = 'g'", "colour LIKE 'r_d' AND weight + 1 > 8");

    @Test
    void aJmsRecordIsSelectedAsItsDecodedMessageIs() throws Exception {
        TributaryTextMessage full = new TributaryTextMessage("body");
        full.setStringProperty("colour", "red");
        full.setIntProperty("weight", 12);
        full.setDoubleProperty("price", 2.0);
        full.setBooleanProperty("urgent", true);
        full.setShortProperty("code", (short) 7);
        full.setLongProperty("big", 123456789012L);
        full.setByteProperty("small", (byte) 3);
        full.setFloatProperty("ratio", 0.5f);
        full.setStringProperty("JMSXGroupID", "g");
        full.setJMSPriority(7);
        full.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        full.setJMSType("order");
        full.setJMSCorrelationID("corr-1");
        full.setJMSMessageID("ID:1");
        full.setJMSTimestamp(1_700_000_000_000L);
        TributaryMessage bare = new TributaryMessage();
        bare.setJMSTimestamp(0);
        TributaryBytesMessage bytesCorrelation = new TributaryBytesMessage();
        bytesCorrelation.setJMSCorrelationIDAsBytes("corr-bytes".getBytes(StandardCharsets.UTF_8));
        bytesCorrelation.setStringProperty("colour", "blue");
        for (TributaryMessage sent : List.of(full, bare, bytesCorrelation)) {
            ProducerRecord<byte[], byte[]> produced = MessageCodec.toRecord(sent, "orders");
            assertSameSelection(new ConsumerRecord<>("orders", 2, 17L, 1_700_000_000_500L,
                    TimestampType.CREATE_TIME, 2, 0, "k1".getBytes(StandardCharsets.UTF_8), produced.value(),
                    new RecordHeaders(produced.headers().toArray()), Optional.empty()));
        }
    }

    @Test
    void aPlainKafkaRecordIsSelectedAsItsDecodedMessageIs() throws Exception {
        assertSameSelection(new ConsumerRecord<>("events", 2, 17L, 1_700_000_000_123L, TimestampType.CREATE_TIME,
                0, 5, null, "hello".getBytes(StandardCharsets.UTF_8),
                new RecordHeaders(new Header[] {new RecordHeader("colour", "red".getBytes(StandardCharsets.UTF_8))}),
                Optional.empty()));
    }

    @Test
    void aJmsRecordWithAnUndecodableHeaderIsSelected() throws Exception {
        Header[] headers = {
                new RecordHeader(io.tributary.jms.format.RecordHeaders.BODY_TYPE, "text".getBytes()),
                new RecordHeader(io.tributary.jms.format.RecordHeaders.PROPERTY_PREFIX + "colour", new byte[] {99}),
                new RecordHeader(io.tributary.jms.format.RecordHeaders.PRIORITY, "high".getBytes())};
        for (String selector : List.of("colour = 'red'", "JMSPriority = 1", "NOT (colour = 'red')")) {
            assertTrue(RecordSelectorValues.selects(MessageSelector.parse(selector), headers, 5L, null, 0, 0L, 1),
                    selector);
        }
    }

    private static void assertSameSelection(ConsumerRecord<byte[], byte[]> record) throws Exception {
        Message decoded = MessageCodec.fromRecord(record, topic -> {
            try {
                return TributaryQueue.of(topic);
            } catch (JMSException e) {
                throw new AssertionError(e);
            }
        }, false);
        ByteBuffer key = record.key() == null ? null : ByteBuffer.wrap(record.key());
        for (String text : SELECTORS) {
            MessageSelector selector = MessageSelector.parse(text);
            assertEquals(selector.matches(decoded), RecordSelectorValues.selects(selector,
                    record.headers().toArray(), record.timestamp(), key, record.partition(), record.offset(), 1),
                    () -> text + " on " + record);
        }
    }
}
