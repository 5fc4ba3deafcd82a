package io.tributary.broker.group;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.tributary.broker.group.GroupRegistry.TxnCompletion;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.MemberValue;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogReadInfo;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the groups of a {@code __consumer_offsets} partition when this broker becomes its leader: reads the whole
 * log, replays its batches ({@link OffsetsPartitionReplay}: group values, offset records and tombstones, offsets of
 * transactions and their markers) into group metadata, committed offsets and offsets of transactions still open,
 * then replaces the partition's groups in the {@link GroupRegistry} and marks the partition loaded. Restored members
 * start their sessions anew.
 *
 * <p>Threads: runs only on the coordinator's scheduler thread. It reads no shared state while replaying; it checks
 * its load token between reads and before installing, so that a load overtaken by a leadership change installs
 * nothing. Each installed group is filled under its monitor before it is published.
 */
final class GroupLoader {

    private static final Logger log = LoggerFactory.getLogger(GroupLoader.class);

    private final GroupConfig config;
    private final ReplicaManager replicaManager;
    private final GroupRegistry registry;
    private final GroupMembership membership;
    private final TxnOffsetCommits txnOffsets;
    private final Time time;

    GroupLoader(GroupConfig config, ReplicaManager replicaManager, GroupRegistry registry,
                GroupMembership membership, TxnOffsetCommits txnOffsets, Time time) {
        this.config = config;
        this.replicaManager = replicaManager;
        this.registry = registry;
        this.membership = membership;
        this.txnOffsets = txnOffsets;
        this.time = time;
    }

    /**
     * Replays partition {@code partition} of {@code __consumer_offsets} and installs its groups, unless the load
     * that holds {@code token} is no longer current. On failure the partition stays loading, and its groups
     * unavailable.
     */
    void load(int partition, long token) {
        long started = time.milliseconds();
        TopicPartition tp = new TopicPartition(GroupConfig.OFFSETS_TOPIC, partition);
        OffsetsPartitionReplay replay = new OffsetsPartitionReplay(tp);
        try {
            Optional<Partition> hosted = replicaManager.partition(tp);
            if (hosted.isEmpty()) {
                log.warn("Cannot load {}: this broker does not host it", tp);
                return;
            }
            PartitionLog partitionLog = hosted.get().log();
            long offset = partitionLog.logStartOffset();
            // The whole log, as Kafka loads it: a new leader's high watermark may lag until its followers fetch, and
            // records between it and the log end are this leader's (they commit once replicated, or this broker
            // stops coordinating these groups when it stops leading).
            long end = partitionLog.logEndOffset();
            while (offset < end && registry.isCurrent(partition, token)) {
                LogReadInfo info = partitionLog.read(offset, config.offsetsLoadBufferSize(), end, true);
                long next = offset;
                for (RecordBatch batch : info.records().batches()) {
                    next = batch.nextOffset();
                    replay.replay(batch);
                }
                if (next == offset) {
                    break;
                }
                offset = next;
            }
        } catch (RuntimeException e) {
            log.error("Loading the groups of {} failed; groups of that partition are unavailable", tp, e);
            return;
        }
        install(partition, token, replay);
        log.info("Loaded {} groups, {} share groups and the offsets of {} groups from {} ({} records) in {} ms",
                replay.groupValueCount(), replay.shareGroupEpochs().size(), replay.offsetGroupCount(), tp,
                replay.recordCount(),
                time.milliseconds() - started);
    }

    private void install(int partition, long token, OffsetsPartitionReplay replay) {
        if (!registry.isCurrent(partition, token)) {
            return;
        }
        for (Group stale : registry.snapshot()) {
            if (stale.offsetsPartition() == partition) {
                registry.remove(stale);
            }
        }
        for (ShareGroup stale : registry.shareGroupSnapshot()) {
            if (stale.offsetsPartition() == partition) {
                registry.removeShareGroup(stale);
            }
        }
        // Share groups come back empty at their stored epoch; their members rejoin (UNKNOWN_MEMBER_ID first).
        replay.shareGroupEpochs().forEach((groupId, epoch) -> {
            ShareGroup group = new ShareGroup(groupId, partition, epoch);
            group.restoreStateTopics(replay.shareStateTopics(groupId));
            registry.putShareGroup(group);
        });
        long now = time.milliseconds();
        for (String groupId : replay.groupIds()) {
            Group group = new Group(groupId, partition, now);
            synchronized (group) {
                GroupValue value = replay.groupValue(groupId);
                if (value != null) {
                    restore(group, value, now);
                }
                group.offsets().putAll(replay.offsets(groupId));
                PendingTxnOffsets pending = replay.pending(groupId);
                if (pending != null) {
                    group.pendingTxnOffsets().addAll(pending);
                }
                registry.put(group);
            }
        }
        // Transactions that ended while the partition loaded: their markers may lie past the end this load read.
        // Applying one whose marker the replay saw changes nothing: its producer's pending offsets are gone, and its
        // next transaction cannot have begun before the end was reported (TxnOffsetCommit waits for this load).
        List<TxnCompletion> ended = registry.markLoadedOrTakeCompletions(partition, token);
        while (!ended.isEmpty()) {
            for (TxnCompletion completion : ended) {
                txnOffsets.complete(completion.producerId(), List.of(partition), completion.result());
            }
            ended = registry.markLoadedOrTakeCompletions(partition, token);
        }
    }

    private void restore(Group group, GroupValue value, long nowMs) {
        for (MemberValue stored : value.members()) {
            Map<String, byte[]> protocols = new LinkedHashMap<>();
            if (value.protocol() != null) {
                protocols.put(value.protocol(), stored.subscription());
            }
            Member member = new Member(stored.memberId(), stored.groupInstanceId(), stored.clientId(),
                    stored.clientHost(), stored.rebalanceTimeoutMs(), stored.sessionTimeoutMs(),
                    value.protocolType(), protocols);
            member.assignment(stored.assignment());
            group.add(member);
        }
        GroupState state = value.members().isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
        long stateTimestamp = value.currentStateTimestamp() >= 0 ? value.currentStateTimestamp() : nowMs;
        group.restore(state, value.protocolType(), value.protocol(), value.generation(), value.leader(),
                stateTimestamp);
        for (Member member : group.members()) {
            membership.touch(group, member);
        }
    }
}
