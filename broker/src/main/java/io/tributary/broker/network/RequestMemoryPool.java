package io.tributary.broker.network;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on the bytes of requests held by the server at once ({@code queued.max.request.bytes}, Kafka's
 * {@code MemoryPool}): every frame reserves its announced size when its size prefix has arrived, and gives it back
 * when the request has been handled (its {@code handle} call returned; a request parked by the handler, a long-poll
 * fetch or an acks=all produce, no longer counts, as in Kafka), or when it is dropped on the way (a malformed frame,
 * a closed connection). So the reservations cover the requests being received, waiting for a request-handler thread
 * and being handled.
 *
 * <p>Strict: a reservation that does not fit in what is left fails, and its connection stops reading (see
 * {@link ReadThrottle}) until {@link #whenAvailable} wakes it to try again. Reserving the whole frame before its body
 * is read, rather than its bytes as they arrive, is what keeps this free of deadlock: every reserved frame can be
 * completed by its client alone, so memory always comes back; connections each holding half a frame could otherwise
 * fill the pool and wait for each other forever. The price is that a frame reserves memory it does not yet use (the
 * {@link FrameDecoder} allocates as bytes arrive), which a client announcing large frames and sending them slowly can
 * hold until {@code connections.max.idle.ms} closes it. There is no fairness between waiters: under a constant stream
 * of small requests a large one may wait long.
 *
 * <p>Unbounded (the default): every reservation succeeds, and the accounting still runs, for {@link #used}.
 *
 * <p>Thread-safe: reservations are taken on event loops and released on any thread.
 */
final class RequestMemoryPool {

    private final long capacity;
    private final AtomicLong used = new AtomicLong();
    /** Wake-ups of connections that found too little memory left; each only hands work to an event loop. */
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    /** @param capacity bytes; 0 or less for unbounded */
    RequestMemoryPool(long capacity) {
        this.capacity = capacity > 0 ? capacity : Long.MAX_VALUE;
    }

    boolean isBounded() {
        return capacity != Long.MAX_VALUE;
    }

    /** The whole pool; {@link Long#MAX_VALUE} when unbounded. */
    long capacity() {
        return capacity;
    }

    /** Bytes reserved now. */
    long used() {
        return used.get();
    }

    /** Reserves {@code bytes}, or returns null if they do not fit in what is left. */
    Reservation tryReserve(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot reserve " + bytes + " bytes");
        }
        while (true) {
            long now = used.get();
            if (now + bytes > capacity) {
                return null;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return new Reservation(bytes);
            }
        }
    }

    /**
     * Runs {@code resume} once {@code bytes} may fit: at once if they do now, else on the thread that next releases
     * a reservation (which wakes every waiter; those that still do not fit wait again). {@code resume} must only hand
     * work to an event loop.
     */
    void whenAvailable(int bytes, Runnable resume) {
        waiting.add(resume);
        // Re-checked after adding: a reservation may have been released between the caller's attempt and the add.
        if (used.get() + bytes <= capacity && waiting.remove(resume)) {
            resume.run();
        }
    }

    private void release(int bytes) {
        used.addAndGet(-bytes);
        Runnable resume;
        while ((resume = waiting.poll()) != null) {
            resume.run();
        }
    }

    @Override
    public String toString() {
        return "RequestMemoryPool[" + used.get() + " of " + (isBounded() ? capacity : "unbounded") + " bytes, "
                + waiting.size() + " waiting]";
    }

    /** The bytes of one frame, taken from the pool until {@link #release()}. Thread-safe. */
    final class Reservation {

        private final int bytes;
        private final AtomicBoolean released = new AtomicBoolean();

        private Reservation(int bytes) {
            this.bytes = bytes;
        }

        int bytes() {
            return bytes;
        }

        /**
         * Gives the bytes back; idempotent, since a request may be dropped on one path after another already let it
         * go.
         */
        void release() {
            if (released.compareAndSet(false, true)) {
                RequestMemoryPool.this.release(bytes);
            }
        }
    }
}
