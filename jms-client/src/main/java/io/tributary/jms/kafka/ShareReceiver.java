package io.tributary.jms.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.tributary.jms.message.TributaryMessage;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One receiver of a share-group queue (KIP-932): a member of the queue's share group through a
 * {@link ShareConsumer} in explicit acknowledgement mode. It decides each acquired record ({@link DeliveryDecision})
 * and settles it at the broker, one record at a time:
 * <ul>
 *   <li>delivered: handed to the caller ({@link #next}), then {@link #accept accepted} (consumed for good) or
 *       {@link #release(String) released} (redelivered, to this or another member, with the broker's delivery count
 *       raised);</li>
 *   <li>not selected by this receiver's selector (or sent by its own connection under {@code noLocal}): released at
 *       once for the other receivers (a shared subscription's consumer, whose fellows have the same selector,
 *       accepts it instead: {@link NotSelected}); after such a release the receiver fetches again only after
 *       {@link #RELEASE_BACKOFF_MS}, so that another receiver's fetch takes the record rather than this one again;</li>
 *   <li>expired: accepted without delivery (consumed, as in a consumer group);</li>
 *   <li>due later ({@code JMSDeliveryTime}): kept acquired until due, while the receiver fetches nothing else;</li>
 *   <li>unreadable, or failed again at {@link DeadLetterPolicy#maxDeliveries()}: written to the dead-letter topic
 *       ({@link DeadLetterRecord}) and accepted, or rejected (archived by the broker) without one.</li>
 * </ul>
 * A message's {@code JMSXDeliveryCount} is the broker's delivery count of its record, so it survives a crashed
 * receiver: a record whose lock expired comes to the next receiver with its count raised.
 *
 * <p>Kafka's explicit mode allows a fetch only once every record of the previous one is acknowledged: a receiver
 * holding delivered, unacknowledged messages (CLIENT_ACKNOWLEDGE, a transaction) fetches no more. {@link #next}
 * then fails with {@link IllegalStateException} rather than wait for ever; {@code max.poll.records} (a pass-through
 * consumer property) bounds how many messages one fetch, and so one unacknowledged stretch, holds.
 *
 * <p>Threads: one thread at a time, the caller's (KafkaShareConsumer is not thread-safe); {@link #close} too.
 */
public final class ShareReceiver implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShareReceiver.class);

    /**
     * How long a receiver that released records for the others waits before it fetches again. Another receiver's
     * fetch parked at the broker waits for new data at the log end, not for released records, so it comes back after
     * its {@code fetch.max.wait.ms} (100 ms for queue receivers, {@code KafkaClients}) and then finds the released
     * record; waiting twice that lets it get there first. Without the wait the releasing receiver's next fetch, sent
     * at once, acquires the record again and again until the broker archives it.
     */
    public static final long RELEASE_BACKOFF_MS = 200;

    /** How long a dead letter's write is awaited: a little more than the producer's delivery timeout (15 s). */
    private static final long DEAD_LETTER_TIMEOUT_MS = 20_000;

    /** How acknowledgements of accepted messages reach the broker. */
    public enum Durability {
        /** At once, and awaited ({@code commitSync}): AUTO and CLIENT acknowledgement, a transaction's commit. */
        SYNC,
        /** With the next fetch or {@link #flush()} (DUPS_OK: a lost acknowledgement only redelivers). */
        LAZY
    }

    /** What a receiver does with a record that its selector does not select (or, noLocal, its connection sent). */
    public enum NotSelected {
        /**
         * Released at once for the other receivers, whose selectors may differ: a queue's receivers each have their
         * own.
         */
        RELEASE,
        /**
         * Accepted without delivery, as an expired one: every consumer of a shared subscription has the
         * subscription's selector (Jakarta Messaging 3.1 §8.3: the definition is the subscription's), so none would
         * take it, and releasing it would only cost deliveries until the broker archived it.
         */
        CONSUME
    }

    /** A delivered message and the record it came from. */
    public record Delivery(ConsumerRecord<byte[], byte[]> record, TributaryMessage message) {
    }

    private record Held(ConsumerRecord<byte[], byte[]> record, long untilMillis) {
    }

    private final ShareConsumer<byte[], byte[]> consumer;
    private final DeliveryDecision decision;
    private final DeadLetterPolicy policy;
    /** Writes dead letters; null without a dead-letter topic. */
    private final Producer<byte[], byte[]> deadLetterProducer;
    private final boolean plainRecordsAsText;
    private final NotSelected notSelected;
    /** JMSDeliveryTime is compared with it, and dead letters are stamped with it. */
    private final Clock clock;
    /** "queue orders", for logs and errors. */
    private final String description;
    /** Acquired by the last fetch, not yet decided. */
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> fetched = new ArrayDeque<>();
    /** Acquired, waiting for their JMSDeliveryTime. */
    private final List<Held> held = new ArrayList<>();
    /** Delivered, neither accepted nor released yet. */
    private final List<ConsumerRecord<byte[], byte[]>> delivered = new ArrayList<>();
    /** Whether acknowledgements were made since the last fetch or commit (they are sent with either). */
    private boolean unsent;
    /** Whether records of the current fetch were released for the other receivers. */
    private boolean releasedForOthers;
    /** No fetch before this {@code nanoTime} ({@link #RELEASE_BACKOFF_MS}). */
    private long fetchNotBeforeNanos = System.nanoTime();
    private boolean closed;
    /** Records dead-lettered or rejected so far, for the caller's metrics ({@link #deadLettered()}). */
    private long deadLettered;

    /**
     * @param consumer           subscribed to the queue's topic, explicit acknowledgement
     *                           ({@link KafkaClientConfig#shareConsumer})
     * @param deadLetterProducer writes dead letters when {@code policy} names a topic, else null
     */
    public ShareReceiver(ShareConsumer<byte[], byte[]> consumer, DeliveryDecision decision, DeadLetterPolicy policy,
                         Producer<byte[], byte[]> deadLetterProducer, boolean plainRecordsAsText, Clock clock,
                         String description) {
        this(consumer, decision, policy, deadLetterProducer, plainRecordsAsText, clock, description,
                NotSelected.RELEASE);
    }

    /**
     * A receiver that does {@code notSelected} with the records its selector rejects: {@link NotSelected#RELEASE}
     * for a queue's receiver (what the other constructor makes), {@link NotSelected#CONSUME} for a shared
     * subscription's consumer.
     */
    public ShareReceiver(ShareConsumer<byte[], byte[]> consumer, DeliveryDecision decision, DeadLetterPolicy policy,
                         Producer<byte[], byte[]> deadLetterProducer, boolean plainRecordsAsText, Clock clock,
                         String description, NotSelected notSelected) {
        if (policy.topic() != null && deadLetterProducer == null) {
            throw new IllegalArgumentException("a dead-letter topic needs a producer");
        }
        this.consumer = consumer;
        this.decision = decision;
        this.policy = policy;
        this.deadLetterProducer = deadLetterProducer;
        this.plainRecordsAsText = plainRecordsAsText;
        this.clock = clock;
        this.description = description;
        this.notSelected = notSelected;
    }

    /**
     * How many brokers the share consumer is connected to now (its {@code connection-count} metric), or -1 if it
     * does not say. A share consumer's fetch returns nothing, without an error, while no broker answers; zero
     * connections for a while is how its user tells an outage from a quiet queue.
     */
    public int brokerConnections() {
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> entry
                : consumer.metrics().entrySet()) {
            if (entry.getKey().name().equals("connection-count")
                    && entry.getValue().metricValue() instanceof Number value) {
                return value.intValue();
            }
        }
        return -1;
    }

    /** The broker's delivery count of an acquired record (1 on its first delivery). */
    public static int deliveryCount(ConsumerRecord<?, ?> record) {
        Optional<Short> count = record.deliveryCount();
        return count.map(Short::intValue).orElse(1);
    }

    /**
     * The next message to deliver, fetching if nothing acquired is left, within about {@code waitMs} (0: what is
     * acquired or arrives in one short fetch); null if none. The message counts as delivered until
     * {@link #accept} or {@link #release}.
     *
     * @throws IllegalStateException if every acquired message was delivered and is not yet acknowledged, so that
     *                               Kafka allows no further fetch
     * @throws KafkaException        if the fetch fails
     */
    public Delivery next(long waitMs) {
        checkOpen();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMs));
        while (true) {
            Delivery delivery = nextAcquired();
            if (delivery != null) {
                return delivery;
            }
            if (!delivered.isEmpty()) {
                throw new IllegalStateException(description + ": the " + delivered.size() + " message(s) of the"
                        + " last fetch were all delivered and none is acknowledged yet; a share-group receiver fetches"
                        + " more only once they are (acknowledge, commit or recover first, or let one fetch hold"
                        + " more with the consumer property max.poll.records)");
            }
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (!held.isEmpty()) {
                long dueInMs = earliestDue() - clock.millis();
                if (dueInMs <= 0) {
                    releaseDue();
                    continue;
                }
                if (leftMs <= 0) {
                    return null;
                }
                pause(Math.min(leftMs, dueInMs));
                continue;
            }
            long backoffMs = TimeUnit.NANOSECONDS.toMillis(fetchNotBeforeNanos - System.nanoTime());
            if (backoffMs > 0) {
                if (leftMs <= 0) {
                    return null;
                }
                pause(Math.min(leftMs, backoffMs));
                continue;
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(Math.max(0, leftMs)))) {
                fetched.add(record);
            }
            unsent = false; // the fetch carried them
            if (fetched.isEmpty()) {
                return null;
            }
        }
    }

    /** Decides acquired records until one is to be delivered. */
    private Delivery nextAcquired() {
        ConsumerRecord<byte[], byte[]> record;
        while ((record = fetched.poll()) != null) {
            int count = deliveryCount(record);
            DeliveryDecision.Verdict verdict = decision.decide(record);
            if (verdict instanceof DeliveryDecision.Deliver deliver) {
                delivered.add(record);
                return new Delivery(record, deliver.delivery(count));
            }
            if (verdict instanceof DeliveryDecision.Hold hold) {
                held.add(new Held(record, hold.untilMillis()));
            } else if (verdict instanceof DeliveryDecision.PassOver passOver) {
                if (passOver.reason() == DeliveryDecision.Reason.EXPIRED || notSelected == NotSelected.CONSUME) {
                    acknowledge(record, AcknowledgeType.ACCEPT);
                } else {
                    releasedForOthers = true;
                    fail(record, count, "not selected by any receiver of the " + description + " within "
                            + count + " deliveries (" + passOver.reason() + ")");
                }
            } else if (verdict instanceof DeliveryDecision.Unreadable unreadable) {
                log.error("{}-{}@{} of the {} is not a readable JMS message: {}", record.topic(), record.partition(),
                        record.offset(), description, unreadable.reason());
                deadLetterOrReject(record, count, "unreadable: " + unreadable.reason());
            }
        }
        if (releasedForOthers) {
            releasedForOthers = false;
            consumer.commitAsync(); // the releases now, not with a fetch that waits for the back-off
            unsent = false;
            fetchNotBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_BACKOFF_MS);
        }
        return null;
    }

    private long earliestDue() {
        long due = Long.MAX_VALUE;
        for (Held entry : held) {
            due = Math.min(due, entry.untilMillis());
        }
        return due;
    }

    private void releaseDue() {
        long now = clock.millis();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held entry = it.next();
            if (entry.untilMillis() <= now) {
                fetched.add(entry.record());
                it.remove();
            }
        }
    }

    /** Whether messages were delivered and not yet accepted or released. */
    public boolean hasDelivered() {
        return !delivered.isEmpty();
    }

    /**
     * Accepts every delivered message: consumed for good once the broker has the acknowledgement, which
     * {@link Durability#SYNC} awaits.
     *
     * @throws KafkaException if the broker refused an acknowledgement (the record's lock expired and it went to
     *                        another receiver, which then delivers it again)
     */
    public void accept(Durability durability) {
        checkOpen();
        for (ConsumerRecord<byte[], byte[]> record : delivered) {
            acknowledge(record, AcknowledgeType.ACCEPT);
        }
        delivered.clear();
        if (durability == Durability.SYNC) {
            commit();
        }
    }

    /**
     * Releases every delivered message for redelivery (recover, rollback, a listener that threw), awaited; a message
     * delivered {@link DeadLetterPolicy#maxDeliveries()} times is dead-lettered or rejected instead.
     *
     * @param reason why, for a dead letter
     */
    public void release(String reason) {
        checkOpen();
        for (ConsumerRecord<byte[], byte[]> record : delivered) {
            fail(record, deliveryCount(record), reason);
        }
        delivered.clear();
        commit();
    }

    /** Sends acknowledgements not sent yet (DUPS_OK's, when no fetch follows), without waiting. */
    public void flush() {
        if (!closed && unsent) {
            consumer.commitAsync();
            unsent = false;
        }
    }

    /** A message that failed on its {@code count}-th delivery: released, or at the limit dead-lettered. */
    private void fail(ConsumerRecord<byte[], byte[]> record, int count, String reason) {
        if (policy.exhausted(count)) {
            deadLetterOrReject(record, count, reason);
        } else {
            acknowledge(record, AcknowledgeType.RELEASE);
        }
    }

    /**
     * Writes the dead letter and accepts the record once the cluster has it, or rejects the record without a
     * dead-letter topic. A dead letter that could not be written leaves the record released, to be tried again.
     */
    private void deadLetterOrReject(ConsumerRecord<byte[], byte[]> record, int count, String reason) {
        String at = record.topic() + "-" + record.partition() + "@" + record.offset();
        if (policy.topic() == null) {
            log.warn("{} of the {} failed on delivery {} and is rejected (no deadLetterQueue configured): {}", at,
                    description, count, reason);
            acknowledge(record, AcknowledgeType.REJECT);
            deadLettered++;
            return;
        }
        try {
            deadLetterProducer.send(DeadLetterRecord.of(policy.topic(), record, reason, count, null, clock.millis(),
                    plainRecordsAsText)).get(DEAD_LETTER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            log.warn("{} of the {} failed on delivery {} and went to dead-letter queue {}: {}", at, description,
                    count, policy.topic(), reason);
            acknowledge(record, AcknowledgeType.ACCEPT);
            deadLettered++;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            acknowledge(record, AcknowledgeType.RELEASE);
        } catch (Exception e) {
            log.error("{} of the {} could not be written to dead-letter queue {}; released to be tried again: {}",
                    at, description, policy.topic(), e.toString());
            acknowledge(record, AcknowledgeType.RELEASE);
        }
    }

    /**
     * How many records this receiver has written to the dead-letter topic, or rejected without one, since it was
     * made: unreadable ones, and ones that failed at their last delivery.
     */
    public long deadLettered() {
        return deadLettered;
    }

    private void acknowledge(ConsumerRecord<byte[], byte[]> record, AcknowledgeType type) {
        consumer.acknowledge(record, type);
        unsent = true;
    }

    /** Sends the acknowledgements made and waits for the broker's answer. */
    private void commit() {
        if (!unsent) {
            return;
        }
        Map<TopicIdPartition, Optional<KafkaException>> results = consumer.commitSync();
        unsent = false;
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> result : results.entrySet()) {
            if (result.getValue().isPresent()) {
                KafkaException cause = result.getValue().get();
                throw new KafkaException("Acknowledging messages of " + result.getKey().topicPartition() + " of the "
                        + description + " failed: " + cause.getMessage(), cause);
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("The receiver of the " + description + " is closed");
        }
    }

    /**
     * Leaves the share group: acknowledgements made are sent, every record still acquired (delivered or not) is
     * released for the other receivers. Idempotent.
     */
    public void close(Duration timeout) {
        if (closed) {
            return;
        }
        closed = true;
        consumer.close(timeout);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
