package io.tributary.broker.group;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.group.GroupCoordinator.OffsetCommit;
import io.tributary.broker.group.OffsetStore.OffsetRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offsets committed inside a transaction (KIP-98, KIP-447): TxnOffsetCommit appends them to the group's
 * {@code __consumer_offsets} partition as one transactional batch of the producer, acks=all, and then holds them as
 * the group's {@link PendingTxnOffsets}; the transaction marker the transaction coordinator has written to that
 * partition ({@link #complete}) makes them committed or drops them. The records are the plain offset records of
 * {@link OffsetsTopicFormat}; only the batch's producer id and transactional flag tell them apart.
 *
 * <p>Threads: {@link #commit} is called from request-handler threads and completes on the replica manager's
 * threads; {@link #complete} is called by the WriteTxnMarkers handler's thread before it answers (so before the
 * producer's next transaction can add offsets under the same producer id), or by the load of a partition for the
 * transactions that ended while it loaded ({@link GroupRegistry#deferIfLoading}). A group's pending offsets are
 * read and changed only under its monitor.
 */
final class TxnOffsetCommits {

    private static final Logger log = LoggerFactory.getLogger(TxnOffsetCommits.class);

    private final GroupConfig config;
    private final GroupRegistry registry;
    private final OffsetsTopicWriter writer;
    private final Time time;

    TxnOffsetCommits(GroupConfig config, GroupRegistry registry, OffsetsTopicWriter writer, Time time) {
        this.config = config;
        this.registry = registry;
        this.writer = writer;
        this.time = time;
    }

    /**
     * TxnOffsetCommit for partitions the caller has checked exist. With a member id, group instance id or
     * generation (v3+, KIP-447) the committer must be that member of the group's current generation; without them
     * (older clients, or producers not driven by a consumer group) the commit is accepted whatever the group's
     * state, as Kafka accepts it.
     */
    CompletableFuture<Map<TopicPartition, Errors>> commit(String groupId, long producerId, short producerEpoch,
            String memberId, String groupInstanceId, int generationId, Map<TopicPartition, OffsetCommit> offsets) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(allErrors(offsets.keySet(), error));
        }
        if (producerId < 0 || producerEpoch < 0) {
            // No producer has these; a transactional batch cannot even be built with them (found by the fuzzer).
            return CompletableFuture.completedFuture(allErrors(offsets.keySet(),
                    producerId < 0 ? Errors.INVALID_PRODUCER_ID_MAPPING : Errors.INVALID_PRODUCER_EPOCH));
        }
        String member = memberId == null ? "" : memberId;
        boolean fromMember = generationId >= 0 || !member.isEmpty() || groupInstanceId != null;
        Group group = registry.get(groupId);
        if (group == null) {
            if (fromMember) {
                // A group this coordinator does not hold has no members and no generation.
                Errors memberError = member.isEmpty() ? Errors.ILLEGAL_GENERATION : Errors.UNKNOWN_MEMBER_ID;
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), memberError));
            }
            group = registry.getOrCreate(groupId, time);
        }
        synchronized (group) {
            Errors groupError = validate(group, member, groupInstanceId, generationId, fromMember);
            if (groupError != Errors.NONE) {
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), groupError));
            }
            Map<TopicPartition, Errors> results = new LinkedHashMap<>();
            OffsetRecords records = OffsetStore.offsetRecords(config, groupId, offsets, time.milliseconds(),
                    results);
            if (records.isEmpty()) {
                return CompletableFuture.completedFuture(results);
            }
            Group target = group;
            return writer.appendTransactional(group, producerId, producerEpoch, records.records())
                    .thenApply(appended -> {
                        Errors outcome = OffsetsTopicWriter.txnOffsetAppendError(appended.error());
                        synchronized (target) {
                            if (outcome != Errors.NONE) {
                                records.partitions().forEach(tp -> results.put(tp, outcome));
                            } else if (!target.is(GroupState.DEAD)) {
                                // Pending before the producer hears of it: its EndTxn, hence the marker, comes after.
                                records.positioned(appended.baseOffset()).forEach((tp, offset) ->
                                        target.pendingTxnOffsets().add(producerId, tp, offset));
                            }
                        }
                        return results;
                    });
        }
    }

    /** Kafka's checks for a transactional commit: no REBALANCE_IN_PROGRESS, and no group state required. */
    private static Errors validate(Group group, String memberId, String groupInstanceId, int generationId,
                                   boolean fromMember) {
        if (group.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (!fromMember) {
            return Errors.NONE;
        }
        if (groupInstanceId != null) {
            String holder = group.staticMemberId(groupInstanceId).orElse(null);
            if (holder != null && !holder.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        if (!memberId.isEmpty() && !group.hasMember(memberId)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return generationId == group.generationId() ? Errors.NONE : Errors.ILLEGAL_GENERATION;
    }

    /**
     * The transaction of {@code producerId} ended with a marker on {@code offsetsPartitions}: its pending offsets
     * in the groups of those partitions become committed or are dropped.
     */
    void complete(long producerId, Collection<Integer> offsetsPartitions, TransactionResult result) {
        Set<Integer> partitions = Set.copyOf(offsetsPartitions);
        boolean commit = result == TransactionResult.COMMIT;
        int groups = 0;
        int committed = 0;
        // Every held group of those partitions is looked at: a marker is one per transaction and partition, and the
        // check per group is a map lookup.
        for (Group group : registry.groups()) {
            if (!partitions.contains(group.offsetsPartition())) {
                continue;
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD) || !group.pendingTxnOffsets().hasProducer(producerId)) {
                    continue;
                }
                committed += group.pendingTxnOffsets().complete(producerId, commit, group.offsets());
                groups++;
            }
        }
        if (groups > 0) {
            log.debug("Transaction of producer {} ended ({}): {} offsets of {} groups committed", producerId, result,
                    committed, groups);
        }
    }

    private static Map<TopicPartition, Errors> allErrors(Set<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            errors.put(tp, error);
        }
        return errors;
    }
}
