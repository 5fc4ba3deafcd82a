package io.tributary.ra.outbound;

import jakarta.jms.CompletionListener;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueSender;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;

import io.tributary.jms.TributaryMessageProducer;

/**
 * A producer of a {@link SessionHandle}: sends through the physical session's producer, then lets the session
 * commit the send at once when no container transaction is open. Asynchronous sends are refused: they are not
 * permitted in a Jakarta EE web or EJB container (Jakarta Messaging 3.1 §7.3.5, §12.2).
 *
 * <p>Threads: the session's.
 */
final class ProducerHandle extends SessionChildHandle implements MessageProducer, QueueSender, TopicPublisher {

    private final TributaryMessageProducer producer;

    ProducerHandle(SessionHandle session, TributaryMessageProducer producer) {
        super(session, "producer");
        this.producer = producer;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Settings

    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkOpen();
        producer.setDisableMessageID(value);
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkOpen();
        return producer.getDisableMessageID();
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkOpen();
        producer.setDisableMessageTimestamp(value);
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkOpen();
        return producer.getDisableMessageTimestamp();
    }

    @Override
    public void setDeliveryMode(int deliveryMode) throws JMSException {
        checkOpen();
        producer.setDeliveryMode(deliveryMode);
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkOpen();
        return producer.getDeliveryMode();
    }

    @Override
    public void setPriority(int defaultPriority) throws JMSException {
        checkOpen();
        producer.setPriority(defaultPriority);
    }

    @Override
    public int getPriority() throws JMSException {
        checkOpen();
        return producer.getPriority();
    }

    @Override
    public void setTimeToLive(long timeToLive) throws JMSException {
        checkOpen();
        producer.setTimeToLive(timeToLive);
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkOpen();
        return producer.getTimeToLive();
    }

    @Override
    public void setDeliveryDelay(long deliveryDelay) throws JMSException {
        checkOpen();
        producer.setDeliveryDelay(deliveryDelay);
    }

    @Override
    public long getDeliveryDelay() throws JMSException {
        checkOpen();
        return producer.getDeliveryDelay();
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkOpen();
        return producer.getDestination();
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return producer.getQueue();
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        return producer.getTopic();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Synchronous sends

    @Override
    public void send(Message message) throws JMSException {
        checkOpen();
        producer.send(message);
        session.afterSend(producer.getDestination());
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        checkOpen();
        producer.send(message, deliveryMode, priority, timeToLive);
        session.afterSend(producer.getDestination());
    }

    @Override
    public void send(Destination destination, Message message) throws JMSException {
        checkOpen();
        producer.send(destination, message);
        session.afterSend(destination);
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        checkOpen();
        producer.send(destination, message, deliveryMode, priority, timeToLive);
        session.afterSend(destination);
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        send((Destination) queue, message);
    }

    @Override
    public void send(Queue queue, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        send((Destination) queue, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void publish(Message message) throws JMSException {
        send(message);
    }

    @Override
    public void publish(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        send(topic, message);
    }

    @Override
    public void publish(Topic topic, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        send(topic, message, deliveryMode, priority, timeToLive);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Asynchronous sends: not in a container

    @Override
    public void send(Message message, CompletionListener completionListener) throws JMSException {
        throw asyncSend();
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive,
                     CompletionListener completionListener) throws JMSException {
        throw asyncSend();
    }

    @Override
    public void send(Destination destination, Message message, CompletionListener completionListener)
            throws JMSException {
        throw asyncSend();
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive,
                     CompletionListener completionListener) throws JMSException {
        throw asyncSend();
    }

    private IllegalStateException asyncSend() throws IllegalStateException {
        checkOpen();
        return ContainerRestrictions.forbidden("MessageProducer.send with a CompletionListener");
    }

    /** Inside a transaction the producer's sends stay in the transaction. */
    @Override
    void closePhysical() throws JMSException {
        producer.close();
    }
}
