package io.tributary.broker.storage;

import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongConsumer;

import org.apache.kafka.common.utils.Time;

/**
 * What every partition log of a broker shares: the clock, the scheduler for deferred work (delayed file deletion,
 * flushes after a roll), where I/O failures are reported, and broker-level producer-state settings.
 *
 * @param scheduler                may be null: deferred work then runs at once on the calling thread
 * @param producerIdExpirationMs   Kafka's {@code producer.id.expiration.ms}
 * @param flushTimes               told the nanoseconds of every flush that fsynced something (Kafka's
 *                                 {@code LogFlushRateAndTimeMs}); on the flushing thread, so it must be cheap
 */
public record LogEnvironment(Time time, ScheduledExecutorService scheduler, LogDirFailureHandler failureHandler,
                             long producerIdExpirationMs, LongConsumer flushTimes) {

    public LogEnvironment(Time time, ScheduledExecutorService scheduler, LogDirFailureHandler failureHandler,
                          long producerIdExpirationMs) {
        this(time, scheduler, failureHandler, producerIdExpirationMs, nanos -> { });
    }

    public static final long DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000L;

    /** For tools and tests: no scheduler (deferred work runs inline), failures only thrown. */
    public static LogEnvironment inline(Time time) {
        return new LogEnvironment(time, null, LogDirFailureHandler.IGNORE, DEFAULT_PRODUCER_ID_EXPIRATION_MS);
    }
}
