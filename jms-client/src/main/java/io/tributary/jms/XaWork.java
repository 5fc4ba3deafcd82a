package io.tributary.jms;

import java.util.List;

import jakarta.jms.JMSException;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A part of an XA branch ({@link XaResourceManager}): records to send and consumed offsets to commit in the branch's
 * Kafka transaction, and whom to tell the outcome. A transacted session's work
 * ({@link SessionAcknowledgement#takeXaWork()}), or an inbound delivery's offset ({@link DeliveryXAResource}).
 */
interface XaWork {

    List<ProducerRecord<byte[], byte[]>> sends();

    List<OffsetCommitter.TransactionOffsets> offsets();

    /** The branch committed or rolled back; called once, by the thread that decided it. */
    void completed(boolean committed) throws JMSException;
}
