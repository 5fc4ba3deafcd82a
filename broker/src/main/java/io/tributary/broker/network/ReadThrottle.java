package io.tributary.broker.network;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;

/**
 * Decides whether a connection may decode its next request, and applies the decision: Netty's {@code autoRead} for
 * the socket, and a resume action for the bytes already received but not yet decoded. It tells the connection's
 * {@link ConnectionExpiry} when reading stops and resumes, so that a request's arrival is not timed while the server
 * does not read it.
 *
 * <p>A connection reads only while all of these hold:
 * <ul>
 *   <li>its writes are not backed up: the channel is writable, i.e. its queued response bytes have not passed the
 *       high water mark, or have since fallen below the low one;</li>
 *   <li>fewer than {@code maxInFlight} of its requests are waiting for their responses to be written;</li>
 *   <li>the request-handler queue has room ({@code queued.max.requests}), checked before every frame, so every
 *       connection stops, not only the one that filled it; it resumes when the dispatcher reports room;</li>
 *   <li>its next frame has its reservation in {@code queued.max.request.bytes} ({@link RequestMemoryPool}), or
 *       needs none yet; it resumes when memory is released, to try again;</li>
 *   <li>it is not throttled for a client quota: a response carrying {@code throttle_time_ms} was written less than
 *       that long ago (KIP-219: the broker stops reading from a client over its quota rather than delay its
 *       response);</li>
 *   <li>it is not being drained for shutdown.</li>
 * </ul>
 *
 * <p>The channel's event loop only, except the wake-ups of the dispatcher and the memory pool, which it hands to that
 * loop.
 */
final class ReadThrottle {

    private final Channel channel;
    private final int maxInFlight;
    private final RequestDispatcher dispatcher;
    private final ConnectionExpiry expiry;
    /** Runs when the throttle opens again: the frame decoder decodes what it holds. Set once, by the decoder. */
    private Runnable onReopen = () -> { };

    private boolean unwritable;
    private boolean handlerQueueFull;
    private boolean awaitingMemory;
    private boolean stopped;
    private boolean quotaThrottled;
    /** When the quota throttle ends; null when not throttled. */
    private ScheduledFuture<?> quotaThrottleEnd;
    private int inFlight;
    private boolean open = true;

    ReadThrottle(Channel channel, int maxInFlight, RequestDispatcher dispatcher, ConnectionExpiry expiry) {
        this.channel = channel;
        this.maxInFlight = maxInFlight;
        this.dispatcher = dispatcher;
        this.expiry = expiry;
    }

    void onReopen(Runnable action) {
        this.onReopen = action;
    }

    /** Whether the next frame may be decoded now; if the handler queue is full, pauses until it has room. */
    boolean mayDecode() {
        if (open && !dispatcher.hasCapacity()) {
            handlerQueueFull = true;
            apply();
            dispatcher.whenCapacity(this::handlerQueueHasRoom);
        }
        return open;
    }

    /** Any thread (the dispatcher's): resume on the event loop. */
    private void handlerQueueHasRoom() {
        onEventLoop(() -> {
            handlerQueueFull = false;
            apply();
        });
    }

    /**
     * The next frame's {@code bytes} did not fit in {@code memory}: pauses until some memory is released, then opens
     * again for the frame decoder to try again.
     */
    void awaitMemory(RequestMemoryPool memory, int bytes) {
        awaitingMemory = true;
        apply();
        memory.whenAvailable(bytes, () -> onEventLoop(() -> {
            awaitingMemory = false;
            apply();
        }));
    }

    private void onEventLoop(Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            // the server is stopping; the connection is about to close anyway
        }
    }

    /** The channel's writability changed (its queued response bytes crossed a water mark). */
    void writable(boolean writable) {
        unwritable = !writable;
        apply();
    }

    /** The number of this connection's requests not yet answered on the wire. */
    void inFlight(int requests) {
        inFlight = requests;
        apply();
    }

    /**
     * Stops reading for {@code throttleMs} (a client over its quota); a throttle already running that ends later is
     * kept, so that overlapping throttles of pipelined responses end with the longest.
     */
    void throttleFor(long throttleMs) {
        if (quotaThrottleEnd != null && quotaThrottleEnd.getDelay(TimeUnit.MILLISECONDS) >= throttleMs) {
            return;
        }
        if (quotaThrottleEnd != null) {
            quotaThrottleEnd.cancel(false);
        }
        quotaThrottled = true;
        apply();
        try {
            quotaThrottleEnd = channel.eventLoop().schedule(() -> {
                quotaThrottleEnd = null;
                quotaThrottled = false;
                apply();
            }, throttleMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the server is stopping; the connection is about to close anyway
        }
    }

    /** Stops reading for good: the connection is being drained before it is closed. */
    void stop() {
        stopped = true;
        apply();
    }

    private void apply() {
        boolean wasOpen = open;
        open = !unwritable && !handlerQueueFull && !awaitingMemory && !stopped && !quotaThrottled
                && inFlight < maxInFlight;
        if (open != wasOpen) {
            channel.config().setAutoRead(open);
            expiry.reading(open);
            if (open) {
                onReopen.run();
            }
        }
    }

    @Override
    public String toString() {
        return "ReadThrottle[open=" + open + ", unwritable=" + unwritable + ", handlerQueueFull=" + handlerQueueFull
                + ", awaitingMemory=" + awaitingMemory + ", quotaThrottled=" + quotaThrottled + ", stopped=" + stopped + ", inFlight=" + inFlight + "/"
                + maxInFlight + "]";
    }
}
