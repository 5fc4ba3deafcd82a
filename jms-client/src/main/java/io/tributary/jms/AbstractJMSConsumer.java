package io.tributary.jms;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageListener;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

/**
 * What every {@link JMSConsumer} of this provider shares: the simplified API over one classic
 * {@link MessageConsumer}, checked exceptions converted ({@link UncheckedJms}), and {@code receiveBody}, which
 * acknowledges a message only once its body could be returned: a {@code StreamMessage}, a message without a body or
 * a body of the wrong type throws {@link MessageFormatRuntimeException} and the message is not acknowledged (API
 * documentation of {@code JMSConsumer.receiveBody}). A subclass says how a message is received without being
 * acknowledged, and what a refused and a returned body do to it: the provider's {@link TributaryJMSConsumer}, and the
 * resource adapter's consumer of a container-managed context.
 *
 * <p>Threads: the context's.
 */
public abstract class AbstractJMSConsumer implements JMSConsumer {

    private final MessageConsumer consumer;

    protected AbstractJMSConsumer(MessageConsumer consumer) {
        this.consumer = consumer;
    }

    /** A message not yet acknowledged: {@code timeoutMs} 0 waits indefinitely, below 0 not at all. */
    protected abstract Message receiveUnacknowledged(long timeoutMs) throws JMSException;

    /** {@code receiveBody} could not return the body of the message just received. */
    protected abstract void bodyRefused() throws JMSException;

    /** {@code receiveBody} returns the body of {@code message}: acknowledge it as a receive would. */
    protected abstract void bodyReturned(Message message) throws JMSException;

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
            Message message = receiveUnacknowledged(timeoutMs);
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
                bodyRefused();
                throw e;
            }
            bodyReturned(message);
            return body;
        });
    }
}
