package io.tributary.broker.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the failover benchmark sent and what the cluster acknowledged, per partition and sequence number: the
 * reference that the log read back is checked against ({@link DeliveryAudit}), and the source of the stall figures
 * ({@link Snapshot#firstAckOfSentSince}, {@link Snapshot#maxAckGap}).
 *
 * <p>Sequence numbers are dense per partition from 0 (the n-th record sent to a partition has sequence n), so each
 * partition is three arrays indexed by sequence: send time, acknowledgement time ({@link #NOT_ACKED} until then)
 * and acknowledged offset. Times are epoch milliseconds, as the kill command's {@code killed_at_ms}.
 *
 * <p>Threads: the sending thread calls {@link #sent}, the producer's I/O thread {@link #acked} and {@link #failed}
 * from its callbacks, the main thread {@link #snapshot}. Every method holds this object's lock; at most a few
 * thousand calls a second, so the lock costs nothing measurable next to a produce round trip.
 */
final class AckLog {

    static final long NOT_ACKED = -1;
    private static final int FAILURE_EXAMPLES = 5;

    private final Series[] partitions;
    /** Failed sends by exception class (simple name): a record that failed is neither acked nor retried. */
    private final Map<String, Integer> failures = new TreeMap<>();
    /** The first few failures in full, for the report. */
    private final List<String> failureExamples = new ArrayList<>();

    AckLog(int partitions) {
        this.partitions = new Series[partitions];
        for (int p = 0; p < partitions; p++) {
            this.partitions[p] = new Series();
        }
    }

    /** Registers a record about to be sent to {@code partition}; call before the send, so no ack can come first. */
    synchronized long sent(int partition, long sentAtMs) {
        return partitions[partition].add(sentAtMs);
    }

    synchronized void acked(int partition, long sequence, long offset, long ackedAtMs) {
        Series series = partitions[partition];
        int index = series.index(partition, sequence);
        series.ackedAtMs[index] = ackedAtMs;
        series.offsets[index] = offset;
        series.latestAckedSentAtMs = Math.max(series.latestAckedSentAtMs, series.sentAtMs[index]);
    }

    synchronized void failed(int partition, long sequence, Exception cause, long failedAtMs) {
        Series series = partitions[partition];
        int index = series.index(partition, sequence);
        failures.merge(cause.getClass().getSimpleName(), 1, Integer::sum);
        if (failureExamples.size() < FAILURE_EXAMPLES) {
            failureExamples.add("partition " + partition + " seq " + sequence + " sent_at_ms " + series.sentAtMs[index]
                    + " failed " + (failedAtMs - series.sentAtMs[index]) + " ms later: " + cause);
        }
    }

    /**
     * The partitions that have no acknowledgement yet of a record sent at or after {@code sinceMs}: after a kill,
     * those not yet taking writes again. Cheap (no copy), for polling.
     */
    synchronized List<Integer> partitionsWithoutAckOfSentSince(long sinceMs) {
        List<Integer> waiting = new ArrayList<>();
        for (int p = 0; p < partitions.length; p++) {
            if (partitions[p].latestAckedSentAtMs < sinceMs) {
                waiting.add(p);
            }
        }
        return waiting;
    }

    /** An immutable copy of everything so far. */
    synchronized Snapshot snapshot() {
        int count = partitions.length;
        long[][] sent = new long[count][];
        long[][] acked = new long[count][];
        long[][] offsets = new long[count][];
        for (int p = 0; p < count; p++) {
            Series series = partitions[p];
            sent[p] = Arrays.copyOf(series.sentAtMs, series.size);
            acked[p] = Arrays.copyOf(series.ackedAtMs, series.size);
            offsets[p] = Arrays.copyOf(series.offsets, series.size);
        }
        return new Snapshot(sent, acked, offsets, Map.copyOf(failures), List.copyOf(failureExamples));
    }

    /** One partition's records; grows by doubling. */
    private static final class Series {
        long[] sentAtMs = new long[1024];
        long[] ackedAtMs = new long[1024];
        long[] offsets = new long[1024];
        int size;
        /** The send time of the latest-sent record acknowledged so far. */
        long latestAckedSentAtMs = Long.MIN_VALUE;

        long add(long sentAt) {
            if (size == sentAtMs.length) {
                sentAtMs = Arrays.copyOf(sentAtMs, size * 2);
                ackedAtMs = Arrays.copyOf(ackedAtMs, size * 2);
                offsets = Arrays.copyOf(offsets, size * 2);
            }
            sentAtMs[size] = sentAt;
            ackedAtMs[size] = NOT_ACKED;
            offsets[size] = -1;
            return size++;
        }

        int index(int partition, long sequence) {
            if (sequence < 0 || sequence >= size) {
                throw new IllegalArgumentException("partition " + partition + " has no record " + sequence
                        + " (" + size + " sent)");
            }
            return (int) sequence;
        }
    }

    /**
     * The records of every partition at one moment: {@code sentAtMs[p][seq]}, {@code ackedAtMs[p][seq]}
     * ({@link #NOT_ACKED} if not acknowledged) and {@code offsets[p][seq]} (-1 if not acknowledged); failed sends
     * counted by exception class, and the first few described.
     */
    record Snapshot(long[][] sentAtMs, long[][] ackedAtMs, long[][] offsets, Map<String, Integer> failures,
                    List<String> failureExamples) {

        int partitions() {
            return sentAtMs.length;
        }

        long sent() {
            long total = 0;
            for (long[] series : sentAtMs) {
                total += series.length;
            }
            return total;
        }

        long acked() {
            long total = 0;
            for (long[] series : ackedAtMs) {
                for (long ackedAt : series) {
                    if (ackedAt != NOT_ACKED) {
                        total++;
                    }
                }
            }
            return total;
        }

        long failed() {
            return failures.values().stream().mapToLong(Integer::longValue).sum();
        }

        boolean isAcked(int partition, long sequence) {
            return ackedAtMs[partition][(int) sequence] != NOT_ACKED;
        }

        /**
         * The earliest acknowledgement of a record of {@code partition} that was sent at or after {@code sinceMs}, or
         * {@link #NOT_ACKED} if there is none. After a kill, this is when the partition took writes again: a record
         * sent before the kill may be acknowledged late only because the client retried it.
         */
        long firstAckOfSentSince(int partition, long sinceMs) {
            long first = NOT_ACKED;
            long[] sent = sentAtMs[partition];
            long[] acked = ackedAtMs[partition];
            for (int seq = 0; seq < sent.length; seq++) {
                if (sent[seq] >= sinceMs && acked[seq] != NOT_ACKED && (first == NOT_ACKED || acked[seq] < first)) {
                    first = acked[seq];
                }
            }
            return first;
        }

        /**
         * The longest time in {@code [fromMs, toMs]} during which {@code partition} got no acknowledgement: the gaps
         * between consecutive acknowledgements, where the first gap starts at the last acknowledgement before
         * {@code fromMs} (or at {@code fromMs} if there was none) and a gap still open at {@code toMs} counts up to
         * {@code toMs}.
         */
        long maxAckGap(int partition, long fromMs, long toMs) {
            long[] times = Arrays.stream(ackedAtMs[partition]).filter(t -> t != NOT_ACKED).sorted().toArray();
            long previous = fromMs;
            for (long t : times) {
                if (t < fromMs) {
                    previous = t;
                }
            }
            long longest = 0;
            for (long t : times) {
                if (t >= fromMs && t <= toMs) {
                    longest = Math.max(longest, t - previous);
                    previous = t;
                }
            }
            return Math.max(longest, toMs - previous);
        }
    }
}
