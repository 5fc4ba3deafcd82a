package io.tributary.jms;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageListener;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;

import io.tributary.jms.message.TributaryMessage;

/**
 * The simplified API's consumer over a {@link TributaryMessageConsumer}. {@code receiveBody} acknowledges a message
 * only once its body could be returned: a body of the wrong type throws {@link MessageFormatRuntimeException} and,
 * in AUTO and DUPS_OK modes, the message is delivered again (§8.7 of the API documentation of receiveBody).
 */
final class TributaryJMSConsumer implements JMSConsumer {

    private final TributaryMessageConsumer consumer;

    TributaryJMSConsumer(TributaryMessageConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public String getMessageSelector() {
        try {
            return consumer.getMessageSelector();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public MessageListener getMessageListener() throws JMSRuntimeException {
        try {
            return consumer.getMessageListener();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSRuntimeException {
        try {
            consumer.setMessageListener(listener);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public Message receive() {
        try {
            return consumer.receive();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public Message receive(long timeout) {
        try {
            return consumer.receive(timeout);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public Message receiveNoWait() {
        try {
            return consumer.receiveNoWait();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void close() {
        try {
            consumer.close();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
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
        try {
            TributaryMessage message = consumer.receiveUnacknowledged(timeoutMs);
            if (message == null) {
                return null;
            }
            TributarySession session = consumer.session();
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
                if (session.mode() == Session.AUTO_ACKNOWLEDGE || session.mode() == Session.DUPS_OK_ACKNOWLEDGE) {
                    consumer.redeliverUnacknowledged();
                }
                throw e;
            }
            session.afterDelivery(consumer);
            return body;
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }
}
