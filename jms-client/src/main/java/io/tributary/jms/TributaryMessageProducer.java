package io.tributary.jms;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueSender;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;

import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.message.ForeignMessages;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryMessage;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS producer: each message becomes one record of its destination's topic (through the connection's shared,
 * idempotent, acks=all Kafka producer). A synchronous send returns once the cluster acknowledged the record; an
 * asynchronous send calls its {@link CompletionListener} then, on a thread of the producer's own, in send order.
 * In a transacted session the record is kept until the session commits.
 *
 * <p>Threads: used from the session's thread, as the specification requires; {@link #close()} waits for the
 * outstanding completion listeners.
 */
public final class TributaryMessageProducer implements MessageProducer, QueueSender, TopicPublisher {

    private static final Logger log = LoggerFactory.getLogger(TributaryMessageProducer.class);
    private static final long SEND_TIMEOUT_MS = 60_000;
    /**
     * The producer whose CompletionListener runs on this thread (one of the producers' completion threads), else
     * null: a callback may not close or stop its own producer, session, connection or context (§7.3.8), whose close
     * would wait for the callback itself to return.
     */
    private static final ThreadLocal<TributaryMessageProducer> COMPLETING = new ThreadLocal<>();

    private final TributarySession session;
    private final Destination destination;
    private final byte[] connectionId;
    private final AtomicInteger pendingCompletions = new AtomicInteger();
    private ExecutorService completions;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableMessageTimestamp;
    private volatile boolean closed;

    TributaryMessageProducer(TributarySession session, Destination destination) {
        this.session = session;
        this.destination = destination;
        this.connectionId = session.connection().connectionId().getBytes(StandardCharsets.UTF_8);
    }

    private void checkClosed() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The producer is closed");
        }
        session.checkClosed();
    }

    /** Whether this thread runs a CompletionListener of a producer of {@code owner}. */
    static boolean isCompletingFor(TributarySession owner) {
        TributaryMessageProducer running = COMPLETING.get();
        return running != null && running.session == owner;
    }

    /** Whether this thread runs a CompletionListener of a producer of {@code owner}. */
    static boolean isCompletingFor(TributaryConnection owner) {
        TributaryMessageProducer running = COMPLETING.get();
        return running != null && running.session.connection() == owner;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Settings

    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkClosed();
        disableMessageId = value;
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkClosed();
        return disableMessageId;
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkClosed();
        disableMessageTimestamp = value;
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkClosed();
        return disableMessageTimestamp;
    }

    @Override
    public void setDeliveryMode(int deliveryMode) throws JMSException {
        checkClosed();
        this.deliveryMode = checkDeliveryMode(deliveryMode);
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkClosed();
        return deliveryMode;
    }

    @Override
    public void setPriority(int defaultPriority) throws JMSException {
        checkClosed();
        this.priority = checkPriority(defaultPriority);
    }

    @Override
    public int getPriority() throws JMSException {
        checkClosed();
        return priority;
    }

    @Override
    public void setTimeToLive(long timeToLive) throws JMSException {
        checkClosed();
        this.timeToLive = timeToLive;
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkClosed();
        return timeToLive;
    }

    @Override
    public void setDeliveryDelay(long deliveryDelay) throws JMSException {
        checkClosed();
        if (deliveryDelay < 0) {
            throw new JMSException("The delivery delay must not be negative: " + deliveryDelay);
        }
        this.deliveryDelay = deliveryDelay;
    }

    @Override
    public long getDeliveryDelay() throws JMSException {
        checkClosed();
        return deliveryDelay;
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkClosed();
        return destination;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkClosed();
        return destination instanceof Queue queue ? queue : null;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkClosed();
        return destination instanceof Topic topic ? topic : null;
    }

    private static int checkDeliveryMode(int mode) throws JMSException {
        if (mode != DeliveryMode.PERSISTENT && mode != DeliveryMode.NON_PERSISTENT) {
            throw new JMSException("Unknown delivery mode " + mode + ": expected DeliveryMode.PERSISTENT (2) or "
                    + "NON_PERSISTENT (1)");
        }
        return mode;
    }

    private static int checkPriority(int priority) throws JMSException {
        if (priority < 0 || priority > 9) {
            throw new JMSException("Priority " + priority + " is outside 0..9");
        }
        return priority;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Send

    @Override
    public void send(Message message) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Destination destination, Message message) throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Message message, CompletionListener completionListener) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive,
                     CompletionListener completionListener) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    @Override
    public void send(Destination destination, Message message, CompletionListener completionListener)
            throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive,
                     CompletionListener completionListener) throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        sendTo(queue, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Queue queue, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        sendTo(queue, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Message message) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        sendTo(topic, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Topic topic, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        sendTo(topic, message, deliveryMode, priority, timeToLive, null);
    }

    private static CompletionListener requireListener(CompletionListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("The CompletionListener must not be null");
        }
        return listener;
    }

    private void sendToOwn(Message message, int mode, int prio, long ttl, CompletionListener listener)
            throws JMSException {
        checkClosed();
        if (destination == null) {
            throw new UnsupportedOperationException("This producer has no destination: use a send method that "
                    + "names one");
        }
        doSend(destination, message, mode, prio, ttl, listener);
    }

    private void sendTo(Destination target, Message message, int mode, int prio, long ttl,
                        CompletionListener listener) throws JMSException {
        checkClosed();
        if (destination != null) {
            throw new UnsupportedOperationException("This producer sends to " + destination + "; a destination "
                    + "may only be named with a producer created without one");
        }
        if (target == null) {
            throw new InvalidDestinationException("The destination must not be null");
        }
        doSend(Destinations.normalize(target), message, mode, prio, ttl, listener);
    }

    /** Sends to {@code target} (already normalized); used by {@link TributaryJMSProducer} too. */
    void doSend(Destination target, Message message, int mode, int prio, long ttl, CompletionListener listener)
            throws JMSException {
        if (message == null) {
            throw new MessageFormatException("The message must not be null");
        }
        checkDeliveryMode(mode);
        checkPriority(prio);
        String topic = Destinations.topicName(target);
        TributaryMessage own = message instanceof TributaryMessage tributary ? tributary
                : ForeignMessages.toTributary(message);
        long now = session.connection().settings().clock().millis();
        String messageId = disableMessageId ? null : "ID:" + UUID.randomUUID();
        long timestamp = disableMessageTimestamp ? 0L : now;
        long expiration = ttl > 0 ? now + ttl : 0L;
        long deliveryTime = now + deliveryDelay;
        for (Message each : own == message ? new Message[] {message} : new Message[] {message, own}) {
            each.setJMSDestination(target);
            each.setJMSDeliveryMode(mode);
            each.setJMSPriority(prio);
            each.setJMSExpiration(expiration);
            each.setJMSTimestamp(timestamp);
            each.setJMSDeliveryTime(deliveryDelay > 0 ? deliveryTime : 0L);
            each.setJMSMessageID(messageId);
        }
        ProducerRecord<byte[], byte[]> record = MessageCodec.toRecord(own, topic);
        record.headers().add(DeliveryDecision.CONNECTION_HEADER, connectionId);
        DestinationMetrics metrics = session.connection().metrics().destination(target);
        if (session.mode() == jakarta.jms.Session.SESSION_TRANSACTED) {
            session.addTransactionSend(record);
            metrics.sent();
            if (listener != null) {
                complete(() -> listener.onCompletion(message));
            }
            return;
        }
        if (listener == null) {
            try {
                session.connection().producer().send(record).get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                metrics.sent();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw JmsErrors.fromKafka("Sending to " + target, e);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                throw JmsErrors.fromKafka("Sending to " + target, e);
            }
            return;
        }
        pendingCompletions.incrementAndGet();
        try {
            session.connection().producer().send(record, (metadata, failure) -> complete(() -> {
                try {
                    if (failure == null) {
                        metrics.sent();
                        listener.onCompletion(message);
                    } else {
                        listener.onException(message, JmsErrors.fromKafka("Sending to " + target, failure));
                    }
                } finally {
                    pendingCompletions.decrementAndGet();
                }
            }));
        } catch (RuntimeException e) {
            pendingCompletions.decrementAndGet();
            throw JmsErrors.fromKafka("Sending to " + target, e);
        }
    }

    private void complete(Runnable callback) {
        ExecutorService executor;
        synchronized (this) {
            if (completions == null) {
                completions = Executors.newSingleThreadExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "tributary-jms-completion");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            executor = completions;
        }
        executor.execute(() -> {
            COMPLETING.set(this);
            try {
                callback.run();
            } catch (RuntimeException e) {
                log.warn("A CompletionListener threw", e);
            } finally {
                COMPLETING.remove();
            }
        });
    }

    /**
     * Waits for outstanding asynchronous sends' completion listeners, then closes. Idempotent.
     *
     * @throws IllegalStateException if called from a CompletionListener of this producer (§7.3.8: it would wait for
     *                               itself)
     */
    @Override
    public void close() throws JMSException {
        if (COMPLETING.get() == this) {
            throw new IllegalStateException("MessageProducer.close() may not be called from a CompletionListener of "
                    + "its own producer (sending to " + (destination == null ? "destinations given per send"
                    : destination) + ")");
        }
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEND_TIMEOUT_MS);
        while (pendingCompletions.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        synchronized (this) {
            if (completions != null) {
                completions.shutdown();
            }
        }
        session.producerClosed(this);
    }
}
