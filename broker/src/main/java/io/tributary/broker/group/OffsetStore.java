package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.group.GroupCoordinator.GroupOffsets;
import io.tributary.broker.group.GroupCoordinator.OffsetCommit;
import io.tributary.broker.group.GroupCoordinator.OffsetDeleteResult;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetValue;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed offsets of classic groups: OffsetCommit (who may commit to which generation), OffsetFetch,
 * OffsetDelete, and the expiry of offsets past {@code offsets.retention.minutes}. A commit or a deletion is appended
 * to {@code __consumer_offsets} as an offset record or a tombstone ({@link OffsetsTopicFormat}) with acks=all, and
 * only then applied to {@link Group#offsets()}; of two commits of a partition the one written later in the log wins.
 * Offsets of open transactions ({@link TxnOffsetCommits}) are seen here only as unstable (OffsetFetch with
 * requireStable), as dropped by a tombstone, and as never expiring.
 *
 * <p>Threads: commits, fetches and deletions are called from request-handler threads, expiry from the
 * coordinator's scheduler thread. A group's offsets are read and changed only under that group's monitor, also in
 * the callbacks that complete an append.
 */
final class OffsetStore {

    private static final Logger log = LoggerFactory.getLogger(OffsetStore.class);

    private final GroupConfig config;
    private final GroupRegistry registry;
    private final GroupMembership membership;
    private final OffsetsTopicWriter writer;
    private final Time time;

    OffsetStore(GroupConfig config, GroupRegistry registry, GroupMembership membership, OffsetsTopicWriter writer,
                Time time) {
        this.config = config;
        this.registry = registry;
        this.membership = membership;
        this.writer = writer;
        this.time = time;
    }

    /**
     * OffsetCommit for partitions the caller has checked exist. A member commits with its generation; anyone may
     * commit to a group without members with generation -1 (simple, {@code assign()}-style consumers and admin
     * tools).
     */
    CompletableFuture<Map<TopicPartition, Errors>> commitOffsets(String groupId, String memberId,
            String groupInstanceId, int generationId, Map<TopicPartition, OffsetCommit> offsets) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(allErrors(offsets.keySet(), error));
        }
        String member = memberId == null ? "" : memberId;
        Group group = registry.get(groupId);
        if (group == null) {
            if (generationId >= 0 || !member.isEmpty() || groupInstanceId != null) {
                // The group is gone, so this member's generation is too.
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), Errors.ILLEGAL_GENERATION));
            }
            group = registry.getOrCreate(groupId, time);
        }
        synchronized (group) {
            Errors groupError = validateCommit(group, member, groupInstanceId, generationId);
            if (groupError != Errors.NONE) {
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), groupError));
            }
            if (group.hasMember(member)) {
                membership.touch(group, group.member(member));
            }
            Map<TopicPartition, Errors> results = new LinkedHashMap<>();
            OffsetRecords records = offsetRecords(config, groupId, offsets, time.milliseconds(), results);
            if (records.isEmpty()) {
                return CompletableFuture.completedFuture(results);
            }
            Group target = group;
            return writer.appendPositioned(group, records.records()).thenApply(appended -> {
                Errors outcome = OffsetsTopicWriter.offsetAppendError(appended.error());
                synchronized (target) {
                    if (outcome == Errors.NONE && !target.is(GroupState.DEAD)) {
                        records.positioned(appended.baseOffset()).forEach(target::commitOffset);
                    } else if (outcome != Errors.NONE) {
                        records.partitions().forEach(tp -> results.put(tp, outcome));
                    }
                }
                return results;
            });
        }
    }

    /** The offset records of one commit, in the order they are appended, and the offsets they carry. */
    record OffsetRecords(List<SimpleRecord> records, List<TopicPartition> partitions, List<CommittedOffset> offsets) {

        boolean isEmpty() {
            return records.isEmpty();
        }

        /** The offsets, each with the log position of its record once the batch landed at {@code baseOffset}. */
        Map<TopicPartition, CommittedOffset> positioned(long baseOffset) {
            Map<TopicPartition, CommittedOffset> positioned = new LinkedHashMap<>();
            for (int i = 0; i < partitions.size(); i++) {
                CommittedOffset offset = offsets.get(i);
                positioned.put(partitions.get(i), new CommittedOffset(offset.offset(), offset.leaderEpoch(),
                        offset.metadata(), offset.commitTimestamp(), baseOffset + i));
            }
            return positioned;
        }
    }

    /**
     * The records of an OffsetCommit or TxnOffsetCommit: one per partition, except those whose metadata is too
     * large ({@code OFFSET_METADATA_TOO_LARGE} in {@code results}); accepted partitions get NONE in {@code results}.
     */
    static OffsetRecords offsetRecords(GroupConfig config, String groupId, Map<TopicPartition, OffsetCommit> offsets,
                                       long nowMs, Map<TopicPartition, Errors> results) {
        List<SimpleRecord> records = new ArrayList<>();
        List<TopicPartition> partitions = new ArrayList<>();
        List<CommittedOffset> accepted = new ArrayList<>();
        for (Map.Entry<TopicPartition, OffsetCommit> entry : offsets.entrySet()) {
            OffsetCommit commit = entry.getValue();
            String metadata = commit.metadata() == null ? "" : commit.metadata();
            TopicPartition tp = entry.getKey();
            if (metadata.length() > config.offsetMetadataMaxBytes()) {
                results.put(tp, Errors.OFFSET_METADATA_TOO_LARGE);
                continue;
            }
            records.add(new SimpleRecord(nowMs,
                    OffsetsTopicFormat.serializeKey(new OffsetKey(groupId, tp.topic(), tp.partition())),
                    OffsetsTopicFormat.serializeOffsetValue(new OffsetValue(commit.offset(), commit.leaderEpoch(),
                            metadata, nowMs, -1L))));
            partitions.add(tp);
            accepted.add(new CommittedOffset(commit.offset(), commit.leaderEpoch(), metadata, nowMs, -1L));
            results.put(tp, Errors.NONE);
        }
        return new OffsetRecords(records, partitions, accepted);
    }

    private static Errors validateCommit(Group group, String memberId, String groupInstanceId, int generationId) {
        if (group.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
            Errors memberError = GroupMembership.validateMember(group, memberId, groupInstanceId);
            if (memberError != Errors.NONE) {
                return memberError;
            }
            if (generationId != group.generationId()) {
                return Errors.ILLEGAL_GENERATION;
            }
            if (group.is(GroupState.COMPLETING_REBALANCE)) {
                // The member knows the new generation but has no assignment yet.
                return Errors.REBALANCE_IN_PROGRESS;
            }
            return Errors.NONE;
        }
        // Without member id and generation only a group without members takes commits.
        return group.is(GroupState.EMPTY) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    private static Map<TopicPartition, Errors> allErrors(Set<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            errors.put(tp, error);
        }
        return errors;
    }

    /**
     * OffsetFetch: the committed offsets of the given partitions (absent ones map to null), or of every partition
     * when {@code partitions} is null. With {@code requireStable} (a read_committed consumer), partitions with an
     * offset of an open transaction are answered unstable instead: the consumer retries until the transaction
     * ended, rather than resume from an offset the transaction is about to replace.
     */
    GroupOffsets fetchOffsets(String groupId, List<TopicPartition> partitions, boolean requireStable) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return new GroupOffsets(error, Map.of(), Set.of());
        }
        Group group = registry.get(groupId);
        Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
        if (group == null) {
            if (partitions != null) {
                for (TopicPartition tp : partitions) {
                    result.put(tp, null);
                }
            }
            return new GroupOffsets(Errors.NONE, result, Set.of());
        }
        Set<TopicPartition> unstable = new HashSet<>();
        synchronized (group) {
            if (partitions == null) {
                result.putAll(group.offsets());
            } else {
                for (TopicPartition tp : partitions) {
                    result.put(tp, group.offsets().get(tp));
                }
            }
            if (requireStable && !group.pendingTxnOffsets().isEmpty()) {
                for (TopicPartition tp : result.keySet()) {
                    if (group.pendingTxnOffsets().contains(tp)) {
                        unstable.add(tp);
                    }
                }
            }
        }
        return new GroupOffsets(Errors.NONE, result, unstable);
    }

    /**
     * OffsetDelete: removes committed offsets of a group, except of topics its members are subscribed to
     * ({@code GROUP_SUBSCRIBED_TO_TOPIC}).
     */
    CompletableFuture<OffsetDeleteResult> deleteOffsets(String groupId, List<TopicPartition> partitions) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new OffsetDeleteResult(error, Map.of()));
        }
        Group group = registry.get(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND, Map.of()));
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND,
                        Map.of()));
            }
            Optional<Set<String>> subscribed = group.subscribedTopics();
            if (subscribed.isEmpty()) {
                return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.NON_EMPTY_GROUP, Map.of()));
            }
            Map<TopicPartition, Errors> results = new LinkedHashMap<>();
            List<TopicPartition> deleted = new ArrayList<>();
            List<SimpleRecord> tombstones = new ArrayList<>();
            long now = time.milliseconds();
            for (TopicPartition tp : partitions) {
                if (subscribed.get().contains(tp.topic())) {
                    results.put(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
                    continue;
                }
                results.put(tp, Errors.NONE);
                if (group.offsets().containsKey(tp) || group.pendingTxnOffsets().contains(tp)) {
                    deleted.add(tp);
                    tombstones.add(OffsetsTopicWriter.offsetTombstone(now, groupId, tp));
                }
            }
            if (tombstones.isEmpty()) {
                return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.NONE, results));
            }
            return writer.append(group, tombstones).thenApply(appendError -> {
                Errors outcome = OffsetsTopicWriter.groupAppendError(appendError);
                synchronized (group) {
                    if (outcome != Errors.NONE) {
                        return new OffsetDeleteResult(outcome, Map.of());
                    }
                    deleted.forEach(group::removeOffset);
                    return new OffsetDeleteResult(Errors.NONE, results);
                }
            });
        }
    }

    /**
     * Removes committed offsets past {@code offsets.retention.minutes}: for a group without members, counted from
     * when it became empty (or from the commit for groups that never had members); for a consumer group with
     * members, only offsets of topics nobody subscribes to, counted from the commit. A group left with neither
     * members nor offsets is deleted.
     */
    void expireOffsets() {
        long now = time.milliseconds();
        int expired = 0;
        for (Group group : registry.snapshot()) {
            if (!registry.isLoaded(group.offsetsPartition())) {
                continue;
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    continue;
                }
                List<TopicPartition> expiring = new ArrayList<>();
                // An offset an open transaction is about to replace does not expire, nor does its group.
                PendingTxnOffsets pending = group.pendingTxnOffsets();
                if (group.is(GroupState.EMPTY)) {
                    for (Map.Entry<TopicPartition, CommittedOffset> entry : group.offsets().entrySet()) {
                        if (pending.contains(entry.getKey())) {
                            continue;
                        }
                        long base = group.protocolType() != null
                                ? Math.max(group.stateTimestampMs(), entry.getValue().commitTimestamp())
                                : entry.getValue().commitTimestamp();
                        if (now - base >= config.offsetsRetentionMs()) {
                            expiring.add(entry.getKey());
                        }
                    }
                } else if (group.is(GroupState.STABLE)) {
                    Optional<Set<String>> subscribed = group.subscribedTopics();
                    if (subscribed.isPresent()) {
                        for (Map.Entry<TopicPartition, CommittedOffset> entry : group.offsets().entrySet()) {
                            if (!subscribed.get().contains(entry.getKey().topic()) && !pending.contains(entry.getKey())
                                    && now - entry.getValue().commitTimestamp() >= config.offsetsRetentionMs()) {
                                expiring.add(entry.getKey());
                            }
                        }
                    }
                }
                boolean deleteGroup = group.is(GroupState.EMPTY) && group.pendingMemberCount() == 0
                        && expiring.size() == group.offsets().size() && pending.isEmpty();
                if (expiring.isEmpty() && !deleteGroup) {
                    continue;
                }
                List<SimpleRecord> tombstones = new ArrayList<>();
                for (TopicPartition tp : expiring) {
                    tombstones.add(OffsetsTopicWriter.offsetTombstone(now, group.groupId(), tp));
                }
                if (deleteGroup) {
                    tombstones.add(OffsetsTopicWriter.groupTombstone(now, group.groupId()));
                }
                expired += expiring.size();
                writer.append(group, tombstones).thenAccept(appendError -> {
                    synchronized (group) {
                        if (appendError != Errors.NONE) {
                            log.warn("Could not expire offsets of group {}: {}", group.groupId(), appendError);
                            return;
                        }
                        expiring.forEach(group.offsets()::remove);
                        if (deleteGroup && group.is(GroupState.EMPTY) && group.offsets().isEmpty()
                                && group.pendingTxnOffsets().isEmpty()) {
                            membership.markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                            registry.remove(group);
                            log.info("Group {} expired: empty, and its offsets passed the retention",
                                    group.groupId());
                        }
                    }
                });
            }
        }
        if (expired > 0) {
            log.info("Expired {} committed offsets", expired);
        }
    }
}
