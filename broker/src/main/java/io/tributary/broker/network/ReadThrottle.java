package io.tributary.broker.network;

import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.Channel;

/**
 * Decides whether a connection may decode its next request, and applies the decision: Netty's {@code autoRead} for
 * the socket, and a resume action for the bytes already received but not yet decoded.
 *
 * <p>A connection reads only while all of these hold:
 * <ul>
 *   <li>its writes are not backed up: the channel is writable, i.e. its queued response bytes have not passed the
 *       high water mark, or have since fallen below the low one;</li>
 *   <li>fewer than {@code maxInFlight} of its requests are waiting for their responses to be written;</li>
 *   <li>the request-handler queue has room ({@code queued.max.requests}), checked before every frame, so every
 *       connection stops, not only the one that filled it; it resumes when the dispatcher reports room;</li>
 *   <li>it is not being drained for shutdown.</li>
 * </ul>
 *
 * <p>The channel's event loop only, except the dispatcher's wake-up, which it hands to that loop.
 */
final class ReadThrottle {

    private final Channel channel;
    private final int maxInFlight;
    private final RequestDispatcher dispatcher;
    /** Runs when the throttle opens again: the frame decoder decodes what it holds. Set once, by the decoder. */
    private Runnable onReopen = () -> { };

    private boolean unwritable;
    private boolean handlerQueueFull;
    private boolean stopped;
    private int inFlight;
    private boolean open = true;

    ReadThrottle(Channel channel, int maxInFlight, RequestDispatcher dispatcher) {
        this.channel = channel;
        this.maxInFlight = maxInFlight;
        this.dispatcher = dispatcher;
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
        try {
            channel.eventLoop().execute(() -> {
                handlerQueueFull = false;
                apply();
            });
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

    /** Stops reading for good: the connection is being drained before it is closed. */
    void stop() {
        stopped = true;
        apply();
    }

    private void apply() {
        boolean wasOpen = open;
        open = !unwritable && !handlerQueueFull && !stopped && inFlight < maxInFlight;
        if (open != wasOpen) {
            channel.config().setAutoRead(open);
            if (open) {
                onReopen.run();
            }
        }
    }

    @Override
    public String toString() {
        return "ReadThrottle[open=" + open + ", unwritable=" + unwritable + ", handlerQueueFull=" + handlerQueueFull
                + ", stopped=" + stopped + ", inFlight=" + inFlight + "/" + maxInFlight + "]";
    }
}
