package io.tributary.example;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * Decides, record by record, what a replay of the time range [{@code from}, {@code to}] keeps and when it is done;
 * {@link OrderReplay} does the reading. A record is in the range by its timestamp (both ends included). A partition
 * is past the range once it delivered a record after {@code to}. The replay is done when {@code quiet} has passed
 * without a record from a partition that is not past the range: either every partition it read from has passed
 * {@code to} (and no other partition has spoken up meanwhile), or there was nothing more to read (caught up with
 * the end of the log). Before the first record it waits {@code firstWait} instead: the first fetch after the seek
 * also finds the partitions' leaders and opens connections, which on a loaded machine takes longer than the
 * fetches that follow.
 *
 * <p>Why the quiet time, rather than stopping at the first record after {@code to}: a JMS consumer does not say how
 * many partitions the topic has, and with several it delivers them interleaved, a batch of one after a batch of
 * another. A partition whose records are still to come would be cut off. The quiet time is the bound on that wait;
 * records of partitions already past the range (the rest of the log) do not extend it.
 *
 * <p>Times are {@code System.nanoTime()} values passed in, so the rules are testable without waiting. Not
 * thread-safe: one replay's thread.
 */
final class ReplayProgress {

    /** Where a record's timestamp is relative to the range. */
    enum Verdict { BEFORE, IN_RANGE, AFTER }

    private final long fromMillis;
    private final long toMillis;
    private final long quietNanos;
    private final long firstWaitNanos;
    private final Set<Integer> pastTheRange = new HashSet<>();
    /** Whether any record came: until then the first wait applies, after it the quiet time. */
    private boolean anyRecord;
    /** When a partition not past the range last delivered (or the replay started). */
    private long lastActiveNanos;

    ReplayProgress(Instant from, Instant to, Duration quiet, Duration firstWait, long startNanos) {
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("the range starts (" + from + ") after it ends (" + to + ")");
        }
        this.fromMillis = from.toEpochMilli();
        this.toMillis = to.toEpochMilli();
        this.quietNanos = quiet.toNanos();
        this.firstWaitNanos = firstWait.toNanos();
        this.lastActiveNanos = startNanos;
    }

    /** Takes the record at {@code timestampMillis} of {@code partition}, received at {@code nowNanos}. */
    Verdict offer(int partition, long timestampMillis, long nowNanos) {
        anyRecord = true;
        if (!pastTheRange.contains(partition)) {
            lastActiveNanos = nowNanos;
        }
        if (timestampMillis > toMillis) {
            pastTheRange.add(partition);
            return Verdict.AFTER;
        }
        return timestampMillis < fromMillis ? Verdict.BEFORE : Verdict.IN_RANGE;
    }

    /** How long to wait for the next record at {@code nowNanos}; 0 when the replay is done. */
    long waitNanos(long nowNanos) {
        return Math.max(0, lastActiveNanos + (anyRecord ? quietNanos : firstWaitNanos) - nowNanos);
    }
}
