package io.tributary.broker.storage;

import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What DescribeProducers reports of one producer of a partition, from the leader's producer state.
 *
 * @param lastSequence          the last sequence of its latest retained batch, or -1
 * @param lastTimestamp         the max timestamp of its latest batch or marker
 * @param coordinatorEpoch      the coordinator epoch of its latest transaction marker, or -1
 * @param currentTxnStartOffset the first offset of its ongoing transaction, or -1
 */
public record ActiveProducer(long producerId, int producerEpoch, int lastSequence, long lastTimestamp,
                             int coordinatorEpoch, long currentTxnStartOffset) {

    static ActiveProducer of(ProducerStateEntry entry) {
        return new ActiveProducer(entry.producerId(), entry.producerEpoch(),
                entry.lastBatch().map(BatchMetadata::lastSequence).orElse(RecordBatch.NO_SEQUENCE),
                entry.lastTimestamp(), entry.coordinatorEpoch(), entry.currentTxnFirstOffset());
    }
}
