package io.tributary.ra.inbound;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.tributary.jms.kafka.ReplaySeeker;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions a {@link RecordFetcher} holds and where each stands: a {@link PartitionDelivery} per partition, the
 * committed (or starting) offset of each, the delivered-but-uncommitted offsets of partitions let go, the partitions
 * whose fetching is paused, and those {@code startAt} has moved. It decides what to commit (never beyond what was
 * delivered), where a partition taken starts (the start position once, a remembered delivered offset, the committed
 * offset, or the end of the log pinned by a commit) and what happens to a partition let go (its in-flight message
 * finishes, what was delivered is committed or remembered for when it comes back).
 *
 * <p>Threads: the fetcher thread only, inside {@code poll} for rebalances; the consumer is passed in by the fetcher,
 * which owns it and replaces it after a failure.
 */
final class HeldPartitions {

    private static final Logger log = LoggerFactory.getLogger(HeldPartitions.class);

    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration FINAL_COMMIT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);
    /** How long a rebalance waits for the message in flight on a partition taken away (its bean may be slow). */
    private static final long IN_FLIGHT_WAIT_MS = 30_000;
    /**
     * Records queued for one partition before fetching it pauses, and the level at which it resumes: at most about two
     * polls' worth (max.poll.records 500) per partition in memory, while a partition never runs dry between polls.
     */
    private static final int PAUSE_BACKLOG = 1_000;
    private static final int RESUME_BACKLOG = 250;

    private final ActivationConfig config;
    private final String name;
    private final Function<TopicPartition, PartitionDelivery> deliveries;
    private final Availability cluster;
    private final BooleanSupplier stopping;
    /** Called when the cluster answered: a commit or an assignment went through. */
    private final Runnable contact;
    /** The metadata of every commit: the durable subscription's definition, or empty. */
    private final String offsetMetadata;

    private final Map<TopicPartition, PartitionDelivery> partitions = new HashMap<>();
    /** The committed (or starting) offset of each partition held. */
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    /** Where delivery resumes for partitions no longer held: delivered, but not committed. */
    private final Map<TopicPartition, Long> resumeAt = new HashMap<>();
    private final Set<TopicPartition> paused = new HashSet<>();
    /** Partitions that startAt has moved in this activation. */
    private final Set<TopicPartition> replayed = new HashSet<>();
    private boolean asyncCommitInFlight;

    /**
     * @param deliveries creates the delivery of a partition when it is taken
     * @param cluster    the fetcher's record of whether the cluster works
     * @param stopping   whether the activation is stopping (the last commits then have a shorter timeout)
     * @param contact    tells the fetcher that the cluster answered
     */
    HeldPartitions(ActivationConfig config, String name, Function<TopicPartition, PartitionDelivery> deliveries,
                   Availability cluster, BooleanSupplier stopping, Runnable contact) {
        this.config = config;
        this.name = name;
        this.deliveries = deliveries;
        this.cluster = cluster;
        this.stopping = stopping;
        this.contact = contact;
        this.offsetMetadata = config.subscription().offsetMetadata();
    }

    /** Hands each partition's records to its delivery. */
    void enqueue(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            PartitionDelivery delivery = partitions.get(tp);
            if (delivery != null) {
                delivery.enqueue(records.records(tp));
            }
        }
    }

    /** Offers the partitions that have records to deliver, and are not parked or running, to the scheduler. */
    void dispatch(long nowNanos, DeliveryScheduler scheduler) {
        for (PartitionDelivery delivery : partitions.values()) {
            if (delivery.claimForDispatch(nowNanos)) {
                scheduler.offer(delivery);
            }
        }
    }

    /** Closes every delivery at once (their in-flight messages finish); the end of the activation. */
    void closeDeliveries() {
        for (PartitionDelivery delivery : partitions.values()) {
            delivery.close();
        }
    }

    /** Logs offsets delivered but never committed: their messages will be delivered again. */
    void warnUncommitted() {
        if (config.subscription().hasGroup() && !resumeAt.isEmpty()) {
            log.warn("{}: offsets {} were delivered but not committed; those messages will be delivered again",
                    name, resumeAt);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Taking partitions

    /** The listener of a group subscription of {@code consumer}: partitions come and go inside its poll. */
    ConsumerRebalanceListener rebalanceListener(KafkaConsumer<byte[], byte[]> consumer) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                letGo(consumer, revoked, true);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> lost) {
                letGo(consumer, lost, false);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                take(consumer, assigned);
            }
        };
    }

    /**
     * Assigns every partition of the topic without a group: from where delivery was on a consumer that was restarted,
     * else from the end of the log (or the start position, once). False, after logging, when the positions cannot be
     * fixed in time.
     */
    boolean assignAll(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> all) {
        consumer.assign(all);
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : all) {
            Long resume = resumeAt.get(tp);
            if (resume != null) {
                consumer.seek(tp, resume); // the consumer was restarted: continue where delivery was
            } else {
                fresh.add(tp);
            }
        }
        if (!fresh.isEmpty()) {
            consumer.seekToEnd(fresh);
            List<TopicPartition> notReplayed = new ArrayList<>(fresh);
            notReplayed.removeAll(replayed);
            replayed.addAll(seekToStartPosition(consumer, notReplayed));
        }
        Map<TopicPartition, Long> starts = new HashMap<>();
        try {
            for (TopicPartition tp : all) {
                // Fixes "the end of the log" now, not at the first fetch.
                starts.put(tp, consumer.position(tp, METADATA_TIMEOUT));
            }
        } catch (TimeoutException e) {
            cluster.failed("positioning on topic " + config.topic(), e, "retrying with back-off");
            return false;
        }
        for (TopicPartition tp : all) {
            resumeAt.remove(tp);
            committed.put(tp, starts.get(tp)); // no commits without a group: where delivery started
            partitions.put(tp, deliveries.apply(tp));
        }
        return true;
    }

    /** Creates the deliveries of assigned partitions and fixes where each starts. */
    private void take(KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> assigned) {
        if (assigned.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> current = consumer.committed(new HashSet<>(assigned),
                METADATA_TIMEOUT);
        List<TopicPartition> toReplay = new ArrayList<>(assigned);
        toReplay.removeAll(replayed);
        List<TopicPartition> moved = seekToStartPosition(consumer, toReplay);
        replayed.addAll(toReplay);
        Map<TopicPartition, OffsetAndMetadata> fix = new HashMap<>();
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata done = current.get(tp);
            Long resume = resumeAt.remove(tp);
            long start;
            if (moved.contains(tp)) {
                start = consumer.position(tp, METADATA_TIMEOUT);
                fix.put(tp, new OffsetAndMetadata(start, offsetMetadata));
            } else if (resume != null && (done == null || resume > done.offset())) {
                consumer.seek(tp, resume);
                start = resume;
                fix.put(tp, new OffsetAndMetadata(start, offsetMetadata));
            } else if (done == null) {
                // A new subscription starts now: pin it, or what is sent before the first delivery is lost to it.
                start = consumer.position(tp, METADATA_TIMEOUT);
                fix.put(tp, new OffsetAndMetadata(start, offsetMetadata));
            } else {
                start = done.offset();
            }
            committed.put(tp, start);
            partitions.put(tp, deliveries.apply(tp));
        }
        if (!fix.isEmpty()) {
            consumer.commitSync(fix, COMMIT_TIMEOUT);
        }
        contact.run();
        log.debug("{}: assigned {}, starting at {}", name, assigned, committed);
    }

    /**
     * Moves {@code candidates} to the start position (a replay); returns the partitions it moved. A partition the
     * position does not name ({@code partition:offset} pairs) is not moved.
     */
    private List<TopicPartition> seekToStartPosition(KafkaConsumer<byte[], byte[]> consumer,
                                                     Collection<TopicPartition> candidates) {
        return ReplaySeeker.seek(consumer, config.startAt(), candidates, METADATA_TIMEOUT);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetching and committing

    /** Pauses fetching for partitions with a large backlog, resumes it when they have caught up. */
    void flowControl(KafkaConsumer<byte[], byte[]> consumer) {
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        for (Map.Entry<TopicPartition, PartitionDelivery> entry : partitions.entrySet()) {
            int backlog = entry.getValue().backlog();
            if (backlog >= PAUSE_BACKLOG && paused.add(entry.getKey())) {
                pause.add(entry.getKey());
            } else if (backlog <= RESUME_BACKLOG && paused.remove(entry.getKey())) {
                resume.add(entry.getKey());
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    /** Commits the offsets up to which delivery is done, where they moved since the last commit. */
    void commit(KafkaConsumer<byte[], byte[]> consumer) {
        if (!config.subscription().hasGroup()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, PartitionDelivery> entry : partitions.entrySet()) {
            long delivered = doneOffset(consumer, entry.getKey(), entry.getValue());
            Long done = committed.get(entry.getKey());
            if (delivered >= 0 && (done == null || delivered > done)) {
                offsets.put(entry.getKey(), new OffsetAndMetadata(delivered, offsetMetadata));
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (config.acknowledgeMode() == ActivationConfig.AcknowledgeMode.DUPS_OK) {
            if (asyncCommitInFlight) {
                return;
            }
            asyncCommitInFlight = true;
            consumer.commitAsync(offsets, (done, failure) -> {
                asyncCommitInFlight = false;
                if (failure == null) {
                    committedUpTo(done);
                } else {
                    cluster.failed("committing offsets", failure, "retrying");
                }
            });
            return;
        }
        try {
            consumer.commitSync(offsets, COMMIT_TIMEOUT);
            committedUpTo(offsets);
        } catch (RebalanceInProgressException | CommitFailedException e) {
            // The group is rebalancing: the revocation commits what this member still may.
            log.debug("{}: commit deferred to the rebalance: {}", name, e.toString());
        } catch (RetriableException e) { // the coordinator is away, or the commit timed out
            cluster.failed("committing offsets", e, "retrying");
        }
    }

    /**
     * The offset up to which delivery of {@code tp} is done: the delivered offset or, once everything fetched was
     * delivered, the fetch position, so that the commit passes the transaction markers a log may end with (and the
     * group shows no lag). -1 while nothing was delivered.
     */
    private static long doneOffset(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp,
                                   PartitionDelivery delivery) {
        long delivered = delivery.deliveredOffset();
        if (delivered < 0 || !delivery.drained()) {
            return delivered;
        }
        return Math.max(delivered, consumer.position(tp, METADATA_TIMEOUT));
    }

    /** Called on the fetcher thread (commitSync, or commitAsync's callback inside poll). */
    private void committedUpTo(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
            if (partitions.containsKey(entry.getKey())) {
                committed.merge(entry.getKey(), entry.getValue().offset(), Math::max);
            }
        }
        contact.run();
    }

    /** A new consumer has no commit in flight. */
    void consumerClosed() {
        asyncCommitInFlight = false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Letting partitions go

    /** Lets go of every partition held, committing what was delivered ({@link #letGo}). */
    void letGoAll(KafkaConsumer<byte[], byte[]> consumer) {
        letGo(consumer, new ArrayList<>(partitions.keySet()), true);
    }

    /**
     * Stops delivery of {@code taken} (their in-flight messages finish) and commits what was delivered on them
     * ({@code commit}), or remembers it for when they come back.
     */
    private void letGo(KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> taken, boolean commit) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        List<PartitionDelivery> closing = new ArrayList<>();
        for (TopicPartition tp : taken) {
            PartitionDelivery delivery = partitions.get(tp);
            if (delivery != null) {
                delivery.close();
                closing.add(delivery);
            }
        }
        for (PartitionDelivery delivery : closing) {
            TopicPartition tp = delivery.partition();
            if (!delivery.closeAndAwait(IN_FLIGHT_WAIT_MS)) {
                log.warn("{}: the message in flight on {} was still being delivered after {} ms; it will be"
                        + " delivered again", name, tp, IN_FLIGHT_WAIT_MS);
            }
            partitions.remove(tp);
            paused.remove(tp);
            Long done = committed.remove(tp);
            long delivered = delivery.deliveredOffset();
            if (delivered >= 0 && (done == null || delivered > done)) {
                offsets.put(tp, new OffsetAndMetadata(delivered, offsetMetadata));
            } else if (!config.subscription().hasGroup() && done != null) {
                resumeAt.put(tp, done); // nothing delivered yet: a restarted consumer starts where this one did
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (commit && config.subscription().hasGroup()) {
            try {
                commitDespiteWakeup(consumer, offsets);
                return;
            } catch (RuntimeException e) {
                log.warn("{}: committing {} failed ({}); delivery resumes there if the partitions come back", name,
                        offsets, e.toString());
            }
        }
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
            resumeAt.put(entry.getKey(), entry.getValue().offset());
        }
    }

    /**
     * Commits synchronously even when a stop's wake-up is pending: that wake-up makes the first attempt throw at
     * once, and must not cost the last commit.
     */
    private void commitDespiteWakeup(KafkaConsumer<byte[], byte[]> consumer,
                                     Map<TopicPartition, OffsetAndMetadata> offsets) {
        Duration timeout = stopping.getAsBoolean() ? FINAL_COMMIT_TIMEOUT : COMMIT_TIMEOUT;
        try {
            consumer.commitSync(offsets, timeout);
        } catch (WakeupException e) {
            consumer.commitSync(offsets, timeout);
        }
    }
}
