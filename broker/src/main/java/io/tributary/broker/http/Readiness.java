package io.tributary.broker.http;

import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;

/**
 * Decides whether the broker is ready to take traffic ({@code /health/ready}): its logs are loaded, it is registered
 * in ZooKeeper, and no partition that the metadata names this broker leader of is offline here (in a failed log
 * directory, or not yet taken up by the replica manager). The broker hands the parts over as it starts; until a part
 * is there, its condition is unmet. Whether the process is alive ({@code /health/live}) is separate: a broker still
 * recovering its logs is alive but not ready, and must not be restarted for being slow.
 *
 * <p>Threads: the starting thread sets the parts; the HTTP listener's thread calls {@link #check} (the fields are
 * volatile; the suppliers must be safe to call from any thread).
 */
public final class Readiness {

    /** The outcome: ready, or not with a short reason for the operator. */
    public record Status(boolean ready, String reason) {
        static final Status READY = new Status(true, "ready");
    }

    /** At most this many partitions are named in a reason. */
    private static final int NAMED_PARTITIONS = 5;

    private volatile boolean logsLoaded;
    private volatile boolean stopping;
    private volatile BooleanSupplier registered;
    private volatile Supplier<Collection<TopicPartition>> offlineLedPartitions;

    /** The log manager has loaded every log directory (those that failed are offline). */
    public void logsLoaded() {
        logsLoaded = true;
    }

    /** The broker is shutting down: not ready from now on, whatever else holds. */
    public void stopping() {
        stopping = true;
    }

    /** Whether the broker is registered in ZooKeeper now (it may lose its session later). */
    public void registration(BooleanSupplier registered) {
        this.registered = registered;
    }

    /** The partitions the current metadata has this broker lead that are offline here. */
    public void offlineLedPartitions(Supplier<Collection<TopicPartition>> offline) {
        this.offlineLedPartitions = offline;
    }

    public Status check() {
        if (stopping) {
            return new Status(false, "shutting down");
        }
        if (!logsLoaded) {
            return new Status(false, "loading logs");
        }
        BooleanSupplier registration = registered;
        if (registration == null || !registration.getAsBoolean()) {
            return new Status(false, "not registered in ZooKeeper");
        }
        Supplier<Collection<TopicPartition>> offline = offlineLedPartitions;
        if (offline == null) {
            return new Status(false, "partition states not applied yet");
        }
        Collection<TopicPartition> partitions = offline.get();
        if (!partitions.isEmpty()) {
            List<String> named = partitions.stream().map(TopicPartition::toString).sorted().limit(NAMED_PARTITIONS)
                    .toList();
            return new Status(false, partitions.size() + " partition(s) led here are offline: "
                    + String.join(", ", named) + (partitions.size() > NAMED_PARTITIONS ? ", ..." : ""));
        }
        return Status.READY;
    }
}
