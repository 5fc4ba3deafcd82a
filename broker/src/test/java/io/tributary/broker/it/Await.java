package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting on conditions in the integration tests: poll every few milliseconds, fail at a deadline. */
final class Await {

    /** Long enough for a loaded 2-core machine, short enough that a hung test fails in reasonable time. */
    static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final long POLL_NANOS = Duration.ofMillis(10).toNanos();

    private Await() {
    }

    static void until(BooleanSupplier condition, Supplier<String> whatWasExpected) {
        until(DEADLINE, condition, whatWasExpected);
    }

    static void until(Duration limit, BooleanSupplier condition, Supplier<String> whatWasExpected) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + limit + ": " + whatWasExpected.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
