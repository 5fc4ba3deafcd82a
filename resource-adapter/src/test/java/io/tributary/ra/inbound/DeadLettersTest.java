package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.tributary.jms.kafka.DeadLetterRecord;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryBytesMessage;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryTextMessage;
import jakarta.jms.Destination;
import jakarta.jms.TextMessage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The dead-letter record: the same message, with the reason and origin as properties a JMS consumer can read. */
class DeadLettersTest {

    private static final Destination DESTINATION = new Destination() { };

    private static ConsumerRecord<byte[], byte[]> consumed(ProducerRecord<byte[], byte[]> produced, int partition,
                                                           long offset) {
        return new ConsumerRecord<>(produced.topic(), partition, offset, produced.timestamp() == null ? -1
                : produced.timestamp(), TimestampType.CREATE_TIME, -1, -1, produced.key(), produced.value(),
                new RecordHeaders(produced.headers().toArray()), Optional.empty());
    }

    @Test
    void aDeadLetterIsTheOriginalMessageWithTheReasonAndOriginAsProperties() throws Exception {
        TributaryTextMessage message = new TributaryTextMessage("order 42");
        message.setStringProperty("region", "EU");
        message.setStringProperty("JMSXGroupID", "customer-7");
        message.setJMSTimestamp(1_700_000_000_000L);
        ConsumerRecord<byte[], byte[]> original = consumed(MessageCodec.toRecord(message, "orders"), 2, 41);

        ProducerRecord<byte[], byte[]> letter = DeadLetterRecord.of("orders.DLQ", original,
                "onMessage threw java.lang.IllegalStateException: no stock", 6, "OrderBean", 1_800_000_000_000L,
                false);
        assertEquals("orders.DLQ", letter.topic());
        assertArrayEquals(original.key(), letter.key());
        assertEquals(1_700_000_000_000L, letter.timestamp());

        TributaryMessage read = MessageCodec.fromRecord(consumed(letter, 0, 0), t -> DESTINATION, false);
        assertEquals("order 42", ((TextMessage) read).getText());
        assertEquals("EU", read.getStringProperty("region"));
        assertEquals("onMessage threw java.lang.IllegalStateException: no stock",
                read.getStringProperty(DeadLetters.REASON));
        assertEquals("orders", read.getStringProperty(DeadLetters.ORIGINAL_TOPIC));
        assertEquals(2, read.getIntProperty(DeadLetters.ORIGINAL_PARTITION));
        assertEquals(41L, read.getLongProperty(DeadLetters.ORIGINAL_OFFSET));
        assertEquals(6, read.getIntProperty(DeadLetters.DELIVERY_COUNT));
        assertEquals(1_800_000_000_000L, read.getLongProperty(DeadLetters.DEAD_LETTER_TIME));
        assertEquals("OrderBean", read.getStringProperty(DeadLetters.ENDPOINT));
    }

    @Test
    void aMessageDeadLetteredAgainCarriesOnlyTheLatestReason() throws Exception {
        ConsumerRecord<byte[], byte[]> original = consumed(MessageCodec.toRecord(new TributaryTextMessage("x"),
                "orders"), 0, 1);
        ConsumerRecord<byte[], byte[]> first = consumed(DeadLetterRecord.of("dlq", original, "first", 1, null, 1,
                false), 0, 0);
        ProducerRecord<byte[], byte[]> second = DeadLetterRecord.of("dlq2", first, "second", 2, null, 2, false);
        int reasons = 0;
        for (var header : second.headers().headers(MessageCodec.HEADER_PROPERTY_PREFIX + DeadLetters.REASON)) {
            reasons++;
        }
        assertEquals(1, reasons);
        TributaryMessage read = MessageCodec.fromRecord(consumed(second, 0, 0), t -> DESTINATION, false);
        assertEquals("second", read.getStringProperty(DeadLetters.REASON));
        assertEquals("dlq", read.getStringProperty(DeadLetters.ORIGINAL_TOPIC));
    }

    @Test
    void aPlainKafkaRecordBecomesAJmsRecordSoItsPropertiesCanBeRead() throws Exception {
        byte[] value = "not JMS".getBytes(StandardCharsets.UTF_8);
        ConsumerRecord<byte[], byte[]> original = consumed(new ProducerRecord<>("raw", null, null, null, value), 0, 7);
        ProducerRecord<byte[], byte[]> letter = DeadLetterRecord.of("raw.DLQ", original, "unreadable", 0, null, 3,
                false);
        assertArrayEquals(value, letter.value());
        TributaryMessage read = MessageCodec.fromRecord(consumed(letter, 0, 0), t -> DESTINATION, false);
        TributaryBytesMessage bytes = assertInstanceOf(TributaryBytesMessage.class, read);
        assertEquals(value.length, bytes.getBodyLength());
        assertEquals(7L, read.getLongProperty(DeadLetters.ORIGINAL_OFFSET));

        ProducerRecord<byte[], byte[]> asText = DeadLetterRecord.of("raw.DLQ", original, "unreadable", 0, null, 3,
                true);
        assertEquals("not JMS", ((TextMessage) MessageCodec.fromRecord(consumed(asText, 0, 0),
                t -> DESTINATION, false)).getText());
    }
}
