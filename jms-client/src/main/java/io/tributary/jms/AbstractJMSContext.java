package io.tributary.jms;

import java.io.Serializable;

import jakarta.jms.BytesMessage;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

/**
 * What every {@link JMSContext} of this provider shares: the simplified API over one classic session. Messages,
 * consumers (which start the connection when {@link #getAutoStart() autoStart} is on, the default), browsers,
 * destinations, subscriptions and the session's commit, rollback and recover go to {@link #session()}, with checked
 * exceptions converted to their runtime counterparts ({@link UncheckedJms}, §7.3), and every method first checks that
 * the context is open. A subclass supplies the session, wraps consumers, and owns the connection side (client id,
 * exception listener, start and stop, close) and the session mode: the provider's {@link TributaryJMSContext}, and
 * the resource adapter's container-managed context, whose session and rules are the container's.
 *
 * <p>Threads: like a session, used by one thread at a time; {@link #close()} may come from any thread.
 */
public abstract class AbstractJMSContext implements JMSContext {

    private volatile boolean autoStart = true;
    private volatile boolean closed;

    protected AbstractJMSContext() {
    }

    /** The context's session, opened on first use; checks that the context is open. */
    protected abstract Session session();

    /** The simplified API's consumer over {@code consumer}, a consumer of {@link #session()}. */
    protected abstract JMSConsumer consumerOf(MessageConsumer consumer);

    /** @throws IllegalStateRuntimeException if the context is closed */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateRuntimeException("The JMSContext is closed");
        }
    }

    /** Marks the context closed; false if it already was. Checks of {@link #checkOpen()} fail from then on. */
    protected final boolean markClosed() {
        boolean was = closed;
        closed = true;
        return !was;
    }

    protected final boolean isClosed() {
        return closed;
    }

    /** {@link UncheckedJms#call} after {@link #checkOpen()}. */
    protected final <T> T call(UncheckedJms.Call<T> call) {
        checkOpen();
        return UncheckedJms.call(call);
    }

    /** {@link UncheckedJms#run} after {@link #checkOpen()}. */
    protected final void run(UncheckedJms.Run run) {
        checkOpen();
        UncheckedJms.run(run);
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

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    @Override
    public BytesMessage createBytesMessage() {
        return call(() -> session().createBytesMessage());
    }

    @Override
    public MapMessage createMapMessage() {
        return call(() -> session().createMapMessage());
    }

    @Override
    public Message createMessage() {
        return call(() -> session().createMessage());
    }

    @Override
    public ObjectMessage createObjectMessage() {
        return call(() -> session().createObjectMessage());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        return call(() -> session().createObjectMessage(object));
    }

    @Override
    public StreamMessage createStreamMessage() {
        return call(() -> session().createStreamMessage());
    }

    @Override
    public TextMessage createTextMessage() {
        return call(() -> session().createTextMessage());
    }

    @Override
    public TextMessage createTextMessage(String text) {
        return call(() -> session().createTextMessage(text));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Session operations

    @Override
    public void commit() {
        run(() -> session().commit());
    }

    @Override
    public void rollback() {
        run(() -> session().rollback());
    }

    @Override
    public void recover() {
        run(() -> session().recover());
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
        MessageConsumer consumer = call(create);
        if (autoStart) {
            start();
        }
        return consumerOf(consumer);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return call(() -> session().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) {
        return call(() -> session().createBrowser(queue, messageSelector));
    }

    @Override
    public Queue createQueue(String queueName) {
        return call(() -> session().createQueue(queueName));
    }

    @Override
    public Topic createTopic(String topicName) {
        return call(() -> session().createTopic(topicName));
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        return call(() -> session().createTemporaryQueue());
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        return call(() -> session().createTemporaryTopic());
    }

    @Override
    public void unsubscribe(String name) {
        run(() -> session().unsubscribe(name));
    }
}
