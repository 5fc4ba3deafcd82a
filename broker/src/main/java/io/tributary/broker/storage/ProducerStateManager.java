package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer state of one partition: for every producer id that wrote to it, the current epoch, the last
 * {@value ProducerStateEntry#RETAINED_BATCHES} batches and its transaction ({@link ProducerStateEntry}). With it the
 * leader refuses a batch from a fenced epoch or with a sequence gap, answers a retried batch with the offsets of the
 * original instead of writing it twice, refuses a fenced transaction marker, and the log knows its first unstable
 * offset, which bounds the last stable offset (LSO) that read_committed consumers read up to.
 *
 * <p>Transactions (KIP-98): a transactional batch of a producer with none ongoing starts one at its offset; a
 * transaction marker (a control batch, COMMIT or ABORT, written through WriteTxnMarkers) ends it. An ended
 * transaction stays unstable until the high watermark passes its marker, so that a consumer never reads past a
 * marker that could still be lost in a leader change. Ongoing transactions are in the snapshots; ended ones whose
 * marker the high watermark had not passed are not: after a restart that replays nothing past the snapshot, the high
 * watermark alone holds readers back from such a transaction (as in Kafka).
 *
 * <p>The state reflects exactly the batches of the log below {@link #mapEndOffset()}. The partition log keeps it so:
 * <ul>
 *   <li>on load, {@link #truncateAndReload} restores the newest usable snapshot, then the log replays its batches from
 *       {@code mapEndOffset()} to its end through {@link #update};</li>
 *   <li>on a leader append, {@link #checkLeaderAppend} before assigning offsets (a duplicate is answered, not
 *       written), then {@link #update} for each batch once it has its offsets;</li>
 *   <li>whenever the high watermark moves, {@link #onHighWatermarkUpdated};</li>
 *   <li>on a follower append, {@link #update} for each batch;</li>
 *   <li>at a segment roll, {@link #takeSnapshot}, and at close {@link #takeSnapshotAtClose}; when the log start
 *       moves, {@link #deleteSnapshotsBefore}; on truncation, {@link #truncateAndReload} again; periodically,
 *       {@link #removeExpiredProducers}.</li>
 * </ul>
 *
 * <h2>On disk</h2>
 * Snapshots {@code <offset, 20 digits>.snapshot} in the partition directory, each the full state as of its offset,
 * in the format described by {@link ProducerSnapshotFile}. Snapshots are only a shortcut: the state can always be
 * rebuilt by replaying the log, so a snapshot only bounds how much of the log is replayed at load, and a corrupt one is
 * deleted and an older one (or the log start) used instead. The directory is the truth about which snapshots exist;
 * nothing about them is cached.
 *
 * <h2>Threads</h2>
 * One writer: the partition log calls every method while holding its own lock, so this class does no locking of its
 * own. {@link #activeProducers()} returns an immutable map of immutable entries, which may be handed to other threads.
 */
final class ProducerStateManager {

    private static final Logger log = LoggerFactory.getLogger(ProducerStateManager.class);

    private final TopicPartition topicPartition;
    private final Path partitionDir;
    private final long producerIdExpirationMs;
    private final Time time;

    /** Written by the partition log's appending thread, under its lock, like every field below. */
    private final Map<Long, ProducerStateEntry> producers = new HashMap<>();
    /** Ongoing transactions: first offset to producer id. */
    private final TreeMap<Long, Long> ongoingTxns = new TreeMap<>();
    /** Transactions whose marker is at or above the high watermark, by first offset; not in snapshots. */
    private final TreeMap<Long, CompletedTxn> unreplicatedTxns = new TreeMap<>();
    private long mapEndOffset;

    /**
     * @param producerIdExpirationMs {@code producer.id.expiration.ms}: a producer whose latest batch is at least this old
     *                               is forgotten (Kafka's default is 86,400,000, one day)
     * @param time                   the clock by which producers that expired while the broker was down are dropped
     *                               at load
     */
    ProducerStateManager(TopicPartition topicPartition, Path partitionDir, long producerIdExpirationMs, Time time) {
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.partitionDir = Objects.requireNonNull(partitionDir, "partitionDir");
        this.time = Objects.requireNonNull(time, "time");
        if (producerIdExpirationMs <= 0) {
            throw new IllegalArgumentException("producer.id.expiration.ms must be positive for " + topicPartition
                    + ", was " + producerIdExpirationMs);
        }
        this.producerIdExpirationMs = producerIdExpirationMs;
    }

    /** {@link #checkLeaderAppend} for a producer's append through Produce. */
    Optional<BatchMetadata> checkClientAppend(List<? extends RecordBatch> batches) {
        return checkLeaderAppend(batches, AppendOrigin.CLIENT);
    }

    /**
     * Checks the batches of one leader append, in order, before offsets are assigned. Each batch is checked as if the
     * batches before it in {@code batches} had been appended, but nothing is changed here: the append can still fail
     * after this check, and then none of it happened.
     *
     * <p>From a {@link AppendOrigin#CLIENT client}: epoch and sequence of every idempotent or transactional batch, and
     * retries recognised. From a {@link AppendOrigin#COORDINATOR coordinator}: epochs only (a transactional offset
     * commit numbers every batch 0), and transaction markers: a marker of an older producer epoch or of an older
     * coordinator epoch than the last one seen is refused. Either way a non-transactional batch from a producer whose
     * transaction is ongoing is refused.
     *
     * @return the retained metadata of the original if a client's batch is a retry of one already in the log; the log
     *         then answers with the original's offsets and appends nothing. Empty if no batch is a duplicate.
     * @throws InvalidProducerEpochException          if a batch or marker comes from an older epoch than the
     *                                                producer's current one
     * @throws OutOfOrderSequenceException            if a client's batch does not continue its producer's sequence
     * @throws TransactionCoordinatorFencedException if a marker comes from an older coordinator epoch
     * @throws InvalidTxnStateException              if a non-transactional batch comes during a transaction
     */
    Optional<BatchMetadata> checkLeaderAppend(List<? extends RecordBatch> batches, AppendOrigin origin) {
        // Where each producer of this append stands after the batches checked so far.
        Map<Long, SequencePosition> pending = new HashMap<>();
        for (RecordBatch batch : batches) {
            if (!batch.hasProducerId()) {
                continue;
            }
            long producerId = batch.producerId();
            SequencePosition position = pending.get(producerId);
            if (position == null) {
                ProducerStateEntry entry = producers.get(producerId);
                // Only batches in the log have offsets to answer a retry with. A batch repeating an earlier one of
                // this same append is a client bug; it fails the sequence check below.
                Optional<BatchMetadata> duplicate = origin != AppendOrigin.CLIENT || batch.isControlBatch()
                        || entry == null || entry.producerEpoch() != batch.producerEpoch()
                        ? Optional.empty()
                        : entry.findBatch(batch.baseSequence(), batch.lastSequence());
                if (duplicate.isPresent()) {
                    return duplicate;
                }
                position = entry == null ? SequencePosition.UNKNOWN : SequencePosition.of(entry);
            }
            if (batch.isControlBatch()) {
                pending.put(producerId, checkMarker(producerId, position, batch));
                continue;
            }
            if (origin == AppendOrigin.CLIENT) {
                checkEpochAndSequence(producerId, position, batch);
            } else {
                checkEpoch(producerId, position, batch.producerEpoch(), "Batch");
            }
            if (!batch.isTransactional() && position.txnOngoing()) {
                throw new InvalidTxnStateException(String.format(
                        "Producer %d on %s wrote a non-transactional batch while its transaction is ongoing",
                        producerId, topicPartition));
            }
            pending.put(producerId, new SequencePosition(batch.producerEpoch(), batch.lastSequence(),
                    position.txnOngoing() || batch.isTransactional(), position.coordinatorEpoch()));
        }
        return Optional.empty();
    }

    private SequencePosition checkMarker(long producerId, SequencePosition position, RecordBatch batch) {
        EndTransactionMarker marker = readMarker(batch).orElseThrow(() -> new InvalidRecordException(
                "Control batch of producer " + producerId + " for " + topicPartition + " is no transaction marker"));
        checkEpoch(producerId, position, batch.producerEpoch(), "Transaction marker");
        if (!position.isUnknown() && marker.coordinatorEpoch() < position.coordinatorEpoch()) {
            throw new TransactionCoordinatorFencedException(String.format(
                    "Transaction marker of producer %d on %s has coordinator epoch %d, older than the last one seen, "
                            + "%d", producerId, topicPartition, marker.coordinatorEpoch(), position.coordinatorEpoch()));
        }
        short epoch = batch.producerEpoch();
        int lastSequence = position.isUnknown() || epoch != position.epoch() ? RecordBatch.NO_SEQUENCE
                : position.lastSequence();
        return new SequencePosition(epoch, lastSequence, false, marker.coordinatorEpoch());
    }

    private void checkEpoch(long producerId, SequencePosition position, short epoch, String what) {
        if (!position.isUnknown() && epoch < position.epoch()) {
            throw new InvalidProducerEpochException(String.format(
                    "%s of producer %d on %s has epoch %d, older than the producer's current epoch %d",
                    what, producerId, topicPartition, epoch, position.epoch()));
        }
    }

    /** The transaction marker a control batch holds, or empty for another kind of control record. */
    static Optional<EndTransactionMarker> readMarker(RecordBatch batch) {
        Iterator<Record> records = batch.iterator();
        if (!records.hasNext()) {
            return Optional.empty();
        }
        Record record = records.next();
        if (!record.hasKey()) {
            return Optional.empty();
        }
        ControlRecordType type = ControlRecordType.parse(record.key());
        if (type != ControlRecordType.ABORT && type != ControlRecordType.COMMIT) {
            return Optional.empty();
        }
        return Optional.of(EndTransactionMarker.deserialize(record));
    }

    private void checkEpochAndSequence(long producerId, SequencePosition position, RecordBatch batch) {
        if (position.isUnknown()) {
            // No state: the producer is new here, or its batches were removed by retention or its state expired.
            // There is nothing to continue from, so any sequence is accepted.
            return;
        }
        short epoch = batch.producerEpoch();
        int firstSequence = batch.baseSequence();
        if (epoch < position.epoch()) {
            throw new InvalidProducerEpochException(String.format(
                    "Batch of producer %d on %s has epoch %d, older than the producer's current epoch %d",
                    producerId, topicPartition, epoch, position.epoch()));
        }
        if (epoch > position.epoch()) {
            if (firstSequence != 0) {
                throw new OutOfOrderSequenceException(String.format(
                        "Producer %d on %s starts epoch %d (current epoch %d) at sequence %d; a new epoch starts at 0",
                        producerId, topicPartition, epoch, position.epoch(), firstSequence));
            }
            return;
        }
        if (position.lastSequence() == RecordBatch.NO_SEQUENCE) {
            return;
        }
        int expected = nextSequence(position.lastSequence());
        if (firstSequence != expected) {
            throw new OutOfOrderSequenceException(String.format(
                    "Out of order sequence from producer %d on %s at epoch %d: expected sequence %d, received %d",
                    producerId, topicPartition, epoch, expected, firstSequence));
        }
    }

    /** Sequences wrap from {@link Integer#MAX_VALUE} to 0, as the producer numbers them. */
    private static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }

    /**
     * Records a batch that is in the log with its final offsets: after a leader append, a follower append, or while
     * replaying the log at load. Nothing is validated; the log is the authority. Advances {@link #mapEndOffset()} to
     * {@code batch.nextOffset()}, also for batches without a producer id, which leave no state.
     *
     * <p>A transactional batch of a producer with no ongoing transaction starts one at its base offset; a transaction
     * marker ends the producer's ongoing one, which stays <em>unstable</em> ({@link #firstUnstableOffset()}) until the
     * high watermark passes the marker ({@link #onHighWatermarkUpdated}).
     *
     * @return the transaction this batch completed, if it is a marker that ended one
     */
    Optional<CompletedTxn> update(RecordBatch batch) {
        Optional<CompletedTxn> completed = Optional.empty();
        if (batch.hasProducerId()) {
            completed = batch.isControlBatch() ? applyMarker(batch) : applyData(batch);
        }
        mapEndOffset = batch.nextOffset();
        return completed;
    }

    private Optional<CompletedTxn> applyData(RecordBatch batch) {
        long producerId = batch.producerId();
        BatchMetadata metadata = BatchMetadata.of(batch);
        ProducerStateEntry current = producers.get(producerId);
        ProducerStateEntry updated = current == null
                ? ProducerStateEntry.first(producerId, batch.producerEpoch(), metadata)
                : current.append(batch.producerEpoch(), metadata);
        if (batch.isTransactional() && !updated.hasOngoingTxn()) {
            updated = updated.beginTxnAt(batch.baseOffset());
            ongoingTxns.put(batch.baseOffset(), producerId);
        }
        producers.put(producerId, updated);
        return Optional.empty();
    }

    private Optional<CompletedTxn> applyMarker(RecordBatch batch) {
        Optional<EndTransactionMarker> marker = readMarker(batch);
        if (marker.isEmpty()) {
            return Optional.empty(); // another control record; none is written to data partitions
        }
        long producerId = batch.producerId();
        ProducerStateEntry current = producers.get(producerId);
        int coordinatorEpoch = marker.get().coordinatorEpoch();
        producers.put(producerId, current == null
                ? ProducerStateEntry.markerOnly(producerId, batch.producerEpoch(), batch.maxTimestamp(),
                        coordinatorEpoch)
                : current.endTxn(batch.producerEpoch(), coordinatorEpoch, batch.maxTimestamp()));
        if (current == null || !current.hasOngoingTxn()) {
            // A marker for a transaction that wrote nothing here (or whose data was deleted): nothing to end.
            return Optional.empty();
        }
        long firstOffset = current.currentTxnFirstOffset();
        ongoingTxns.remove(firstOffset);
        CompletedTxn completed = new CompletedTxn(producerId, firstOffset, batch.lastOffset(),
                marker.get().controlType() == ControlRecordType.ABORT);
        unreplicatedTxns.put(firstOffset, completed);
        return Optional.of(completed);
    }

    /**
     * The first offset of the oldest transaction that is not decided below the high watermark: still ongoing, or
     * ended by a marker the high watermark has not passed yet. The last stable offset is the smaller of this and the
     * high watermark.
     */
    OptionalLong firstUnstableOffset() {
        long first = Long.MAX_VALUE;
        if (!ongoingTxns.isEmpty()) {
            first = ongoingTxns.firstKey();
        }
        if (!unreplicatedTxns.isEmpty()) {
            first = Math.min(first, unreplicatedTxns.firstKey());
        }
        return first == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(first);
    }

    /** The completed transactions whose marker is now below {@code highWatermark} are stable. */
    void onHighWatermarkUpdated(long highWatermark) {
        unreplicatedTxns.values().removeIf(txn -> txn.lastOffset() < highWatermark);
    }

    /**
     * The last stable offset written beside an aborted transaction in the transaction index: the first offset of the
     * oldest transaction still ongoing once {@code completed} ended, or the offset after its marker if none is. A
     * reader collecting aborted transactions below an offset can stop at the first entry whose value reaches it.
     */
    long lastStableOffsetAfter(CompletedTxn completed) {
        return ongoingTxns.isEmpty() ? completed.lastOffset() + 1 : ongoingTxns.firstKey();
    }

    /** The next log offset whose batch is not yet reflected in the state. */
    long mapEndOffset() {
        return mapEndOffset;
    }

    void updateMapEndOffset(long offset) {
        mapEndOffset = offset;
    }

    /** Writes a snapshot of the state at {@link #mapEndOffset()}, unless one for that offset exists already. */
    void takeSnapshot() throws IOException {
        ProducerSnapshotFile snapshot = ProducerSnapshotFile.at(partitionDir, mapEndOffset);
        // An existing snapshot at this offset holds this same state: truncateAndReload deletes every snapshot above
        // the log end, so a snapshot at an offset always describes the log prefix that is there now.
        if (snapshot.exists()) {
            return;
        }
        snapshot.write(producers.values());
        log.debug("[{}] Wrote producer snapshot {} with {} producers", topicPartition, snapshot, producers.size());
    }

    /**
     * The snapshot at close only saves the next start-up from replaying the log since the previous snapshot (taken at
     * the last roll), which {@link LogLoader#rebuildProducerState} does after a clean shutdown too; so on a resource
     * error ({@link StorageFault}) the log closes without it, trimmed and clean, instead of making the next start-up
     * recover the whole directory. A failed snapshot leaves no file behind.
     *
     * @throws IOException a disk failure
     */
    void takeSnapshotAtClose() throws IOException {
        try {
            takeSnapshot();
        } catch (IOException e) {
            if (!StorageFault.isResourceExhausted(e)) {
                throw e;
            }
            log.warn("{}: closing without a producer state snapshot ({}); the next start-up replays the log from "
                    + "the previous one", topicPartition, e.getMessage());
        }
    }

    OptionalLong latestSnapshotOffset() throws IOException {
        NavigableMap<Long, ProducerSnapshotFile> snapshots = ProducerSnapshotFile.listIn(partitionDir);
        return snapshots.isEmpty() ? OptionalLong.empty() : OptionalLong.of(snapshots.lastKey());
    }

    OptionalLong oldestSnapshotOffset() throws IOException {
        NavigableMap<Long, ProducerSnapshotFile> snapshots = ProducerSnapshotFile.listIn(partitionDir);
        return snapshots.isEmpty() ? OptionalLong.empty() : OptionalLong.of(snapshots.firstKey());
    }

    /** Deletes the snapshots below {@code offset}, keeping those at or above it. */
    void deleteSnapshotsBefore(long offset) throws IOException {
        for (ProducerSnapshotFile snapshot : ProducerSnapshotFile.listIn(partitionDir).headMap(offset, false).values()) {
            snapshot.delete();
        }
    }

    /**
     * Rebuilds the state for a log holding offsets {@code logStartOffset} to {@code logEndOffset}: deletes the snapshots
     * outside that range, loads the newest remaining one that is readable (deleting each corrupt one on the way, with a
     * warning) and sets {@link #mapEndOffset()} to its offset, or to {@code logStartOffset} if there is none. The caller
     * then replays the log's batches from {@code mapEndOffset()} to {@code logEndOffset} through {@link #update}.
     */
    void truncateAndReload(long logStartOffset, long logEndOffset) throws IOException {
        if (logStartOffset > logEndOffset) {
            throw new IllegalArgumentException("Log start offset " + logStartOffset + " is above log end offset "
                    + logEndOffset + " for " + topicPartition);
        }
        ProducerSnapshotFile.deleteTempFiles(partitionDir);
        NavigableMap<Long, ProducerSnapshotFile> snapshots = ProducerSnapshotFile.listIn(partitionDir);
        for (ProducerSnapshotFile snapshot : snapshots.values()) {
            if (snapshot.offset() < logStartOffset || snapshot.offset() > logEndOffset) {
                snapshot.delete();
            }
        }
        clearState();
        mapEndOffset = logStartOffset;
        for (ProducerSnapshotFile snapshot : snapshots.subMap(logStartOffset, true, logEndOffset, true)
                .descendingMap().values()) {
            List<ProducerStateEntry> entries;
            try {
                entries = snapshot.read();
            } catch (ProducerSnapshotFile.CorruptSnapshotException e) {
                log.warn("[{}] Deleting producer snapshot {} and trying an older one: {}", topicPartition, snapshot,
                        e.getMessage());
                snapshot.delete();
                continue;
            }
            long now = time.milliseconds();
            for (ProducerStateEntry entry : entries) {
                if (!isExpired(entry, now)) {
                    producers.put(entry.producerId(), entry);
                    if (entry.hasOngoingTxn()) {
                        ongoingTxns.put(entry.currentTxnFirstOffset(), entry.producerId());
                    }
                }
            }
            mapEndOffset = snapshot.offset();
            log.info("[{}] Loaded {} producers from snapshot {}", topicPartition, producers.size(), snapshot);
            return;
        }
    }

    /** Forgets every producer and deletes every snapshot, for a log that now starts, empty, at {@code offset}. */
    void truncateFullyAndStartAt(long offset) throws IOException {
        ProducerSnapshotFile.deleteTempFiles(partitionDir);
        for (ProducerSnapshotFile snapshot : ProducerSnapshotFile.listIn(partitionDir).values()) {
            snapshot.delete();
        }
        clearState();
        mapEndOffset = offset;
    }

    private void clearState() {
        producers.clear();
        ongoingTxns.clear();
        unreplicatedTxns.clear();
    }

    /** Deletes the snapshots above {@code offset}: after an unclean shutdown, those beyond the recovery point. */
    void deleteSnapshotsAfter(long offset) throws IOException {
        for (ProducerSnapshotFile snapshot : ProducerSnapshotFile.listIn(partitionDir).tailMap(offset, false).values()) {
            snapshot.delete();
        }
    }

    /**
     * Forgets the producers whose latest batch is {@code producer.id.expiration.ms} or more older than {@code nowMs}.
     * A forgotten producer that writes again is accepted at any sequence, like a new one. A producer whose transaction
     * is ongoing is kept however old: forgetting it would make its transaction's records stable, as Kafka keeps it.
     */
    void removeExpiredProducers(long nowMs) {
        int before = producers.size();
        producers.values().removeIf(entry -> isExpired(entry, nowMs));
        if (producers.size() < before) {
            log.debug("[{}] Expired {} producers", topicPartition, before - producers.size());
        }
    }

    private boolean isExpired(ProducerStateEntry entry, long nowMs) {
        return !entry.hasOngoingTxn() && nowMs - entry.lastTimestamp() >= producerIdExpirationMs;
    }

    /** The state of every known producer by producer id: an immutable copy. */
    Map<Long, ProducerStateEntry> activeProducers() {
        return Map.copyOf(producers);
    }

    /**
     * A producer's position in its sequence space and transaction. {@link #UNKNOWN} for a producer without state; a
     * last sequence of {@link RecordBatch#NO_SEQUENCE} for a known epoch with no retained batch.
     */
    private record SequencePosition(short epoch, int lastSequence, boolean txnOngoing, int coordinatorEpoch) {

        static final SequencePosition UNKNOWN = new SequencePosition(RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE, false, ProducerStateEntry.NO_COORDINATOR_EPOCH);

        SequencePosition(short epoch, int lastSequence) {
            this(epoch, lastSequence, false, ProducerStateEntry.NO_COORDINATOR_EPOCH);
        }

        static SequencePosition of(ProducerStateEntry entry) {
            return new SequencePosition(entry.producerEpoch(),
                    entry.lastBatch().map(BatchMetadata::lastSequence).orElse(RecordBatch.NO_SEQUENCE),
                    entry.hasOngoingTxn(), entry.coordinatorEpoch());
        }

        boolean isUnknown() {
            return epoch == RecordBatch.NO_PRODUCER_EPOCH;
        }
    }

    /**
     * A transaction ended by a marker on this partition.
     *
     * @param firstOffset the offset of its first batch here
     * @param lastOffset  the offset of its marker
     */
    record CompletedTxn(long producerId, long firstOffset, long lastOffset, boolean aborted) {
    }
}
