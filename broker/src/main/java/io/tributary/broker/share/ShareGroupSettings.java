package io.tributary.broker.share;

import org.apache.kafka.common.IsolationLevel;

/**
 * What one share group's partitions follow: the broker's {@link ShareConfig} with the group's own configuration
 * ({@code share.auto.offset.reset}, {@code share.record.lock.duration.ms}, {@code share.isolation.level},
 * {@code share.delivery.count.limit}, {@code share.partition.max.record.locks}) applied over it. Immutable.
 *
 * @param autoOffsetReset         where a share-partition without state starts
 * @param recordLockDurationMs    how long an acquired record stays locked
 * @param isolationLevel          read_uncommitted (Kafka's default) or read_committed: records up to the LSO
 * @param deliveryCountLimit      deliveries before a record is archived
 * @param partitionMaxRecordLocks in-flight records per share-partition
 */
public record ShareGroupSettings(ShareAutoOffsetReset autoOffsetReset, int recordLockDurationMs,
                                 IsolationLevel isolationLevel, int deliveryCountLimit, int partitionMaxRecordLocks) {

    /** A group without configuration of its own. */
    public static ShareGroupSettings of(ShareConfig config) {
        return new ShareGroupSettings(ShareAutoOffsetReset.LATEST, config.recordLockDurationMs(),
                IsolationLevel.READ_UNCOMMITTED, config.deliveryCountLimit(), config.partitionMaxRecordLocks());
    }

    /** The settings of each share group, by group id; called from request-handler threads. */
    @FunctionalInterface
    public interface Source {
        ShareGroupSettings settings(String groupId);
    }
}
