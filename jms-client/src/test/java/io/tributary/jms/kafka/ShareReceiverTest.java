package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.jms.JMSException;

import io.tributary.jms.ManualClock;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryTextMessage;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockShareConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * What a share-group queue receiver tells the broker about each record, on kafka-clients' {@code MockShareConsumer}
 * (which records acknowledgements here) with records the message codec made and a manual clock; no broker.
 */
class ShareReceiverTest {

    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    private final ManualClock clock = new ManualClock(NOW);
    private final Recording consumer = new Recording();
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());

    /** A mock share consumer that remembers each acknowledgement as "offset:TYPE". */
    private static final class Recording extends MockShareConsumer<byte[], byte[]> {
        final List<String> acknowledged = new ArrayList<>();

        Recording() {
            subscribe(List.of("orders"));
        }

        @Override
        public synchronized void acknowledge(ConsumerRecord<byte[], byte[]> record, AcknowledgeType type) {
            acknowledged.add(record.offset() + ":" + type.name());
            super.acknowledge(record, type);
        }
    }

    private ShareReceiver receiver(String selector, DeadLetterPolicy policy) throws JMSException {
        DeliveryDecision decision = DeliveryDecision.of(TributaryQueue.of("orders"), MessageSelector.parse(selector),
                clock);
        return new ShareReceiver(consumer, decision, policy, policy.topic() == null ? null : producer, false, clock,
                "queue orders");
    }

    private void add(long offset, String body, int deliveryCount, long expiration) throws JMSException {
        TributaryTextMessage message = new TributaryTextMessage();
        message.setText(body);
        message.setStringProperty("kind", body.substring(0, 1));
        message.setJMSExpiration(expiration);
        ProducerRecord<byte[], byte[]> r = MessageCodec.toRecord(message, "orders");
        consumer.addRecord(new ConsumerRecord<>("orders", 0, offset, NOW.toEpochMilli(), TimestampType.CREATE_TIME,
                -1, r.value().length, r.key(), r.value(), new RecordHeaders(r.headers().toArray()), Optional.empty(),
                Optional.of((short) deliveryCount)));
    }

    @Test
    void aDeliveryCarriesTheBrokersCountAndIsAcceptedWhenTheSessionSaysSo() throws Exception {
        add(0, "a0", 3, 0);
        try (ShareReceiver receiver = receiver(null, DeadLetterPolicy.DEFAULT)) {
            ShareReceiver.Delivery delivery = receiver.next(0);
            assertNotNull(delivery);
            assertEquals(3, delivery.message().getIntProperty("JMSXDeliveryCount"));
            assertTrue(delivery.message().getJMSRedelivered());
            assertEquals(List.of(), consumer.acknowledged, "nothing settled before the session says so");
            receiver.accept(ShareReceiver.Durability.SYNC);
            assertEquals(List.of("0:ACCEPT"), consumer.acknowledged);
        }
    }

    @Test
    void aRejectedSelectionIsReleasedForTheOthersAndAnExpiredMessageIsConsumed() throws Exception {
        add(0, "b0", 1, 0);
        add(1, "a1", 1, NOW.toEpochMilli() - 1);
        add(2, "a2", 1, 0);
        try (ShareReceiver receiver = receiver("kind = 'a'", DeadLetterPolicy.DEFAULT)) {
            ShareReceiver.Delivery delivery = receiver.next(0);
            assertEquals(2, delivery.record().offset());
            assertEquals(List.of("0:RELEASE", "1:ACCEPT"), consumer.acknowledged);
        }
    }

    @Test
    void aReleasedMessageBelowTheLimitIsReleasedAndAtTheLimitDeadLettered() throws Exception {
        add(0, "a0", 1, 0);
        add(1, "a1", 3, 0);
        try (ShareReceiver receiver = receiver(null, new DeadLetterPolicy(3, "orders.DLQ"))) {
            receiver.next(0);
            receiver.next(0);
            receiver.release("the listener threw");
            assertEquals(List.of("0:RELEASE", "1:ACCEPT"), consumer.acknowledged);
            assertEquals(1, producer.history().size());
            ProducerRecord<byte[], byte[]> letter = producer.history().get(0);
            assertEquals("orders.DLQ", letter.topic());
            assertNotNull(letter.headers().lastHeader(MessageCodec.HEADER_PROPERTY_PREFIX
                    + DeadLetterRecord.ORIGINAL_OFFSET));
        }
    }

    @Test
    void withoutADeadLetterTopicAMessageAtTheLimitIsRejected() throws Exception {
        add(0, "a0", 2, 0);
        try (ShareReceiver receiver = receiver(null, new DeadLetterPolicy(2, null))) {
            receiver.next(0);
            receiver.release("recovered");
            assertEquals(List.of("0:REJECT"), consumer.acknowledged);
        }
    }

    @Test
    void aReceiverHoldingAFetchOfUnacknowledgedMessagesRefusesToFetchMore() throws Exception {
        add(0, "a0", 1, 0);
        try (ShareReceiver receiver = receiver(null, DeadLetterPolicy.DEFAULT)) {
            assertNotNull(receiver.next(0));
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> receiver.next(0));
            assertTrue(refused.getMessage().contains("max.poll.records"), refused.getMessage());
            receiver.accept(ShareReceiver.Durability.LAZY);
            assertNull(receiver.next(0), "fetches again once they are acknowledged");
        }
    }
}
