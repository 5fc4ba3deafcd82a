package io.tributary.broker.txn;

import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the coordinator knows of one transactional id at one moment: an immutable value, replaced as a whole by each
 * transition (the value written to {@code __transaction_state} is this, see {@link TransactionLogFormat}).
 *
 * @param producerId          the producer id the transactional id uses now
 * @param previousProducerId  the producer id it used before its epochs ran out (-1 when none), for KIP-360 retries
 * @param producerEpoch       the current epoch; {@link RecordBatch#NO_PRODUCER_EPOCH} before the first
 *                            InitProducerId completed
 * @param lastProducerEpoch   the epoch before the last bump (not stored in the log: a retried InitProducerId whose
 *                            answer was lost gets the same epoch again instead of a fence)
 * @param timeoutMs           the producer's {@code transaction.timeout.ms}
 * @param partitions          the partitions of the open or completing transaction; empty when none
 * @param startTimestamp      when the current transaction began (-1 when none)
 * @param lastUpdateTimestamp when this value was last changed
 */
record TransactionData(long producerId, long previousProducerId, short producerEpoch, short lastProducerEpoch,
                       int timeoutMs, TransactionState state, Set<TopicPartition> partitions, long startTimestamp,
                       long lastUpdateTimestamp) {

    static final long NO_PRODUCER_ID = RecordBatch.NO_PRODUCER_ID;
    static final short NO_EPOCH = RecordBatch.NO_PRODUCER_EPOCH;

    TransactionData {
        partitions = Set.copyOf(partitions);
    }

    /** A transactional id seen for the first time, before its InitProducerId completed. */
    static TransactionData fresh(long producerId, int timeoutMs, long now) {
        return new TransactionData(producerId, NO_PRODUCER_ID, NO_EPOCH, NO_EPOCH, timeoutMs,
                TransactionState.EMPTY, Set.of(), -1L, now);
    }

    TransactionData withState(TransactionState newState, long now) {
        return new TransactionData(producerId, previousProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
                newState, partitions, startTimestamp, now);
    }
}
