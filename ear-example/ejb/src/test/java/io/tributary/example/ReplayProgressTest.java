package io.tributary.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ReplayProgressTest {

    private static final Instant FROM = Instant.parse("2026-11-30T12:00:00Z");
    private static final Instant TO = Instant.parse("2026-11-30T12:10:00Z");
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long FIRST_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long START = 1_000_000L;

    private final ReplayProgress progress = new ReplayProgress(FROM, TO, Duration.ofNanos(QUIET_NANOS),
            Duration.ofNanos(FIRST_WAIT_NANOS), START);

    @Test
    void bothEndsOfTheRangeAreIncluded() {
        assertEquals(ReplayProgress.Verdict.BEFORE, progress.offer(0, FROM.toEpochMilli() - 1, START));
        assertEquals(ReplayProgress.Verdict.IN_RANGE, progress.offer(0, FROM.toEpochMilli(), START));
        assertEquals(ReplayProgress.Verdict.IN_RANGE, progress.offer(0, TO.toEpochMilli(), START));
        assertEquals(ReplayProgress.Verdict.AFTER, progress.offer(0, TO.toEpochMilli() + 1, START));
    }

    @Test
    void withNothingToReadTheReplayEndsAfterTheFirstWait() {
        assertEquals(FIRST_WAIT_NANOS, progress.waitNanos(START));
        assertEquals(1, progress.waitNanos(START + FIRST_WAIT_NANOS - 1));
        assertEquals(0, progress.waitNanos(START + FIRST_WAIT_NANOS));
    }

    @Test
    void afterTheLastRecordTheReplayEndsAfterTheQuietTime() {
        long received = START + 7;
        progress.offer(0, FROM.toEpochMilli(), received);
        assertEquals(1, progress.waitNanos(received + QUIET_NANOS - 1));
        assertEquals(0, progress.waitNanos(received + QUIET_NANOS));
    }

    @Test
    void eachRecordOfAPartitionStillInTheRangeRestartsTheQuietTime() {
        long later = START + QUIET_NANOS - 1;
        progress.offer(0, FROM.toEpochMilli(), later);
        assertEquals(QUIET_NANOS, progress.waitNanos(later));
        // The record that takes a partition past the range still counts: its partition was in the range until then.
        progress.offer(0, TO.toEpochMilli() + 1, later + 5);
        assertEquals(QUIET_NANOS, progress.waitNanos(later + 5));
    }

    @Test
    void recordsOfPartitionsPastTheRangeDoNotKeepTheReplayGoing() {
        progress.offer(0, TO.toEpochMilli() + 1, START);
        // The rest of partition 0's log keeps coming; only partition 1 may still have records in the range.
        progress.offer(0, TO.toEpochMilli() + 2, START + QUIET_NANOS - 1);
        assertEquals(0, progress.waitNanos(START + QUIET_NANOS));
    }

    @Test
    void aPartitionHeardFromLaterIsWaitedFor() {
        progress.offer(0, TO.toEpochMilli() + 1, START);
        long later = START + QUIET_NANOS / 2;
        assertEquals(ReplayProgress.Verdict.IN_RANGE, progress.offer(1, FROM.toEpochMilli() + 5, later));
        assertEquals(QUIET_NANOS, progress.waitNanos(later));
    }

    @Test
    void aRangeThatEndsBeforeItStartsIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new ReplayProgress(TO, FROM, Duration.ofSeconds(1), Duration.ofSeconds(1), 0));
    }
}
