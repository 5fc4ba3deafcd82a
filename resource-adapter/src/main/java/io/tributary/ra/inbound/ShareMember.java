package io.tributary.ra.inbound;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.QueueShareGroup;
import io.tributary.jms.kafka.ShareReceiver;
import io.tributary.jms.message.TributaryMessage;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.work.HintsContext;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkContext;
import jakarta.resource.spi.work.WorkContextProvider;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a share-mode activation ({@link ShareDelivery}): a long-running {@link Work} that owns one share
 * consumer, wrapped in the provider's {@link ShareReceiver}, and loops: the next acquired record, an endpoint,
 * {@code onMessage} ({@link EndpointInvoker}), then
 * <ul>
 *   <li>delivered (returned, and the container's transaction, if any, committed): accepted, at once and awaited
 *       under {@code Auto-acknowledge}, with the next fetch under {@code Dups-ok-acknowledge};</li>
 *   <li>failed ({@code onMessage} threw, {@code afterDelivery} failed, the transaction rolled back): released after
 *       {@code redeliveryDelay}, so that the broker raises its delivery count and hands it to any member, which
 *       delivers it with {@code JMSXDeliveryCount} that count and {@code JMSRedelivered}; once it has had the
 *       activation's deliveries ({@link DeadLetterPolicy}) it is written to the dead-letter topic, or rejected
 *       (archived by the broker) without one;</li>
 *   <li>not delivered (the container cannot create an endpoint, or {@code beforeDelivery} failed): kept and tried
 *       again with back-off, as that is no delivery attempt.</li>
 * </ul>
 * A record that is not a readable message goes to the dead-letter topic (or is rejected); an expired one is accepted
 * without delivery; one the selector does not select is released for the others ({@code ShareReceiver}). The endpoint
 * is kept from one message to the next and given back when no message is waiting.
 *
 * <p>Failures: a consumer or cluster failure is logged once per change ({@link Availability}), the receiver closed
 * (its acquired records go back to the group) and made anew after back-off (1 s doubling to 30 s). An acknowledgement
 * the broker refuses (the record's lock expired while {@code onMessage} ran) is logged: the broker delivers the
 * message again.
 *
 * <p>Threads: {@link #run()} on its container thread owns the consumer, the receiver and the endpoint (Kafka's share
 * consumer is single-threaded); {@link #requestStop()} and {@link #release()} from any thread only set flags, and the
 * member notices within a fetch ({@link QueueShareGroup#FETCH_MAX_WAIT_MS}) or after the message in flight.
 */
final class ShareMember implements Work, WorkContextProvider {

    private static final Logger log = LoggerFactory.getLogger(ShareMember.class);

    /** How long one fetch waits for a record before the member looks at its stop flag and idles. */
    private static final long FETCH_WAIT_MS = 500;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How long a member may be without any broker connection before it reports the cluster unreachable: longer than
     * the client's first reconnection back-offs, so that a broker restart or a rebalance of leaders does not count.
     */
    private static final long DISCONNECTED_REPORT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private enum State { NEW, RUNNING, STOPPED }

    private final ShareDelivery delivery;
    private final ShareDelivery.Services services;
    private final ActivationConfig config;
    private final int index;
    private final Supplier<KafkaShareConsumer<byte[], byte[]>> consumers;
    private final boolean longRunningHint;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Set by the container ({@link #release()}) or the activation ({@link #requestStop()}); read by the member. */
    private volatile boolean released;

    // Owned by the member's thread.
    /** The consumer made at start, until the first receiver takes it; then null. */
    private KafkaShareConsumer<byte[], byte[]> firstConsumer;
    private ShareReceiver receiver;
    /** Since when (nanoTime) the receiver has had no broker connection, or -1 while it has one. */
    private long disconnectedSince = -1;
    /**
     * Whether this member reported the current disconnection: once, so that another member's reconnection, which
     * reports the cluster working, is not overturned at this member's next turn.
     */
    private boolean disconnectionReported;
    /** What {@link #receiver} had dead-lettered when last counted ({@link #countDeadLetters()}). */
    private long deadLettersCounted;
    private MessageEndpoint endpoint;
    private final Backoff clusterBackoff = Backoff.forCluster();
    private final Backoff endpointBackoff = Backoff.forEndpoint();

    /**
     * @param consumer  the first consumer, made by the activation (so that a refused configuration fails it)
     * @param consumers makes a consumer again after one failed
     */
    ShareMember(ShareDelivery delivery, ShareDelivery.Services services, int index,
                KafkaShareConsumer<byte[], byte[]> consumer, Supplier<KafkaShareConsumer<byte[], byte[]>> consumers,
                boolean longRunningHint) {
        this.delivery = delivery;
        this.services = services;
        this.config = services.config();
        this.index = index;
        this.firstConsumer = consumer;
        this.consumers = consumers;
        this.longRunningHint = longRunningHint;
    }

    int index() {
        return index;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Control (any thread)

    /** Asks the member to stop after the message in flight; one that never started closes its consumer here. */
    void requestStop() {
        released = true;
        if (state.compareAndSet(State.NEW, State.STOPPED)) {
            closeFirstConsumer();
            stopped.countDown();
        }
    }

    /** The container asks the work to end (server shutdown): this member stops. */
    @Override
    public void release() {
        released = true;
    }

    boolean awaitStopped(long timeoutNanos) {
        try {
            return stopped.await(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Marks the work long-running where the container understands the hint: it holds its thread until the stop. */
    @Override
    public List<WorkContext> getWorkContexts() {
        if (!longRunningHint) {
            return List.of();
        }
        HintsContext hints = new HintsContext();
        hints.setName("Tributary share-group member");
        hints.setDescription(services.name() + ", member " + index);
        hints.setHint(HintsContext.LONGRUNNING_HINT, Boolean.TRUE);
        return List.of(hints);
    }

    private boolean stopping() {
        return released || delivery.stopping();
    }

    // ---------------------------------------------------------------------------------------------------------
    // The loop (member thread)

    @Override
    public void run() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            return; // stopped before the container ran it
        }
        try {
            while (!stopping()) {
                try {
                    turn();
                } catch (InterruptException e) {
                    log.info("{}: member {} interrupted; stopping", services.name(), index);
                    Thread.interrupted();
                    released = true;
                } catch (RuntimeException e) {
                    long delay = clusterBackoff.nextDelayMillis();
                    services.cluster().failed("consuming", e, "member " + index + " starts again in " + delay
                            + " ms");
                    closeReceiver();
                    delivery.pause(delay);
                }
            }
        } catch (Error e) {
            log.error("{}: share-group member {} failed; it delivers no more", services.name(), index, e);
            throw e;
        } finally {
            releaseEndpoint();
            closeReceiver();
            closeFirstConsumer();
            state.set(State.STOPPED);
            stopped.countDown();
        }
    }

    private void turn() {
        if (receiver == null) {
            receiver = join();
        }
        ShareReceiver.Delivery next = receiver.next(FETCH_WAIT_MS);
        countDeadLetters();
        clusterBackoff.reset();
        watchConnections(next != null);
        if (next == null) {
            releaseEndpoint(); // idle: the bean instance goes back to the container's pool
            receiver.flush();
            return;
        }
        deliver(next);
    }

    /**
     * Reports the cluster working after a fetch that found a broker, unreachable when the receiver has had no broker
     * connection for {@link #DISCONNECTED_REPORT_NANOS}: a share consumer's fetch returns nothing, without an error,
     * while the cluster is away.
     */
    private void watchConnections(boolean delivered) {
        if (delivered || receiver.brokerConnections() != 0) { // -1, no such metric: judged by errors alone
            disconnectedSince = -1;
            disconnectionReported = false;
            services.cluster().succeeded("consuming");
            return;
        }
        long now = System.nanoTime();
        if (disconnectedSince < 0) {
            disconnectedSince = now;
        } else if (!disconnectionReported && now - disconnectedSince >= DISCONNECTED_REPORT_NANOS) {
            disconnectionReported = true;
            services.cluster().failed("reaching the cluster", new org.apache.kafka.common.errors.TimeoutException(
                    "no connection to any broker at " + config.bootstrapServers() + " for "
                            + TimeUnit.NANOSECONDS.toSeconds(now - disconnectedSince) + " s"),
                    "the consumer reconnects with back-off");
        }
    }

    /** Configures the group (once per activation), subscribes a consumer and wraps it in a receiver. */
    private ShareReceiver join() {
        DeadLetterPolicy policy = delivery.deadLetterPolicy();
        KafkaShareConsumer<byte[], byte[]> consumer = firstConsumer != null ? firstConsumer : consumers.get();
        firstConsumer = null;
        DeadLetters deadLetters = services.deadLetters();
        try {
            return QueueShareGroup.join(config.subscription(), consumer, services.decision(), policy,
                    deadLetters == null ? null : deadLetters.producer(), config.plainRecordsAsText(),
                    Clock.systemUTC());
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            throw e;
        }
    }

    /** Delivers one acquired message and settles it at the broker. */
    private void deliver(ShareReceiver.Delivery next) {
        TributaryMessage message = next.message();
        while (true) {
            MessageEndpoint target = endpoint();
            EndpointInvoker.Outcome outcome = target == null ? null : services.invoker().deliver(target, message);
            if (outcome != null && outcome.kind() == EndpointInvoker.Outcome.Kind.DELIVERED) {
                endpointBackoff.reset();
                settle(true, null, next);
                return;
            }
            if (outcome != null && outcome.kind() == EndpointInvoker.Outcome.Kind.FAILED) {
                // A fresh endpoint for the next message: after a system exception the container discards the bean.
                releaseEndpoint();
                endpointBackoff.reset();
                log.warn("Delivery {} of {} ({}) failed: {}; released for redelivery in {} ms", ShareReceiver
                        .deliveryCount(next.record()), at(next), messageId(message), outcome.reason(),
                        config.redeliveryDelayMs());
                // Held meanwhile, so that no member gets it back sooner; a stop cuts the wait short.
                delivery.pause(config.redeliveryDelayMs());
                settle(false, outcome.reason(), next);
                return;
            }
            // No delivery attempt: no endpoint, or beforeDelivery failed. Keep the message and try again.
            long delay = endpointBackoff.nextDelayMillis();
            if (outcome != null) {
                releaseEndpoint();
                services.endpointAvailability().failed("delivering", outcome.cause(), "retrying in " + delay
                        + " ms");
            }
            if (!delivery.pause(delay) || released) {
                return; // stopping: closing the receiver gives the message back to the group
            }
        }
    }

    /** Accepts or releases the message delivered last; a refusal by the broker only means it comes again. */
    private void settle(boolean delivered, String reason, ShareReceiver.Delivery which) {
        try {
            if (delivered) {
                receiver.accept(config.acknowledgeMode() == ActivationConfig.AcknowledgeMode.DUPS_OK
                        ? ShareReceiver.Durability.LAZY : ShareReceiver.Durability.SYNC);
            } else {
                receiver.release(reason);
                countDeadLetters();
            }
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            log.warn("{}: {} {} was not acknowledged ({}); the broker delivers it again", services.name(),
                    delivered ? "delivered" : "failed", at(which), e.getMessage());
        }
    }

    /** Adds what the receiver dead-lettered (or rejected) since the last count to the activation's statistics. */
    private void countDeadLetters() {
        long total = receiver.deadLettered();
        services.statistics().deadLettered(total - deadLettersCounted);
        deadLettersCounted = total;
    }

    /** The endpoint, created on first use; null when the container cannot create one now. */
    private MessageEndpoint endpoint() {
        if (endpoint == null) {
            // No XAResource: a share group's acknowledgement cannot join the container's transaction; the member
            // accepts after it committed instead (EndpointInvoker tells).
            endpoint = EndpointInvoker.createEndpoint(services.endpoints(), null, services.endpointAvailability());
        }
        return endpoint;
    }

    private void releaseEndpoint() {
        if (endpoint != null) {
            MessageEndpoint toRelease = endpoint;
            endpoint = null;
            try {
                toRelease.release();
            } catch (RuntimeException e) {
                log.warn("{}: releasing the endpoint of member {} failed: {}", services.name(), index, e.toString());
            }
        }
    }

    /** Leaves the group: acknowledgements made are sent, records still acquired go back to the other members. */
    private void closeReceiver() {
        if (receiver == null) {
            return;
        }
        try {
            receiver.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            log.debug("{}: closing member {} failed: {}", services.name(), index, e.toString());
        }
        receiver = null;
        deadLettersCounted = 0;
        disconnectedSince = -1;
        disconnectionReported = false;
    }

    private void closeFirstConsumer() {
        KafkaShareConsumer<byte[], byte[]> consumer = firstConsumer;
        firstConsumer = null;
        if (consumer != null) {
            try {
                consumer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                log.debug("{}: closing member {}'s consumer failed: {}", services.name(), index, e.toString());
            }
        }
    }

    private static String at(ShareReceiver.Delivery delivery) {
        return delivery.record().topic() + "-" + delivery.record().partition() + "@" + delivery.record().offset();
    }

    private static String messageId(TributaryMessage message) {
        String id = message.getJMSMessageID();
        return id == null ? "no JMSMessageID" : id;
    }

    @Override
    public String toString() {
        return "ShareMember[" + services.name() + ", " + index + "]";
    }
}
