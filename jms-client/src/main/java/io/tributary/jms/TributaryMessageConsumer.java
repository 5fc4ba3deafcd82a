package io.tributary.jms;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;

import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.kafka.ReplaySeeker;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS consumer over one Kafka consumer. It delivers records as messages in offset order per partition, skipping
 * (and so consuming) records that are expired, sent by its own connection when {@code noLocal}, or not selected by
 * its message selector. It remembers, per partition, the position up to which the session acknowledged and the
 * position up to which it delivered: acknowledging commits the delivered positions (for group-backed
 * subscriptions), and recovery seeks back to the acknowledged ones, so the unacknowledged messages come again with
 * {@code JMSRedelivered} and an incremented {@code JMSXDeliveryCount}.
 *
 * <p>AUTO_ACKNOWLEDGE is pipelined: when a message has been handed over, the commit of its position is sent without
 * waiting ({@link #acknowledgePipelined()}), and the session waits for it ({@link #awaitPipelinedCommit()}) before
 * any of its consumers hands over the next message. The commit's round trip so overlaps the application's work on
 * the message, and a crash can redeliver only the last message handed over, as Jakarta Messaging 3.1 §6.2.10
 * ("Duplicate delivery of messages") allows: "Only a session's last consumed message is subject to this ambiguity."
 * When the next record is already buffered (the consumer is behind) and there is no application work to overlap
 * (a listener has returned, or the caller of receive came back sooner than a commit takes), the commit is made at
 * once instead, which is cheaper than the pipelined wait.
 *
 * <p>Threads: the Kafka consumer is used under {@link #kafkaLock}, by the application thread calling receive or by
 * the session's delivery thread; {@link #close()} may come from any thread.
 */
public final class TributaryMessageConsumer implements MessageConsumer, QueueReceiver, TopicSubscriber {

    private static final Logger log = LoggerFactory.getLogger(TributaryMessageConsumer.class);
    private static final long POLL_SLICE_MS = 100;
    /** The first poll of {@link #awaitCallback}; the next ones double up to {@value #POLL_SLICE_MS} ms. */
    private static final long FIRST_AWAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long START_TIMEOUT_MS = 30_000;
    private static final long KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * DUPS_OK commits once this many deliveries or this much time accumulated, or when a poll finds nothing new.
     * Not whenever the fetched records run out: a consumer that keeps up with its producer would then commit after
     * almost every message, a request per message, which is what DUPS_OK is there to save.
     */
    private static final int LAZY_COMMIT_MESSAGES = 100;
    private static final long LAZY_COMMIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the next delivery waits for the pipelined AUTO commit of the previous one (the Kafka default). */
    private static final long PIPELINED_COMMIT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

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
    private final KafkaConsumer<byte[], byte[]> kafka;
    private final ReentrantLock kafkaLock = new ReentrantLock();
    /** Fetched records not delivered yet, in fetch order. */
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();
    /** Per partition: the offset after the last acknowledged record. */
    private final Map<TopicPartition, Long> acknowledged = new HashMap<>();
    /** Per partition: the offset after the last delivered (or skipped) record. */
    private final Map<TopicPartition, Long> delivered = new HashMap<>();
    /** Per partition: how often each unacknowledged offset has been delivered. */
    private final Map<TopicPartition, TreeMap<Long, Integer>> deliveryCounts = new HashMap<>();
    /** Paused partitions whose next record has a JMSDeliveryTime in the future: their records, in order. */
    private final Map<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> held = new HashMap<>();
    /** When each held partition's first record becomes deliverable (epoch ms). */
    private final Map<TopicPartition, Long> heldUntil = new HashMap<>();
    private volatile MessageListener listener;
    private volatile boolean closed;
    /** When the Kafka consumer last polled ({@code nanoTime}); guarded by {@link #kafkaLock}. */
    private long lastPollNanos = System.nanoTime();
    /** DUPS_OK: deliveries since the last commit, and when that commit was; guarded by {@link #kafkaLock}. */
    private int uncommittedDeliveries;
    private long lastCommitNanos = System.nanoTime();
    /** AUTO: the commit sent for the last delivery and not yet seen complete, or null; guarded by {@link #kafkaLock}. */
    private PipelinedCommit pipelinedCommit;
    /** AUTO: whether {@link #acknowledgePipelined()} commits at once; used by the receiving thread. */
    private final AutoCommitChoice commitChoice = new AutoCommitChoice();

    TributaryMessageConsumer(TributarySession session, Destination destination, Subscription subscription,
                             String messageSelector, boolean noLocal, StartPosition startPosition)
            throws JMSException {
        this.session = session;
        this.startPosition = startPosition == null ? StartPosition.committed() : startPosition;
        this.destination = destination;
        this.subscription = subscription;
        this.selector = MessageSelector.parse(messageSelector);
        this.noLocal = noLocal;
        ConnectionSettings settings = session.connection().settings();
        this.clock = settings.clock();
        DeliveryDecision decision = DeliveryDecision.of(destination, selector, clock)
                .plainRecordsAsText(settings.plainRecordsAsText())
                .objectMessages(settings.objectAllowList(), settings.objectLimits());
        this.decision = noLocal ? decision.passingOverLocal(session.connection().connectionId()) : decision;
        KafkaClients clients = session.connection().clients();
        try {
            this.kafka = clients.newConsumer(subscription.groupId(), subscription.resetPolicy(),
                    subscription.kind().name().toLowerCase());
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Creating a consumer of " + destination, e);
        }
        try {
            start();
        } catch (JMSException | RuntimeException e) {
            kafka.close(Duration.ZERO);
            throw e;
        }
    }

    /** Subscribes or assigns, and for subscriptions that start "now" fixes the position before returning. */
    private void start() throws JMSException {
        String topic = subscription.topic();
        List<PartitionInfo> partitions;
        try {
            partitions = kafka.partitionsFor(topic, Duration.ofMillis(START_TIMEOUT_MS));
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Looking up " + destination, e);
        }
        if (partitions == null || partitions.isEmpty()) {
            throw new InvalidDestinationException("Topic '" + topic + "' does not exist and was not created "
                    + "(auto.create.topics.enable is off on the cluster)");
        }
        if (subscription.groupId() == null) {
            List<TopicPartition> all = new ArrayList<>();
            for (PartitionInfo info : partitions) {
                all.add(new TopicPartition(topic, info.partition()));
            }
            kafka.assign(all);
            kafka.seekToEnd(all);
            seekToStartPosition(all);
            for (TopicPartition tp : all) {
                long position = kafka.position(tp); // resolves the end offset now: later sends are received
                acknowledged.put(tp, position);
                delivered.put(tp, position);
            }
            return;
        }
        kafka.subscribe(List.of(topic), new Rebalance());
        if (subscription.startsAtCreation() || startPosition.kind() != StartPosition.Kind.COMMITTED) {
            fixStartingPositions();
        }
    }

    /** Seeks {@code partitions} to the start position (a replay); returns the partitions it moved. */
    private List<TopicPartition> seekToStartPosition(Collection<TopicPartition> partitions) {
        return ReplaySeeker.seek(kafka, startPosition, partitions, Duration.ofMillis(START_TIMEOUT_MS));
    }

    /**
     * Joins the group and commits the current position of every partition that has no committed offset yet, so a
     * new subscription receives exactly the messages sent after it was created, even before its first receive.
     */
    private void fixStartingPositions() throws JMSException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        kafkaLock.lock();
        try {
            while (kafka.assignment().isEmpty() && System.nanoTime() < deadline) {
                addToBuffer(kafka.poll(Duration.ofMillis(POLL_SLICE_MS)));
                // Joining a subscription that already has a position: nothing to fix unless it is a replay.
                if (!kafka.assignment().isEmpty()
                        || (startPosition.kind() == StartPosition.Kind.COMMITTED && groupHasOffsets())) {
                    break;
                }
            }
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.committed(kafka.assignment());
            Map<TopicPartition, OffsetAndMetadata> fix = new HashMap<>();
            // A replay moves the subscription: records fetched before the seek are dropped.
            List<TopicPartition> moved = seekToStartPosition(kafka.assignment());
            buffer.removeIf(record -> moved.contains(new TopicPartition(record.topic(), record.partition())));
            for (TopicPartition tp : kafka.assignment()) {
                if (committed.get(tp) == null || moved.contains(tp)) {
                    fix.put(tp, new OffsetAndMetadata(kafka.position(tp), subscription.offsetMetadata()));
                }
            }
            if (!fix.isEmpty()) {
                kafka.commitSync(fix);
            }
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Creating subscription " + subscription.groupId(), e);
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * Whether the subscription's group has committed offsets, asked through the connection's admin client: the
     * consumer's own coordinator connection may be waiting on its JoinGroup, which the broker holds until every
     * member rejoined.
     */
    private boolean groupHasOffsets() {
        try {
            return !new SubscriptionAdmin(session.connection().admin(), Duration.ofMillis(POLL_SLICE_MS * 50))
                    .committedOffsets(subscription.groupId()).isEmpty();
        } catch (JMSException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Keeps the consumer in its group while the application does not receive (connection stopped, no receive
     * call): with every partition paused it polls, which answers rebalances without fetching. Skipped when a
     * receive or delivery is polling anyway. Called by the connection's keep-alive task.
     */
    void keepAlive() {
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
                if (uncommittedDeliveries > 0) {
                    acknowledgeDelivered(false); // DUPS_OK deliveries of an application that stopped receiving
                }
            } finally {
                List<TopicPartition> resume = new ArrayList<>();
                for (TopicPartition tp : kafka.assignment()) {
                    if (!pausedBefore.contains(tp) && !held.containsKey(tp)) {
                        resume.add(tp);
                    }
                }
                kafka.resume(resume);
            }
        } catch (JMSException | RuntimeException e) {
            log.debug("Keep-alive poll of {} failed: {}", destination, e.toString());
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
        this.listener = listener;
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
        TributaryMessage message = next(waitMs);
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
        return next(timeoutMs == 0 ? Long.MAX_VALUE : Math.max(0, timeoutMs));
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
        TributaryMessage message = next(0);
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
     * Delivers one message to the listener if one arrives within {@code waitMs}; returns whether it did. A
     * listener that throws gets the message again (§8.7), marked redelivered, in AUTO and DUPS_OK modes.
     */
    boolean deliverToListener(long waitMs) throws JMSException {
        MessageListener current = listener;
        if (current == null || closed) {
            return false;
        }
        TributaryMessage message = next(waitMs);
        if (message == null) {
            return false;
        }
        try {
            current.onMessage(message);
        } catch (RuntimeException e) {
            log.warn("MessageListener of {} threw on message {}; it will be redelivered", destination,
                    message.getJMSMessageID(), e);
            if (session.mode() == Session.AUTO_ACKNOWLEDGE || session.mode() == Session.DUPS_OK_ACKNOWLEDGE) {
                redeliverUnacknowledged();
                return true;
            }
        }
        if (!closed && !session.isClosed()) {
            session.afterDelivery(this);
        }
        return true;
    }

    /** The next deliverable message within {@code waitMs}, or null; waits while the connection is stopped. */
    private TributaryMessage next(long waitMs) throws JMSException {
        commitChoice.receiveCalled(System.nanoTime()); // racy only for a misused consumer; a hint
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
        kafkaLock.lock();
        try {
            if (closed) {
                return null;
            }
            releaseHeld();
            if (buffer.isEmpty()) {
                try {
                    addToBuffer(kafka.poll(Duration.ofMillis(nextPollMs(pollMs))));
                    lastPollNanos = System.nanoTime();
                    if (buffer.isEmpty() && uncommittedDeliveries > 0) {
                        acknowledgeDelivered(false); // DUPS_OK, caught up: nothing arrived within the poll
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
                if (!held.isEmpty()) {
                    ArrayDeque<ConsumerRecord<byte[], byte[]>> behind =
                            held.get(new TopicPartition(record.topic(), record.partition()));
                    if (behind != null) {
                        behind.add(record); // behind a withheld message of its partition
                        continue;
                    }
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

    /** A poll waits no longer than until the first withheld message becomes deliverable. */
    private long nextPollMs(long pollMs) {
        long now = clock.millis();
        long wait = pollMs;
        for (long until : heldUntil.values()) {
            wait = Math.min(wait, Math.max(0, until - now));
        }
        return wait;
    }

    /** Partitions whose withheld message is due go back to the front of the buffer, in order, and resume. */
    private void releaseHeld() {
        long now = clock.millis();
        List<TopicPartition> due = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> entry : heldUntil.entrySet()) {
            if (entry.getValue() <= now) {
                due.add(entry.getKey());
            }
        }
        for (TopicPartition tp : due) {
            heldUntil.remove(tp);
            ArrayDeque<ConsumerRecord<byte[], byte[]>> records = held.remove(tp);
            for (Iterator<ConsumerRecord<byte[], byte[]>> it = records.descendingIterator(); it.hasNext(); ) {
                buffer.addFirst(it.next());
            }
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
        if (verdict instanceof DeliveryDecision.Hold hold) {
            ArrayDeque<ConsumerRecord<byte[], byte[]>> queue = new ArrayDeque<>();
            queue.add(record);
            held.put(tp, queue);
            heldUntil.put(tp, hold.untilMillis());
            kafka.pause(List.of(tp));
            return null;
        }
        acknowledged.putIfAbsent(tp, record.offset());
        delivered.put(tp, record.offset() + 1);
        if (verdict instanceof DeliveryDecision.Unreadable unreadable) {
            log.error("Skipping record {}-{}@{} of {}: it is not a readable JMS message: {}", record.topic(),
                    record.partition(), record.offset(), destination, unreadable.reason());
            return null;
        }
        if (!(verdict instanceof DeliveryDecision.Deliver deliver)) {
            return null; // passed over
        }
        int count = deliveryCounts.computeIfAbsent(tp, p -> new TreeMap<>()).merge(record.offset(), 1, Integer::sum);
        TributaryMessage message = deliver.delivery(count);
        message.setAcknowledger(session::acknowledgeFromMessage);
        return message;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Acknowledgement and redelivery

    /**
     * DUPS_OK acknowledgement: commits without waiting, but only every {@value #LAZY_COMMIT_MESSAGES} deliveries or
     * after 100 ms (a crash may then deliver up to that many again); a receive whose poll finds nothing, and the
     * keep-alive of a consumer nobody receives from, commit what is left.
     */
    void acknowledgeLazily() throws JMSException {
        kafkaLock.lock();
        try {
            uncommittedDeliveries++;
            if (uncommittedDeliveries >= LAZY_COMMIT_MESSAGES
                    || System.nanoTime() - lastCommitNanos >= LAZY_COMMIT_NANOS) {
                acknowledgeDelivered(false);
            }
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * Acknowledges everything delivered: commits the delivered positions of a group-backed subscription
     * ({@code sync}: waits for the commit, after any pipelined AUTO commit still in flight).
     */
    void acknowledgeDelivered(boolean sync) throws JMSException {
        kafkaLock.lock();
        try {
            if (sync) {
                awaitPipelinedCommit();
            }
            Map<TopicPartition, OffsetAndMetadata> commit = unacknowledgedPositions();
            if (commit.isEmpty()) {
                return;
            }
            if (subscription.groupId() != null && !closed) {
                try {
                    if (sync) {
                        kafka.commitSync(commit);
                    } else {
                        kafka.commitAsync(commit, (offsets, failure) -> {
                            if (failure != null) {
                                log.warn("DUPS_OK commit of {} failed: {}", destination, failure.toString());
                            }
                        });
                    }
                } catch (WakeupException e) {
                    throw new IllegalStateException("The consumer was closed during acknowledgement");
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Acknowledging messages of " + destination, e);
                }
            }
            markAcknowledged(commit);
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * AUTO_ACKNOWLEDGE after a message was handed over: sends the commit of the delivered positions without waiting
     * for it, or, when the next record is already buffered and the application's work would not hide the round
     * trip, commits at once. Returns whether a commit is now in flight or done with an outcome still to check,
     * which {@link #awaitPipelinedCommit()} must see complete before the session hands over another message. The
     * messages count as acknowledged at once (§6.2.10: when receive returned or the listener returned), so that
     * {@code recover()} does not deliver them again.
     */
    boolean acknowledgePipelined() throws JMSException {
        kafkaLock.lock();
        try {
            Map<TopicPartition, OffsetAndMetadata> commit = unacknowledgedPositions();
            if (commit.isEmpty()) {
                return false;
            }
            boolean sent = false;
            AutoCommitChoice.Recipient recipient = listener != null
                    ? AutoCommitChoice.Recipient.LISTENER : AutoCommitChoice.Recipient.RECEIVE_CALLER;
            if (subscription.groupId() != null && !closed
                    && commitChoice.commitAtOnce(!buffer.isEmpty(), recipient)) {
                // The next record is already here and the application's work would hide little of the commit's
                // round trip (AutoCommitChoice). The outcome is handled as a pipelined commit's, before the next
                // hand-over.
                PipelinedCommit immediate = new PipelinedCommit(commit);
                long start = System.nanoTime();
                try {
                    kafka.commitSync(commit);
                } catch (WakeupException e) {
                    throw new IllegalStateException("The consumer was closed during acknowledgement");
                } catch (RuntimeException e) {
                    immediate.failure = e;
                }
                commitChoice.committedAtOnce(start, System.nanoTime(), recipient);
                immediate.done = true;
                pipelinedCommit = immediate;
                markAcknowledged(commit);
                return true;
            }
            if (subscription.groupId() != null && !closed) {
                // The session awaits each commit before the next delivery, so at most one is in flight.
                PipelinedCommit pending = new PipelinedCommit(commit);
                try {
                    kafka.commitAsync(commit, pending);
                } catch (WakeupException e) {
                    throw new IllegalStateException("The consumer was closed during acknowledgement");
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Acknowledging messages of " + destination, e);
                }
                pipelinedCommit = pending;
                sent = true;
            }
            markAcknowledged(commit);
            commitChoice.handedOver(System.nanoTime(), recipient);
            return sent;
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * Waits until the pipelined AUTO commit is complete, if one is in flight. A commit that failed with a
     * retriable error (the coordinator moved or the connection dropped) is made again synchronously; any other
     * failure, or no answer within 30 s, is thrown: the message it acknowledged may then be delivered again.
     */
    void awaitPipelinedCommit() throws JMSException {
        kafkaLock.lock();
        try {
            PipelinedCommit pending = pipelinedCommit;
            if (pending == null) {
                return;
            }
            pipelinedCommit = null;
            if (closed) {
                return; // closeNow committed synchronously, which waited for this commit first
            }
            long deadline = System.nanoTime() + PIPELINED_COMMIT_TIMEOUT_NANOS;
            try {
                if (!pending.done) {
                    awaitCallback(pending, deadline);
                }
                if (pending.failure instanceof RetriableException) {
                    log.debug("Pipelined commit of {} failed ({}); committing again", destination,
                            pending.failure.toString());
                    kafka.commitSync(pending.offsets);
                } else if (pending.failure != null) {
                    throw JmsErrors.fromKafka("Acknowledging messages of " + destination, pending.failure);
                }
            } catch (WakeupException e) {
                throw new IllegalStateException("The consumer was closed during acknowledgement");
            } catch (RuntimeException e) {
                throw JmsErrors.fromKafka("Acknowledging messages of " + destination, e);
            }
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * Polls until the pipelined commit's callback has run. Most of the time it has already: the poll that waited
     * for the next record also read the commit's response, and then none of this is needed.
     */
    private void awaitCallback(PipelinedCommit pending, long deadline) throws JMSException {
        // The commit's callback runs inside a call on the Kafka consumer, on this thread. The call that
        // waits for asynchronous commits, commitSync of no offsets, sleeps retry.backoff.ms (100 ms) after
        // any network event that did not complete them, such as the response to the pipelined fetch when
        // the next message is produced, and yields the processor when its time is up (Thread.sleep(0)),
        // which on a loaded machine cost 10-30 ms a time. So the wait polls instead, and the callback wakes
        // the poll up. The partitions are paused meanwhile: a poll per message would otherwise fetch the
        // records one at a time as they are produced, a fetch request each, where receive fetches them in
        // batches once the buffer is empty (at a fixed 300 msg/s under load it could not keep up).
        //
        // The wake-up can be lost: the Kafka consumer's heartbeat thread polls the same network selector every
        // retry.backoff.ms (100 ms) and may take the selector's wake-up signal between the callback and this
        // thread's next select, which then blocks for its whole timeout with the wake-up flag set (the flag is
        // checked after the select). Measured at 300 msg/s: 34 such waits of 5-100 ms in two minutes, one pair of
        // them a 200 ms gap in delivery. So the slices start at 1 ms and double: a lost wake-up costs at most
        // the slice it happened in, and a commit that takes long still wakes this thread rarely.
        Set<TopicPartition> pausedBefore = kafka.paused();
        kafka.pause(kafka.assignment());
        pending.wakeOnCompletion = true;
        try {
            long sliceNanos = FIRST_AWAIT_SLICE_NANOS;
            while (!pending.done) {
                long leftNanos = deadline - System.nanoTime();
                if (leftNanos <= 0) {
                    throw new JMSException("Acknowledging messages of " + destination + " failed: no "
                            + "answer to the commit of " + pending.offsets + " within 30 s");
                }
                try {
                    kafka.poll(Duration.ofNanos(Math.min(leftNanos, sliceNanos))); // paused: no records
                    lastPollNanos = System.nanoTime();
                } catch (WakeupException e) {
                    pending.wakeupPending = false;
                }
                sliceNanos = Math.min(2 * sliceNanos, TimeUnit.MILLISECONDS.toNanos(POLL_SLICE_MS));
            }
        } finally {
            pending.wakeOnCompletion = false;
            consumeWakeup(pending);
            List<TopicPartition> resume = new ArrayList<>();
            for (TopicPartition tp : kafka.assignment()) {
                if (!pausedBefore.contains(tp) && !held.containsKey(tp)) {
                    resume.add(tp);
                }
            }
            kafka.resume(resume);
        }
    }

    /**
     * A wake-up the commit's callback requested that no poll has thrown yet (the poll returned records first) is
     * consumed here, so that it does not interrupt a later call.
     */
    private void consumeWakeup(PipelinedCommit pending) {
        if (!pending.wakeupPending) {
            return;
        }
        pending.wakeupPending = false;
        try {
            kafka.poll(Duration.ZERO); // the partitions are paused: it returns no records
        } catch (WakeupException e) {
            // the one requested
        } catch (RuntimeException e) {
            log.debug("Poll after the pipelined commit of {} failed: {}", destination, e.toString());
        }
    }

    /** Per partition whose delivered position is past its acknowledged one: the delivered position. */
    private Map<TopicPartition, OffsetAndMetadata> unacknowledgedPositions() {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : delivered.entrySet()) {
            Long acked = acknowledged.get(entry.getKey());
            if (acked == null || entry.getValue() > acked) {
                commit.put(entry.getKey(), new OffsetAndMetadata(entry.getValue(), subscription.offsetMetadata()));
            }
        }
        uncommittedDeliveries = 0;
        lastCommitNanos = System.nanoTime();
        return commit;
    }

    private void markAcknowledged(Map<TopicPartition, OffsetAndMetadata> commit) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : commit.entrySet()) {
            acknowledged.put(entry.getKey(), entry.getValue().offset());
            TreeMap<Long, Integer> counts = deliveryCounts.get(entry.getKey());
            if (counts != null) {
                counts.headMap(entry.getValue().offset()).clear();
            }
        }
    }

    /**
     * One asynchronous AUTO commit: its offsets and, once the Kafka consumer called back, its outcome. The callback
     * runs on the thread inside a call on the Kafka consumer, under {@link #kafkaLock}, as every read here does.
     */
    private final class PipelinedCommit implements OffsetCommitCallback {
        final Map<TopicPartition, OffsetAndMetadata> offsets;
        boolean done;
        Exception failure;
        /** Set while {@link #awaitPipelinedCommit()} polls for the outcome: completion wakes that poll up. */
        boolean wakeOnCompletion;
        /** A wake-up was requested and no call on the Kafka consumer has thrown it yet. */
        boolean wakeupPending;

        PipelinedCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            this.offsets = offsets;
        }

        @Override
        public void onComplete(Map<TopicPartition, OffsetAndMetadata> committed, Exception exception) {
            failure = exception;
            done = true;
            if (wakeOnCompletion) {
                wakeupPending = true;
                kafka.wakeup();
            }
        }
    }

    /** Seeks every partition back to its first unacknowledged offset; buffered records are fetched again. */
    void redeliverUnacknowledged() throws JMSException {
        kafkaLock.lock();
        try {
            Map<TopicPartition, Long> seekTo = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> record : buffer) {
                seekTo.merge(new TopicPartition(record.topic(), record.partition()), record.offset(), Math::min);
            }
            buffer.clear();
            for (Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> entry : held.entrySet()) {
                seekTo.merge(entry.getKey(), entry.getValue().peekFirst().offset(), Math::min);
                if (kafka.assignment().contains(entry.getKey())) {
                    kafka.resume(List.of(entry.getKey()));
                }
            }
            held.clear();
            heldUntil.clear();
            for (Map.Entry<TopicPartition, Long> entry : delivered.entrySet()) {
                Long acked = acknowledged.get(entry.getKey());
                if (acked != null && entry.getValue() > acked) {
                    seekTo.merge(entry.getKey(), acked, Math::min);
                    entry.setValue(acked);
                }
            }
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
            for (TopicPartition tp : partitions) {
                acknowledged.remove(tp);
                delivered.remove(tp);
                deliveryCounts.remove(tp);
                held.remove(tp);
                heldUntil.remove(tp);
            }
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
            if (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE) {
                try {
                    acknowledgeDelivered(true);
                } catch (JMSException e) {
                    log.warn("Committing the last deliveries of {} at close failed: {}", destination,
                            e.getMessage());
                }
            }
            closed = true;
            try {
                kafka.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.warn("Closing the Kafka consumer of {} failed: {}", destination, e.toString());
            }
        } finally {
            kafkaLock.unlock();
            session.consumerClosed(this);
        }
        if (subscription.kind() == Subscription.Kind.SHARED && !session.connection().isConsumingGroup(
                subscription.groupId())) {
            session.connection().deleteGroupQuietly(subscription.groupId());
        }
    }

    @Override
    public String toString() {
        return "TributaryMessageConsumer[" + destination + ", " + subscription.kind() + "]";
    }
}
