package io.tributary.ra.inbound;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.tributary.jms.DeliveryXAResource;
import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.message.TributaryMessage;
import jakarta.jms.JMSException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery of one partition's records to the endpoint, in offset order: the records the fetcher has read and not
 * yet delivered, the position up to which delivery is done, and the redelivery state of the record at the head.
 *
 * <p>For each record, the provider's {@link DeliveryDecision}: one whose {@code JMSDeliveryTime} is still ahead holds
 * the partition until then (order is kept, as the JMS provider does); an expired message or one the selector does not
 * select is passed over (consumed without delivery); otherwise it is delivered ({@link EndpointInvoker}) with
 * {@code JMSXDeliveryCount} = failed deliveries + 1 and {@code JMSRedelivered} when that is above 1. A failed
 * delivery is repeated on a fresh endpoint after {@code redeliveryDelay} (the partition parked meanwhile, so a stop
 * in between leaves the record undelivered for the next activation), up to {@code maxRedeliveries} times; then the
 * record goes to the dead-letter topic, or is logged and skipped when there is none. A record that is not a readable
 * JMS message goes there directly. Only then does the position move past it. Waiting (an endpoint the container
 * cannot create yet, a dead-letter topic that cannot be written, a redelivery delay) never holds a thread: the
 * partition is parked until a time, and the fetcher offers it again when the time has come.
 *
 * <p>Threads: the fetcher {@linkplain #enqueue enqueues}, {@linkplain #claimForDispatch claims},
 * {@linkplain #closeAndAwait closes} and reads {@link #deliveredOffset()}; one delivery Work at a time runs
 * {@link #deliver}. The queue and the flags are guarded by {@code lock}; the head's redelivery state and the endpoint
 * belong to the running Work and pass from one Work to the next through the lock; {@code deliveredOffset} is written
 * by the running Work only.
 */
final class PartitionDelivery {

    private static final Logger log = LoggerFactory.getLogger(PartitionDelivery.class);

    /**
     * Messages a run delivers before it yields to partitions waiting for a slot: enough that scheduling costs little
     * next to delivering, few enough that a waiting partition is not starved.
     */
    static final int FAIR_SHARE = 100;

    private static final long UNEXPECTED_RETRY_MS = 5_000;

    /** What the activation's partitions share. */
    record Services(ActivationConfig config, DeliveryDecision decision, MessageEndpointFactory endpoints,
                    EndpointInvoker invoker, DeadLetters deadLetters, Availability endpointAvailability,
                    Availability deadLetterAvailability, LongSupplier nanoClock, XaDelivery xa,
                    ActivationStatistics statistics) {
    }

    private enum Step { NEXT, AGAIN, PARK }

    private final TopicPartition partition;
    private final Services services;
    private final ActivationConfig config;

    private final Object lock = new Object();
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>(); // guarded by lock
    private boolean scheduled; // guarded by lock: offered to the scheduler, or running
    private boolean delivering; // guarded by lock: a run is inside deliver()
    private boolean closed; // guarded by lock: revoked or stopping; nothing more is delivered
    private boolean parked; // guarded by lock
    private long parkedUntilNanos; // guarded by lock

    /** The offset after the last record done with (delivered, passed over or dead-lettered); -1 before any. */
    private volatile long deliveredOffset = -1;

    // Owned by the running Work.
    private int failures;
    private String deadLetterReason;
    private MessageEndpoint endpoint;
    /** The XAResource {@link #endpoint} was created with (transacted XA delivery), or null. */
    private DeliveryXAResource endpointXa;
    private final Backoff endpointBackoff = Backoff.forEndpoint();
    private final Backoff deadLetterBackoff = Backoff.forCluster();

    PartitionDelivery(TopicPartition partition, Services services) {
        this.partition = partition;
        this.services = services;
        this.config = services.config();
    }

    TopicPartition partition() {
        return partition;
    }

    long deliveredOffset() {
        return deliveredOffset;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetcher side

    /** Appends fetched records (in offset order); ignored once closed. */
    void enqueue(List<ConsumerRecord<byte[], byte[]>> records) {
        synchronized (lock) {
            if (!closed) {
                pending.addAll(records);
            }
        }
    }

    /** Records waiting, for flow control. */
    int backlog() {
        synchronized (lock) {
            return pending.size();
        }
    }

    /**
     * Whether the partition should be offered to the scheduler now: it has records, no run is scheduled and it is not
     * parked until later. True marks it scheduled, so it is offered once.
     */
    boolean claimForDispatch(long nowNanos) {
        synchronized (lock) {
            if (scheduled || closed || pending.isEmpty()) {
                return false;
            }
            if (parked) {
                if (nowNanos - parkedUntilNanos < 0) {
                    return false;
                }
                parked = false;
            }
            scheduled = true;
            return true;
        }
    }

    /** The container refused the run: try again after {@code delayMs}. */
    void rejected(long delayMs) {
        synchronized (lock) {
            scheduled = false;
            parkLocked(delayMs);
        }
    }

    /**
     * Stops delivery: drops the records not delivered and waits up to {@code timeoutMs} for the message in flight.
     * Afterwards {@link #deliveredOffset()} is final, unless this returns false (the in-flight message outlived the
     * wait; its outcome is then not counted and it will be delivered again).
     */
    boolean closeAndAwait(long timeoutMs) {
        synchronized (lock) {
            close();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (delivering) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** Closes without waiting (a stop closes every partition first, then waits for each). */
    void close() {
        synchronized (lock) {
            closed = true;
            pending.clear();
        }
    }

    /**
     * Whether every record fetched so far was delivered: none waits and none is in flight. The fetcher's position
     * is then where delivery is done, past any transaction markers after the last record.
     */
    boolean drained() {
        synchronized (lock) {
            return !closed && !delivering && pending.isEmpty();
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Delivery side

    /**
     * One run: delivers records from the head until there are none, the partition is closed or parked, the container
     * asks the work to end ({@code released}), or its share is done while others wait. Always tells the scheduler
     * it finished.
     */
    void deliver(BooleanSupplier released, DeliveryScheduler scheduler) {
        synchronized (lock) {
            delivering = true;
        }
        boolean again = false;
        try {
            again = deliverRun(released, scheduler);
        } catch (RuntimeException e) {
            // A defect, not a delivery failure (those never throw): keep the record, retry later, do not spin.
            log.error("Delivering {} failed unexpectedly; retrying in {} ms", partition, UNEXPECTED_RETRY_MS, e);
            park(UNEXPECTED_RETRY_MS);
        } finally {
            releaseEndpoint();
            synchronized (lock) {
                delivering = false;
                if (!again) {
                    scheduled = false;
                }
                lock.notifyAll();
            }
            scheduler.finished(this, again);
        }
    }

    /** Returns true when it yielded to waiting partitions with records left. */
    private boolean deliverRun(BooleanSupplier released, DeliveryScheduler scheduler) {
        int done = 0;
        while (true) {
            ConsumerRecord<byte[], byte[]> record;
            synchronized (lock) {
                record = closed ? null : pending.peekFirst();
            }
            if (record == null || released.getAsBoolean()) {
                return false;
            }
            if (done >= FAIR_SHARE && scheduler.othersWaiting()) {
                return true;
            }
            switch (deliverHead(record, released)) {
                case NEXT -> {
                    synchronized (lock) {
                        pending.pollFirst();
                        deliveredOffset = record.offset() + 1;
                    }
                    done++;
                }
                case AGAIN -> {
                    // The same record once more.
                }
                case PARK -> {
                    return false;
                }
            }
        }
    }

    private Step deliverHead(ConsumerRecord<byte[], byte[]> record, BooleanSupplier released) {
        if (deadLetterReason != null) {
            return deadLetter(record, deadLetterReason, failures, released); // writing it failed before: retry
        }
        DeliveryDecision.Verdict verdict = services.decision().decide(record);
        if (verdict instanceof DeliveryDecision.Unreadable unreadable) {
            return deadLetter(record, "unreadable record: " + unreadable.reason(), 0, released);
        }
        if (verdict instanceof DeliveryDecision.Hold hold) {
            // Withheld until its JMSDeliveryTime (a delivery delay); the partition waits behind it, in order.
            return park(hold.delayMillis());
        }
        if (!(verdict instanceof DeliveryDecision.Deliver deliver)) {
            return Step.NEXT; // passed over: expired, or not selected
        }
        TributaryMessage message = deliver.delivery(failures + 1);

        MessageEndpoint target = endpoint();
        if (target == null) {
            return park(endpointBackoff.nextDelayMillis());
        }
        if (endpointXa != null) {
            endpointXa.delivering(partition, record.offset(), services.xa().groupMetadata());
        }
        EndpointInvoker.Outcome outcome = services.invoker().deliver(target, message);
        switch (outcome.kind()) {
            case DELIVERED -> {
                failures = 0;
                endpointBackoff.reset();
                return Step.NEXT;
            }
            case NOT_DELIVERED -> {
                releaseEndpoint();
                long delay = endpointBackoff.nextDelayMillis();
                services.endpointAvailability().failed("delivering", outcome.cause(), "retrying in " + delay
                        + " ms");
                return park(delay);
            }
            default -> {
                // A fresh endpoint for the next attempt: after a system exception the container discards the bean.
                releaseEndpoint();
                endpointBackoff.reset();
                failures++;
                if (failures > config.maxRedeliveries()) {
                    return deadLetter(record, outcome.reason(), failures, released);
                }
                log.warn("Delivery {} of {}@{} ({}) failed: {}; delivering it again in {} ms", failures, partition,
                        record.offset(), messageId(message), outcome.reason(), config.redeliveryDelayMs());
                return config.redeliveryDelayMs() == 0 ? Step.AGAIN : park(config.redeliveryDelayMs());
            }
        }
    }

    /** Sends the record to the dead-letter topic (or logs and skips it without one). */
    private Step deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, int deliveries,
                            BooleanSupplier released) {
        DeadLetters deadLetters = services.deadLetters();
        if (deadLetters == null) {
            log.error("Skipping {}@{} after {} deliveries: {}. No deadLetterDestination is set; replay it with"
                    + " startAt={}:{}", partition, record.offset(), deliveries, reason, partition.partition(),
                    record.offset());
            services.statistics().deadLettered(1);
            failures = 0;
            return Step.NEXT;
        }
        deadLetterReason = reason;
        try {
            deadLetters.send(record, reason, deliveries, () -> released.getAsBoolean() || isClosed());
        } catch (Exception e) {
            if (isClosed() || released.getAsBoolean()) {
                return Step.PARK; // stopping: the record stays undelivered and comes again later
            }
            long delay = deadLetterBackoff.nextDelayMillis();
            services.deadLetterAvailability().failed("writing to dead-letter topic " + deadLetters.topic(), e,
                    "retrying in " + delay + " ms");
            return park(delay);
        }
        services.deadLetterAvailability().succeeded("writing to dead-letter topic " + deadLetters.topic());
        deadLetterBackoff.reset();
        log.warn("{}@{} sent to dead-letter topic {} after {} deliveries: {}", partition, record.offset(),
                deadLetters.topic(), deliveries, reason);
        services.statistics().deadLettered(1);
        deadLetterReason = null;
        failures = 0;
        return Step.NEXT;
    }

    /** The endpoint for this run, created on first use; null when the container cannot create one now. */
    private MessageEndpoint endpoint() {
        if (endpoint != null) {
            return endpoint;
        }
        DeliveryXAResource xa;
        try {
            xa = services.xa() == null ? null : services.xa().newResource();
        } catch (JMSException | RuntimeException e) {
            services.endpointAvailability().failed("creating an endpoint", e, "retrying with back-off");
            return null;
        }
        MessageEndpoint created = EndpointInvoker.createEndpoint(services.endpoints(), xa,
                services.endpointAvailability());
        if (created != null) {
            endpoint = created;
            endpointXa = xa;
        }
        return created;
    }

    private void releaseEndpoint() {
        if (endpoint != null) {
            MessageEndpoint toRelease = endpoint;
            endpoint = null;
            endpointXa = null;
            try {
                toRelease.release();
            } catch (RuntimeException e) {
                log.warn("Releasing the endpoint of {} failed: {}", partition, e.toString());
            }
        }
    }

    private Step park(long delayMs) {
        synchronized (lock) {
            parkLocked(delayMs);
        }
        return Step.PARK;
    }

    private void parkLocked(long delayMs) {
        parked = true;
        parkedUntilNanos = services.nanoClock().getAsLong() + TimeUnit.MILLISECONDS.toNanos(delayMs);
    }

    private static String messageId(TributaryMessage message) {
        String id = message.getJMSMessageID();
        return id == null ? "no JMSMessageID" : id;
    }

    @Override
    public String toString() {
        return "PartitionDelivery[" + partition + ", delivered up to " + deliveredOffset + "]";
    }
}
