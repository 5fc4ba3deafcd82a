package io.tributary.jms;

import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.Session;

/**
 * The simplified API's consumer over a {@link TributaryMessageConsumer} ({@link AbstractJMSConsumer}).
 * {@code receiveBody} acknowledges a message only once its body could be returned: a body of the wrong type throws
 * {@link MessageFormatRuntimeException} and, in AUTO and DUPS_OK modes, the message is delivered again (§8.7 of the
 * API documentation of receiveBody).
 */
final class TributaryJMSConsumer extends AbstractJMSConsumer {

    private final TributaryMessageConsumer consumer;

    TributaryJMSConsumer(TributaryMessageConsumer consumer) {
        super(consumer);
        this.consumer = consumer;
    }

    @Override
    protected Message receiveUnacknowledged(long timeoutMs) throws JMSException {
        return consumer.receiveUnacknowledged(timeoutMs);
    }

    @Override
    protected void bodyRefused() throws JMSException {
        int mode = consumer.session().mode();
        if (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE) {
            consumer.redeliverUnacknowledged();
        }
    }

    @Override
    protected void bodyReturned(Message message) throws JMSException {
        consumer.session().afterDelivery(consumer);
    }
}
