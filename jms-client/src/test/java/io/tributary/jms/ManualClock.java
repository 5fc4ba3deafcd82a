package io.tributary.jms;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall clock that moves only when a test says so, for time-to-live and delivery-delay behaviour without sleeping.
 * Start it at the real time when records go to a broker: record timestamps are its readings.
 *
 * <p>Any thread: the reading is atomic.
 */
public final class ManualClock extends Clock {

    private final AtomicLong millis;

    public ManualClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    public void advance(Duration by) {
        millis.addAndGet(by.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a manual clock is UTC");
    }
}
