package io.tributary.jms;

import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import jakarta.jms.JMSException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery thread of one session: hands the messages of the session's consumers to their message listeners, one
 * listener call at a time (Jakarta Messaging 3.1 §6.2: a session serializes the execution of its listeners). It is
 * started with the session's first listener and runs until the session closes, taking the consumers round by round
 * (at most 20 ms of polling each when there are several, 100 ms when there is one).
 *
 * <p>While there is nothing it may deliver, because the connection is stopped or no consumer has a listener, it waits
 * on a condition, woken by {@link #wake()}: when a listener is set, when the connection starts, and when the session
 * closes. Whether a message has arrived it learns from the Kafka consumer's own poll, which waits for one.
 *
 * <p>Threads: {@link #listenerSet()}, {@link #wake()}, {@link #awaitIdle()} and {@link #whileIdle} come from the
 * application's threads or the connection's; {@link #awaitIdle()} and {@link #whileIdle} wait for a running listener
 * (held under {@link #listenerLock}) unless called from it.
 */
final class ListenerDelivery {

    private static final Logger log = LoggerFactory.getLogger(ListenerDelivery.class);
    /** How long one consumer's poll may take in a round when the session has several consumers, and when one. */
    private static final long SHARED_POLL_MS = 20;
    private static final long SOLE_POLL_MS = 100;

    private final TributarySession session;
    private final List<TributaryMessageConsumer> consumers;
    /** Held while a listener runs, so that stop() and close() can wait for it. */
    private final ReentrantLock listenerLock = new ReentrantLock();
    /** Guards the wait for something to deliver; {@link #workToDo} is signalled under it. */
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition workToDo = wakeLock.newCondition();
    /** Written once, under {@code this}, by the thread that sets the session's first listener. */
    private volatile Thread thread;

    /** Delivery for {@code session}, whose live consumer list (thread-safe) is {@code consumers}. */
    ListenerDelivery(TributarySession session, List<TributaryMessageConsumer> consumers) {
        this.session = session;
        this.consumers = consumers;
    }

    /** A consumer got a listener: starts the delivery thread if it is not running, or wakes it. */
    void listenerSet() {
        synchronized (this) {
            if (thread == null && !session.isClosed()) {
                Thread started = new Thread(this::run, "tributary-jms-session-" + Integer.toHexString(
                        System.identityHashCode(session)));
                started.setDaemon(true);
                thread = started;
                started.start();
            }
        }
        wake();
    }

    /** Something the waiting delivery thread waits for may have changed: a listener, the connection, the session. */
    void wake() {
        wakeLock.lock();
        try {
            workToDo.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    boolean isDeliveryThread() {
        return Thread.currentThread() == thread;
    }

    /** Returns once no listener of this session is running (for Connection.stop); at once from the listener. */
    void awaitIdle() {
        if (isDeliveryThread()) {
            return;
        }
        listenerLock.lock();
        listenerLock.unlock();
    }

    /** Runs {@code action} while no listener runs; from the listener itself (it is inside one), at once. */
    void whileIdle(Runnable action) {
        boolean fromListener = isDeliveryThread();
        if (!fromListener) {
            listenerLock.lock();
        }
        try {
            action.run();
        } finally {
            if (!fromListener) {
                listenerLock.unlock();
            }
        }
    }

    /**
     * After the session closed: wakes the thread to see it, and interrupts a poll it may be in, unless called from
     * the thread itself (a listener closing its session), which sees the session closed when the listener returns.
     */
    void sessionClosed() {
        Thread running = thread;
        if (running != null && !isDeliveryThread()) {
            running.interrupt();
        }
        wake();
    }

    private void run() {
        while (!session.isClosed()) {
            try {
                if (!awaitDeliverable()) {
                    continue;
                }
                for (TributaryMessageConsumer consumer : consumers) {
                    if (consumer.listener() == null) {
                        continue;
                    }
                    listenerLock.lock();
                    try {
                        if (session.connection().isStarted() && !session.isClosed()) {
                            consumer.deliverToListener(consumers.size() > 1 ? SHARED_POLL_MS : SOLE_POLL_MS);
                        }
                    } finally {
                        listenerLock.unlock();
                    }
                }
            } catch (InterruptedException e) {
                if (session.isClosed()) {
                    return;
                }
            } catch (JMSException e) {
                session.connection().reportAsync(e);
            } catch (RuntimeException e) {
                log.error("Message delivery of a session failed", e);
            }
        }
    }

    /**
     * Waits while the connection is stopped or no consumer has a listener. Returns whether there is something to
     * deliver to (false: the session closed, or the wait was woken to look again).
     */
    private boolean awaitDeliverable() throws InterruptedException {
        wakeLock.lock();
        try {
            // Checked under wakeLock, and every change that ends the wait is followed by wake() under it: a change
            // made after this check signals the await below, so no wake-up is lost.
            if (session.isClosed()) {
                return false;
            }
            if (session.connection().isStarted() && anyListener()) {
                return true;
            }
            workToDo.await();
            return false;
        } finally {
            wakeLock.unlock();
        }
    }

    private boolean anyListener() {
        for (TributaryMessageConsumer consumer : consumers) {
            if (consumer.listener() != null) {
                return true;
            }
        }
        return false;
    }
}
