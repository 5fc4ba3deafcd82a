package io.tributary.ra.inbound;

import java.time.Duration;

/**
 * Bounded exponential back-off: the first delay, then twice the previous one, never more than the maximum, until
 * {@link #reset()} after a success. Only computes delays; whoever waits does so in a way that a stop can cut short.
 *
 * <p>Not thread-safe: each retrying party owns its own.
 */
final class Backoff {

    /** For the cluster and the dead-letter topic: 1 s doubling to 30 s. */
    static Backoff forCluster() {
        return new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    }

    /**
     * For an endpoint the container cannot create yet ({@code UnavailableException} early in a deployment): it is
     * usually there within a second or two, so start at 100 ms; 10 s at most.
     */
    static Backoff forEndpoint() {
        return new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));
    }

    private final long initialMillis;
    private final long maxMillis;
    private long nextMillis;

    Backoff(Duration initial, Duration max) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("back-off needs 0 < initial <= max, got " + initial + " and " + max);
        }
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
        this.nextMillis = initialMillis;
    }

    /** The delay before the next attempt; each call doubles the following one, up to the maximum. */
    long nextDelayMillis() {
        long delay = nextMillis;
        nextMillis = Math.min(maxMillis, nextMillis * 2);
        return delay;
    }

    void reset() {
        nextMillis = initialMillis;
    }
}
