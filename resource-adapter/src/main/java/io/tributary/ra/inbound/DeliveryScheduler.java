package io.tributary.ra.inbound;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkAdapter;
import jakarta.resource.spi.work.WorkEvent;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;

/**
 * Runs the partitions of one activation on the container's {@link WorkManager}, at most {@code maxSession} at a time:
 * a partition with records to deliver is {@linkplain #offer offered}; it waits in a FIFO until a slot is free, then
 * one {@link Work} delivers a run of its records ({@link PartitionDelivery#deliver}). A partition is offered again only
 * after its run ended, so each partition is delivered by one thread at a time, in offset order.
 *
 * <p>Fairness: a run that has delivered its share ({@link PartitionDelivery#FAIR_SHARE}) while other partitions wait
 * ends and goes to the back of the FIFO; without anyone waiting it keeps going, and one Work per partition and
 * backlog is all the scheduling costs.
 *
 * <p>Thread-safe: the fetcher offers, delivery threads finish and offer again. A slot is always released before the
 * FIFO is looked at, and a partition always enqueued before a slot is tried, so neither a free slot nor a waiting
 * partition is left behind.
 */
final class DeliveryScheduler {

    /** How long a partition whose Work the container refused waits before it is offered again. */
    private static final long REJECTED_RETRY_MS = 1_000;

    private final WorkManager workManager;
    private final Semaphore slots;
    private final ConcurrentLinkedQueue<PartitionDelivery> waiting = new ConcurrentLinkedQueue<>();
    private final Availability workManagerAvailability;
    private volatile boolean closed;

    DeliveryScheduler(WorkManager workManager, int maxSession, Availability workManagerAvailability) {
        this.workManager = workManager;
        this.slots = new Semaphore(maxSession);
        this.workManagerAvailability = workManagerAvailability;
    }

    /** Queues a partition that has records and is not running; it starts when a slot is free. */
    void offer(PartitionDelivery partition) {
        waiting.add(partition);
        startWaiting();
    }

    /** Whether partitions wait for a slot (a running partition then yields after its share). */
    boolean othersWaiting() {
        return !waiting.isEmpty();
    }

    /** A run ended: frees its slot; {@code again} puts the partition at the back of the FIFO. */
    void finished(PartitionDelivery partition, boolean again) {
        slots.release();
        if (again) {
            waiting.add(partition);
        }
        startWaiting();
    }

    /** The activation is stopping: no run starts any more (those running finish their message). */
    void close() {
        closed = true;
        waiting.clear();
    }

    private void startWaiting() {
        while (!closed && !waiting.isEmpty() && slots.tryAcquire()) {
            PartitionDelivery next = waiting.poll();
            if (next == null) {
                slots.release();
                continue;
            }
            submit(next);
        }
    }

    private void submit(PartitionDelivery partition) {
        Run run = new Run(partition);
        try {
            workManager.scheduleWork(run, WorkManager.INDEFINITE, null, run);
            workManagerAvailability.succeeded("scheduling delivery work");
        } catch (WorkException | RuntimeException e) {
            rejected(run, e);
        }
    }

    private void rejected(Run run, Exception cause) {
        if (!run.settled()) {
            return; // already started, or already handled
        }
        workManagerAvailability.failed("scheduling delivery work", cause, "retrying in " + REJECTED_RETRY_MS + " ms");
        slots.release();
        run.partition.rejected(REJECTED_RETRY_MS);
        startWaiting();
    }

    /**
     * One run of a partition's deliveries, a new Work each time (containers track Work instances). Its own
     * WorkListener, so that a Work the container accepts and later rejects gives its slot back.
     */
    private final class Run extends WorkAdapter implements Work {

        private final PartitionDelivery partition;
        private volatile boolean released;
        /** Set once: by the run starting, or by the rejection that gives its slot back. */
        private final AtomicBoolean settled = new AtomicBoolean();

        Run(PartitionDelivery partition) {
            this.partition = partition;
        }

        boolean settled() {
            return settled.compareAndSet(false, true);
        }

        @Override
        public void run() {
            if (!settled()) {
                return;
            }
            partition.deliver(() -> released, DeliveryScheduler.this);
        }

        /** The container asks the work to end: the run stops after the message in flight. */
        @Override
        public void release() {
            released = true;
        }

        @Override
        public void workRejected(WorkEvent event) {
            rejected(this, event.getException());
        }
    }
}
