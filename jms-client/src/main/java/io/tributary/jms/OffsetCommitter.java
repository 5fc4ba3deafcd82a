package io.tributary.jms;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;

import io.tributary.jms.kafka.Subscription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acknowledgement as one consumer commits it, in the way of each session mode: CLIENT_ACKNOWLEDGE commits
 * synchronously ({@link #acknowledgeDelivered(boolean)}), and so does a transacted session whose transaction
 * commits only the offsets of one group; otherwise a transacted session's offsets go into its Kafka transaction
 * ({@link #transactionOffsets()}); DUPS_OK commits in batches without waiting
 * ({@link #acknowledgeLazily()}); AUTO_ACKNOWLEDGE is pipelined ({@link #acknowledgePipelined}, then
 * {@link #awaitPipelinedCommit()} before the session's next hand-over). What is committed are the delivered
 * positions of the {@link AcknowledgementTracker}, as Kafka offset commits of the subscription's group; a consumer
 * without a group (a non-durable topic subscriber) commits nothing and only marks its deliveries acknowledged.
 *
 * <p>AUTO_ACKNOWLEDGE is pipelined: when a message has been handed over, the commit of its position is sent without
 * waiting, and the session waits for it before any of its consumers hands over the next message. The commit's round
 * trip so overlaps the application's work on the message, and a crash can redeliver only the last message handed
 * over, as Jakarta Messaging 3.1 §6.2.10 ("Duplicate delivery of messages") allows: "Only a session's last consumed
 * message is subject to this ambiguity." When the next record is already buffered (the consumer is behind) and there
 * is no application work to overlap (a listener has returned, or the caller of receive came back sooner than a commit
 * takes), the commit is made at once instead, which is cheaper than the pipelined wait ({@link AutoCommitChoice}).
 *
 * <p>Threads: every method takes the consumer's Kafka lock, which also guards every field here; a commit's callback
 * runs inside a call on the Kafka consumer, so under that lock too.
 */
final class OffsetCommitter {

    private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);
    /** The first poll of {@link #awaitCallback}; the next ones double up to {@link #MAX_AWAIT_SLICE_NANOS}. */
    private static final long FIRST_AWAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The consumer's poll slice. */
    private static final long MAX_AWAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * DUPS_OK commits once this many deliveries or this much time accumulated, or when a poll finds nothing new.
     * Not whenever the fetched records run out: a consumer that keeps up with its producer would then commit after
     * almost every message, a request per message, which is what DUPS_OK is there to save.
     */
    private static final int LAZY_COMMIT_MESSAGES = 100;
    private static final long LAZY_COMMIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the next delivery waits for the pipelined AUTO commit of the previous one (the Kafka default). */
    private static final long PIPELINED_COMMIT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final KafkaConsumer<byte[], byte[]> kafka;
    /** The consumer's lock over {@link #kafka} and over this object's state. */
    private final ReentrantLock kafkaLock;
    private final Subscription subscription;
    private final Destination destination;
    private final AcknowledgementTracker tracker;
    /** Partitions paused for a delivery time: not resumed after the pipelined wait. */
    private final DeliveryHold hold;
    /** Whether the consumer is closed (its volatile flag, set under the Kafka lock): then nothing is committed. */
    private final BooleanSupplier closed;
    /** Told when the pipelined wait polled the Kafka consumer (the consumer's keep-alive then need not). */
    private final Runnable polled;

    /** DUPS_OK: deliveries since the last commit, and when that commit was. */
    private int uncommittedDeliveries;
    private long lastCommitNanos = System.nanoTime();
    /** AUTO: the commit sent for the last delivery and not yet seen complete, or null. */
    private PipelinedCommit pipelinedCommit;
    /** AUTO: whether {@link #acknowledgePipelined} commits at once. */
    private final AutoCommitChoice commitChoice = new AutoCommitChoice();

    OffsetCommitter(KafkaConsumer<byte[], byte[]> kafka, ReentrantLock kafkaLock, Subscription subscription,
                    Destination destination, AcknowledgementTracker tracker, DeliveryHold hold,
                    BooleanSupplier closed, Runnable polled) {
        this.kafka = kafka;
        this.kafkaLock = kafkaLock;
        this.subscription = subscription;
        this.destination = destination;
        this.tracker = tracker;
        this.hold = hold;
        this.closed = closed;
        this.polled = polled;
    }

    /** A receive call began at {@code nowNanos}: the time since the last hand-over was the caller's. */
    void receiveCalled(long nowNanos) {
        commitChoice.receiveCalled(nowNanos); // racy only for a misused consumer; a hint
    }

    /** DUPS_OK: whether deliveries wait for their lazy commit. */
    boolean hasUncommittedDeliveries() {
        kafkaLock.lock();
        try {
            return uncommittedDeliveries > 0;
        } finally {
            kafkaLock.unlock();
        }
    }

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
            if (subscription.groupId() != null && !closed.getAsBoolean()) {
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
            tracker.markAcknowledged(commit);
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * A transacted session's commit, first step: the delivered positions to commit in the Kafka transaction, with
     * the group metadata the transaction's offset commit must carry (KIP-447: the group coordinator refuses it if
     * this member has since lost its partitions); null when nothing was delivered since the last commit. Nothing
     * counts as acknowledged until {@link #transactionCommitted}.
     */
    TransactionOffsets transactionOffsets() throws JMSException {
        kafkaLock.lock();
        try {
            Map<TopicPartition, OffsetAndMetadata> positions = unacknowledgedPositions();
            if (positions.isEmpty()) {
                return null;
            }
            ConsumerGroupMetadata group = null;
            if (subscription.groupId() != null) {
                try {
                    group = kafka.groupMetadata();
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Committing the messages received from " + destination, e);
                }
            }
            return new TransactionOffsets(positions, group);
        } finally {
            kafkaLock.unlock();
        }
    }

    /** The transaction that committed {@code offsets} ({@link #transactionOffsets}) is committed. */
    void transactionCommitted(TransactionOffsets offsets) {
        kafkaLock.lock();
        try {
            tracker.markAcknowledged(offsets.positions());
        } finally {
            kafkaLock.unlock();
        }
    }

    /**
     * What one consumer commits in a transaction: its delivered positions and, for a group-backed subscription, the
     * group metadata of its Kafka consumer (null without a group: then nothing is committed to the cluster).
     */
    record TransactionOffsets(Map<TopicPartition, OffsetAndMetadata> positions, ConsumerGroupMetadata group) {
    }

    /**
     * AUTO_ACKNOWLEDGE after a message was handed over to {@code recipient}: sends the commit of the delivered
     * positions without waiting for it, or, when the next record is already buffered ({@code nextBuffered}) and the
     * application's work would not hide the round trip, commits at once. Returns whether a commit is now in flight
     * or done with an outcome still to check, which {@link #awaitPipelinedCommit()} must see complete before the
     * session hands over another message. The messages count as acknowledged at once (§6.2.10: when receive
     * returned or the listener returned), so that {@code recover()} does not deliver them again.
     */
    boolean acknowledgePipelined(boolean nextBuffered, AutoCommitChoice.Recipient recipient) throws JMSException {
        kafkaLock.lock();
        try {
            Map<TopicPartition, OffsetAndMetadata> commit = unacknowledgedPositions();
            if (commit.isEmpty()) {
                return false;
            }
            boolean sent = false;
            if (subscription.groupId() != null && !closed.getAsBoolean()
                    && commitChoice.commitAtOnce(nextBuffered, recipient)) {
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
                tracker.markAcknowledged(commit);
                return true;
            }
            if (subscription.groupId() != null && !closed.getAsBoolean()) {
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
            tracker.markAcknowledged(commit);
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
            if (closed.getAsBoolean()) {
                return; // the consumer's close committed synchronously, which waited for this commit first
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
                    polled.run();
                } catch (WakeupException e) {
                    pending.wakeupPending = false;
                }
                sliceNanos = Math.min(2 * sliceNanos, MAX_AWAIT_SLICE_NANOS);
            }
        } finally {
            pending.wakeOnCompletion = false;
            consumeWakeup(pending);
            kafka.resume(hold.toResume(kafka.assignment(), pausedBefore));
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

    /** The tracker's unacknowledged positions, about to be committed: the DUPS_OK batch starts again. */
    private Map<TopicPartition, OffsetAndMetadata> unacknowledgedPositions() {
        Map<TopicPartition, OffsetAndMetadata> commit = tracker.unacknowledgedPositions();
        uncommittedDeliveries = 0;
        lastCommitNanos = System.nanoTime();
        return commit;
    }

    /**
     * One asynchronous AUTO commit: its offsets and, once the Kafka consumer called back, its outcome. The callback
     * runs on the thread inside a call on the Kafka consumer, under the Kafka lock, as every read here does.
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
}
