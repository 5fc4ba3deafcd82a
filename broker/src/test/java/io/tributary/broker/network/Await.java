package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/** Waiting on conditions in tests: poll every few milliseconds, fail at a deadline. */
final class Await {

    static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final long POLL_NANOS = Duration.ofMillis(5).toNanos();

    private Await() {
    }

    static void until(BooleanSupplier condition, Supplier<String> whatWasExpected) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + DEADLINE + ": " + whatWasExpected.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Whether {@code condition} turns true within {@code limit}. */
    static boolean within(Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }

    /**
     * Waits until {@code counter} has not changed for {@code quietFor}, and returns its value: for asserting that
     * something stopped happening. Fails if it keeps changing until the deadline.
     */
    static int quiet(IntSupplier counter, Duration quietFor) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        int value = counter.getAsInt();
        long since = System.nanoTime();
        while (System.nanoTime() - since < quietFor.toNanos()) {
            if (System.nanoTime() > deadline) {
                fail("still changing after " + DEADLINE + ", now " + value);
            }
            LockSupport.parkNanos(POLL_NANOS);
            int now = counter.getAsInt();
            if (now != value) {
                value = now;
                since = System.nanoTime();
            }
        }
        return value;
    }
}
