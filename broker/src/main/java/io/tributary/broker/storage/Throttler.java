package io.tributary.broker.storage;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.utils.Time;

/**
 * Keeps a background job (the log cleaner) at or below a byte rate, so that its reads and writes leave disk
 * bandwidth to appends and fetches: after each chunk the job reports its bytes and sleeps as long as it is ahead
 * of the allowed rate.
 *
 * <p>The rate is measured over windows of about one second, each starting where the last one ended. A job that
 * has been slower than the limit for a while (cold reads, a disk busy with appends) therefore cannot spend the
 * allowance it did not use in a burst at full disk speed, which would come exactly when appends need the disk:
 * its unused allowance is at most one window's worth.
 *
 * <p>Sleeps are taken in slices of at most {@link #SLEEP_SLICE_MS}, and end early once the owner's stop condition
 * holds, so that a job throttled to a low rate still stops promptly. The job's thread is never interrupted: an
 * interrupt during file I/O closes the {@code FileChannel}, and the cleaner reads the live segments' channels.
 *
 * <p>Used by one thread.
 */
final class Throttler {

    private static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(1);
    static final long SLEEP_SLICE_MS = 100;

    private final double bytesPerSecond;
    private final Time time;
    private final BooleanSupplier stopped;
    private long windowStartNs;
    private long bytesInWindow;

    Throttler(double bytesPerSecond, Time time) {
        this(bytesPerSecond, time, () -> false);
    }

    /** @param stopped when true, a sleep under way ends at its next slice */
    Throttler(double bytesPerSecond, Time time, BooleanSupplier stopped) {
        this.bytesPerSecond = bytesPerSecond;
        this.time = time;
        this.stopped = stopped;
        this.windowStartNs = time.nanoseconds();
    }

    /** Records {@code bytes} done and sleeps if the job is going faster than the limit. */
    void maybeThrottle(long bytes) {
        if (bytesPerSecond >= Double.MAX_VALUE) {
            return;
        }
        bytesInWindow += bytes;
        long elapsedNs = time.nanoseconds() - windowStartNs;
        double allowedNs = bytesInWindow * 1e9 / bytesPerSecond;
        long sleepMs = (long) ((allowedNs - elapsedNs) / 1e6);
        while (sleepMs > 0 && !stopped.getAsBoolean()) {
            long slice = Math.min(sleepMs, SLEEP_SLICE_MS);
            time.sleep(slice);
            sleepMs -= slice;
        }
        long now = time.nanoseconds();
        if (now - windowStartNs >= WINDOW_NS) {
            windowStartNs = now;
            bytesInWindow = 0;
        }
    }
}
