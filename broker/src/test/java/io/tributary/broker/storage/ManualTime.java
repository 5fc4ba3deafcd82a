package io.tributary.broker.storage;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.utils.Time;

/**
 * A clock for tests that moves only when told to: {@link #advance} or {@link #sleep}, which advances instead of
 * blocking. Safe to read and advance from several threads.
 */
public final class ManualTime implements Time {

    /** 2024-01-01T00:00:00Z: a realistic wall-clock start, so timestamps in tests look like real ones. */
    public static final long DEFAULT_START_MS = 1_704_067_200_000L;

    private final AtomicLong nanos;

    public ManualTime() {
        this(DEFAULT_START_MS);
    }

    public ManualTime(long startMs) {
        this.nanos = new AtomicLong(TimeUnit.MILLISECONDS.toNanos(startMs));
    }

    @Override
    public long milliseconds() {
        return TimeUnit.NANOSECONDS.toMillis(nanos.get());
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    /** Advances the clock by {@code ms} instead of blocking. */
    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("Time does not go backwards: " + ms);
        }
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }
}
