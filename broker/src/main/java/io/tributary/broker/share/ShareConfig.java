package io.tributary.broker.share;

/**
 * The broker's share-group settings (KIP-932), with Kafka's property names (see {@code BrokerConfig}): the defaults
 * every share group has unless its own group configuration ({@code share.*}, {@link ShareGroupSettings}) overrides
 * them within the bounds given here.
 *
 * @param recordLockDurationMs     {@code group.share.record.lock.duration.ms}: how long an acquired record stays
 *                                 locked to its consumer before it is available again
 * @param minRecordLockDurationMs  {@code group.share.min.record.lock.duration.ms}
 * @param maxRecordLockDurationMs  {@code group.share.max.record.lock.duration.ms}
 * @param deliveryCountLimit       {@code group.share.delivery.count.limit}: deliveries of a record before it is
 *                                 archived
 * @param partitionMaxRecordLocks  {@code group.share.partition.max.record.locks}: in-flight records per
 *                                 share-partition
 * @param sessionTimeoutMs         {@code group.share.session.timeout.ms}
 * @param minSessionTimeoutMs      {@code group.share.min.session.timeout.ms}
 * @param maxSessionTimeoutMs      {@code group.share.max.session.timeout.ms}
 * @param heartbeatIntervalMs      {@code group.share.heartbeat.interval.ms}
 * @param minHeartbeatIntervalMs   {@code group.share.min.heartbeat.interval.ms}
 * @param maxHeartbeatIntervalMs   {@code group.share.max.heartbeat.interval.ms}
 * @param maxSize                  {@code group.share.max.size}: members of one share group
 * @param maxShareSessions         {@code group.share.max.share.sessions}: share sessions cached per broker
 */
public record ShareConfig(int recordLockDurationMs, int minRecordLockDurationMs, int maxRecordLockDurationMs,
                          int deliveryCountLimit, int partitionMaxRecordLocks, int sessionTimeoutMs,
                          int minSessionTimeoutMs, int maxSessionTimeoutMs, int heartbeatIntervalMs,
                          int minHeartbeatIntervalMs, int maxHeartbeatIntervalMs, int maxSize, int maxShareSessions) {

    /** Kafka 4.4's defaults. */
    public static ShareConfig defaults() {
        return new ShareConfig(30_000, 15_000, 60_000, 5, 2_000, 45_000, 45_000, 60_000, 5_000, 5_000, 15_000, 200,
                2_000);
    }
}
