package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * Reads a stopped broker's copy of a partition straight from its log directory, for fault tests that compare the
 * replicas of a partition with each other: opens the log (recovering it as a restart would), reads every record, and
 * closes it without writing anything back.
 */
public final class ReplicaLogs {

    /** One record of a replica's log: offset, key and value as strings, and the leader epoch of its batch. */
    public record Entry(long offset, String key, String value) {
    }

    private ReplicaLogs() {
    }

    /** Every record of {@code tp} in {@code logDir}, or an empty list if the broker has no copy of it. */
    public static List<Entry> read(Path logDir, TopicPartition tp) throws IOException {
        Path dir = logDir.resolve(PartitionDirName.of(tp));
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        PartitionLog log = PartitionLog.open(dir, tp, LogConfig.defaults(), LoadState.UNKNOWN,
                LogEnvironment.inline(Time.SYSTEM));
        try {
            return LogContents.readAll(log).stream()
                    .map(record -> new Entry(record.offset(), record.key(), record.value()))
                    .toList();
        } finally {
            log.closeHandlers();
        }
    }
}
