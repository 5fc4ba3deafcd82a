package io.tributary.ra.outbound;

import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;

import io.tributary.jms.TributaryMessageConsumer;

/**
 * A consumer of a {@link SessionHandle}: receives through a consumer of the physical session, then lets the session
 * acknowledge at once when no container transaction is open. Message listeners are refused (Jakarta Messaging 3.1
 * §12.2: asynchronous delivery in a container is for message-driven beans).
 *
 * <p>Threads: the session's.
 */
final class ConsumerHandle extends SessionChildHandle implements QueueReceiver, TopicSubscriber {

    private final TributaryMessageConsumer consumer;

    ConsumerHandle(SessionHandle session, TributaryMessageConsumer consumer) {
        super(session, "consumer");
        this.consumer = consumer;
    }

    SessionHandle session() {
        return session;
    }

    @Override
    public Message receive() throws JMSException {
        checkOpen();
        Message message = consumer.receive();
        session.afterReceive(message);
        return message;
    }

    @Override
    public Message receive(long timeout) throws JMSException {
        checkOpen();
        Message message = consumer.receive(timeout);
        session.afterReceive(message);
        return message;
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        checkOpen();
        Message message = consumer.receiveNoWait();
        session.afterReceive(message);
        return message;
    }

    /**
     * A message not yet acknowledged, for {@code JMSConsumer.receiveBody}, which acknowledges only once the body
     * could be returned: {@code timeoutMs} 0 waits indefinitely, below 0 not at all.
     */
    Message receiveUnacknowledged(long timeoutMs) throws JMSException {
        checkOpen();
        if (timeoutMs == 0) {
            return consumer.receive();
        }
        return timeoutMs < 0 ? consumer.receiveNoWait() : consumer.receive(timeoutMs);
    }

    /** Acknowledges a message of {@link #receiveUnacknowledged} (outside a transaction; inside, the commit does). */
    void acknowledgeReceived(Message message) throws JMSException {
        session.afterReceive(message);
    }

    /** Delivers a message of {@link #receiveUnacknowledged} again (outside a transaction). */
    void redeliverReceived() throws JMSException {
        session.managed().redeliverOutsideTransaction();
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return consumer.getMessageSelector();
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("MessageConsumer.getMessageListener");
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("MessageConsumer.setMessageListener (use a message-driven bean)");
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return consumer.getQueue();
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        return consumer.getTopic();
    }

    @Override
    public boolean getNoLocal() throws JMSException {
        checkOpen();
        return consumer.getNoLocal();
    }

    /**
     * Inside a container transaction the physical consumer is closed when the transaction ends, so that its commit
     * acknowledges what was received.
     */
    @Override
    void closePhysical() throws JMSException {
        session.managed().closeConsumer(consumer);
    }
}
