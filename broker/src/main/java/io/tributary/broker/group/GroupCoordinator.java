package io.tributary.broker.group;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.tributary.broker.group.OffsetsTopicFormat.GroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.Key;
import io.tributary.broker.group.OffsetsTopicFormat.MemberValue;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetValue;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogReadInfo;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of classic consumer groups whose {@code __consumer_offsets} partition this broker leads: the
 * join/sync barrier and the group state machine, member sessions, static membership, committed offsets, and their
 * durability in {@code __consumer_offsets}.
 *
 * <p>A group belongs to partition {@code abs(groupId.hashCode()) % partitions} of {@code __consumer_offsets}, as in
 * Kafka. When this broker becomes that partition's leader it replays the partition (answering
 * {@code COORDINATOR_LOAD_IN_PROGRESS} meanwhile) and then serves its groups; when leadership moves away it drops
 * them ({@code NOT_COORDINATOR}). Every change that must survive a restart (a commit, a generation's assignment, an
 * emptied or deleted group) is appended to the partition with acks=all before it is acknowledged; the in-memory
 * state changes only once the append succeeded.
 *
 * <p>Threads: public methods are called from request-handler threads; timers (sessions, rebalance timeouts, offset
 * expiry) and loading run on the coordinator's own scheduler thread. Each group is guarded by its own monitor;
 * parked JoinGroup and SyncGroup requests are futures completed under that monitor.
 */
public final class GroupCoordinator implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);

    /** What a partition of {@code __consumer_offsets} is to this coordinator while it leads it. */
    private record Ownership(long token, boolean loaded) {
    }

    /** Offsets a client asks to commit for one partition. */
    public record OffsetCommit(long offset, int leaderEpoch, String metadata) {
    }

    /** The committed offsets of a group, or the error that prevents reading them. */
    public record GroupOffsets(Errors error, Map<TopicPartition, CommittedOffset> offsets) {
    }

    /** A group in a ListGroups answer. */
    public record ListedGroup(String groupId, String protocolType, GroupState state) {
    }

    /** ListGroups: the groups, and LOAD_IN_PROGRESS when some partition is still loading. */
    public record ListedGroups(Errors error, List<ListedGroup> groups) {
    }

    /** OffsetDelete: a group-level error, or one error per partition. */
    public record OffsetDeleteResult(Errors error, Map<TopicPartition, Errors> partitions) {
    }

    private final GroupConfig config;
    private final ReplicaManager replicaManager;
    private final Time time;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final Map<Integer, Ownership> owned = new ConcurrentHashMap<>();
    private final AtomicLong loadTokens = new AtomicLong();
    private volatile int offsetsPartitionCount;
    private volatile boolean closed;

    public GroupCoordinator(GroupConfig config, ReplicaManager replicaManager, Time time) {
        this.config = config;
        this.replicaManager = replicaManager;
        this.time = time;
        this.offsetsPartitionCount = config.offsetsTopicNumPartitions();
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-group-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.scheduleWithFixedDelay(this::expireOffsets, config.offsetsRetentionCheckIntervalMs(),
                config.offsetsRetentionCheckIntervalMs(), TimeUnit.MILLISECONDS);
    }

    public GroupConfig config() {
        return config;
    }

    /** The {@code __consumer_offsets} partition that holds a group. */
    public int partitionFor(String groupId) {
        return Utils.abs(groupId.hashCode()) % offsetsPartitionCount;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Ownership

    /**
     * The partitions of {@code __consumer_offsets} this broker now leads, and the topic's partition count (fixed
     * once the topic exists). Newly led partitions are loaded; partitions no longer led are dropped.
     */
    public void onLeadershipChange(Set<Integer> ledPartitions, int partitionCount) {
        if (closed) {
            return;
        }
        if (partitionCount > 0) {
            offsetsPartitionCount = partitionCount;
        }
        for (Integer partition : List.copyOf(owned.keySet())) {
            if (!ledPartitions.contains(partition)) {
                resign(partition);
            }
        }
        for (int partition : ledPartitions) {
            if (!owned.containsKey(partition)) {
                long token = loadTokens.incrementAndGet();
                owned.put(partition, new Ownership(token, false));
                scheduler.execute(() -> load(partition, token));
            }
        }
    }

    private void resign(int partition) {
        owned.remove(partition);
        int dropped = 0;
        for (Group group : List.copyOf(groups.values())) {
            if (group.offsetsPartition() != partition) {
                continue;
            }
            synchronized (group) {
                markDead(group, Errors.NOT_COORDINATOR);
            }
            groups.remove(group.groupId(), group);
            dropped++;
        }
        log.info("No longer the coordinator for partition {} of {}: dropped {} groups", partition,
                GroupConfig.OFFSETS_TOPIC, dropped);
    }

    /** Ends a group in this coordinator: parked requests fail with {@code error}, timers stop. */
    private void markDead(Group group, Errors error) {
        for (Member member : group.members()) {
            if (member.awaitingJoin != null) {
                member.awaitingJoin.complete(joinError(member.memberId(), error));
                member.awaitingJoin = null;
            }
            if (member.awaitingSync != null) {
                member.awaitingSync.complete(syncError(error));
                member.awaitingSync = null;
            }
        }
        cancelTimers(group);
        group.transitionTo(GroupState.DEAD, time.milliseconds());
    }

    private static void cancelTimers(Group group) {
        if (group.joinTimer != null) {
            group.joinTimer.cancel(false);
            group.joinTimer = null;
        }
        if (group.syncTimer != null) {
            group.syncTimer.cancel(false);
            group.syncTimer = null;
        }
    }

    /** NONE if this coordinator serves the group now, else why not. */
    private Errors coordinatorError(String groupId) {
        if (closed) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        Ownership ownership = owned.get(partitionFor(groupId));
        if (ownership == null) {
            return Errors.NOT_COORDINATOR;
        }
        return ownership.loaded() ? Errors.NONE : Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /** Validates a group id and this coordinator's ownership: NONE, or the error to answer. */
    public Errors checkGroup(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        return coordinatorError(groupId);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Loading

    private void load(int partition, long token) {
        long started = time.milliseconds();
        TopicPartition tp = new TopicPartition(GroupConfig.OFFSETS_TOPIC, partition);
        Map<String, GroupValue> groupValues = new HashMap<>();
        Set<String> removedGroups = new HashSet<>();
        Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();
        long records = 0;
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
            while (offset < end && isCurrent(partition, token)) {
                LogReadInfo info = partitionLog.read(offset, config.offsetsLoadBufferSize(), end, true);
                long next = offset;
                for (RecordBatch batch : info.records().batches()) {
                    next = batch.nextOffset();
                    if (batch.isControlBatch()) {
                        continue;
                    }
                    for (Record record : batch) {
                        records++;
                        replay(tp, record, groupValues, removedGroups, offsets);
                    }
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
        install(partition, token, groupValues, offsets);
        log.info("Loaded {} groups and the offsets of {} groups from {} ({} records) in {} ms", groupValues.size(),
                offsets.size(), tp, records, time.milliseconds() - started);
    }

    private boolean isCurrent(int partition, long token) {
        Ownership ownership = owned.get(partition);
        return ownership != null && ownership.token() == token;
    }

    private static void replay(TopicPartition tp, Record record, Map<String, GroupValue> groupValues,
                               Set<String> removedGroups, Map<String, Map<TopicPartition, CommittedOffset>> offsets) {
        if (!record.hasKey()) {
            return;
        }
        try {
            Optional<Key> key = OffsetsTopicFormat.deserializeKey(record.key());
            if (key.isEmpty()) {
                return;
            }
            if (key.get() instanceof OffsetKey offsetKey) {
                TopicPartition committed = new TopicPartition(offsetKey.topic(), offsetKey.partition());
                if (!record.hasValue()) {
                    Map<TopicPartition, CommittedOffset> groupOffsets = offsets.get(offsetKey.groupId());
                    if (groupOffsets != null) {
                        groupOffsets.remove(committed);
                        if (groupOffsets.isEmpty()) {
                            offsets.remove(offsetKey.groupId());
                        }
                    }
                } else {
                    OffsetValue value = OffsetsTopicFormat.deserializeOffsetValue(record.value());
                    offsets.computeIfAbsent(offsetKey.groupId(), g -> new HashMap<>()).put(committed,
                            new CommittedOffset(value.offset(), value.leaderEpoch(), value.metadata(),
                                    value.commitTimestamp()));
                }
            } else if (key.get() instanceof GroupKey groupKey) {
                if (!record.hasValue()) {
                    groupValues.remove(groupKey.groupId());
                    removedGroups.add(groupKey.groupId());
                } else {
                    groupValues.put(groupKey.groupId(), OffsetsTopicFormat.deserializeGroupValue(record.value()));
                    removedGroups.remove(groupKey.groupId());
                }
            }
        } catch (CorruptRecordException e) {
            log.error("Skipping an unreadable record at offset {} of {}: {}", record.offset(), tp, e.getMessage());
        }
    }

    private void install(int partition, long token, Map<String, GroupValue> groupValues,
                         Map<String, Map<TopicPartition, CommittedOffset>> offsets) {
        if (!isCurrent(partition, token)) {
            return;
        }
        for (Group stale : List.copyOf(groups.values())) {
            if (stale.offsetsPartition() == partition) {
                groups.remove(stale.groupId(), stale);
            }
        }
        long now = time.milliseconds();
        Set<String> ids = new HashSet<>(groupValues.keySet());
        ids.addAll(offsets.keySet());
        for (String groupId : ids) {
            Group group = new Group(groupId, partition, now);
            synchronized (group) {
                GroupValue value = groupValues.get(groupId);
                if (value != null) {
                    restore(group, value, now);
                }
                Map<TopicPartition, CommittedOffset> groupOffsets = offsets.get(groupId);
                if (groupOffsets != null) {
                    group.offsets().putAll(groupOffsets);
                }
                groups.put(groupId, group);
            }
        }
        owned.computeIfPresent(partition, (p, ownership) -> ownership.token() == token
                ? new Ownership(token, true) : ownership);
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
            touch(group, member);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // JoinGroup

    /**
     * JoinGroup: answered when the join phase completes (or at once with an error, with MEMBER_ID_REQUIRED, or
     * when a member rejoins a generation unchanged).
     */
    public CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData request, short version,
                                                              String clientId, String clientHost) {
        String groupId = request.groupId();
        String memberId = request.memberId() == null ? "" : request.memberId();
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(joinError(memberId, error));
        }
        int sessionTimeout = request.sessionTimeoutMs();
        if (sessionTimeout < config.minSessionTimeoutMs() || sessionTimeout > config.maxSessionTimeoutMs()) {
            return CompletableFuture.completedFuture(joinError(memberId, Errors.INVALID_SESSION_TIMEOUT));
        }
        boolean unknownMember = memberId.isEmpty();
        Group group = unknownMember
                ? groups.computeIfAbsent(groupId, id -> new Group(id, partitionFor(id), time.milliseconds()))
                : groups.get(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
        }
        Map<String, byte[]> protocols = new LinkedHashMap<>();
        for (JoinGroupRequestProtocol protocol : request.protocols()) {
            protocols.putIfAbsent(protocol.name(), protocol.metadata() == null ? new byte[0] : protocol.metadata());
        }
        int rebalanceTimeout = request.rebalanceTimeoutMs() < 0 ? sessionTimeout : request.rebalanceTimeoutMs();
        JoinRequest join = new JoinRequest(memberId, request.groupInstanceId(), clientId, clientHost,
                rebalanceTimeout, sessionTimeout, request.protocolType(), protocols, version);
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                // Deleted or moved meanwhile: the client looks up the coordinator again.
                return CompletableFuture.completedFuture(joinError(memberId, Errors.COORDINATOR_NOT_AVAILABLE));
            }
            if (!group.supportsProtocols(join.protocolType(), protocols.keySet())) {
                return CompletableFuture.completedFuture(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
            boolean knownMember = !unknownMember
                    && (group.hasMember(memberId) || group.isPendingMember(memberId));
            if (!knownMember && group.size() + group.pendingMemberCount() >= config.maxSize()
                    && !(join.groupInstanceId() != null && group.staticMemberId(join.groupInstanceId()).isPresent())) {
                return CompletableFuture.completedFuture(joinError(memberId, Errors.GROUP_MAX_SIZE_REACHED));
            }
            return unknownMember ? joinNewMember(group, join) : joinKnownMember(group, join);
        }
    }

    private record JoinRequest(String memberId, String groupInstanceId, String clientId, String clientHost,
                               int rebalanceTimeoutMs, int sessionTimeoutMs, String protocolType,
                               Map<String, byte[]> protocols, short version) {
    }

    private CompletableFuture<JoinGroupResponseData> joinNewMember(Group group, JoinRequest join) {
        String newMemberId = (join.clientId() == null ? "" : join.clientId()) + "-" + UUID.randomUUID();
        if (join.groupInstanceId() != null) {
            Optional<String> existing = group.staticMemberId(join.groupInstanceId());
            if (existing.isPresent()) {
                return rejoinStaticMember(group, join, existing.get(), newMemberId);
            }
            return addMemberAndRebalance(group, join, newMemberId);
        }
        if (join.version() >= 4) {
            // KIP-394: the member must come back with the id it is given, so that a client that gives up on a
            // JoinGroup does not leave a ghost member behind.
            group.addPendingMember(newMemberId);
            scheduler.schedule(() -> expirePendingMember(group, newMemberId), join.sessionTimeoutMs(),
                    TimeUnit.MILLISECONDS);
            return CompletableFuture.completedFuture(joinError(newMemberId, Errors.MEMBER_ID_REQUIRED));
        }
        return addMemberAndRebalance(group, join, newMemberId);
    }

    private CompletableFuture<JoinGroupResponseData> joinKnownMember(Group group, JoinRequest join) {
        String memberId = join.memberId();
        if (group.isPendingMember(memberId)) {
            group.removePendingMember(memberId);
            return addMemberAndRebalance(group, join, memberId);
        }
        Errors memberError = validateMember(group, memberId, join.groupInstanceId());
        if (memberError != Errors.NONE) {
            return CompletableFuture.completedFuture(joinError(memberId, memberError));
        }
        Member member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE:
                return updateMemberAndRebalance(group, member, join, "member " + memberId + " rejoined");
            case COMPLETING_REBALANCE:
                if (member.sameProtocols(join.protocols())) {
                    // The JoinGroup response was lost: answer it again.
                    touch(group, member);
                    return CompletableFuture.completedFuture(joinResponse(group, member));
                }
                return updateMemberAndRebalance(group, member, join, "member " + memberId
                        + " rejoined with new metadata");
            case STABLE:
                if (group.isLeader(memberId) || !member.sameProtocols(join.protocols())) {
                    return updateMemberAndRebalance(group, member, join, group.isLeader(memberId)
                            ? "the leader " + memberId + " rejoined" : "member " + memberId
                            + " rejoined with new metadata");
                }
                touch(group, member);
                return CompletableFuture.completedFuture(joinResponse(group, member));
            default:
                return CompletableFuture.completedFuture(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
        }
    }

    private CompletableFuture<JoinGroupResponseData> rejoinStaticMember(Group group, JoinRequest join,
                                                                       String oldMemberId, String newMemberId) {
        Member member = group.member(oldMemberId);
        // The previous holder of this instance id is fenced: its parked requests fail, its later ones too.
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(joinError(oldMemberId, Errors.FENCED_INSTANCE_ID));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(syncError(Errors.FENCED_INSTANCE_ID));
            member.awaitingSync = null;
        }
        group.replaceStaticMember(join.groupInstanceId(), oldMemberId, newMemberId);
        log.info("Static member {} of group {} rejoined as {}; {} is fenced", join.groupInstanceId(),
                group.groupId(), newMemberId, oldMemberId);
        if (group.is(GroupState.STABLE) && member.sameProtocols(join.protocols())) {
            // Same subscription: no rebalance. The new id must be stored before it is handed out, or a restarted
            // coordinator would not know it.
            touch(group, member);
            member.update(join.rebalanceTimeoutMs(), join.sessionTimeoutMs(), join.protocolType(), join.protocols());
            CompletableFuture<JoinGroupResponseData> result = new CompletableFuture<>();
            int generation = group.generationId();
            storeGroup(group, currentAssignments(group)).whenComplete((error, failure) -> {
                synchronized (group) {
                    Errors outcome = failure != null ? Errors.UNKNOWN_SERVER_ERROR : error;
                    if (outcome != Errors.NONE) {
                        result.complete(joinError(newMemberId, outcome));
                    } else if (group.generationId() != generation || !group.hasMember(newMemberId)) {
                        result.complete(joinError(newMemberId, Errors.REBALANCE_IN_PROGRESS));
                    } else {
                        JoinGroupResponseData response = joinResponse(group, member);
                        // KIP-814: a static leader that rejoins is told it leads, but not to assign again.
                        if (group.isLeader(newMemberId) && join.version() >= 9) {
                            response.setSkipAssignment(true);
                        } else if (group.isLeader(newMemberId)) {
                            response.setMembers(new ArrayList<>());
                        }
                        result.complete(response);
                    }
                }
            });
            return result;
        }
        return updateMemberAndRebalance(group, member, join, "static member " + join.groupInstanceId()
                + " rejoined");
    }

    private CompletableFuture<JoinGroupResponseData> addMemberAndRebalance(Group group, JoinRequest join,
                                                                          String memberId) {
        Member member = new Member(memberId, join.groupInstanceId(), join.clientId(), join.clientHost(),
                join.rebalanceTimeoutMs(), join.sessionTimeoutMs(), join.protocolType(), join.protocols());
        member.isNew = true;
        CompletableFuture<JoinGroupResponseData> result = new CompletableFuture<>();
        member.awaitingJoin = result;
        group.add(member);
        if (group.is(GroupState.PREPARING_REBALANCE) && group.initialRebalancePending) {
            group.memberJoinedDuringDelay = true;
        }
        touch(group, member);
        maybePrepareRebalance(group, "member " + memberId + " joined");
        tryCompleteJoin(group);
        return result;
    }

    private CompletableFuture<JoinGroupResponseData> updateMemberAndRebalance(Group group, Member member,
                                                                             JoinRequest join, String reason) {
        member.update(join.rebalanceTimeoutMs(), join.sessionTimeoutMs(), join.protocolType(), join.protocols());
        if (member.awaitingJoin != null) {
            // A retried JoinGroup replaces the parked one.
            member.awaitingJoin.complete(joinError(member.memberId(), Errors.REBALANCE_IN_PROGRESS));
        }
        CompletableFuture<JoinGroupResponseData> result = new CompletableFuture<>();
        member.awaitingJoin = result;
        touch(group, member);
        maybePrepareRebalance(group, reason);
        tryCompleteJoin(group);
        return result;
    }

    private void maybePrepareRebalance(Group group, String reason) {
        if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE)
                || group.is(GroupState.EMPTY)) {
            prepareRebalance(group, reason);
        }
    }

    private void prepareRebalance(Group group, String reason) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignmentError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        cancelTimers(group);
        boolean initial = group.is(GroupState.EMPTY);
        group.transitionTo(GroupState.PREPARING_REBALANCE, time.milliseconds());
        log.info("Preparing to rebalance group {} (generation {}): {}", group.groupId(), group.generationId(),
                reason);
        int generation = group.generationId();
        if (initial && config.initialRebalanceDelayMs() > 0) {
            group.initialRebalancePending = true;
            group.memberJoinedDuringDelay = false;
            group.initialRebalanceStartNanos = time.nanoseconds();
            group.joinTimer = scheduler.schedule(() -> initialDelayExpired(group, generation),
                    config.initialRebalanceDelayMs(), TimeUnit.MILLISECONDS);
        } else {
            group.joinTimer = scheduler.schedule(() -> joinTimedOut(group, generation),
                    group.maxRebalanceTimeoutMs(), TimeUnit.MILLISECONDS);
        }
    }

    private void initialDelayExpired(Group group, int generation) {
        synchronized (group) {
            if (!group.is(GroupState.PREPARING_REBALANCE) || group.generationId() != generation
                    || !group.initialRebalancePending) {
                return;
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(time.nanoseconds() - group.initialRebalanceStartNanos);
            long remainingMs = group.maxRebalanceTimeoutMs() - elapsedMs;
            if (group.memberJoinedDuringDelay && remainingMs > 0) {
                // More members are arriving: wait one more delay, up to the rebalance timeout in total.
                group.memberJoinedDuringDelay = false;
                group.joinTimer = scheduler.schedule(() -> initialDelayExpired(group, generation),
                        Math.min(config.initialRebalanceDelayMs(), remainingMs), TimeUnit.MILLISECONDS);
                return;
            }
            group.initialRebalancePending = false;
            if (group.allMembersJoined()) {
                completeJoin(group);
            } else {
                group.joinTimer = scheduler.schedule(() -> joinTimedOut(group, generation), Math.max(0, remainingMs),
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    private void joinTimedOut(Group group, int generation) {
        synchronized (group) {
            if (group.is(GroupState.PREPARING_REBALANCE) && group.generationId() == generation) {
                completeJoin(group);
            }
        }
    }

    private void tryCompleteJoin(Group group) {
        if (group.is(GroupState.PREPARING_REBALANCE) && !group.initialRebalancePending && group.allMembersJoined()) {
            completeJoin(group);
        }
    }

    /** Ends the join phase: members that did not rejoin are removed, and the next generation starts. */
    private void completeJoin(Group group) {
        cancelTimers(group);
        group.initialRebalancePending = false;
        for (Member member : List.copyOf(group.members())) {
            if (member.awaitingJoin == null) {
                log.info("Removing member {} from group {}: it did not rejoin within the rebalance timeout",
                        member.memberId(), group.groupId());
                group.remove(member.memberId());
            }
        }
        group.clearPendingMembers();
        group.initNextGeneration(time.milliseconds());
        if (group.is(GroupState.EMPTY)) {
            log.info("Group {} is empty at generation {}", group.groupId(), group.generationId());
            storeGroup(group, Map.of()).whenComplete((error, failure) -> {
                if (failure != null || error != Errors.NONE) {
                    log.warn("Could not store the empty state of group {}: {}", group.groupId(),
                            failure != null ? failure.toString() : error);
                }
            });
            return;
        }
        log.info("Group {} stabilized at generation {} with {} members, protocol {}, leader {}", group.groupId(),
                group.generationId(), group.size(), group.protocolName(), group.leaderId());
        for (Member member : group.members()) {
            CompletableFuture<JoinGroupResponseData> parked = member.awaitingJoin;
            member.awaitingJoin = null;
            member.isNew = false;
            group.pendingSync.add(member.memberId());
            touch(group, member);
            parked.complete(joinResponse(group, member));
        }
        int generation = group.generationId();
        group.syncTimer = scheduler.schedule(() -> syncTimedOut(group, generation), group.maxRebalanceTimeoutMs(),
                TimeUnit.MILLISECONDS);
    }

    /** Members that never sent their SyncGroup in a generation are removed, which starts another rebalance. */
    private void syncTimedOut(Group group, int generation) {
        synchronized (group) {
            if (group.generationId() != generation || group.pendingSync.isEmpty()
                    || !(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))) {
                return;
            }
            for (String memberId : List.copyOf(group.pendingSync)) {
                log.info("Removing member {} from group {}: no SyncGroup within the rebalance timeout", memberId,
                        group.groupId());
                group.remove(memberId);
            }
            prepareRebalance(group, "members did not sync in generation " + generation);
            tryCompleteJoin(group);
        }
    }

    private JoinGroupResponseData joinResponse(Group group, Member member) {
        JoinGroupResponseData response = new JoinGroupResponseData()
                .setErrorCode(Errors.NONE.code())
                .setGenerationId(group.generationId())
                .setProtocolType(group.protocolType())
                .setProtocolName(group.protocolName())
                .setLeader(group.leaderId())
                .setMemberId(member.memberId());
        if (group.isLeader(member.memberId())) {
            List<JoinGroupResponseMember> members = new ArrayList<>();
            for (Member each : group.members()) {
                members.add(new JoinGroupResponseMember()
                        .setMemberId(each.memberId())
                        .setGroupInstanceId(each.groupInstanceId())
                        .setMetadata(each.metadata(group.protocolName())));
            }
            response.setMembers(members);
        }
        return response;
    }

    private static JoinGroupResponseData joinError(String memberId, Errors error) {
        return new JoinGroupResponseData()
                .setErrorCode(error.code())
                .setGenerationId(-1)
                .setProtocolName(null)
                .setProtocolType(null)
                .setLeader("")
                .setMemberId(memberId == null ? "" : memberId);
    }

    private void expirePendingMember(Group group, String memberId) {
        synchronized (group) {
            if (group.removePendingMember(memberId)) {
                log.debug("Member id {} of group {} was not used in time", memberId, group.groupId());
                tryCompleteJoin(group);
            }
        }
    }

    /**
     * Checks that {@code memberId} is a current member, and that a static member's instance id is held by that
     * member id.
     */
    private static Errors validateMember(Group group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            Optional<String> holder = group.staticMemberId(groupInstanceId);
            if (holder.isPresent() && !holder.get().equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return group.hasMember(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    // ---------------------------------------------------------------------------------------------------------
    // SyncGroup

    /** SyncGroup: followers wait for the leader's assignment; the leader's is stored before anyone gets theirs. */
    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData request) {
        String groupId = request.groupId();
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(syncError(error));
        }
        Group group = groups.get(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(syncError(Errors.UNKNOWN_MEMBER_ID));
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return CompletableFuture.completedFuture(syncError(Errors.COORDINATOR_NOT_AVAILABLE));
            }
            Errors memberError = validateMember(group, request.memberId(), request.groupInstanceId());
            if (memberError != Errors.NONE) {
                return CompletableFuture.completedFuture(syncError(memberError));
            }
            if (request.generationId() != group.generationId()) {
                return CompletableFuture.completedFuture(syncError(Errors.ILLEGAL_GENERATION));
            }
            if ((request.protocolType() != null && !request.protocolType().equals(group.protocolType()))
                    || (request.protocolName() != null && !request.protocolName().equals(group.protocolName()))) {
                return CompletableFuture.completedFuture(syncError(Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
            Member member = group.member(request.memberId());
            switch (group.state()) {
                case PREPARING_REBALANCE:
                    return CompletableFuture.completedFuture(syncError(Errors.REBALANCE_IN_PROGRESS));
                case COMPLETING_REBALANCE: {
                    CompletableFuture<SyncGroupResponseData> result = new CompletableFuture<>();
                    if (member.awaitingSync != null) {
                        member.awaitingSync.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
                    }
                    member.awaitingSync = result;
                    group.pendingSync.remove(member.memberId());
                    touch(group, member);
                    if (group.isLeader(member.memberId())) {
                        Map<String, byte[]> assignments = new HashMap<>();
                        for (SyncGroupRequestAssignment assignment : request.assignments()) {
                            assignments.put(assignment.memberId(), assignment.assignment());
                        }
                        completeSync(group, assignments);
                    }
                    return result;
                }
                case STABLE:
                    group.pendingSync.remove(member.memberId());
                    touch(group, member);
                    return CompletableFuture.completedFuture(syncResponse(group, member.assignment()));
                default:
                    return CompletableFuture.completedFuture(syncError(Errors.UNKNOWN_MEMBER_ID));
            }
        }
    }

    private void completeSync(Group group, Map<String, byte[]> leaderAssignments) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (Member member : group.members()) {
            byte[] assignment = leaderAssignments.get(member.memberId());
            assignments.put(member.memberId(), assignment == null ? new byte[0] : assignment);
        }
        int generation = group.generationId();
        storeGroup(group, assignments).whenComplete((error, failure) -> {
            synchronized (group) {
                if (!group.is(GroupState.COMPLETING_REBALANCE) || group.generationId() != generation) {
                    return;
                }
                Errors outcome = failure != null ? Errors.UNKNOWN_SERVER_ERROR : error;
                if (outcome != Errors.NONE) {
                    log.warn("Could not store the assignment of group {} generation {}: {}", group.groupId(),
                            generation, outcome);
                    resetAndPropagateAssignmentError(group, outcome);
                    prepareRebalance(group, "storing the assignment failed with " + outcome);
                    return;
                }
                for (Member member : group.members()) {
                    member.assignment(assignments.get(member.memberId()));
                    if (member.awaitingSync != null) {
                        member.awaitingSync.complete(syncResponse(group, member.assignment()));
                        member.awaitingSync = null;
                    }
                }
                group.transitionTo(GroupState.STABLE, time.milliseconds());
            }
        });
    }

    private static void resetAndPropagateAssignmentError(Group group, Errors error) {
        for (Member member : group.members()) {
            member.assignment(new byte[0]);
            if (member.awaitingSync != null) {
                member.awaitingSync.complete(syncError(error));
                member.awaitingSync = null;
            }
        }
    }

    private static Map<String, byte[]> currentAssignments(Group group) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (Member member : group.members()) {
            assignments.put(member.memberId(), member.assignment());
        }
        return assignments;
    }

    private static SyncGroupResponseData syncResponse(Group group, byte[] assignment) {
        return new SyncGroupResponseData()
                .setErrorCode(Errors.NONE.code())
                .setProtocolType(group.protocolType())
                .setProtocolName(group.protocolName())
                .setAssignment(assignment);
    }

    private static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Heartbeat and LeaveGroup

    public Errors heartbeat(HeartbeatRequestData request) {
        String groupId = request.groupId();
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return error;
        }
        Group group = groups.get(groupId);
        if (group == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return Errors.COORDINATOR_NOT_AVAILABLE;
            }
            Errors memberError = validateMember(group, request.memberId(), request.groupInstanceId());
            if (memberError != Errors.NONE) {
                return memberError;
            }
            if (group.is(GroupState.EMPTY)) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (request.generationId() != group.generationId()) {
                return Errors.ILLEGAL_GENERATION;
            }
            touch(group, group.member(request.memberId()));
            return group.is(GroupState.PREPARING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
        }
    }

    /** LeaveGroup for the given members (by member id, or by group instance id for static members). */
    public LeaveResult leaveGroup(String groupId, List<MemberIdentity> leaving) {
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return new LeaveResult(error, List.of());
        }
        Group group = groups.get(groupId);
        List<MemberResponse> responses = new ArrayList<>();
        if (group == null) {
            for (MemberIdentity identity : leaving) {
                responses.add(memberResponse(identity, Errors.UNKNOWN_MEMBER_ID));
            }
            return new LeaveResult(Errors.NONE, responses);
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return new LeaveResult(Errors.COORDINATOR_NOT_AVAILABLE, List.of());
            }
            for (MemberIdentity identity : leaving) {
                responses.add(memberResponse(identity, leave(group, identity)));
            }
        }
        return new LeaveResult(Errors.NONE, responses);
    }

    /** LeaveGroup's outcome: a group-level error, or one response per leaving member. */
    public record LeaveResult(Errors error, List<MemberResponse> members) {
    }

    private Errors leave(Group group, MemberIdentity identity) {
        String memberId = identity.memberId() == null ? "" : identity.memberId();
        String instanceId = identity.groupInstanceId();
        if (instanceId != null) {
            Optional<String> holder = group.staticMemberId(instanceId);
            if (holder.isEmpty()) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!memberId.isEmpty() && !holder.get().equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            memberId = holder.get();
        } else if (group.removePendingMember(memberId)) {
            tryCompleteJoin(group);
            return Errors.NONE;
        }
        Member member = group.member(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        String reason = identity.reason() == null ? "" : " (" + identity.reason() + ")";
        log.info("Member {} left group {}{}", memberId, group.groupId(), reason);
        removeMemberAndUpdateGroup(group, member, "member " + memberId + " left the group");
        return Errors.NONE;
    }

    private static MemberResponse memberResponse(MemberIdentity identity, Errors error) {
        return new MemberResponse()
                .setMemberId(identity.memberId())
                .setGroupInstanceId(identity.groupInstanceId())
                .setErrorCode(error.code());
    }

    private void removeMemberAndUpdateGroup(Group group, Member member, String reason) {
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(joinError(member.memberId(), Errors.UNKNOWN_MEMBER_ID));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(syncError(Errors.UNKNOWN_MEMBER_ID));
            member.awaitingSync = null;
        }
        group.remove(member.memberId());
        switch (group.state()) {
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, reason);
            case PREPARING_REBALANCE -> tryCompleteJoin(group);
            default -> {
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sessions

    /** A sign of life from a member: its session starts again, and a check is scheduled if none is. */
    private void touch(Group group, Member member) {
        member.lastHeartbeatNanos = time.nanoseconds();
        if (!member.sessionCheckScheduled) {
            member.sessionCheckScheduled = true;
            scheduleSessionCheck(group, member, member.sessionTimeoutMs());
        }
    }

    private void scheduleSessionCheck(Group group, Member member, long delayMs) {
        if (closed) {
            return;
        }
        scheduler.schedule(() -> checkSession(group, member), delayMs, TimeUnit.MILLISECONDS);
    }

    private void checkSession(Group group, Member member) {
        synchronized (group) {
            if (group.is(GroupState.DEAD) || group.member(member.memberId()) != member) {
                member.sessionCheckScheduled = false;
                return;
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(time.nanoseconds() - member.lastHeartbeatNanos);
            boolean waiting = member.awaitingJoin != null || member.awaitingSync != null;
            if (waiting || elapsedMs < member.sessionTimeoutMs()) {
                // Parked requests are bounded by the rebalance timers; a live member is checked again later.
                scheduleSessionCheck(group, member, waiting ? member.sessionTimeoutMs()
                        : member.sessionTimeoutMs() - elapsedMs);
                return;
            }
            member.sessionCheckScheduled = false;
            log.info("Member {} of group {} expired: no heartbeat for {} ms (session timeout {} ms)",
                    member.memberId(), group.groupId(), elapsedMs, member.sessionTimeoutMs());
            removeMemberAndUpdateGroup(group, member, "member " + member.memberId() + " session expired");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets

    /**
     * OffsetCommit for partitions the caller has checked exist. A member commits with its generation; anyone may
     * commit to a group without members with generation -1 (simple, {@code assign()}-style consumers and admin
     * tools).
     */
    public CompletableFuture<Map<TopicPartition, Errors>> commitOffsets(String groupId, String memberId,
            String groupInstanceId, int generationId, Map<TopicPartition, OffsetCommit> offsets) {
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(allErrors(offsets.keySet(), error));
        }
        String member = memberId == null ? "" : memberId;
        Group group = groups.get(groupId);
        if (group == null) {
            if (generationId >= 0 || !member.isEmpty() || groupInstanceId != null) {
                // The group is gone, so this member's generation is too.
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), Errors.ILLEGAL_GENERATION));
            }
            group = groups.computeIfAbsent(groupId, id -> new Group(id, partitionFor(id), time.milliseconds()));
        }
        synchronized (group) {
            Errors groupError = validateCommit(group, member, groupInstanceId, generationId);
            if (groupError != Errors.NONE) {
                return CompletableFuture.completedFuture(allErrors(offsets.keySet(), groupError));
            }
            if (group.hasMember(member)) {
                touch(group, group.member(member));
            }
            Map<TopicPartition, Errors> results = new LinkedHashMap<>();
            Map<TopicPartition, CommittedOffset> accepted = new LinkedHashMap<>();
            List<SimpleRecord> records = new ArrayList<>();
            long now = time.milliseconds();
            for (Map.Entry<TopicPartition, OffsetCommit> entry : offsets.entrySet()) {
                OffsetCommit commit = entry.getValue();
                String metadata = commit.metadata() == null ? "" : commit.metadata();
                if (metadata.length() > config.offsetMetadataMaxBytes()) {
                    results.put(entry.getKey(), Errors.OFFSET_METADATA_TOO_LARGE);
                    continue;
                }
                TopicPartition tp = entry.getKey();
                CommittedOffset committed = new CommittedOffset(commit.offset(), commit.leaderEpoch(), metadata, now);
                accepted.put(tp, committed);
                records.add(new SimpleRecord(now,
                        OffsetsTopicFormat.serializeKey(new OffsetKey(groupId, tp.topic(), tp.partition())),
                        OffsetsTopicFormat.serializeOffsetValue(new OffsetValue(committed.offset(),
                                committed.leaderEpoch(), metadata, now, -1L))));
                results.put(tp, Errors.NONE);
            }
            if (records.isEmpty()) {
                return CompletableFuture.completedFuture(results);
            }
            Group target = group;
            return append(group, records).thenApply(appendError -> {
                Errors outcome = offsetAppendError(appendError);
                synchronized (target) {
                    for (Map.Entry<TopicPartition, CommittedOffset> entry : accepted.entrySet()) {
                        if (outcome == Errors.NONE) {
                            if (!target.is(GroupState.DEAD)) {
                                target.offsets().put(entry.getKey(), entry.getValue());
                            }
                        } else {
                            results.put(entry.getKey(), outcome);
                        }
                    }
                }
                return results;
            });
        }
    }

    private static Errors validateCommit(Group group, String memberId, String groupInstanceId, int generationId) {
        if (group.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
            Errors memberError = validateMember(group, memberId, groupInstanceId);
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
     * when {@code partitions} is null.
     */
    public GroupOffsets fetchOffsets(String groupId, List<TopicPartition> partitions) {
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return new GroupOffsets(error, Map.of());
        }
        Group group = groups.get(groupId);
        Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
        if (group == null) {
            if (partitions != null) {
                for (TopicPartition tp : partitions) {
                    result.put(tp, null);
                }
            }
            return new GroupOffsets(Errors.NONE, result);
        }
        synchronized (group) {
            if (partitions == null) {
                result.putAll(group.offsets());
            } else {
                for (TopicPartition tp : partitions) {
                    result.put(tp, group.offsets().get(tp));
                }
            }
        }
        return new GroupOffsets(Errors.NONE, result);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeGroups, ListGroups, DeleteGroups, OffsetDelete

    /** DescribeGroups for one group; {@code null} when this coordinator does not know it. */
    public DescribedGroup describeGroup(String groupId) {
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return new DescribedGroup().setGroupId(groupId).setErrorCode(error.code());
        }
        Group group = groups.get(groupId);
        if (group == null) {
            return null;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return null;
            }
            boolean stable = group.is(GroupState.STABLE);
            DescribedGroup described = new DescribedGroup()
                    .setGroupId(groupId)
                    .setErrorCode(Errors.NONE.code())
                    .setGroupState(group.state().wireName())
                    .setProtocolType(group.protocolType() == null ? "" : group.protocolType())
                    .setProtocolData(stable && group.protocolName() != null ? group.protocolName() : "");
            for (Member member : group.members()) {
                described.members().add(new DescribedGroupMember()
                        .setMemberId(member.memberId())
                        .setGroupInstanceId(member.groupInstanceId())
                        .setClientId(member.clientId() == null ? "" : member.clientId())
                        .setClientHost(member.clientHost())
                        .setMemberMetadata(stable ? member.metadata(group.protocolName()) : new byte[0])
                        .setMemberAssignment(stable ? member.assignment() : new byte[0]));
            }
            return described;
        }
    }

    /** ListGroups over the partitions this coordinator leads, optionally only groups in the given states. */
    public ListedGroups listGroups(Set<GroupState> states) {
        Errors error = Errors.NONE;
        for (Ownership ownership : owned.values()) {
            if (!ownership.loaded()) {
                error = Errors.COORDINATOR_LOAD_IN_PROGRESS;
            }
        }
        List<ListedGroup> listed = new ArrayList<>();
        for (Group group : groups.values()) {
            synchronized (group) {
                Ownership ownership = owned.get(group.offsetsPartition());
                if (group.is(GroupState.DEAD) || ownership == null || !ownership.loaded()) {
                    continue;
                }
                if (states.isEmpty() || states.contains(group.state())) {
                    listed.add(new ListedGroup(group.groupId(),
                            group.protocolType() == null ? "" : group.protocolType(), group.state()));
                }
            }
        }
        return new ListedGroups(error, listed);
    }

    /** DeleteGroups: each group must be empty; its offsets and metadata are tombstoned, then it is gone. */
    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        Map<String, Errors> results = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (String groupId : groupIds) {
            Errors error = checkGroup(groupId);
            if (error != Errors.NONE) {
                results.put(groupId, error);
                continue;
            }
            Group group = groups.get(groupId);
            if (group == null) {
                results.put(groupId, Errors.GROUP_ID_NOT_FOUND);
                continue;
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    results.put(groupId, Errors.GROUP_ID_NOT_FOUND);
                    continue;
                }
                if (!group.is(GroupState.EMPTY)) {
                    results.put(groupId, Errors.NON_EMPTY_GROUP);
                    continue;
                }
                List<SimpleRecord> tombstones = new ArrayList<>();
                long now = time.milliseconds();
                for (TopicPartition tp : group.offsets().keySet()) {
                    tombstones.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(
                            new OffsetKey(groupId, tp.topic(), tp.partition())), null));
                }
                tombstones.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(new GroupKey(groupId)), null));
                results.put(groupId, Errors.NONE);
                writes.add(append(group, tombstones).thenAccept(appendError -> {
                    Errors outcome = groupAppendError(appendError);
                    synchronized (group) {
                        if (outcome == Errors.NONE) {
                            if (!group.is(GroupState.DEAD)) {
                                markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                            }
                            groups.remove(groupId, group);
                            log.info("Deleted group {}", groupId);
                        }
                        results.put(groupId, outcome);
                    }
                }));
            }
        }
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).thenApply(ignored -> {
            synchronized (results) {
                return new LinkedHashMap<>(results);
            }
        });
    }

    /**
     * OffsetDelete: removes committed offsets of a group, except of topics its members are subscribed to
     * ({@code GROUP_SUBSCRIBED_TO_TOPIC}).
     */
    public CompletableFuture<OffsetDeleteResult> deleteOffsets(String groupId, List<TopicPartition> partitions) {
        Errors error = checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(new OffsetDeleteResult(error, Map.of()));
        }
        Group group = groups.get(groupId);
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
                if (group.offsets().containsKey(tp)) {
                    deleted.add(tp);
                    tombstones.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(
                            new OffsetKey(groupId, tp.topic(), tp.partition())), null));
                }
            }
            if (tombstones.isEmpty()) {
                return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.NONE, results));
            }
            return append(group, tombstones).thenApply(appendError -> {
                Errors outcome = groupAppendError(appendError);
                synchronized (group) {
                    if (outcome != Errors.NONE) {
                        return new OffsetDeleteResult(outcome, Map.of());
                    }
                    deleted.forEach(group.offsets()::remove);
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
        for (Group group : List.copyOf(groups.values())) {
            Ownership ownership = owned.get(group.offsetsPartition());
            if (ownership == null || !ownership.loaded()) {
                continue;
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    continue;
                }
                List<TopicPartition> expiring = new ArrayList<>();
                if (group.is(GroupState.EMPTY)) {
                    for (Map.Entry<TopicPartition, CommittedOffset> entry : group.offsets().entrySet()) {
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
                            if (!subscribed.get().contains(entry.getKey().topic())
                                    && now - entry.getValue().commitTimestamp() >= config.offsetsRetentionMs()) {
                                expiring.add(entry.getKey());
                            }
                        }
                    }
                }
                boolean deleteGroup = group.is(GroupState.EMPTY) && group.pendingMemberCount() == 0
                        && expiring.size() == group.offsets().size();
                if (expiring.isEmpty() && !deleteGroup) {
                    continue;
                }
                List<SimpleRecord> tombstones = new ArrayList<>();
                for (TopicPartition tp : expiring) {
                    tombstones.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(
                            new OffsetKey(group.groupId(), tp.topic(), tp.partition())), null));
                }
                if (deleteGroup) {
                    tombstones.add(new SimpleRecord(now, OffsetsTopicFormat.serializeKey(
                            new GroupKey(group.groupId())), null));
                }
                expired += expiring.size();
                append(group, tombstones).thenAccept(appendError -> {
                    synchronized (group) {
                        if (appendError != Errors.NONE) {
                            log.warn("Could not expire offsets of group {}: {}", group.groupId(), appendError);
                            return;
                        }
                        expiring.forEach(group.offsets()::remove);
                        if (deleteGroup && group.is(GroupState.EMPTY) && group.offsets().isEmpty()) {
                            markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                            groups.remove(group.groupId(), group);
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

    // ---------------------------------------------------------------------------------------------------------
    // Writing to __consumer_offsets

    /** Stores the group's current metadata with the given assignments (member id to assignment). */
    private CompletableFuture<Errors> storeGroup(Group group, Map<String, byte[]> assignments) {
        List<MemberValue> members = new ArrayList<>();
        for (Member member : group.members()) {
            byte[] assignment = assignments.get(member.memberId());
            members.add(new MemberValue(member.memberId(), member.groupInstanceId(),
                    member.clientId() == null ? "" : member.clientId(), member.clientHost(),
                    member.rebalanceTimeoutMs(), member.sessionTimeoutMs(),
                    group.protocolName() == null ? new byte[0] : member.metadata(group.protocolName()),
                    assignment == null ? new byte[0] : assignment));
        }
        GroupValue value = new GroupValue(group.protocolType() == null ? "" : group.protocolType(),
                group.generationId(), group.protocolName(), group.leaderId(), group.stateTimestampMs(), members);
        long now = time.milliseconds();
        SimpleRecord record = new SimpleRecord(now, OffsetsTopicFormat.serializeKey(new GroupKey(group.groupId())),
                OffsetsTopicFormat.serializeGroupValue(value));
        return append(group, List.of(record)).thenApply(GroupCoordinator::groupAppendError);
    }

    /** Appends to the group's partition with acks=all; completes with the append's error (NONE on success). */
    private CompletableFuture<Errors> append(Group group, List<SimpleRecord> records) {
        TopicPartition tp = new TopicPartition(GroupConfig.OFFSETS_TOPIC, group.offsetsPartition());
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
        return replicaManager.appendRecords(Map.of(tp, batch), (short) -1, config.offsetCommitTimeoutMs())
                .thenApply(results -> {
                    ProduceResult result = results.get(tp);
                    if (result.error() != Errors.NONE) {
                        log.warn("Appending {} records of group {} to {} failed: {} {}", records.size(),
                                group.groupId(), tp, result.error(), result.errorMessage());
                    }
                    return result.error();
                })
                .exceptionally(failure -> {
                    log.error("Appending records of group {} to {} failed", group.groupId(), tp, failure);
                    return Errors.UNKNOWN_SERVER_ERROR;
                });
    }

    /** What a failed append of group metadata means to the client (as Kafka maps it). */
    private static Errors groupAppendError(Errors error) {
        return switch (error) {
            case NONE -> Errors.NONE;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                 REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    /** What a failed append of offsets means to the committing client. */
    private static Errors offsetAppendError(Errors error) {
        return switch (error) {
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.INVALID_COMMIT_OFFSET_SIZE;
            default -> groupAppendError(error);
        };
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        for (Group group : List.copyOf(groups.values())) {
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                }
            }
        }
        groups.clear();
        owned.clear();
    }

    /** For tests: the state of a group this coordinator holds. */
    Optional<GroupState> groupState(String groupId) {
        Group group = groups.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        synchronized (group) {
            return Optional.of(group.state());
        }
    }
}
