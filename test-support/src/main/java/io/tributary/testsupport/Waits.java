package io.tributary.testsupport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * Awaitility with the tests' defaults, for waiting on a condition with a deadline (never a bare sleep): at most
 * {@link #DEADLINE}, the first check at once and then every 10 ms, in the calling thread (conditions may touch
 * objects confined to it, such as a KafkaConsumer). Name what is awaited ({@link #await(String)}) or assert inside
 * ({@code untilAsserted(() -> assertTrue(condition, () -> what))}), so that a timeout says what was expected and what
 * was there.
 *
 * <p>Stateless; any thread.
 */
public final class Waits {

    /** Long enough for a loaded 2-core machine, short enough that a hung test fails in reasonable time. */
    public static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(10);

    private Waits() {
    }

    /** A wait of at most {@link #DEADLINE}. */
    public static ConditionFactory await() {
        return Awaitility.await().atMost(DEADLINE).pollDelay(Duration.ZERO).pollInterval(POLL).pollInSameThread();
    }

    /** A wait of at most {@link #DEADLINE}, named {@code what} in its timeout message. */
    public static ConditionFactory await(String what) {
        return Awaitility.await(what).atMost(DEADLINE).pollDelay(Duration.ZERO).pollInterval(POLL)
                .pollInSameThread();
    }

    /** A wait of at most {@code limit}. */
    public static ConditionFactory await(Duration limit) {
        return await().atMost(limit);
    }

    /**
     * Waits until {@code counter} has not changed for {@code quietFor} (Awaitility's {@code during}), at most
     * {@link #DEADLINE}, and returns its value: for asserting that something stopped happening.
     */
    public static int quiet(IntSupplier counter, Duration quietFor) {
        AtomicInteger last = new AtomicInteger(counter.getAsInt());
        await("a counter unchanged for " + quietFor)
                .during(quietFor).until(() -> {
                    int now = counter.getAsInt();
                    return last.getAndSet(now) == now;
                });
        return last.get();
    }
}
