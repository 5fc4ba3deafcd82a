package io.tributary.ra.outbound;

import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;

import io.tributary.jms.AbstractJMSConsumer;

/**
 * The simplified API's consumer over a {@link ConsumerHandle} ({@link AbstractJMSConsumer}). {@code receiveBody}
 * acknowledges a message only once its body could be returned: outside a transaction a body of the wrong type throws
 * {@link MessageFormatRuntimeException} and the message is delivered again (API documentation of
 * {@code JMSConsumer.receiveBody}); inside one it is part of the transaction like any received message.
 *
 * <p>Threads: the context's.
 */
final class ContextConsumer extends AbstractJMSConsumer {

    private final ConsumerHandle consumer;

    ContextConsumer(ConsumerHandle consumer) {
        super(consumer);
        this.consumer = consumer;
    }

    @Override
    protected Message receiveUnacknowledged(long timeoutMs) throws JMSException {
        return consumer.receiveUnacknowledged(timeoutMs);
    }

    @Override
    protected void bodyRefused() throws JMSException {
        consumer.redeliverReceived();
    }

    @Override
    protected void bodyReturned(Message message) throws JMSException {
        consumer.acknowledgeReceived(message);
    }
}
