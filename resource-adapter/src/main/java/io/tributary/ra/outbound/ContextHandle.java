package io.tributary.ra.outbound;

import java.io.Serializable;

import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

/**
 * The simplified API on a pooled connection: a {@link TributaryConnectionHandle} and its one session, with the
 * container's rules (Jakarta Messaging 3.1 §12): the session mode is ignored (transacted inside a container
 * transaction, {@code AUTO_ACKNOWLEDGE} outside), and {@code createContext}, {@code setClientID},
 * {@code setExceptionListener}, {@code stop} and asynchronous sends throw {@link IllegalStateRuntimeException}.
 * Closing the context closes the connection handle, which gives the managed connection back to the pool.
 *
 * <p>Threads: one at a time, like a session; {@link #close()} from any.
 */
final class ContextHandle implements JMSContext {

    private final TributaryConnectionHandle connection;
    private SessionHandle session;
    private ProducerHandle producer;
    private volatile boolean autoStart = true;
    private volatile boolean closed;

    /** @throws JMSRuntimeException if {@code sessionMode} is none of the four JMS session modes */
    ContextHandle(TributaryConnectionHandle connection, int sessionMode) {
        if (sessionMode != SESSION_TRANSACTED && sessionMode != AUTO_ACKNOWLEDGE && sessionMode != CLIENT_ACKNOWLEDGE
                && sessionMode != DUPS_OK_ACKNOWLEDGE) {
            throw new JMSRuntimeException("Unknown session mode " + sessionMode + ": expected SESSION_TRANSACTED "
                    + "(0), AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
        this.connection = connection;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateRuntimeException("The JMSContext is closed");
        }
    }

    /** The context's session, opened on first use. */
    synchronized SessionHandle session() {
        checkOpen();
        if (session == null) {
            session = (SessionHandle) UncheckedJms.call(connection::createSession);
        }
        return session;
    }

    /** The session's producer without a destination, for {@link ContextProducer}; made on first use. */
    synchronized ProducerHandle producer() {
        if (producer == null) {
            producer = (ProducerHandle) UncheckedJms.call(() -> session().createProducer(null));
        }
        return producer;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection

    @Override
    public JMSContext createContext(int sessionMode) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.createContext");
    }

    @Override
    public JMSProducer createProducer() {
        checkOpen();
        return new ContextProducer(this);
    }

    @Override
    public String getClientID() {
        checkOpen();
        return UncheckedJms.call(connection::getClientID);
    }

    @Override
    public void setClientID(String clientID) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.setClientID");
    }

    @Override
    public ConnectionMetaData getMetaData() {
        checkOpen();
        return UncheckedJms.call(connection::getMetaData);
    }

    @Override
    public ExceptionListener getExceptionListener() {
        checkOpen();
        return null;
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.setExceptionListener");
    }

    @Override
    public void start() {
        checkOpen();
        UncheckedJms.run(connection::start);
    }

    @Override
    public void stop() {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.stop");
    }

    @Override
    public void setAutoStart(boolean autoStart) {
        checkOpen();
        this.autoStart = autoStart;
    }

    @Override
    public boolean getAutoStart() {
        checkOpen();
        return autoStart;
    }

    /** Closes the session and the connection handle (back to the pool). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        UncheckedJms.run(connection::close);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    @Override
    public BytesMessage createBytesMessage() {
        return UncheckedJms.call(() -> session().createBytesMessage());
    }

    @Override
    public MapMessage createMapMessage() {
        return UncheckedJms.call(() -> session().createMapMessage());
    }

    @Override
    public Message createMessage() {
        return UncheckedJms.call(() -> session().createMessage());
    }

    @Override
    public ObjectMessage createObjectMessage() {
        return UncheckedJms.call(() -> session().createObjectMessage());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        return UncheckedJms.call(() -> session().createObjectMessage(object));
    }

    @Override
    public StreamMessage createStreamMessage() {
        return UncheckedJms.call(() -> session().createStreamMessage());
    }

    @Override
    public TextMessage createTextMessage() {
        return UncheckedJms.call(() -> session().createTextMessage());
    }

    @Override
    public TextMessage createTextMessage(String text) {
        return UncheckedJms.call(() -> session().createTextMessage(text));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transactions: the container's

    @Override
    public boolean getTransacted() {
        return UncheckedJms.call(() -> session().getTransacted());
    }

    @Override
    public int getSessionMode() {
        return UncheckedJms.call(() -> session().getAcknowledgeMode());
    }

    @Override
    public void commit() {
        UncheckedJms.run(() -> session().commit());
    }

    @Override
    public void rollback() {
        UncheckedJms.run(() -> session().rollback());
    }

    @Override
    public void recover() {
        UncheckedJms.run(() -> session().recover());
    }

    /** A no-op: outside a transaction every message is acknowledged when received, inside one at commit. */
    @Override
    public void acknowledge() {
        checkOpen();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Consumers

    @Override
    public JMSConsumer createConsumer(Destination destination) {
        return consumer(() -> session().createConsumer(destination));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector) {
        return consumer(() -> session().createConsumer(destination, messageSelector));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createConsumer(destination, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName, messageSelector));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createDurableConsumer(topic, name, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name, messageSelector));
    }

    private JMSConsumer consumer(UncheckedJms.Call<MessageConsumer> create) {
        checkOpen();
        ConsumerHandle consumer = (ConsumerHandle) UncheckedJms.call(create);
        if (autoStart) {
            start();
        }
        return new ContextConsumer(consumer);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return UncheckedJms.call(() -> session().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) {
        return UncheckedJms.call(() -> session().createBrowser(queue, messageSelector));
    }

    @Override
    public Queue createQueue(String queueName) {
        return UncheckedJms.call(() -> session().createQueue(queueName));
    }

    @Override
    public Topic createTopic(String topicName) {
        return UncheckedJms.call(() -> session().createTopic(topicName));
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        return UncheckedJms.call(() -> session().createTemporaryQueue());
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        return UncheckedJms.call(() -> session().createTemporaryTopic());
    }

    @Override
    public void unsubscribe(String name) {
        UncheckedJms.run(() -> session().unsubscribe(name));
    }

    /** Sends of {@link ContextProducer}, checked exceptions converted. */
    void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive) {
        checkOpen();
        UncheckedJms.run(() -> producer().send(destination, message, deliveryMode, priority, timeToLive));
    }
}
