package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.tributary.jms.ManualClock;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.kafka.DeliveryDecision.Deliver;
import io.tributary.jms.kafka.DeliveryDecision.Hold;
import io.tributary.jms.kafka.DeliveryDecision.PassOver;
import io.tributary.jms.kafka.DeliveryDecision.Reason;
import io.tributary.jms.kafka.DeliveryDecision.Unreadable;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryObjectMessage;
import io.tributary.jms.message.TributaryTextMessage;
import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.TextMessage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The delivery decision on records made by the message codec, with a manual clock; no broker. */
class DeliveryDecisionTest {

    private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

    private final ManualClock clock = new ManualClock(NOW);
    private final Destination orders = TributaryQueue.of("orders");

    DeliveryDecisionTest() throws JMSException {
    }

    private static TributaryTextMessage text(String body) throws JMSException {
        TributaryTextMessage message = new TributaryTextMessage();
        message.setText(body);
        message.setJMSTimestamp(NOW.toEpochMilli());
        return message;
    }

    private static ConsumerRecord<byte[], byte[]> record(TributaryMessage message, String connectionId)
            throws JMSException {
        ProducerRecord<byte[], byte[]> r = MessageCodec.toRecord(message, "orders");
        RecordHeaders headers = new RecordHeaders(r.headers().toArray());
        if (connectionId != null) {
            headers.add(DeliveryDecision.CONNECTION_HEADER, connectionId.getBytes(StandardCharsets.UTF_8));
        }
        return new ConsumerRecord<>("orders", 0, 7, NOW.toEpochMilli(), TimestampType.CREATE_TIME, -1,
                r.value() == null ? -1 : r.value().length, r.key(), r.value(), headers, Optional.empty());
    }

    private DeliveryDecision decision(String selector) throws JMSException {
        return DeliveryDecision.of(orders, MessageSelector.parse(selector), clock);
    }

    @Test
    void aReadableMessageIsDeliveredCountingItsDeliveries() throws Exception {
        DeliveryDecision.Verdict verdict = decision(null).decide(record(text("hello"), null));
        TributaryMessage first = assertInstanceOf(Deliver.class, verdict).delivery(1);
        assertEquals("hello", ((TextMessage) first).getText());
        assertEquals(orders, first.getJMSDestination());
        assertEquals(1, first.getIntProperty("JMSXDeliveryCount"));
        assertFalse(first.getJMSRedelivered());

        TributaryMessage third = ((Deliver) decision(null).decide(record(text("hello"), null))).delivery(3);
        assertEquals(3, third.getIntProperty("JMSXDeliveryCount"));
        assertTrue(third.getJMSRedelivered());
    }

    @Test
    void aMessageDueLaterIsHeldUntilItsDeliveryTimeByTheClock() throws Exception {
        TributaryTextMessage later = text("later");
        later.setJMSDeliveryTime(NOW.toEpochMilli() + 5_000);
        ConsumerRecord<byte[], byte[]> record = record(later, null);

        assertEquals(new Hold(NOW.toEpochMilli() + 5_000, 5_000), decision(null).decide(record));
        clock.advance(Duration.ofMillis(4_999));
        assertEquals(new Hold(NOW.toEpochMilli() + 5_000, 1), decision(null).decide(record));
        clock.advance(Duration.ofMillis(1));
        assertInstanceOf(Deliver.class, decision(null).decide(record));
    }

    @Test
    void anExpiredMessageIsPassedOverOnceItsExpirationIsPast() throws Exception {
        TributaryTextMessage expiring = text("stale");
        expiring.setJMSExpiration(NOW.toEpochMilli() + 1_000);
        ConsumerRecord<byte[], byte[]> record = record(expiring, null);

        clock.advance(Duration.ofMillis(1_000));
        assertInstanceOf(Deliver.class, decision(null).decide(record), "at its expiration it is still delivered");
        clock.advance(Duration.ofMillis(1));
        assertEquals(new PassOver(Reason.EXPIRED), decision(null).decide(record));
    }

    @Test
    void theSelectorPassesOverWhatItDoesNotSelect() throws Exception {
        TributaryTextMessage red = text("red");
        red.setStringProperty("color", "red");
        assertInstanceOf(Deliver.class, decision("color = 'red'").decide(record(red, null)));
        assertEquals(new PassOver(Reason.NOT_SELECTED), decision("color = 'blue'").decide(record(red, null)));
    }

    @Test
    void noLocalPassesOverWhatItsOwnConnectionSent() throws Exception {
        DeliveryDecision noLocal = decision(null).passingOverLocal("connection-a");
        assertEquals(new PassOver(Reason.LOCAL), noLocal.decide(record(text("mine"), "connection-a")));
        assertInstanceOf(Deliver.class, noLocal.decide(record(text("theirs"), "connection-b")));
        assertInstanceOf(Deliver.class, noLocal.decide(record(text("a plain Kafka client's"), null)));
        assertInstanceOf(Deliver.class, decision(null).decide(record(text("mine"), "connection-a")),
                "without noLocal a connection receives its own messages");
    }

    @Test
    void aRecordThatIsNotAReadableJmsMessageIsUnreadableNamingWhere() throws Exception {
        ConsumerRecord<byte[], byte[]> record = record(text("x"), null);
        record.headers().remove(MessageCodec.HEADER_PRIORITY);
        record.headers().add(MessageCodec.HEADER_PRIORITY, "eleven".getBytes(StandardCharsets.UTF_8));

        Unreadable unreadable = assertInstanceOf(Unreadable.class, decision(null).decide(record));
        assertTrue(unreadable.reason().contains("orders-0@7"), unreadable.reason());
        assertTrue(unreadable.reason().contains(MessageCodec.HEADER_PRIORITY), unreadable.reason());
    }

    @Test
    void anObjectMessageIsDeliveredWithTheAllowListAndLimits() throws Exception {
        TributaryObjectMessage message = new TributaryObjectMessage();
        message.setAllowList(ObjectMessageAllowList.parse("*"));
        message.setObject(new Order(42));
        ConsumerRecord<byte[], byte[]> record = record(message, null);

        Deliver withDefaults = assertInstanceOf(Deliver.class, decision(null).decide(record));
        assertThrows(MessageFormatException.class, () -> ((TributaryObjectMessage) withDefaults.delivery(1))
                .getObject(), "the default allow-list does not name the test's class");
        Deliver trusting = assertInstanceOf(Deliver.class, decision(null)
                .objectMessages(ObjectMessageAllowList.parse("io.tributary"), ObjectMessageLimits.DEFAULT)
                .decide(record));
        assertEquals(new Order(42), ((TributaryObjectMessage) trusting.delivery(1)).getObject());
    }

    record Order(int id) implements Serializable {
    }
}
