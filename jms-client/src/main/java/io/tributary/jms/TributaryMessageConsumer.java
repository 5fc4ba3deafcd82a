package io.tributary.jms;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;

import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.QueueShareGroup;
import io.tributary.jms.kafka.ShareReceiver;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS consumer over one Kafka consumer. It delivers records as messages in offset order per partition, skipping
 * (and so consuming) records that are expired, sent by its own connection when {@code noLocal}, or not selected by
 * its message selector ({@link DeliveryDecision}); a record whose {@code JMSDeliveryTime} is still to come holds its
 * partition ({@link DeliveryHold}). The {@link AcknowledgementTracker} remembers, per partition, the position up to
 * which the session acknowledged and the position up to which it delivered: acknowledging commits the delivered
 * positions (for group-backed subscriptions, {@link OffsetCommitter}, which also pipelines AUTO_ACKNOWLEDGE), and
 * recovery seeks back to the acknowledged ones, so the unacknowledged messages come again with
 * {@code JMSRedelivered} and an incremented {@code JMSXDeliveryCount}.
 *
 * <p>A receiver of a queue in share mode ({@link QueueMode#SHARE}, the default for queues that are not temporary),
 * and a consumer of a shared subscription in {@code subscriptionMode=share} (the default), is instead a member of
 * the queue's or subscription's share group through a {@link ShareReceiver}, which acquires, decides and
 * acknowledges each message on its own: the session's mode decides when delivered messages are accepted (AUTO after
 * each delivery, awaited; DUPS_OK lazily; CLIENT at {@code acknowledge()}; transacted at {@code commit()}) and
 * recovery releases them, so they come again, to any receiver of the queue or subscription, with the broker's
 * delivery count. The group-mode fields ({@link #kafka}, the tracker, the hold, the committer) are then unused and
 * null.
 *
 * <p>Threads: the Kafka consumer is used under {@link #kafkaLock}, by the application thread calling receive or by
 * the session's delivery thread; the lock also guards the fetch buffer, the tracker, the hold and the committer.
 * The connection's keep-alive thread polls under it when it is free ({@link #keepAlive()}); {@link #close()} may
 * come from any thread.
 */
public final class TributaryMessageConsumer implements MessageConsumer, QueueReceiver, TopicSubscriber {

    private static final Logger log = LoggerFactory.getLogger(TributaryMessageConsumer.class);
    private static final long POLL_SLICE_MS = 100;
    private static final long KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final TributarySession session;
    private final Destination destination;
    private final Subscription subscription;
    private final MessageSelector selector;
    private final boolean noLocal;
    private final StartPosition startPosition;
    /** Whether a record is delivered: decode, delivery time, noLocal, expiry, selector. */
    private final DeliveryDecision decision;
    /** The connection's clock: JMSDeliveryTime and JMSExpiration are compared with it. */
    private final Clock clock;
    /** The classic consumer (no group, or a consumer group); null in share mode. */
    private final KafkaConsumer<byte[], byte[]> kafka;
    /** The share-group member of a share-mode queue receiver, else null; used under {@link #kafkaLock}. */
    private final ShareReceiver share;
    private final ReentrantLock kafkaLock = new ReentrantLock();
    /** Fetched records not delivered yet, in fetch order; guarded by {@link #kafkaLock}. */
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();
    /** Acknowledged and delivered positions, delivery counts; guarded by {@link #kafkaLock}. */
    private final AcknowledgementTracker tracker;
    /** Partitions waiting for a JMSDeliveryTime; guarded by {@link #kafkaLock}. */
    private final DeliveryHold hold = new DeliveryHold();
    /** Commits acknowledgements in the session's mode; takes {@link #kafkaLock} itself. */
    private final OffsetCommitter committer;
    /**
     * Written by {@link #setMessageListener} under {@link #handOver}; read by the delivery thread under it when it
     * hands a message over, and by any thread elsewhere.
     */
    private volatile MessageListener listener;
    /**
     * Held by the delivery thread from its poll for a listener's message until it has read {@link #listener}, and by
     * {@link #setMessageListener} while it replaces the listener: a message taken by a poll that was under way when
     * the listener changed goes to the new listener, and once {@code setMessageListener} returns, no delivery to the
     * old one can begin. Never held while a listener runs, so setting a listener waits at most for one poll
     * (100 ms), not for a listener (which could be waiting for this thread).
     */
    private final ReentrantLock handOver = new ReentrantLock();
    /** Set under {@link #kafkaLock} by the closing thread; read by any. */
    private volatile boolean closed;
    /** When the Kafka consumer last polled ({@code nanoTime}); guarded by {@link #kafkaLock}. */
    private long lastPollNanos = System.nanoTime();
    /** The destination's metrics on this connection. */
    private final DestinationMetrics metrics;
    /**
     * Messages delivered and not yet acknowledged nor given back, for {@code messages-acknowledged}: raised by the
     * delivering thread, taken by whichever thread acknowledges or recovers.
     */
    private final AtomicInteger unacknowledged = new AtomicInteger();
    /** The share receiver's dead-letter count already recorded; guarded by {@link #kafkaLock}. */
    private long deadLetteredRecorded;

    /**
     * @param freshShareGroup whether this is the first consumer of a new share-group subscription, which fixes
     *                        where the subscription starts before it is handed over
     */
    TributaryMessageConsumer(TributarySession session, Destination destination, Subscription subscription,
                             String messageSelector, boolean noLocal, StartPosition startPosition,
                             boolean freshShareGroup) throws JMSException {
        this.session = session;
        this.startPosition = startPosition == null ? StartPosition.committed() : startPosition;
        this.destination = destination;
        this.subscription = subscription;
        this.selector = MessageSelector.parse(messageSelector);
        this.noLocal = noLocal;
        this.metrics = session.connection().metrics().destination(Destinations.normalize(destination));
        ConnectionSettings settings = session.connection().settings();
        this.clock = settings.clock();
        DeliveryDecision decision = DeliveryDecision.of(destination, selector, clock)
                .plainRecordsAsText(settings.plainRecordsAsText())
                .objectMessages(settings.objectAllowList(), settings.objectLimits());
        this.decision = noLocal ? decision.passingOverLocal(session.connection().connectionId()) : decision;
        if (sharesQueue(destination, subscription, settings) || sharesSubscription(subscription, settings)) {
            this.share = shareReceiver(session.connection(), destination, subscription, this.startPosition,
                    this.decision, settings, freshShareGroup);
            this.kafka = null;
            this.tracker = null;
            this.committer = null;
            return;
        }
        this.share = null;
        KafkaClients clients = session.connection().clients();
        try {
            this.kafka = clients.newConsumer(subscription.groupId(), subscription.resetPolicy(),
                    subscription.kind().name().toLowerCase());
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Creating a consumer of " + destination, e);
        }
        this.tracker = new AcknowledgementTracker(subscription.offsetMetadata());
        this.committer = new OffsetCommitter(kafka, kafkaLock, subscription, destination, tracker, hold,
                () -> closed, () -> lastPollNanos = System.nanoTime());
        try {
            start();
        } catch (JMSException | RuntimeException e) {
            kafka.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Whether this consumer is a share-mode queue receiver: a queue's receiver, the connection's queue mode
     * {@code share}, and the queue not temporary. Temporary queues stay on their consumer group: only their own
     * connection consumes them, usually with one receiver (replies), which wants their order, and a share group
     * would cost each one a group configuration written at the broker that outlives the queue.
     */
    static boolean sharesQueue(Destination destination, Subscription subscription, ConnectionSettings settings) {
        return subscription.kind() == Subscription.Kind.QUEUE && settings.queueMode() == QueueMode.SHARE
                && !Destinations.isTemporary(destination);
    }

    /**
     * Whether this consumer is a member of a shared subscription's share group: a shared (durable or not)
     * subscription and the connection's subscription mode {@code share}.
     */
    static boolean sharesSubscription(Subscription subscription, ConnectionSettings settings) {
        return (subscription.kind() == Subscription.Kind.SHARED
                || subscription.kind() == Subscription.Kind.SHARED_DURABLE)
                && settings.subscriptionMode() == QueueMode.SHARE;
    }

    /**
     * A member of the queue's or shared subscription's share group, subscribed to its topic. A queue's group is
     * configured here, a subscription's by the session ({@code DurableSubscriptions.openShareSubscription}), and
     * the first consumer of a new subscription fixes where it starts ({@link ShareSubscriptionStart}).
     */
    private static ShareReceiver shareReceiver(TributaryConnection connection, Destination destination,
                                               Subscription subscription, StartPosition start,
                                               DeliveryDecision decision, ConnectionSettings settings,
                                               boolean freshShareGroup) throws JMSException {
        boolean queue = subscription.kind() == Subscription.Kind.QUEUE;
        if (start.kind() != StartPosition.Kind.COMMITTED) {
            throw new JMSException("A consumer of the share-group " + subscription.describe() + " cannot start at "
                    + start + ": a share group has no position to move (replay), it delivers what it has not "
                    + "delivered; use " + (queue ? "queueMode" : "subscriptionMode") + "=group for replay");
        }
        if (queue) {
            connection.prepareShareGroup(subscription.groupId());
        } else if (freshShareGroup) {
            new ShareSubscriptionStart(connection, subscription).start();
        }
        KafkaShareConsumer<byte[], byte[]> consumer;
        try {
            consumer = connection.clients().newShareConsumer(subscription.groupId(),
                    queue ? decision.selector() : MessageSelector.all());
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Creating a receiver of " + destination, e);
        }
        try {
            DeadLetterPolicy deadLetters = settings.deadLetters();
            Producer<byte[], byte[]> deadLetterProducer = deadLetters.topic() == null ? null : connection.producer();
            if (queue) {
                return QueueShareGroup.join(subscription, consumer, decision, deadLetters, deadLetterProducer,
                        settings.plainRecordsAsText(), settings.clock());
            }
            consumer.subscribe(List.of(subscription.topic()));
            return new ShareReceiver(consumer, decision, deadLetters, deadLetterProducer,
                    settings.plainRecordsAsText(), settings.clock(), subscription.describe(),
                    ShareReceiver.NotSelected.CONSUME);
        } catch (JMSException | RuntimeException e) {
            consumer.close(Duration.ZERO);
            throw e instanceof JMSException jms ? jms : JmsErrors.fromKafka("Subscribing to " + destination, e);
        }
    }

    /** Subscribes or assigns ({@link SubscriptionStart}); a subscription that starts "now" is fixed there. */
    private void start() throws JMSException {
        kafkaLock.lock();
        try {
            new SubscriptionStart(kafka, subscription, startPosition, destination, session.connection())
                    .start(new Rebalance(), tracker, buffer);
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * Keeps the consumer in its group while the application does not receive (connection stopped, no receive
     * call): with every partition paused it polls, which answers rebalances without fetching. Skipped when a
     * receive or delivery is polling anyway. Called by the connection's keep-alive task.
     */
    void keepAlive() {
        if (share != null) {
            flushShareAcknowledgements();
            return;
        }
        if (closed || subscription.groupId() == null || !kafkaLock.tryLock()) {
            return;
        }
        try {
            if (closed || System.nanoTime() - lastPollNanos < KEEP_ALIVE_NANOS) {
                return;
            }
            Set<TopicPartition> pausedBefore = kafka.paused();
            kafka.pause(kafka.assignment());
            try {
                addToBuffer(kafka.poll(Duration.ZERO));
                lastPollNanos = System.nanoTime();
                if (committer.hasUncommittedDeliveries()) {
                    // DUPS_OK deliveries of an application that stopped receiving
                    committer.acknowledgeDelivered(false);
                }
            } finally {
                kafka.resume(hold.toResume(kafka.assignment(), pausedBefore));
            }
        } catch (JMSException | RuntimeException e) {
            log.debug("Keep-alive poll of {} failed: {}", destination, e.toString());
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * A share receiver's keep-alive: DUPS_OK acceptances of an application that stopped receiving are sent (a share
     * consumer heartbeats by itself, it need not poll to stay in its group).
     */
    private void flushShareAcknowledgements() {
        if (closed || !kafkaLock.tryLock()) {
            return;
        }
        try {
            if (!closed) {
                share.flush();
            }
        } catch (RuntimeException e) {
            log.debug("Sending acknowledgements of {} failed: {}", destination, e.toString());
        } finally {
            kafkaLock.unlock();
        }
    }

    Subscription subscription() {
        return subscription;
    }

    boolean destinationEquals(Destination other) {
        return destination.equals(other);
    }

    MessageListener listener() {
        return listener;
    }

    private void checkClosed() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The consumer is closed");
        }
        session.checkClosed();
    }

    // ---------------------------------------------------------------------------------------------------------
    // MessageConsumer

    @Override
    public String getMessageSelector() throws JMSException {
        checkClosed();
        return selector.matchesAll() ? null : selector.text();
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkClosed();
        return listener;
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkClosed();
        handOver.lock();
        try {
            this.listener = listener;
        } finally {
            handOver.unlock();
        }
        if (listener != null) {
            session.listenerSet();
        }
    }

    @Override
    public Message receive() throws JMSException {
        return receive(0);
    }

    /** Waits up to {@code timeout} ms (0: for ever) for a message; null on timeout or close. */
    @Override
    public Message receive(long timeout) throws JMSException {
        checkClosed();
        if (listener != null) {
            throw new IllegalStateException("This consumer has a MessageListener; receive() is not allowed");
        }
        long waitMs = timeout <= 0 ? Long.MAX_VALUE : timeout;
        TributaryMessage message = receiveNext(waitMs);
        if (message != null) {
            session.afterDelivery(this);
        }
        return message;
    }

    /**
     * A message without acknowledging it (for {@code JMSConsumer.receiveBody}, which acknowledges only once the body
     * could be read): {@code timeoutMs} 0 waits for ever, negative does not wait.
     */
    TributaryMessage receiveUnacknowledged(long timeoutMs) throws JMSException {
        checkClosed();
        if (listener != null) {
            throw new IllegalStateException("This consumer has a MessageListener; receive is not allowed");
        }
        return receiveNext(timeoutMs == 0 ? Long.MAX_VALUE : Math.max(0, timeoutMs));
    }

    TributarySession session() {
        return session;
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        checkClosed();
        if (listener != null) {
            throw new IllegalStateException("This consumer has a MessageListener; receiveNoWait() is not allowed");
        }
        TributaryMessage message = receiveNext(0);
        if (message != null) {
            session.afterDelivery(this);
        }
        return message;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkClosed();
        if (!(destination instanceof Queue queue)) {
            throw new IllegalStateException("This consumer reads a topic");
        }
        return queue;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkClosed();
        if (!(destination instanceof Topic topic)) {
            throw new IllegalStateException("This consumer reads a queue");
        }
        return topic;
    }

    @Override
    public boolean getNoLocal() throws JMSException {
        checkClosed();
        return noLocal;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Delivery

    /**
     * Delivers one message to the listener if one arrives within {@code waitMs}; returns whether it did. The
     * listener is the one set when the message is handed over ({@link #handOver}). A listener that throws gets the
     * message again (§8.7), marked redelivered, in AUTO and DUPS_OK modes.
     */
    boolean deliverToListener(long waitMs) throws JMSException {
        if (listener == null || closed) {
            return false;
        }
        TributaryMessage message;
        MessageListener current;
        handOver.lock();
        try {
            if (listener == null) {
                return false; // removed since the check above
            }
            message = next(waitMs);
            if (message == null) {
                return false;
            }
            // Read at delivery time, not before the poll. It cannot have changed meanwhile (setMessageListener waits
            // for handOver), so it is not null, and it is the listener set when the message is handed over.
            current = listener;
        } finally {
            handOver.unlock();
        }
        try {
            current.onMessage(message);
        } catch (RuntimeException e) {
            log.warn("MessageListener of {} threw on message {}; it will be redelivered", destination,
                    message.getJMSMessageID(), e);
            if (session.mode() == Session.AUTO_ACKNOWLEDGE || session.mode() == Session.DUPS_OK_ACKNOWLEDGE) {
                redeliverUnacknowledged("the MessageListener threw " + e);
                return true;
            }
        }
        if (!closed && !session.isClosed()) {
            session.afterDelivery(this);
        }
        return true;
    }

    /** {@link #next} for a receive call, whose wait is measured ({@code receive-wait-time}). */
    private TributaryMessage receiveNext(long waitMs) throws JMSException {
        long start = System.nanoTime();
        try {
            return next(waitMs);
        } finally {
            metrics.receiveWaited(System.nanoTime() - start);
        }
    }

    /** The next deliverable message within {@code waitMs}, or null; waits while the connection is stopped. */
    private TributaryMessage next(long waitMs) throws JMSException {
        TributaryMessage message = nextMessage(waitMs);
        if (message != null) {
            unacknowledged.incrementAndGet();
            metrics.received(message.getJMSRedelivered());
        }
        return message;
    }

    private TributaryMessage nextMessage(long waitMs) throws JMSException {
        if (committer != null) {
            committer.receiveCalled(System.nanoTime());
        }
        long deadline = waitMs == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (!closed) {
            long leftMs = deadline == Long.MAX_VALUE ? Long.MAX_VALUE
                    : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (!session.connection().isStarted()) {
                if (leftMs <= 0) {
                    return null;
                }
                try {
                    session.connection().awaitStarted(Math.min(leftMs, POLL_SLICE_MS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                continue;
            }
            TributaryMessage message = nextFromBuffer(Math.max(0, Math.min(leftMs, POLL_SLICE_MS)));
            if (message != null) {
                return message;
            }
            if (leftMs <= 0) {
                return null;
            }
        }
        return null;
    }

    private TributaryMessage nextFromBuffer(long pollMs) throws JMSException {
        if (share != null) {
            return nextShared(pollMs);
        }
        kafkaLock.lock();
        try {
            if (closed) {
                return null;
            }
            releaseHeld();
            if (buffer.isEmpty()) {
                try {
                    addToBuffer(kafka.poll(Duration.ofMillis(hold.pollWaitMs(pollMs, clock.millis()))));
                    lastPollNanos = System.nanoTime();
                    if (buffer.isEmpty() && committer.hasUncommittedDeliveries()) {
                        committer.acknowledgeDelivered(false); // DUPS_OK, caught up: nothing arrived within the poll
                    }
                } catch (WakeupException e) {
                    return null;
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Receiving from " + destination, e);
                }
            }
            if (!buffer.isEmpty()) {
                // §6.2.10: the previous message's AUTO acknowledgement completes before the next is handed over.
                session.awaitPipelinedAcknowledgement();
            }
            while (!buffer.isEmpty()) {
                ConsumerRecord<byte[], byte[]> record = buffer.poll();
                if (hold.holdBehind(record)) {
                    continue; // behind a withheld message of its partition
                }
                TributaryMessage message = toMessage(record);
                if (message != null) {
                    return message;
                }
            }
            return null;
        } finally {
            kafkaLock.unlock();
        }
    }

    /** A share receiver's next message within {@code pollMs}, or null. */
    private TributaryMessage nextShared(long pollMs) throws JMSException {
        kafkaLock.lock();
        try {
            if (closed) {
                return null;
            }
            ShareReceiver.Delivery delivery = share.next(pollMs);
            recordDeadLetters();
            if (delivery == null) {
                return null;
            }
            // §6.2.10: another consumer's pipelined AUTO acknowledgement completes before this hand-over.
            session.awaitPipelinedAcknowledgement();
            TributaryMessage message = delivery.message();
            message.setAcknowledger(session::acknowledgeFromMessage);
            return message;
        } catch (java.lang.IllegalStateException e) {
            throw new IllegalStateException(e.getMessage());
        } catch (WakeupException e) {
            return null;
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Receiving from " + destination, e);
        } finally {
            kafkaLock.unlock();
        }
    }

    /** Accepts (or, {@code release}, releases) what a share receiver delivered, under the lock. */
    private void settleShared(boolean accept, ShareReceiver.Durability durability, String reason)
            throws JMSException {
        kafkaLock.lock();
        try {
            if (closed) {
                return;
            }
            if (accept) {
                share.accept(durability);
                metrics.acknowledged(unacknowledged.getAndSet(0));
            } else {
                share.release(reason);
                unacknowledged.set(0);
                recordDeadLetters();
            }
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka((accept ? "Acknowledging" : "Releasing") + " messages of " + destination, e);
        } finally {
            kafkaLock.unlock();
        }
    }

    /** Records what the share receiver dead-lettered since the last call; the caller holds {@link #kafkaLock}. */
    private void recordDeadLetters() {
        long total = share.deadLettered();
        metrics.deadLettered(total - deadLetteredRecorded);
        deadLetteredRecorded = total;
    }

    /** Whether this is a share-group member: a share-mode queue receiver or shared-subscription consumer. */
    boolean isShareMember() {
        return share != null;
    }

    /** Whether this share-mode receiver delivered messages not yet accepted or released. */
    boolean hasSharedDeliveries() {
        kafkaLock.lock();
        try {
            return share != null && !closed && share.hasDelivered();
        } finally {
            kafkaLock.unlock();
        }
    }

    /** A transacted session's commit, once its sends are written: accepts what this share receiver delivered. */
    void acceptSharedDeliveries() throws JMSException {
        settleShared(true, ShareReceiver.Durability.SYNC, null);
    }

    /** Partitions whose withheld message is due go back to the front of the buffer, in order, and resume. */
    private void releaseHeld() {
        for (TopicPartition tp : hold.releaseDue(clock.millis(), buffer)) {
            if (kafka.assignment().contains(tp)) {
                kafka.resume(List.of(tp));
            }
        }
    }

    private void addToBuffer(ConsumerRecords<byte[], byte[]> records) {
        for (ConsumerRecord<byte[], byte[]> record : records) {
            buffer.add(record);
        }
    }

    /**
     * The record as a message to deliver, or null: withheld until its JMSDeliveryTime (its partition waits behind
     * it, to keep the order), or passed over, which counts as delivered ({@link DeliveryDecision}).
     */
    private TributaryMessage toMessage(ConsumerRecord<byte[], byte[]> record) {
        TopicPartition tp = new TopicPartition(record.topic(), record.partition());
        DeliveryDecision.Verdict verdict = decision.decide(record);
        if (verdict instanceof DeliveryDecision.Hold until) {
            hold.hold(tp, record, until.untilMillis());
            kafka.pause(List.of(tp));
            return null;
        }
        tracker.consumed(tp, record.offset());
        if (verdict instanceof DeliveryDecision.Unreadable unreadable) {
            log.error("Skipping record {}-{}@{} of {}: it is not a readable JMS message: {}", record.topic(),
                    record.partition(), record.offset(), destination, unreadable.reason());
            return null;
        }
        if (!(verdict instanceof DeliveryDecision.Deliver deliver)) {
            return null; // passed over
        }
        TributaryMessage message = deliver.delivery(tracker.countDelivery(tp, record.offset()));
        message.setAcknowledger(session::acknowledgeFromMessage);
        return message;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Acknowledgement and redelivery

    /** DUPS_OK: {@link OffsetCommitter#acknowledgeLazily()}. */
    void acknowledgeLazily() throws JMSException {
        if (share != null) {
            settleShared(true, ShareReceiver.Durability.LAZY, null);
            return;
        }
        committer.acknowledgeLazily();
        metrics.acknowledged(unacknowledged.getAndSet(0));
    }

    /** CLIENT, transacted, and at close: {@link OffsetCommitter#acknowledgeDelivered(boolean)}. */
    void acknowledgeDelivered(boolean sync) throws JMSException {
        if (share != null) {
            settleShared(true, sync ? ShareReceiver.Durability.SYNC : ShareReceiver.Durability.LAZY, null);
            return;
        }
        committer.acknowledgeDelivered(sync);
        metrics.acknowledged(unacknowledged.getAndSet(0));
    }

    /** Transacted: {@link OffsetCommitter#transactionOffsets()}. */
    OffsetCommitter.TransactionOffsets transactionOffsets() throws JMSException {
        if (share != null) {
            return null; // accepted after the transaction: acceptSharedDeliveries
        }
        return committer.transactionOffsets();
    }

    /** Transacted, once the transaction committed: {@link OffsetCommitter#transactionCommitted}. */
    void transactionCommitted(OffsetCommitter.TransactionOffsets offsets) {
        committer.transactionCommitted(offsets);
        metrics.acknowledged(unacknowledged.getAndSet(0));
    }

    /**
     * AUTO, after a hand-over: {@link OffsetCommitter#acknowledgePipelined}, told whether the next record is already
     * buffered and who got the message. Returns whether the session must {@link #awaitPipelinedCommit()}.
     */
    boolean acknowledgePipelined() throws JMSException {
        if (share != null) {
            // Not pipelined: accepted and awaited before receive returns or onMessage is called again.
            settleShared(true, ShareReceiver.Durability.SYNC, null);
            return false;
        }
        metrics.acknowledged(unacknowledged.getAndSet(0));
        kafkaLock.lock();
        try {
            return committer.acknowledgePipelined(!buffer.isEmpty(), listener != null
                    ? AutoCommitChoice.Recipient.LISTENER : AutoCommitChoice.Recipient.RECEIVE_CALLER);
        } finally {
            kafkaLock.unlock();
        }
    }

    /** AUTO, before the session's next hand-over: {@link OffsetCommitter#awaitPipelinedCommit()}. */
    void awaitPipelinedCommit() throws JMSException {
        if (share == null) {
            committer.awaitPipelinedCommit();
        }
    }

    /** Seeks every partition back to its first unacknowledged offset; buffered records are fetched again. */
    void redeliverUnacknowledged() throws JMSException {
        redeliverUnacknowledged("the session recovered or rolled back");
    }

    /**
     * Redelivers the unacknowledged messages: a group consumer seeks back to them; a share receiver releases them
     * (dead-lettering those at their last delivery, for {@code reason}).
     */
    void redeliverUnacknowledged(String reason) throws JMSException {
        if (share != null) {
            settleShared(false, null, reason);
            return;
        }
        unacknowledged.set(0);
        kafkaLock.lock();
        try {
            Map<TopicPartition, Long> seekTo = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> record : buffer) {
                seekTo.merge(new TopicPartition(record.topic(), record.partition()), record.offset(), Math::min);
            }
            buffer.clear();
            for (Map.Entry<TopicPartition, Long> entry : hold.releaseAll().entrySet()) {
                seekTo.merge(entry.getKey(), entry.getValue(), Math::min);
                if (kafka.assignment().contains(entry.getKey())) {
                    kafka.resume(List.of(entry.getKey()));
                }
            }
            tracker.rewind().forEach((tp, acked) -> seekTo.merge(tp, acked, Math::min));
            for (Map.Entry<TopicPartition, Long> entry : seekTo.entrySet()) {
                if (kafka.assignment().contains(entry.getKey())) {
                    kafka.seek(entry.getKey(), entry.getValue());
                }
            }
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Recovering " + destination, e);
        } finally {
            kafkaLock.unlock();
        }
    }

    /** Partitions moved to another member: their unacknowledged messages go to the new owner. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // Positions come from the committed offsets.
        }

        private void forget(Collection<TopicPartition> partitions) {
            for (Iterator<ConsumerRecord<byte[], byte[]>> it = buffer.iterator(); it.hasNext(); ) {
                ConsumerRecord<byte[], byte[]> record = it.next();
                if (partitions.contains(new TopicPartition(record.topic(), record.partition()))) {
                    it.remove();
                }
            }
            tracker.forget(partitions);
            hold.forget(partitions);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Close

    /**
     * Closes the consumer. In AUTO and DUPS_OK modes what was delivered is committed first; unacknowledged
     * messages of CLIENT_ACKNOWLEDGE and transacted sessions are delivered again later. Waits for a running
     * receive to return. A shared non-durable subscription's group is deleted with its last consumer.
     */
    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        if (session.isDeliveryThread() && listener != null) {
            // Allowed from its own listener (§4.4.1): the loop sees the consumer closed after this message.
            closeNow();
            return;
        }
        closeNow();
    }

    void closeFromSession() {
        try {
            closeNow();
        } catch (JMSException e) {
            log.warn("Closing the consumer of {} failed: {}", destination, e.getMessage());
        }
    }

    private void closeNow() throws JMSException {
        // A running receive polls in short slices and releases the lock between them.
        kafkaLock.lock();
        try {
            if (closed) {
                return;
            }
            int mode = session.mode();
            if (share != null) {
                closeShared(mode);
            } else {
                closeGroupConsumer(mode);
            }
        } finally {
            kafkaLock.unlock();
            session.consumerClosed(this);
        }
        if (subscription.kind() == Subscription.Kind.SHARED && !session.connection().isConsumingGroup(
                subscription.groupId())) {
            if (share != null) {
                // Ends the subscription if this was its last consumer anywhere (else the group is not empty).
                session.connection().deleteShareSubscriptionQuietly(subscription.groupId());
            } else {
                session.connection().deleteGroupQuietly(subscription.groupId());
            }
        }
    }

    /** Under {@link #kafkaLock}: AUTO and DUPS_OK commit what was delivered; the Kafka consumer is closed. */
    private void closeGroupConsumer(int mode) {
        if (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE) {
            try {
                committer.acknowledgeDelivered(true);
            } catch (JMSException e) {
                log.warn("Committing the last deliveries of {} at close failed: {}", destination, e.getMessage());
            }
        }
        closed = true;
        try {
            kafka.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("Closing the Kafka consumer of {} failed: {}", destination, e.toString());
        }
    }

    /**
     * Under {@link #kafkaLock}: AUTO and DUPS_OK accept what was delivered; leaving the share group releases every
     * other message this receiver holds (delivered to a CLIENT or transacted session and not acknowledged, or
     * acquired and not delivered) for the other receivers.
     */
    private void closeShared(int mode) {
        if (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE) {
            try {
                share.accept(ShareReceiver.Durability.SYNC);
            } catch (RuntimeException e) {
                log.warn("Acknowledging the last deliveries of {} at close failed: {}", destination, e.toString());
            }
        }
        closed = true;
        try {
            share.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("Closing the share consumer of {} failed: {}", destination, e.toString());
        }
    }

    @Override
    public String toString() {
        return "TributaryMessageConsumer[" + destination + ", " + subscription.kind() + "]";
    }
}
