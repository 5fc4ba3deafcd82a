package io.tributary.broker.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on conditions in tests that run brokers: poll every 10 ms, fail the test (JUnit's {@code fail}) at a
 * deadline with what was expected, never a bare sleep.
 *
 * <p>Stateless; any thread, usually the test's.
 */
public final class Await {

    /** Long enough for a loaded 2-core machine, short enough that a hung test fails in reasonable time. */
    public static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final long POLL_NANOS = Duration.ofMillis(10).toNanos();

    private Await() {
    }

    public static void until(BooleanSupplier condition, Supplier<String> whatWasExpected) {
        until(DEADLINE, condition, whatWasExpected);
    }

    public static void until(Duration limit, BooleanSupplier condition, Supplier<String> whatWasExpected) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + limit + ": " + whatWasExpected.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
