package io.tributary.ra.outbound;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.jms.BytesMessage;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.QueueReceiver;
import jakarta.jms.QueueSender;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionRolledBackException;

import io.tributary.jms.SessionDomain;
import io.tributary.jms.TributaryMessageConsumer;
import io.tributary.jms.TributaryMessageProducer;

/**
 * The session of a {@link TributaryConnectionHandle}: works on its managed connection's physical session and
 * reports transactional state as a session in a Jakarta EE container must (Jakarta Messaging 3.1 §12.3): inside the
 * container's transaction it is transacted and may not commit or roll back itself; outside one it is
 * {@code AUTO_ACKNOWLEDGE}, each send and receive committed as it returns. Message listeners and {@code run} are
 * refused (§12.2).
 *
 * <p>Closing it closes the producers, consumers and browsers made through it (a consumer closed inside a
 * transaction only when the transaction ends, so that the commit acknowledges what it received).
 *
 * <p>Threads: the application's thread, as for any JMS session; {@link #invalidate()} comes from the container.
 */
final class SessionHandle implements Session, QueueSession, TopicSession {

    private final TributaryConnectionHandle connection;
    /**
     * QUEUE or TOPIC when the application asked its connection for a QueueSession or TopicSession: the physical
     * session is a general one, so the handle refuses the other domain's methods itself.
     */
    private final SessionDomain domain;
    private final List<ProducerHandle> producers = new CopyOnWriteArrayList<>();
    private final List<ConsumerHandle> consumers = new CopyOnWriteArrayList<>();
    private final List<QueueBrowser> browsers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    SessionHandle(TributaryConnectionHandle connection, SessionDomain domain) {
        this.connection = connection;
        this.domain = domain;
    }

    void checkOpen() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The session is closed");
        }
    }

    TributaryManagedConnection managed() throws IllegalStateException {
        checkOpen();
        return connection.managed();
    }

    private Session physical() throws JMSException {
        return managed().session();
    }

    /** After a send: committed now outside a transaction; a failed commit is a failed send. */
    void afterSend(Destination destination) throws JMSException {
        try {
            managed().completeOutsideTransaction();
        } catch (TransactionRolledBackException e) {
            JMSException failure = new JMSException("Sending to " + destination + " failed: " + e.getMessage());
            failure.setLinkedException(e);
            failure.initCause(e);
            throw failure;
        }
    }

    /**
     * After a receive that returned a message: acknowledged now outside a transaction. If the acknowledgement
     * fails, the message is delivered again (it was not consumed), and the receive throws.
     */
    void afterReceive(Message message) throws JMSException {
        if (message == null) {
            return;
        }
        TributaryManagedConnection managed = managed();
        try {
            managed.completeOutsideTransaction();
        } catch (JMSException e) {
            try {
                managed.redeliverOutsideTransaction();
            } catch (JMSException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    /** A producer or consumer of this session was closed. */
    void childClosed(SessionChildHandle child) {
        producers.remove(child);
        consumers.remove(child);
    }

    /** The managed connection was cleaned up or destroyed, which closes the physical objects: only mark closed. */
    void invalidate() {
        closed = true;
        for (ProducerHandle producer : producers) {
            producer.invalidate();
        }
        for (ConsumerHandle consumer : consumers) {
            consumer.invalidate();
        }
        producers.clear();
        consumers.clear();
        browsers.clear();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        return physical().createBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        return physical().createMapMessage();
    }

    @Override
    public Message createMessage() throws JMSException {
        return physical().createMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        return physical().createObjectMessage();
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        return physical().createObjectMessage(object);
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        return physical().createStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        return physical().createTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        return physical().createTextMessage(text);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transactions: the container's (§12.3)

    /** True inside a container transaction, whatever {@code createSession} was given. */
    @Override
    public boolean getTransacted() throws JMSException {
        return managed().inTransaction();
    }

    /** {@code SESSION_TRANSACTED} inside a container transaction, else {@code AUTO_ACKNOWLEDGE}. */
    @Override
    public int getAcknowledgeMode() throws JMSException {
        return managed().inTransaction() ? SESSION_TRANSACTED : AUTO_ACKNOWLEDGE;
    }

    @Override
    public void commit() throws JMSException {
        throw notTheApplicationsTransaction("commit");
    }

    @Override
    public void rollback() throws JMSException {
        throw notTheApplicationsTransaction("rollback");
    }

    private JMSException notTheApplicationsTransaction(String method) throws JMSException {
        if (managed().inTransaction()) {
            return new TransactionInProgressException("Session." + method + " may not be called: the session takes "
                    + "part in the container's transaction, which commits or rolls it back (Jakarta Messaging 3.1 "
                    + "§12.3)");
        }
        return new IllegalStateException("Session." + method + " on a session that is not transacted: outside a "
                + "container transaction sessions are AUTO_ACKNOWLEDGE (Jakarta Messaging 3.1 §12.3)");
    }

    /** Outside a transaction a no-op: every received message is already acknowledged. */
    @Override
    public void recover() throws JMSException {
        if (managed().inTransaction()) {
            throw new IllegalStateException("Session.recover in a transaction: the container's rollback delivers "
                    + "the messages again");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Producers and consumers

    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        return producer(destination);
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return producer(queue);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return producer(topic);
    }

    private ProducerHandle producer(Destination destination) throws JMSException {
        ProducerHandle producer = new ProducerHandle(this,
                (TributaryMessageProducer) physical().createProducer(destination));
        producers.add(producer);
        return producer;
    }

    @FunctionalInterface
    private interface ConsumerFactory {
        MessageConsumer create(Session physical) throws JMSException;
    }

    private ConsumerHandle consumer(ConsumerFactory factory) throws JMSException {
        ConsumerHandle consumer = new ConsumerHandle(this, (TributaryMessageConsumer) factory.create(physical()));
        consumers.add(consumer);
        return consumer;
    }

    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return consumer(session -> session.createConsumer(destination));
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector) throws JMSException {
        return consumer(session -> session.createConsumer(destination, messageSelector));
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal)
            throws JMSException {
        return consumer(session -> session.createConsumer(destination, messageSelector, noLocal));
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSharedConsumer");
        return consumer(session -> session.createSharedConsumer(topic, sharedSubscriptionName));
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector)
            throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSharedConsumer");
        return consumer(session -> session.createSharedConsumer(topic, sharedSubscriptionName, messageSelector));
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createDurableSubscriber");
        return consumer(session -> session.createDurableSubscriber(topic, name));
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createDurableSubscriber");
        return consumer(session -> session.createDurableSubscriber(topic, name, messageSelector, noLocal));
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createDurableConsumer");
        return consumer(session -> session.createDurableConsumer(topic, name));
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createDurableConsumer");
        return consumer(session -> session.createDurableConsumer(topic, name, messageSelector, noLocal));
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSharedDurableConsumer");
        return consumer(session -> session.createSharedDurableConsumer(topic, name));
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector)
            throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSharedDurableConsumer");
        return consumer(session -> session.createSharedDurableConsumer(topic, name, messageSelector));
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return consumer(session -> session.createConsumer(queue));
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String messageSelector) throws JMSException {
        return consumer(session -> session.createConsumer(queue, messageSelector));
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSubscriber");
        return consumer(session -> session.createConsumer(topic));
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createSubscriber");
        return consumer(session -> session.createConsumer(topic, messageSelector, noLocal));
    }

    @Override
    public void unsubscribe(String name) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("unsubscribe");
        physical().unsubscribe(name);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Destinations and browsers

    @Override
    public Queue createQueue(String queueName) throws JMSException {
        checkOpen();
        domain.requireQueueMethod("createQueue");
        return physical().createQueue(queueName);
    }

    @Override
    public Topic createTopic(String topicName) throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createTopic");
        return physical().createTopic(topicName);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        checkOpen();
        domain.requireQueueMethod("createBrowser");
        return browser(physical().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) throws JMSException {
        checkOpen();
        domain.requireQueueMethod("createBrowser");
        return browser(physical().createBrowser(queue, messageSelector));
    }

    private QueueBrowser browser(QueueBrowser browser) {
        browsers.add(browser);
        return browser;
    }

    /** A temporary queue, deleted when the application closes the connection (at the managed connection's cleanup). */
    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        checkOpen();
        domain.requireQueueMethod("createTemporaryQueue");
        TemporaryQueue queue = physical().createTemporaryQueue();
        managed().temporaryCreated(queue);
        return queue;
    }

    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        checkOpen();
        domain.requireTopicMethod("createTemporaryTopic");
        TemporaryTopic topic = physical().createTemporaryTopic();
        managed().temporaryCreated(topic);
        return topic;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Forbidden in a container (§12.2)

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Session.getMessageListener");
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        throw ContainerRestrictions.forbidden("Session.setMessageListener");
    }

    @Override
    public void run() {
        throw ContainerRestrictions.forbiddenRuntime("Session.run");
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Closes the producers, consumers and browsers made through this session. Idempotent. */
    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        JMSException first = null;
        for (ConsumerHandle consumer : consumers) {
            try {
                consumer.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        for (ProducerHandle producer : producers) {
            try {
                producer.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        for (QueueBrowser browser : browsers) {
            try {
                browser.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        browsers.clear();
        closed = true;
        connection.sessionClosed(this);
        if (first != null) {
            throw first;
        }
    }
}
