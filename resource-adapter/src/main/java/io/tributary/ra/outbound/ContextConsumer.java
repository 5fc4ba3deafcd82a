package io.tributary.ra.outbound;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSConsumer;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageListener;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

/**
 * The simplified API's consumer over a {@link ConsumerHandle}. {@code receiveBody} acknowledges a message only
 * once its body could be returned: outside a transaction a body of the wrong type throws
 * {@link MessageFormatRuntimeException} and the message is delivered again (API documentation of
 * {@code JMSConsumer.receiveBody}); inside one it is part of the transaction like any received message.
 *
 * <p>Threads: the context's.
 */
final class ContextConsumer implements JMSConsumer {

    private final ConsumerHandle consumer;

    ContextConsumer(ConsumerHandle consumer) {
        this.consumer = consumer;
    }

    @Override
    public String getMessageSelector() {
        return UncheckedJms.call(consumer::getMessageSelector);
    }

    @Override
    public MessageListener getMessageListener() {
        return UncheckedJms.call(consumer::getMessageListener);
    }

    @Override
    public void setMessageListener(MessageListener listener) {
        UncheckedJms.run(() -> consumer.setMessageListener(listener));
    }

    @Override
    public Message receive() {
        return UncheckedJms.call(consumer::receive);
    }

    @Override
    public Message receive(long timeout) {
        return UncheckedJms.call(() -> consumer.receive(timeout));
    }

    @Override
    public Message receiveNoWait() {
        return UncheckedJms.call(consumer::receiveNoWait);
    }

    @Override
    public void close() {
        UncheckedJms.run(consumer::close);
    }

    @Override
    public <T> T receiveBody(Class<T> c) {
        return body(0, c);
    }

    @Override
    public <T> T receiveBody(Class<T> c, long timeout) {
        return body(timeout <= 0 ? 0 : timeout, c);
    }

    @Override
    public <T> T receiveBodyNoWait(Class<T> c) {
        return body(-1, c);
    }

    private <T> T body(long timeoutMs, Class<T> c) {
        return UncheckedJms.call(() -> {
            Message message = consumer.receiveUnacknowledged(timeoutMs);
            if (message == null) {
                return null;
            }
            T body;
            try {
                if (message instanceof StreamMessage || !(message instanceof TextMessage
                        || message instanceof BytesMessage || message instanceof MapMessage
                        || message instanceof ObjectMessage)) {
                    throw new MessageFormatException("Message " + message.getJMSMessageID() + " is a "
                            + (message instanceof StreamMessage ? "StreamMessage" : "Message without a body")
                            + ", whose body receiveBody cannot return");
                }
                if (!message.isBodyAssignableTo(c)) {
                    throw new MessageFormatException("The body of message " + message.getJMSMessageID()
                            + " cannot be returned as " + c.getName());
                }
                body = message.getBody(c);
            } catch (MessageFormatException e) {
                consumer.redeliverReceived();
                throw e;
            }
            consumer.acknowledgeReceived(message);
            return body;
        });
    }
}
