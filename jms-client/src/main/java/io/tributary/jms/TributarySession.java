package io.tributary.jms;

import java.io.Serializable;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.jms.BytesMessage;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
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
import jakarta.jms.TransactionRolledBackException;

import javax.transaction.xa.XAResource;

import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.message.TributaryBytesMessage;
import io.tributary.jms.message.TributaryMapMessage;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryObjectMessage;
import io.tributary.jms.message.TributaryStreamMessage;
import io.tributary.jms.message.TributaryTextMessage;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS session: a single-threaded context for producing and consuming (§6.2). Acknowledgement follows the session
 * mode ({@link SessionAcknowledgement}): AUTO commits a consumer's offsets after each delivery without waiting, and
 * waits for that commit before any of its consumers delivers again (so only the last message handed over can come
 * again after a crash, §6.2.10); DUPS_OK commits in batches without waiting; CLIENT commits everything the session
 * delivered when a message is acknowledged; a transacted session writes its messages and its offsets in one Kafka
 * transaction at {@link #commit()}, and at {@link #rollback()} drops the sends and redelivers.
 *
 * <p>Message listeners run on one delivery thread per session, started with the first listener
 * ({@link ListenerDelivery}). The rules for durable subscriptions are checked on the cluster by
 * {@link DurableSubscriptions}. Threads: the application uses a session from one thread at a time, as the
 * specification requires; {@link #close()} may come from any thread.
 */
public final class TributarySession implements Session, QueueSession, TopicSession {

    private static final Logger log = LoggerFactory.getLogger(TributarySession.class);

    private final TributaryConnection connection;
    private final int mode;
    /** QUEUE or TOPIC for a QueueSession or TopicSession: the other domain's methods are refused. */
    private final SessionDomain domain;
    private final List<TributaryMessageConsumer> consumers = new CopyOnWriteArrayList<>();
    private final List<TributaryMessageProducer> producers = new CopyOnWriteArrayList<>();
    private final List<TributaryQueueBrowser> browsers = new CopyOnWriteArrayList<>();
    /** What the mode does to the consumers' acknowledgements; holds a transaction's sends. */
    private final SessionAcknowledgement acknowledgement;
    /** The delivery thread of the consumers' listeners. */
    private final ListenerDelivery delivery = new ListenerDelivery(this, consumers);
    private final DurableSubscriptions durableSubscriptions;
    /** Set once, while no listener runs ({@link ListenerDelivery#whileIdle}); read by any thread. */
    private volatile boolean closed;

    TributarySession(TributaryConnection connection, int mode, SessionDomain domain) {
        this.connection = connection;
        this.mode = mode;
        this.domain = domain;
        this.durableSubscriptions = new DurableSubscriptions(connection);
        this.acknowledgement = new SessionAcknowledgement(mode, connection, consumers);
    }

    TributaryConnection connection() {
        return connection;
    }

    int mode() {
        return mode;
    }

    void checkClosed() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The session is closed");
        }
        connection.checkClosed();
    }

    boolean isClosed() {
        return closed;
    }

    boolean isConsuming(Destination destination) {
        for (TributaryMessageConsumer consumer : consumers) {
            if (consumer.destinationEquals(destination)) {
                return true;
            }
        }
        return false;
    }

    void keepConsumersAlive() {
        for (TributaryMessageConsumer consumer : consumers) {
            consumer.keepAlive();
        }
    }

    /** The subscriptions of this session's consumers that use group {@code groupId}, added to {@code into}. */
    void subscriptionsOf(String groupId, Collection<Subscription> into) {
        for (TributaryMessageConsumer consumer : consumers) {
            if (groupId.equals(consumer.subscription().groupId())) {
                into.add(consumer.subscription());
            }
        }
    }

    boolean isConsumingGroup(String groupId) {
        for (TributaryMessageConsumer consumer : consumers) {
            if (groupId.equals(consumer.subscription().groupId())) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        checkClosed();
        return new TributaryBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        checkClosed();
        return new TributaryMapMessage();
    }

    @Override
    public Message createMessage() throws JMSException {
        checkClosed();
        return new TributaryMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        checkClosed();
        TributaryObjectMessage message = new TributaryObjectMessage();
        message.setAllowList(connection.settings().objectAllowList());
        message.setLimits(connection.settings().objectLimits());
        return message;
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        ObjectMessage message = createObjectMessage();
        message.setObject(object);
        return message;
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        checkClosed();
        return new TributaryStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        checkClosed();
        return new TributaryTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        TextMessage message = createTextMessage();
        message.setText(text);
        return message;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transactions and acknowledgement

    @Override
    public boolean getTransacted() throws JMSException {
        checkClosed();
        return mode == SESSION_TRANSACTED;
    }

    @Override
    public int getAcknowledgeMode() throws JMSException {
        checkClosed();
        return mode;
    }

    /**
     * This transacted session's {@link XAResource}: while it is associated with a branch, the session's sends and
     * deliveries belong to that branch, committed or rolled back by the transaction manager in two phases
     * ({@link TributaryXAResource}). The application must not call {@link #commit()} or {@link #rollback()} then.
     *
     * @throws IllegalStateException if the session is not transacted
     */
    public XAResource getXAResource() throws JMSException {
        checkClosed();
        if (mode != SESSION_TRANSACTED) {
            throw new IllegalStateException("An XAResource needs a transacted session");
        }
        return new TributaryXAResource(connection.xaResourceManager(), acknowledgement::takeXaWork);
    }

    /** A send inside a transaction: kept until commit. */
    void addTransactionSend(ProducerRecord<byte[], byte[]> record) {
        acknowledgement.addTransactionSend(record);
    }

    /**
     * Writes the transaction's messages and the consumers' offsets in one Kafka transaction, visible together or not
     * at all ({@link SessionAcknowledgement#commit()}); if that fails the session rolls back its consumption and
     * throws {@link TransactionRolledBackException}.
     */
    @Override
    public void commit() throws JMSException {
        checkClosed();
        checkNotInCompletionListener("Session.commit()");
        if (mode != SESSION_TRANSACTED) {
            throw new IllegalStateException("commit() on a session that is not transacted");
        }
        acknowledgement.commit();
    }

    @Override
    public void rollback() throws JMSException {
        checkClosed();
        checkNotInCompletionListener("Session.rollback()");
        if (mode != SESSION_TRANSACTED) {
            throw new IllegalStateException("rollback() on a session that is not transacted");
        }
        acknowledgement.rollback();
    }

    /** Stops and redelivers from the first unacknowledged message, marked redelivered (§6.2.11). */
    @Override
    public void recover() throws JMSException {
        checkClosed();
        if (mode == SESSION_TRANSACTED) {
            throw new IllegalStateException("recover() on a transacted session; use rollback()");
        }
        acknowledgement.redeliverAll();
    }

    /** {@code Message.acknowledge()}: in CLIENT_ACKNOWLEDGE mode, every message this session delivered. */
    void acknowledgeFromMessage() throws JMSException {
        checkClosed();
        acknowledgement.acknowledgeFromMessage();
    }

    /** After a delivery, as the mode wants it: {@link SessionAcknowledgement#afterDelivery}. */
    void afterDelivery(TributaryMessageConsumer consumer) throws JMSException {
        acknowledgement.afterDelivery(consumer);
    }

    /**
     * Before any consumer of this session hands over a message: waits for the AUTO commit of the previous delivery
     * ({@link SessionAcknowledgement#awaitPipelinedAcknowledgement()}).
     */
    void awaitPipelinedAcknowledgement() throws JMSException {
        acknowledgement.awaitPipelinedAcknowledgement();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Producers and consumers

    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        return newProducer(destination);
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return newProducer(queue);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return newProducer(topic);
    }

    private TributaryMessageProducer newProducer(Destination destination) throws JMSException {
        checkClosed();
        Destination normalized = destination == null ? null : Destinations.normalize(destination);
        TributaryMessageProducer producer = new TributaryMessageProducer(this, normalized);
        producers.add(producer);
        return producer;
    }

    void producerClosed(TributaryMessageProducer producer) {
        producers.remove(producer);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return createConsumer(destination, null, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector) throws JMSException {
        return createConsumer(destination, messageSelector, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal)
            throws JMSException {
        return queueOrTopicConsumer(destination, messageSelector, noLocal, connection.settings().startAt());
    }

    /**
     * A consumer of a queue or a (non-durable) topic subscription that starts at {@code start}: replay from the
     * earliest offset, the end, a point in time or given offsets (see {@link StartPosition}). For a queue the
     * queue's group moves there.
     */
    public MessageConsumer createConsumer(Destination destination, String messageSelector, StartPosition start)
            throws JMSException {
        return queueOrTopicConsumer(destination, messageSelector, false, start);
    }

    /** A receiver of a queue (the queue's group) or a non-durable topic subscriber (no group). */
    private MessageConsumer queueOrTopicConsumer(Destination destination, String messageSelector, boolean noLocal,
                                                 StartPosition start) throws JMSException {
        checkClosed();
        Destination normalized = Destinations.normalize(destination);
        checkTemporaryOwner(normalized);
        Subscription subscription = Destinations.isQueue(normalized)
                ? Subscription.queue(Destinations.topicName(normalized))
                : Subscription.nonDurable(Destinations.topicName(normalized));
        return newConsumer(normalized, subscription, messageSelector, noLocal, start);
    }

    /** A durable subscription's consumer that first moves the subscription to {@code start} (replay). */
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal,
                                                 StartPosition start) throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createDurableConsumer");
        return durableConsumer(topic, name, messageSelector, noLocal, start);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return (QueueReceiver) createConsumer(queue, null, false);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String messageSelector) throws JMSException {
        return (QueueReceiver) createConsumer(queue, messageSelector, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createSubscriber");
        return (TopicSubscriber) createConsumer(topic, null, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String messageSelector, boolean noLocal)
            throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createSubscriber");
        return (TopicSubscriber) createConsumer(topic, messageSelector, noLocal);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) throws JMSException {
        return createSharedConsumer(topic, sharedSubscriptionName, null);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector)
            throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createSharedConsumer");
        Destination normalized = topic(topic);
        requireName(sharedSubscriptionName);
        String clientId = connection.clientIdForUse();
        Subscription subscription = Subscription.shared(Destinations.topicName(normalized), clientId,
                sharedSubscriptionName, messageSelector);
        if (connection.settings().subscriptionMode() == QueueMode.SHARE) {
            boolean fresh = durableSubscriptions.openShareSubscription(subscription, clientId);
            return newConsumer(normalized, subscription, messageSelector, false, connection.settings().startAt(),
                    fresh);
        }
        durableSubscriptions.checkSharedNonDurableOpens(subscription);
        return newConsumer(normalized, subscription, messageSelector, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createDurableSubscriber");
        return (TopicSubscriber) createDurableConsumer(topic, name, messageSelector, noLocal);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        return createDurableConsumer(topic, name, null, false);
    }

    /**
     * An unshared durable subscription, identified by the client id and {@code name}.
     *
     * @throws IllegalStateException if the connection has no client id, or the subscription has an active consumer
     */
    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createDurableConsumer");
        return durableConsumer(topic, name, messageSelector, noLocal, connection.settings().startAt());
    }

    private MessageConsumer durableConsumer(Topic topic, String name, String messageSelector, boolean noLocal,
                                            StartPosition start) throws JMSException {
        checkClosed();
        Destination normalized = topic(topic);
        requireName(name);
        String clientId = connection.clientIdForUse();
        if (clientId == null) {
            throw new IllegalStateException("A durable subscription needs a client id: set one on the connection "
                    + "factory (clientId) or with Connection.setClientID before using the connection");
        }
        Subscription subscription = Subscription.durable(Destinations.topicName(normalized), clientId, name,
                messageSelector, noLocal);
        durableSubscriptions.checkUnsharedOpens(subscription, clientId);
        return newConsumer(normalized, subscription, messageSelector, noLocal, start);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        return createSharedDurableConsumer(topic, name, null);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector)
            throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createSharedDurableConsumer");
        Destination normalized = topic(topic);
        requireName(name);
        String clientId = connection.clientIdForUse();
        Subscription subscription = Subscription.sharedDurable(Destinations.topicName(normalized), clientId, name,
                messageSelector);
        if (connection.settings().subscriptionMode() == QueueMode.SHARE) {
            boolean fresh = durableSubscriptions.openShareSubscription(subscription, clientId);
            return newConsumer(normalized, subscription, messageSelector, false, connection.settings().startAt(),
                    fresh);
        }
        durableSubscriptions.checkSharedOpens(subscription, clientId);
        return newConsumer(normalized, subscription, messageSelector, false);
    }

    private TributaryMessageConsumer newConsumer(Destination destination, Subscription subscription,
                                                 String messageSelector, boolean noLocal) throws JMSException {
        return newConsumer(destination, subscription, messageSelector, noLocal, connection.settings().startAt());
    }

    private TributaryMessageConsumer newConsumer(Destination destination, Subscription subscription,
                                                 String messageSelector, boolean noLocal, StartPosition start)
            throws JMSException {
        return newConsumer(destination, subscription, messageSelector, noLocal, start, false);
    }

    /** @param freshShareGroup a share-group subscription that is new: its consumer fixes where it starts */
    private TributaryMessageConsumer newConsumer(Destination destination, Subscription subscription,
                                                 String messageSelector, boolean noLocal, StartPosition start,
                                                 boolean freshShareGroup) throws JMSException {
        TributaryMessageConsumer consumer = new TributaryMessageConsumer(this, destination, subscription,
                messageSelector, noLocal, start, freshShareGroup);
        consumers.add(consumer);
        return consumer;
    }

    void consumerClosed(TributaryMessageConsumer consumer) {
        consumers.remove(consumer);
    }

    private static Destination topic(Topic topic) throws JMSException {
        if (topic == null) {
            throw new InvalidDestinationException("The topic must not be null");
        }
        return Destinations.normalize(topic);
    }

    private static void requireName(String name) throws JMSException {
        if (name == null || name.isEmpty()) {
            throw new JMSException("A subscription name must not be null or empty");
        }
    }

    /** Only the connection that created a temporary destination may consume from it (§4.1.5). */
    private void checkTemporaryOwner(Destination destination) throws JMSException {
        if (Destinations.isTemporary(destination) && !connection.ownsTemporary(destination)) {
            throw new InvalidDestinationException("Temporary destination " + destination + " belongs to another "
                    + "connection; only the connection that created it may consume from it");
        }
    }

    /**
     * Deletes a durable subscription (unshared for this client id, or shared) and its committed offsets.
     *
     * @throws IllegalStateException       if it has an active consumer
     * @throws InvalidDestinationException if there is no such subscription
     */
    @Override
    public void unsubscribe(String name) throws JMSException {
        checkClosed();
        domain.requireTopicMethod("unsubscribe");
        requireName(name);
        String clientId = connection.clientIdForUse();
        for (TributaryMessageConsumer consumer : consumers) {
            if (consumer.subscription().isDurable() && name.equals(consumer.subscription().name())) {
                throw new IllegalStateException("Durable subscription '" + name + "' has an active consumer in "
                        + "this session");
            }
        }
        durableSubscriptions.unsubscribe(name, clientId);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Destinations and browsers

    @Override
    public Queue createQueue(String queueName) throws JMSException {
        checkClosed();
        domain.requireQueueMethod("createQueue");
        return TributaryQueue.of(queueName);
    }

    @Override
    public Topic createTopic(String topicName) throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createTopic");
        return TributaryTopic.of(topicName);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        return createBrowser(queue, null);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) throws JMSException {
        checkClosed();
        domain.requireQueueMethod("createBrowser");
        if (queue == null) {
            throw new InvalidDestinationException("The queue must not be null");
        }
        TributaryQueueBrowser browser = new TributaryQueueBrowser(this, (Queue) Destinations.normalize(queue),
                messageSelector);
        browsers.add(browser);
        return browser;
    }

    void browserClosed(TributaryQueueBrowser browser) {
        browsers.remove(browser);
    }

    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        checkClosed();
        domain.requireQueueMethod("createTemporaryQueue");
        return connection.createTemporaryQueue();
    }

    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        checkClosed();
        domain.requireTopicMethod("createTemporaryTopic");
        return connection.createTemporaryTopic();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Listener delivery

    /** A consumer got a listener: the session's delivery thread runs from now on, and looks at it. */
    void listenerSet() {
        delivery.listenerSet();
    }

    boolean isDeliveryThread() {
        return delivery.isDeliveryThread();
    }

    /** The connection started: the delivery thread, if it waits for that, delivers again. */
    void connectionStarted() {
        delivery.wake();
    }

    /** Returns once no listener of this session is running (for Connection.stop). */
    void awaitListenerIdle() {
        delivery.awaitIdle();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Close

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkClosed();
        return null;
    }

    /** The optional application-server facility of a session-wide listener is not supported (§8). */
    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkClosed();
        throw new JMSException("Session.setMessageListener (an optional application server facility) is not "
                + "supported; set the listener on a MessageConsumer");
    }

    @Override
    public void run() {
        throw new UnsupportedOperationException("Session.run is an optional application server facility that "
                + "Tributary does not provide");
    }

    /**
     * Closes consumers, producers and browsers; a transacted session's open transaction is rolled back. Waits for a
     * running listener. Idempotent.
     *
     * @throws IllegalStateException if called from a MessageListener or a CompletionListener of this session
     */
    @Override
    public void close() throws JMSException {
        // §6.2.5 (JMS 2.0 errata A.1.19): close on its own session from a MessageListener may throw or succeed;
        // it throws, as Connection.close and stop do, and as JMSContext.close must. §7.3.8: from a
        // CompletionListener it must throw (close waits for the callbacks to return).
        if (delivery.isDeliveryThread()) {
            throw new IllegalStateException("Session.close() may not be called from a MessageListener of its own "
                    + "session; close the consumer (MessageConsumer.close) instead, or the session from another thread");
        }
        checkNotInCompletionListener("Session.close()");
        if (closed) {
            return;
        }
        delivery.whileIdle(() -> closed = true); // waits for a running listener
        int discarded = acknowledgement.discardTransactionSends();
        if (discarded > 0) {
            // Session.close: "Closing a transacted session must roll back the transaction in progress." Said at
            // INFO: a resource adapter's pooled session should never get here with sends held, and this line is
            // how one would see that it did.
            log.info("Closed a transacted session with {} uncommitted send(s); they were discarded", discarded);
        }
        delivery.sessionClosed();
        for (TributaryMessageConsumer consumer : List.copyOf(consumers)) {
            consumer.closeFromSession();
        }
        for (TributaryMessageProducer producer : List.copyOf(producers)) {
            producer.close();
        }
        for (TributaryQueueBrowser browser : List.copyOf(browsers)) {
            browser.close();
        }
        connection.sessionClosed(this);
    }

    /**
     * §7.3.8: a CompletionListener must not close, commit or roll back the session of the producer that sent its
     * message (each would wait for the callbacks, the one running included, to return).
     */
    private void checkNotInCompletionListener(String call) throws IllegalStateException {
        if (TributaryMessageProducer.isCompletingFor(this)) {
            throw new IllegalStateException(call + " may not be called from a CompletionListener of a producer of "
                    + "this session");
        }
    }
}
