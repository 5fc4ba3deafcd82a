package io.tributary.broker.network;

import org.apache.kafka.common.utils.Time;

/**
 * Decides when a connection has expired, from what the pipeline stages report about it; {@link ExpiryTimer} asks
 * and closes. One timeout, {@code connections.max.idle.ms}, serves two rules:
 * <ul>
 *   <li><b>Idle</b> (Kafka's rule): for the timeout, no byte has been read or written and no request has been
 *       owed a response. A request waiting in the handler (a long-poll fetch, an acks=all produce) keeps its connection
 *       open; a response the client does not read makes no progress and does not.</li>
 *   <li><b>Slow request</b> (Tributary's; Kafka has none): a request whose first byte was read the timeout ago is
 *       still incomplete, though its client may send a byte now and then. Without it such a client holds its
 *       connection, and the whole reserved frame in {@code queued.max.request.bytes}, for as long as it likes. Time
 *       the server itself does not read the connection (waiting for memory, handler threads or the client's own
 *       responses to drain) does not count: when reading resumes, the request's clock starts again. Reusing the
 *       idle timeout adds no setting of Tributary's own, and at its default of 10 minutes no real request comes
 *       near it: the Java client gives up on a request after {@code request.timeout.ms}, 30 s, anyway.</li>
 * </ul>
 *
 * <p>Time comes from the injected {@link Time} (nanoseconds), so the rules are tested without waiting.
 *
 * <p>One instance per connection; its event loop only.
 */
final class ConnectionExpiry {

    enum Reason { IDLE, SLOW_REQUEST }

    private static final long NO_FRAME = Long.MIN_VALUE;

    private final long timeoutNanos;
    private final Time time;

    private long lastActivity;
    private int outstanding;
    /** When the request being received started (or its reading resumed); {@link #NO_FRAME} between requests. */
    private long frameStart = NO_FRAME;
    private boolean reading = true;

    /** @param timeoutMs {@code connections.max.idle.ms}; -1: never expires */
    ConnectionExpiry(long timeoutMs, Time time) {
        this.timeoutNanos = timeoutMs > 0 ? timeoutMs * 1_000_000L : Long.MAX_VALUE;
        this.time = time;
        this.lastActivity = time.nanoseconds();
    }

    /** Bytes were read from or written to the socket. */
    void activity() {
        lastActivity = time.nanoseconds();
    }

    /** The first byte of a request (of its size prefix) was taken in. */
    void frameStarted() {
        frameStart = time.nanoseconds();
    }

    /** The request being received is complete. */
    void frameReceived() {
        frameStart = NO_FRAME;
    }

    /** The number of the connection's requests read and not yet answered; the idle time starts at the last answer. */
    void outstanding(int requests) {
        if (requests == 0 && outstanding > 0) {
            lastActivity = time.nanoseconds();
        }
        outstanding = requests;
    }

    /** The server started or stopped reading the connection. */
    void reading(boolean reading) {
        if (reading && !this.reading && frameStart != NO_FRAME) {
            frameStart = time.nanoseconds();
        }
        this.reading = reading;
    }

    /** Why the connection has expired, or null if it has not. */
    Reason expired() {
        long now = time.nanoseconds();
        if (frameStart != NO_FRAME) {
            return reading && now - frameStart >= timeoutNanos ? Reason.SLOW_REQUEST : null;
        }
        if (outstanding == 0 && now - lastActivity >= timeoutNanos) {
            return Reason.IDLE;
        }
        return null;
    }

    /**
     * How long from now, at the earliest, until {@link #expired()} may have something to say, if no event moves the
     * deadlines; at least 1 ms. Events only postpone expiry, so a check at this time never comes late.
     */
    long nanosUntilNextCheck() {
        long now = time.nanoseconds();
        long until;
        if (frameStart != NO_FRAME) {
            until = reading ? frameStart + timeoutNanos - now : timeoutNanos;
        } else if (outstanding > 0) {
            until = timeoutNanos;
        } else {
            until = lastActivity + timeoutNanos - now;
        }
        return Math.max(until, 1_000_000L);
    }
}
