package io.tributary.broker.txn;

/**
 * The transaction coordinator's settings, with Kafka's property names (parsed once by {@code BrokerConfig}): the
 * layout of {@code __transaction_state}, the largest transaction timeout a producer may ask for, and the intervals of
 * the coordinator's two housekeeping tasks.
 *
 * @param logNumPartitions            {@code transaction.state.log.num.partitions}
 * @param logReplicationFactor        {@code transaction.state.log.replication.factor}
 * @param logMinIsr                   {@code transaction.state.log.min.isr}, the topic's {@code min.insync.replicas}
 * @param logSegmentBytes             {@code transaction.state.log.segment.bytes}
 * @param maxTimeoutMs                {@code transaction.max.timeout.ms}
 * @param idExpirationMs              {@code transactional.id.expiration.ms}
 * @param abortTimedOutIntervalMs     {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}
 * @param removeExpiredIntervalMs     {@code transaction.remove.expired.transaction.cleanup.interval.ms}
 */
public record TransactionConfig(int logNumPartitions, short logReplicationFactor, int logMinIsr, int logSegmentBytes,
                                int maxTimeoutMs, long idExpirationMs, long abortTimedOutIntervalMs,
                                long removeExpiredIntervalMs) {

    /** The internal topic holding the coordinator's state. */
    public static final String TRANSACTION_STATE_TOPIC = "__transaction_state";

    /** Kafka's defaults. */
    public static TransactionConfig defaults() {
        return new TransactionConfig(50, (short) 3, 2, 100 * 1024 * 1024, 900_000, 604_800_000L, 10_000L,
                3_600_000L);
    }
}
