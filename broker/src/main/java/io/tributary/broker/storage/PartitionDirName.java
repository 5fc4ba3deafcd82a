package io.tributary.broker.storage;

import java.util.Optional;

import org.apache.kafka.common.TopicPartition;

/**
 * The name of a {@link PartitionLog}'s directory inside a log directory: {@code <topic>-<partition>}, as Kafka names
 * it. A topic name may itself contain dashes, so the partition is what follows the last one.
 *
 * <p>Stateless.
 */
public final class PartitionDirName {

    private PartitionDirName() {
    }

    /** The directory name of {@code tp}'s log. */
    public static String of(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    /** Parses a directory name made by {@link #of}; empty if it is not one. */
    public static Optional<TopicPartition> parse(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            return Optional.empty();
        }
        try {
            int partition = Integer.parseInt(name.substring(dash + 1));
            return partition < 0 ? Optional.empty() : Optional.of(new TopicPartition(name.substring(0, dash), partition));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
