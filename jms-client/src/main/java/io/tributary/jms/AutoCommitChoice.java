package io.tributary.jms;

/**
 * Chooses how an AUTO_ACKNOWLEDGE consumer commits the position of the message it is handing over: at once
 * ({@code commitSync} before the hand-over completes) or pipelined ({@code commitAsync}, awaited before the session
 * hands over its next message). Pipelining lets the commit's round trip overlap the application's work on the
 * message; committing at once is cheaper when the next record is already buffered and there is no such work to
 * overlap, because the pipelined wait costs more than the commit (pausing the partitions, a poll woken by the
 * commit's callback, resuming them). Measured, a consumer behind its producer went from ~2,750 to 3,550-4,300
 * messages a second.
 *
 * <p>"No work to overlap" means: a listener has returned, or the caller of receive came back sooner than the last
 * immediate commit took. The caller's time runs from the end of the hand-over, which for an immediate commit is the
 * end of that commit: counted from its start, the commit's own round trip made every caller look slower than a
 * commit, and a receive loop with no work in it alternated between the two kinds of commit.
 *
 * <p>Times are {@link System#nanoTime()} values passed in by the consumer. Used by the consumer's receiving thread
 * only (a session serves one thread at a time); not thread-safe.
 */
final class AutoCommitChoice {

    /** Who the message is handed over to. */
    enum Recipient { RECEIVE_CALLER, LISTENER }

    /** Whether a message was handed over to a receive caller who has not called receive again since. */
    private boolean awaitingCaller;
    /** When that hand-over ended. */
    private long handedOverNanos;
    /** The receive caller's time from the last hand-over to its next receive call. */
    private long callerNanos;
    /** The round trip of the last immediate commit; unknown at first, so the first chance to commit at once is. */
    private long immediateCommitNanos = Long.MAX_VALUE;

    /** Receive was called: the time since the last hand-over was the caller's. */
    void receiveCalled(long nowNanos) {
        if (awaitingCaller) {
            callerNanos = nowNanos - handedOverNanos;
            awaitingCaller = false;
        }
    }

    /**
     * Whether to commit at once: only when the next record is already buffered ({@code nextBuffered}) and either
     * the message went to a listener (it has returned: no work left to overlap) or the receive caller's last work
     * took less than the last immediate commit.
     */
    boolean commitAtOnce(boolean nextBuffered, Recipient recipient) {
        return nextBuffered && (recipient == Recipient.LISTENER || callerNanos < immediateCommitNanos);
    }

    /** A commit was made at once from {@code startNanos} to {@code endNanos}, then the message handed over. */
    void committedAtOnce(long startNanos, long endNanos, Recipient recipient) {
        immediateCommitNanos = endNanos - startNanos;
        handedOver(endNanos, recipient);
    }

    /** The message was handed over at {@code nowNanos} with its commit pipelined (or with nothing to commit). */
    void handedOver(long nowNanos, Recipient recipient) {
        if (recipient == Recipient.RECEIVE_CALLER) {
            awaitingCaller = true;
            handedOverNanos = nowNanos;
        }
    }
}
