package io.tributary.broker.storage;

import org.apache.kafka.common.utils.Time;

/**
 * Keeps a background job (the log cleaner) at or below a byte rate, so that its reads and writes leave disk
 * bandwidth to appends and fetches: after each chunk the job reports its bytes and sleeps as long as it is ahead
 * of the allowed rate. Used by one thread.
 */
final class Throttler {

    private final double bytesPerSecond;
    private final Time time;
    private final long windowStartNs;
    private long bytesInWindow;

    Throttler(double bytesPerSecond, Time time) {
        this.bytesPerSecond = bytesPerSecond;
        this.time = time;
        this.windowStartNs = time.nanoseconds();
    }

    /** Records {@code bytes} done and sleeps if the job is going faster than the limit. */
    void maybeThrottle(long bytes) {
        if (bytesPerSecond >= Double.MAX_VALUE || bytesPerSecond <= 0) {
            return;
        }
        bytesInWindow += bytes;
        double elapsedMs = (time.nanoseconds() - windowStartNs) / 1e6;
        double allowedMs = bytesInWindow * 1000.0 / bytesPerSecond;
        long sleepMs = (long) (allowedMs - elapsedMs);
        if (sleepMs > 0) {
            time.sleep(sleepMs);
        }
    }
}
