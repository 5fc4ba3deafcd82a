package io.tributary.broker.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state of one idempotent or transactional producer on one partition: its current epoch, the timestamp of its
 * latest batch, the metadata of its latest {@value #RETAINED_BATCHES} batches, oldest first, all of that epoch, and for
 * transactions the epoch of the coordinator that wrote its last marker and the first offset of its ongoing transaction
 * on this partition, if one is ongoing.
 *
 * <p>Immutable: {@link #append} returns a new entry. That keeps {@link ProducerStateManager#activeProducers()} safe to
 * hand to another thread, and lets the manager validate an append without copying anything first. The cost is one
 * small list per appended batch, which is noise next to the batch itself.
 *
 * <p>Serialised by {@link ProducerSnapshotFile}.
 *
 * @param producerId    the producer id given out by InitProducerId
 * @param producerEpoch the epoch of the producer's latest batch
 * @param lastTimestamp the max timestamp of the producer's latest batch; producer-id expiry is measured from it
 * @param batches       the latest batches of {@code producerEpoch}, oldest first, at most {@value #RETAINED_BATCHES}
 * @param coordinatorEpoch    the coordinator epoch of the producer's latest transaction marker here, or
 *                            {@link #NO_COORDINATOR_EPOCH}; a marker from an older coordinator epoch is fenced
 * @param currentTxnFirstOffset the offset of the first batch of the producer's ongoing transaction here, or
 *                            {@link #NO_TXN} when none is ongoing
 */
record ProducerStateEntry(long producerId, short producerEpoch, long lastTimestamp, List<BatchMetadata> batches,
                          int coordinatorEpoch, long currentTxnFirstOffset) {

    static final int NO_COORDINATOR_EPOCH = -1;
    static final long NO_TXN = -1L;

    /**
     * How many batches per producer are remembered for duplicate detection. An idempotent Java producer keeps at most
     * {@code max.in.flight.requests.per.connection} = 5 batches in flight per partition (librdkafka caps it the same
     * way), so a retry is always of one of the producer's last 5 batches.
     */
    static final int RETAINED_BATCHES = 5;

    ProducerStateEntry {
        batches = List.copyOf(batches);
        if (batches.size() > RETAINED_BATCHES) {
            throw new IllegalArgumentException("Producer " + producerId + " has " + batches.size()
                    + " retained batches, at most " + RETAINED_BATCHES + " are allowed");
        }
    }

    /** An idempotent producer's state, outside any transaction. */
    ProducerStateEntry(long producerId, short producerEpoch, long lastTimestamp, List<BatchMetadata> batches) {
        this(producerId, producerEpoch, lastTimestamp, batches, NO_COORDINATOR_EPOCH, NO_TXN);
    }

    /** The state of a producer whose first known batch is {@code batch}. */
    static ProducerStateEntry first(long producerId, short epoch, BatchMetadata batch) {
        return new ProducerStateEntry(producerId, epoch, batch.maxTimestamp(), List.of(batch));
    }

    /** The state of a producer first known by a transaction marker (its data was removed, or it wrote none here). */
    static ProducerStateEntry markerOnly(long producerId, short epoch, long timestamp, int coordinatorEpoch) {
        return new ProducerStateEntry(producerId, epoch, timestamp, List.of(), coordinatorEpoch, NO_TXN);
    }

    boolean hasOngoingTxn() {
        return currentTxnFirstOffset != NO_TXN;
    }

    /** This state with a transaction ongoing from {@code firstOffset} (unchanged if one is ongoing already). */
    ProducerStateEntry beginTxnAt(long firstOffset) {
        return hasOngoingTxn() ? this : new ProducerStateEntry(producerId, producerEpoch, lastTimestamp, batches,
                coordinatorEpoch, firstOffset);
    }

    /**
     * The state after a transaction marker at {@code epoch}: no transaction ongoing, the marker's coordinator epoch
     * remembered. A marker of a newer epoch (the coordinator bumped it to abort a timed-out transaction) starts a new
     * sequence space, as a data batch of a new epoch does.
     */
    ProducerStateEntry endTxn(short epoch, int markerCoordinatorEpoch, long timestamp) {
        List<BatchMetadata> kept = epoch == producerEpoch ? batches : List.of();
        return new ProducerStateEntry(producerId, epoch, Math.max(lastTimestamp, timestamp), kept,
                markerCoordinatorEpoch, NO_TXN);
    }

    /**
     * The state after {@code batch} was appended at {@code epoch}. A different epoch starts a new sequence space, so
     * the batches of the old epoch are forgotten: a retry from the old epoch is refused as fenced, never a duplicate.
     * Nothing is validated here; the log is the authority on what was appended.
     */
    ProducerStateEntry append(short epoch, BatchMetadata batch) {
        List<BatchMetadata> kept = new ArrayList<>(RETAINED_BATCHES);
        if (epoch == producerEpoch) {
            kept.addAll(batches.subList(Math.max(0, batches.size() - (RETAINED_BATCHES - 1)), batches.size()));
        }
        kept.add(batch);
        return new ProducerStateEntry(producerId, epoch, batch.maxTimestamp(), kept, coordinatorEpoch,
                currentTxnFirstOffset);
    }

    /** The retained batch with exactly this sequence range, if any; the caller has checked the epoch. */
    Optional<BatchMetadata> findBatch(int firstSequence, int lastSequence) {
        return batches.stream().filter(b -> b.hasSequenceRange(firstSequence, lastSequence)).findFirst();
    }

    Optional<BatchMetadata> lastBatch() {
        return batches.isEmpty() ? Optional.empty() : Optional.of(batches.get(batches.size() - 1));
    }
}
