package io.tributary.itests.bench.app;

import java.util.BitSet;
import java.util.Locale;

/**
 * What the benchmark's MDB received in the current run: how many deliveries, which sequence numbers (so that a loss
 * or a duplicate shows), and the {@link System#nanoTime()} of the first and the latest delivery.
 *
 * <p>Format of {@link #snapshot()}, one line of {@code key=value} pairs: {@code run}, {@code expected},
 * {@code count} (deliveries of this run), {@code distinct} (different sequence numbers among them),
 * {@code duplicates}, {@code outOfRange} (sequence numbers not below {@code expected}), {@code foreign} (deliveries
 * of another run), {@code badBodies} (bodies not of the expected size), {@code firstNanos}, {@code lastNanos}.
 *
 * <p>Static state of the deployment's class loader: the MDB and the servlet of one deployment share it. Thread-safe:
 * one lock, held for a few field updates per delivery, which is noise next to a delivery's cost.
 */
public final class Tally {

    /** String property naming the run a message belongs to. */
    public static final String RUN_PROPERTY = "benchRun";
    /** Int property: the message's sequence number within its run, 0 to count - 1. */
    public static final String SEQ_PROPERTY = "benchSeq";

    private static final Object LOCK = new Object();
    private static String run = "";
    private static int expected;
    private static int bodySize;
    private static BitSet seen = new BitSet();
    private static int count;
    private static int duplicates;
    private static int outOfRange;
    private static int foreign;
    private static int badBodies;
    private static long firstNanos;
    private static long lastNanos;

    private Tally() {
    }

    /** Starts counting run {@code name}: {@code expectedCount} messages with bodies of {@code size} bytes. */
    static void start(String name, int expectedCount, int size) {
        synchronized (LOCK) {
            run = name;
            expected = expectedCount;
            bodySize = size;
            seen = new BitSet(expectedCount);
            count = 0;
            duplicates = 0;
            outOfRange = 0;
            foreign = 0;
            badBodies = 0;
            firstNanos = 0;
            lastNanos = 0;
        }
    }

    static void record(String messageRun, int seq, int bodyLength) {
        long now = System.nanoTime();
        synchronized (LOCK) {
            if (!run.equals(messageRun)) {
                foreign++;
                return;
            }
            if (count == 0) {
                firstNanos = now;
            }
            lastNanos = now;
            count++;
            if (bodyLength != bodySize) {
                badBodies++;
            }
            if (seq < 0 || seq >= expected) {
                outOfRange++;
            } else if (seen.get(seq)) {
                duplicates++;
            } else {
                seen.set(seq);
            }
        }
    }

    static String snapshot() {
        synchronized (LOCK) {
            return String.format(Locale.ROOT, "run=%s expected=%d count=%d distinct=%d duplicates=%d outOfRange=%d"
                    + " foreign=%d badBodies=%d firstNanos=%d lastNanos=%d", run, expected, count,
                    seen.cardinality(), duplicates, outOfRange, foreign, badBodies, firstNanos, lastNanos);
        }
    }
}
