package io.tributary.broker.replication;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;

/**
 * Long-poll fetches waiting for data: a fetch that found fewer than {@code minBytes} is parked here, by partition and
 * by deadline, and completed when new data (or a role change) on one of its partitions lets a re-read reach
 * {@code minBytes} or fail, or at its deadline with what there is. The reads themselves are the
 * {@link ReplicaManager}'s ({@link Reader}).
 *
 * <p>Threads: fetches are parked from request-handler threads; {@link #onNewData} runs on the thread that appended
 * (or changed the partition's role); deadlines are swept on the replica manager's delayed-operations thread. The
 * maps are concurrent; a fetch completes once, by compare-and-set.
 */
final class DelayedFetches {

    /** What one read of every requested partition found. */
    record ReadOutcome(LinkedHashMap<TopicPartition, FetchPartitionResult> results, long bytes, boolean anyError) {
    }

    /** Reads every requested partition of a fetch. */
    @FunctionalInterface
    interface Reader {
        /**
         * @param arrival whether this is the fetch's first read (a follower's position is recorded then, not again
         *                when a parked fetch re-reads)
         */
        ReadOutcome read(FetchParams params, LinkedHashMap<TopicPartition, FetchPartitionRequest> requests,
                         boolean arrival);
    }

    private final Reader reader;
    /** The replica manager's delayed-operations thread; the sweeps run on it. */
    private final ScheduledExecutorService delayed;
    /** Long-poll fetches waiting for data, by partition. */
    private final Map<TopicPartition, Set<DelayedFetch>> waitingFetches = new ConcurrentHashMap<>();
    /**
     * The same fetches by deadline, for {@link #expireFetches}: one sweep task for the earliest deadline, not a
     * timeout task per fetch. A consumer keeping up sends a fetch per record, and a task scheduled and cancelled for
     * each woke the delayed-operations thread once per fetch when the cancelled task's time came.
     */
    private final ConcurrentSkipListSet<DelayedFetch> fetchDeadlines = new ConcurrentSkipListSet<>(
            Comparator.comparingLong((DelayedFetch fetch) -> fetch.deadlineNanos).thenComparingLong(fetch -> fetch.id));
    /** When the next sweep is scheduled ({@code nanoTime}), {@link Long#MAX_VALUE} for none. */
    private final AtomicLong nextSweepNanos = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong fetchIds = new AtomicLong();

    DelayedFetches(Reader reader, ScheduledExecutorService delayed) {
        this.reader = reader;
        this.delayed = delayed;
    }

    /**
     * Parks a fetch until it can complete (see the class comment); its result is the returned future. Cancelling
     * that future (a waiter that no longer needs the answer) takes the fetch off its partitions and deadlines.
     */
    CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> park(
            FetchParams params, LinkedHashMap<TopicPartition, FetchPartitionRequest> requests) {
        DelayedFetch waiting = new DelayedFetch(params, requests);
        waiting.result.whenComplete((results, failure) -> {
            if (waiting.completed.compareAndSet(false, true)) {
                waiting.deregister(); // cancelled by the waiter
            }
        });
        for (TopicPartition tp : requests.keySet()) {
            waitingFetches.computeIfAbsent(tp, key -> ConcurrentHashMap.newKeySet()).add(waiting);
        }
        fetchDeadlines.add(waiting);
        sweepBy(waiting.deadlineNanos);
        // Data may have arrived between the first read and the registration: check again, on this thread.
        waiting.tryComplete();
        return waiting.result;
    }

    /** How many fetches are parked (tests). */
    int parkedCount() {
        return fetchDeadlines.size();
    }

    /** Makes sure a sweep runs no later than {@code deadlineNanos}. */
    private void sweepBy(long deadlineNanos) {
        long scheduled;
        do {
            scheduled = nextSweepNanos.get();
            if (scheduled <= deadlineNanos) {
                return;
            }
        } while (!nextSweepNanos.compareAndSet(scheduled, deadlineNanos));
        delayed.schedule(this::expireFetches, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * On the delayed-operations thread: completes the fetches whose wait is over with what there is, then schedules
     * the next sweep for the earliest deadline left. A sweep scheduled earlier than needed finds nothing due.
     */
    private void expireFetches() {
        // Cleared first: a fetch registered from now on schedules its own sweep if it is due before the next one.
        nextSweepNanos.set(Long.MAX_VALUE);
        long now = System.nanoTime();
        for (DelayedFetch fetch : fetchDeadlines) { // in deadline order
            if (fetch.deadlineNanos - now > 0) {
                sweepBy(fetch.deadlineNanos);
                return;
            }
            fetchDeadlines.remove(fetch);
            fetch.forceComplete();
        }
    }

    /** Something changed in a partition (data, role, hosting): the fetches parked on it read again. */
    void onNewData(TopicPartition tp) {
        Set<DelayedFetch> waiting = waitingFetches.get(tp);
        if (waiting == null || waiting.isEmpty()) {
            return;
        }
        // On the appending thread, as Kafka completes its delayed fetches: a hand-off to another thread here cost a
        // wake-up on the path of every record to a waiting consumer.
        for (DelayedFetch fetch : List.copyOf(waiting)) {
            fetch.tryComplete();
        }
    }

    /** A long-poll fetch: completed by new data reaching {@code minBytes}, or by its timeout with what there is. */
    private final class DelayedFetch {
        private final FetchParams params;
        private final LinkedHashMap<TopicPartition, FetchPartitionRequest> requests;
        private final CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> result =
                new CompletableFuture<>();
        private final AtomicBoolean completed = new AtomicBoolean();
        private final long deadlineNanos;
        private final long id = fetchIds.incrementAndGet();

        DelayedFetch(FetchParams params, LinkedHashMap<TopicPartition, FetchPartitionRequest> requests) {
            this.params = params;
            this.requests = requests;
            this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(params.maxWaitMs());
        }

        void tryComplete() {
            if (completed.get()) {
                return;
            }
            ReadOutcome outcome = reader.read(params, requests, false);
            if (outcome.bytes() >= params.minBytes() || outcome.anyError()) {
                finish(outcome);
            }
        }

        void forceComplete() {
            if (!completed.get()) {
                finish(reader.read(params, requests, false));
            }
        }

        private void finish(ReadOutcome outcome) {
            if (!completed.compareAndSet(false, true)) {
                return;
            }
            deregister();
            result.complete(outcome.results());
        }

        void deregister() {
            fetchDeadlines.remove(this);
            for (TopicPartition tp : requests.keySet()) {
                Set<DelayedFetch> waiting = waitingFetches.get(tp);
                if (waiting != null) {
                    waiting.remove(this);
                }
            }
        }
    }
}
