package io.tributary.broker.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a topic's log, as read back from the beginning, against the records the cluster acknowledged: the
 * correctness half of the failover benchmark. Pure computation, no I/O; the benchmark reads the log.
 *
 * <p>Per partition, walking the log in offset order:
 * <ul>
 *   <li><b>lost</b>: acknowledged, but not in the log;
 *   <li><b>duplicated</b>: each further occurrence of a (partition, sequence) already seen, acknowledged or not (the
 *       idempotent producer must prevent both);
 *   <li><b>reordered</b>: an acknowledged sequence number smaller than the acknowledged one before it (first
 *       occurrences only, so a duplicate is not counted twice);
 *   <li><b>moved</b>: acknowledged at one offset but found at another (the acknowledgement promised that offset);
 *   <li><b>unacked in log</b>: in the log, never acknowledged (a send that failed or whose acknowledgement was lost
 *       with a connection: allowed, reported only);
 *   <li><b>foreign</b>: a value that is not a probe of this partition, or a sequence number never sent.
 * </ul>
 * Each problem kind keeps its first few examples ({@value #EXAMPLES}) for the report.
 */
final class DeliveryAudit {

    private static final int EXAMPLES = 5;

    private DeliveryAudit() {
    }

    /** One partition read back: the offset and probe sequence number of every probe record, in offset order. */
    record ReadBack(long[] offsets, long[] sequences, long foreign) {

        ReadBack {
            if (offsets.length != sequences.length) {
                throw new IllegalArgumentException(offsets.length + " offsets but " + sequences.length + " sequences");
            }
        }
    }

    record Result(long inLog, long lost, long duplicated, long reordered, long moved, long unackedInLog,
                  long foreign, List<String> examples) {

        /** Whether every acknowledged record is in the log once, in order, where its acknowledgement said. */
        boolean ok() {
            return lost == 0 && duplicated == 0 && reordered == 0 && moved == 0;
        }
    }

    static Result audit(AckLog.Snapshot acks, List<ReadBack> log) {
        if (log.size() != acks.partitions()) {
            throw new IllegalArgumentException(log.size() + " partitions read back, " + acks.partitions() + " written");
        }
        long inLog = 0;
        long lost = 0;
        long duplicated = 0;
        long reordered = 0;
        long moved = 0;
        long unacked = 0;
        long foreign = 0;
        List<String> examples = new ArrayList<>();
        int[] exampleCounts = new int[5];
        for (int p = 0; p < log.size(); p++) {
            ReadBack partition = log.get(p);
            long[] ackedOffsets = acks.offsets()[p];
            int[] seen = new int[ackedOffsets.length];
            foreign += partition.foreign();
            long previousAcked = -1;
            for (int i = 0; i < partition.offsets().length; i++) {
                long offset = partition.offsets()[i];
                long sequence = partition.sequences()[i];
                inLog++;
                if (sequence < 0 || sequence >= seen.length) {
                    foreign++;
                    continue;
                }
                int seq = (int) sequence;
                boolean acked = acks.isAcked(p, seq);
                if (++seen[seq] > 1) {
                    duplicated++;
                    example(examples, exampleCounts, 0, "duplicated: partition %d seq %d again at offset %d", p, seq,
                            offset);
                    continue;
                }
                if (!acked) {
                    unacked++;
                    continue;
                }
                if (offset != ackedOffsets[seq]) {
                    moved++;
                    example(examples, exampleCounts, 1, "moved: partition %d seq %d acked at offset %d, found at %d",
                            p, seq, ackedOffsets[seq], offset);
                }
                if (seq < previousAcked) {
                    reordered++;
                    example(examples, exampleCounts, 2, "reordered: partition %d seq %d at offset %d after seq %d",
                            p, seq, offset, previousAcked);
                }
                previousAcked = seq;
            }
            for (int seq = 0; seq < seen.length; seq++) {
                if (seen[seq] == 0 && acks.isAcked(p, seq)) {
                    lost++;
                    example(examples, exampleCounts, 3, "lost: partition %d seq %d acked at offset %d", p, seq,
                            ackedOffsets[seq]);
                }
            }
        }
        return new Result(inLog, lost, duplicated, reordered, moved, unacked, foreign, List.copyOf(examples));
    }

    private static void example(List<String> examples, int[] counts, int kind, String format, Object... args) {
        if (counts[kind]++ < EXAMPLES) {
            examples.add(String.format(format, args));
        }
    }

    /** A growable list of longs, for reading a partition back without boxing every offset. */
    static final class Longs {
        private long[] values = new long[1024];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
