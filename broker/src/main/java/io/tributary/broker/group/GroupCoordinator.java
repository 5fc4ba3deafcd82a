package io.tributary.broker.group;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.share.ShareConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of classic consumer groups and share groups (KIP-932) whose {@code __consumer_offsets} partition
 * this broker leads: the entry point of the group APIs, which follows leadership of {@code __consumer_offsets} and
 * answers the admin APIs (DescribeGroups, ListGroups, DeleteGroups, ShareGroupDescribe) itself; for the share-group
 * offset APIs it says which partitions of a share group may have share state, and whether the group is empty (the
 * states are at the share coordinators: {@code api.ShareGroupOffsetsHandler}). A group id belongs
 * to one kind of group: a classic JoinGroup for a share group's id is {@code INCONSISTENT_GROUP_PROTOCOL}, its
 * offsets APIs {@code GROUP_ID_NOT_FOUND}, and a ShareGroupHeartbeat for a classic group's id
 * {@code GROUP_ID_NOT_FOUND}, as in Kafka. The work is done by package-private parts:
 * <ul>
 *   <li>{@link GroupRegistry}: the partitions led and the groups held, and whether a group is served now;</li>
 *   <li>{@link GroupLoader}: replays a newly led partition into groups and offsets;</li>
 *   <li>{@link GroupMembership}: the join/sync state machine, heartbeats, sessions and rebalance timers;</li>
 *   <li>{@link ShareGroupMembership}: share groups' heartbeats, epochs, sessions, and the {@link ShareAssignor};</li>
 *   <li>{@link OffsetStore}: committed offsets (commit, fetch, delete, expiry);</li>
 *   <li>{@link TxnOffsetCommits}: offsets committed inside transactions, pending until the transaction's marker;</li>
 *   <li>{@link OffsetsTopicWriter}: appends to {@code __consumer_offsets}.</li>
 * </ul>
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

    /** Offsets a client asks to commit for one partition. */
    public record OffsetCommit(long offset, int leaderEpoch, String metadata) {
    }

    /**
     * The committed offsets of a group, or the error that prevents reading them; {@code unstable} are the
     * partitions answered UNSTABLE_OFFSET_COMMIT (an open transaction has committed an offset of them).
     */
    public record GroupOffsets(Errors error, Map<TopicPartition, CommittedOffset> offsets,
                               Set<TopicPartition> unstable) {
    }

    /** The kinds of group (ListGroups' GroupType and TypesFilter). */
    public enum GroupType {
        CLASSIC("classic"), SHARE("share");

        private final String wireName;

        GroupType(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** A type by its wire name, ignoring case; empty for a type this broker does not run. */
        public static Optional<GroupType> parse(String name) {
            for (GroupType type : values()) {
                if (type.wireName.equalsIgnoreCase(name)) {
                    return Optional.of(type);
                }
            }
            return Optional.empty();
        }
    }

    /** A group in a ListGroups answer; a share group's protocol type is "share". */
    public record ListedGroup(String groupId, String protocolType, GroupState state, GroupType type) {
    }

    /** ListGroups: the groups, and LOAD_IN_PROGRESS when some partition is still loading. */
    public record ListedGroups(Errors error, List<ListedGroup> groups) {
    }

    /** OffsetDelete: a group-level error, or one error per partition. */
    public record OffsetDeleteResult(Errors error, Map<TopicPartition, Errors> partitions) {
    }

    /**
     * A share group's partitions that may have share state, for the share-group offset admin APIs: NONE with the
     * group's state and its topics (id to name and partitions), or the error to answer for the group.
     */
    public record ShareStateTopics(Errors error, String errorMessage, GroupState state,
                                   Map<Uuid, StateTopic> topics) {

        static ShareStateTopics failed(Errors error, String message) {
            return new ShareStateTopics(error, message, GroupState.DEAD, Map.of());
        }
    }

    /** A topic's partitions that may have share state, under the name they were recorded with. */
    public record StateTopic(String name, Set<Integer> partitions) {
    }

    /** LeaveGroup's outcome: a group-level error, or one response per leaving member. */
    public record LeaveResult(Errors error, List<MemberResponse> members) {
    }

    private final GroupConfig config;
    private final Time time;
    private final ScheduledThreadPoolExecutor scheduler;
    private final GroupRegistry registry;
    private final OffsetsTopicWriter writer;
    private final GroupMembership membership;
    private final OffsetStore offsets;
    private final TxnOffsetCommits txnOffsets;
    private final GroupLoader loader;
    private final ShareGroupMembership shareMembership;
    private final ShareGroupContext shareContext;

    /** Classic groups only, share groups with the broker's default settings and no topics (tests). */
    public GroupCoordinator(GroupConfig config, ReplicaManager replicaManager, Time time) {
        this(config, ShareGroupContext.defaults(ShareConfig.defaults()), replicaManager,
                time);
    }

    public GroupCoordinator(GroupConfig config, ShareGroupContext shareContext, ReplicaManager replicaManager,
                            Time time) {
        this.config = config;
        this.time = time;
        this.registry = new GroupRegistry(config.offsetsTopicNumPartitions());
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-group-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        this.writer = new OffsetsTopicWriter(config, replicaManager, time);
        this.membership = new GroupMembership(config, registry, writer, scheduler, time);
        this.offsets = new OffsetStore(config, registry, membership, writer, time);
        this.txnOffsets = new TxnOffsetCommits(config, registry, writer, time);
        this.loader = new GroupLoader(config, replicaManager, registry, membership, txnOffsets, time);
        this.shareContext = shareContext;
        this.shareMembership = new ShareGroupMembership(shareContext, registry, writer::storeShareGroup, scheduler,
                time);
        scheduler.scheduleWithFixedDelay(offsets::expireOffsets, config.offsetsRetentionCheckIntervalMs(),
                config.offsetsRetentionCheckIntervalMs(), TimeUnit.MILLISECONDS);
    }

    public GroupConfig config() {
        return config;
    }

    /** The {@code __consumer_offsets} partition that holds a group. */
    public int partitionFor(String groupId) {
        return registry.partitionFor(groupId);
    }

    /**
     * The partitions of {@code __consumer_offsets} this broker now leads, and the topic's partition count (fixed
     * once the topic exists). Newly led partitions are loaded; partitions no longer led are dropped.
     */
    public void onLeadershipChange(Set<Integer> ledPartitions, int partitionCount) {
        if (registry.isClosed()) {
            return;
        }
        if (partitionCount > 0) {
            registry.offsetsPartitionCount(partitionCount);
        }
        for (Integer partition : registry.ownedPartitions()) {
            if (!ledPartitions.contains(partition)) {
                resign(partition);
            }
        }
        for (int partition : ledPartitions) {
            if (!registry.owns(partition)) {
                long token = registry.claim(partition);
                scheduler.execute(() -> loader.load(partition, token));
            }
        }
    }

    private void resign(int partition) {
        registry.release(partition);
        int dropped = 0;
        for (Group group : registry.snapshot()) {
            if (group.offsetsPartition() != partition) {
                continue;
            }
            synchronized (group) {
                membership.markDead(group, Errors.NOT_COORDINATOR);
            }
            registry.remove(group);
            dropped++;
        }
        for (ShareGroup group : registry.shareGroupSnapshot()) {
            if (group.offsetsPartition() != partition) {
                continue;
            }
            synchronized (group) {
                group.markDead();
            }
            registry.removeShareGroup(group);
            dropped++;
        }
        log.info("No longer the coordinator for partition {} of {}: dropped {} groups", partition,
                GroupConfig.OFFSETS_TOPIC, dropped);
    }

    /**
     * A transaction marker was written (and replicated, acks=all) to partitions {@code offsetsPartitions} of
     * {@code __consumer_offsets}: the offsets producer {@code producerId} committed in that transaction through
     * TxnOffsetCommit become the groups' committed offsets ({@link TransactionResult#COMMIT}) or are dropped
     * ({@link TransactionResult#ABORT}). Called by the WriteTxnMarkers handler once per request and result.
     */
    public void onTransactionCompleted(long producerId, Collection<Integer> offsetsPartitions,
                                       TransactionResult result) {
        if (registry.isClosed()) {
            return;
        }
        // Applied before this returns (so before WriteTxnMarkers answers, hence before the producer's next
        // transaction can commit offsets of the same producer id), except on partitions still loading: their load
        // applies it before it serves the groups.
        List<Integer> loaded = new ArrayList<>();
        for (int partition : offsetsPartitions) {
            if (!registry.deferIfLoading(partition, new GroupRegistry.TxnCompletion(producerId, result))) {
                loaded.add(partition);
            }
        }
        if (!loaded.isEmpty()) {
            txnOffsets.complete(producerId, loaded, result);
        }
    }

    /**
     * TxnOffsetCommit for partitions the caller has checked exist: the offsets are appended as a transactional
     * batch of {@code producerId} and stay pending (not fetched as committed) until the transaction's marker; see
     * {@link TxnOffsetCommits}.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> commitTxnOffsets(String groupId, long producerId,
            short producerEpoch, String memberId, String groupInstanceId, int generationId,
            Map<TopicPartition, OffsetCommit> offsets) {
        if (registry.hasShareGroup(groupId)) {
            return CompletableFuture.completedFuture(allFailed(offsets.keySet(), Errors.GROUP_ID_NOT_FOUND));
        }
        return txnOffsets.commit(groupId, producerId, producerEpoch, memberId, groupInstanceId, generationId,
                offsets);
    }

    /** Validates a group id and this coordinator's ownership: NONE, or the error to answer. */
    public Errors checkGroup(String groupId) {
        return registry.checkGroup(groupId);
    }

    /**
     * JoinGroup: answered when the join phase completes (or at once with an error, with MEMBER_ID_REQUIRED, or
     * when a member rejoins a generation unchanged).
     */
    public CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData request, short version,
                                                              String clientId, String clientHost) {
        if (request.groupId() != null && registry.hasShareGroup(request.groupId())) {
            // As Kafka: a group of another type answers a classic join with INCONSISTENT_GROUP_PROTOCOL.
            return CompletableFuture.completedFuture(new JoinGroupResponseData().setMemberId("")
                    .setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code()));
        }
        return membership.joinGroup(request, version, clientId, clientHost);
    }

    /** SyncGroup: followers wait for the leader's assignment; the leader's is stored before anyone gets theirs. */
    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData request) {
        return membership.syncGroup(request);
    }

    public Errors heartbeat(HeartbeatRequestData request) {
        return membership.heartbeat(request);
    }

    /** LeaveGroup for the given members (by member id, or by group instance id for static members). */
    public LeaveResult leaveGroup(String groupId, List<MemberIdentity> leaving) {
        return membership.leaveGroup(groupId, leaving);
    }

    /**
     * OffsetCommit for partitions the caller has checked exist. A member commits with its generation; anyone may
     * commit to a group without members with generation -1 (simple, {@code assign()}-style consumers and admin
     * tools).
     */
    public CompletableFuture<Map<TopicPartition, Errors>> commitOffsets(String groupId, String memberId,
            String groupInstanceId, int generationId, Map<TopicPartition, OffsetCommit> offsets) {
        if (registry.hasShareGroup(groupId)) {
            // As Kafka: a share group has no committed offsets ("Group ... is not a consumer group").
            return CompletableFuture.completedFuture(allFailed(offsets.keySet(), Errors.GROUP_ID_NOT_FOUND));
        }
        return this.offsets.commitOffsets(groupId, memberId, groupInstanceId, generationId, offsets);
    }

    /**
     * OffsetFetch: the committed offsets of the given partitions (absent ones map to null), or of every partition
     * when {@code partitions} is null.
     */
    public GroupOffsets fetchOffsets(String groupId, List<TopicPartition> partitions) {
        return offsets.fetchOffsets(groupId, partitions, false);
    }

    /**
     * OffsetFetch with {@code requireStable} (v7+, set by read_committed consumers): as
     * {@link #fetchOffsets(String, List)}, and partitions with offsets of open transactions are listed unstable.
     */
    public GroupOffsets fetchOffsets(String groupId, List<TopicPartition> partitions, boolean requireStable) {
        if (registry.hasShareGroup(groupId)) {
            return new GroupOffsets(Errors.GROUP_ID_NOT_FOUND, Map.of(), Set.of());
        }
        return offsets.fetchOffsets(groupId, partitions, requireStable);
    }

    /**
     * OffsetDelete: removes committed offsets of a group, except of topics its members are subscribed to
     * ({@code GROUP_SUBSCRIBED_TO_TOPIC}).
     */
    public CompletableFuture<OffsetDeleteResult> deleteOffsets(String groupId, List<TopicPartition> partitions) {
        if (registry.hasShareGroup(groupId)) {
            return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND, Map.of()));
        }
        return offsets.deleteOffsets(groupId, partitions);
    }

    private static Map<TopicPartition, Errors> allFailed(Set<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> result = new LinkedHashMap<>();
        partitions.forEach(tp -> result.put(tp, error));
        return result;
    }

    /** Removes committed offsets past {@code offsets.retention.minutes}; see {@link OffsetStore#expireOffsets()}. */
    void expireOffsets() {
        offsets.expireOffsets();
    }

    /** DescribeGroups for one group; {@code null} when this coordinator does not know it. */
    public DescribedGroup describeGroup(String groupId) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return new DescribedGroup().setGroupId(groupId).setErrorCode(error.code());
        }
        if (registry.hasShareGroup(groupId)) {
            // As Kafka answers DescribeGroups for a group of another type (v6+; the handler clears the error below).
            return new DescribedGroup().setGroupId(groupId).setGroupState(GroupState.DEAD.wireName())
                    .setProtocolType("").setProtocolData("")
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " is not a classic group.");
        }
        Group group = registry.get(groupId);
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

    /**
     * ListGroups over the partitions this coordinator leads: groups of the given types, optionally only those in the
     * given states.
     */
    public ListedGroups listGroups(Set<GroupState> states, Set<GroupType> types) {
        Errors error = registry.anyLoading() ? Errors.COORDINATOR_LOAD_IN_PROGRESS : Errors.NONE;
        List<ListedGroup> listed = new ArrayList<>();
        if (types.contains(GroupType.SHARE)) {
            for (ShareGroup group : registry.shareGroupSnapshot()) {
                synchronized (group) {
                    if (group.isDead() || !registry.isLoaded(group.offsetsPartition())) {
                        continue;
                    }
                    if (states.isEmpty() || states.contains(group.state())) {
                        listed.add(new ListedGroup(group.groupId(), GroupType.SHARE.wireName(), group.state(),
                                GroupType.SHARE));
                    }
                }
            }
        }
        if (!types.contains(GroupType.CLASSIC)) {
            return new ListedGroups(error, listed);
        }
        for (Group group : registry.groups()) {
            synchronized (group) {
                if (group.is(GroupState.DEAD) || !registry.isLoaded(group.offsetsPartition())) {
                    continue;
                }
                if (states.isEmpty() || states.contains(group.state())) {
                    listed.add(new ListedGroup(group.groupId(),
                            group.protocolType() == null ? "" : group.protocolType(), group.state(),
                            GroupType.CLASSIC));
                }
            }
        }
        return new ListedGroups(error, listed);
    }

    /**
     * Publishes Kafka's {@code kafka.server:type=group-coordinator-metrics} beans (Kafka Metrics' shape: named
     * attributes): {@code group-count} per {@code protocol} (classic, share), and per {@code state} (Kafka's state
     * names) {@code classic-group-count} and {@code share-group-count}, of the groups this coordinator holds. Counted
     * when read (a walk over the groups, each under its lock), so nothing is paid on the request path.
     */
    public void registerMetrics(BrokerMetrics metrics) {
        String bean = BrokerMetrics.name("kafka.server", "group-coordinator-metrics", null);
        metrics.attributes(bean + ",protocol=classic", Map.of("group-count",
                () -> (double) countGroups(GroupType.CLASSIC, null)));
        metrics.attributes(bean + ",protocol=share", Map.of("group-count",
                () -> (double) countGroups(GroupType.SHARE, null)));
        for (GroupState state : GroupState.values()) {
            Map<String, java.util.function.Supplier<Double>> counts = new java.util.HashMap<>();
            counts.put("classic-group-count", () -> (double) countGroups(GroupType.CLASSIC, state));
            if (state == GroupState.EMPTY || state == GroupState.STABLE || state == GroupState.DEAD) {
                counts.put("share-group-count", () -> (double) countGroups(GroupType.SHARE, state));
            }
            metrics.attributes(bean + ",state=" + state.wireName(), counts);
        }
    }

    /**
     * The committed offsets of every classic group this coordinator holds (its {@code __consumer_offsets} partition
     * loaded here), by group: for the consumer lag of the scrape endpoint. Copied under each group's lock, once per
     * scrape; transactional offsets not yet committed are not among them.
     */
    public Map<String, Map<TopicPartition, Long>> committedOffsets() {
        Map<String, Map<TopicPartition, Long>> result = new TreeMap<>();
        for (Group group : registry.groups()) {
            synchronized (group) {
                if (group.is(GroupState.DEAD) || !registry.isLoaded(group.offsetsPartition())
                        || group.offsets().isEmpty()) {
                    continue;
                }
                Map<TopicPartition, Long> offsets = new HashMap<>();
                group.offsets().forEach((tp, committed) -> offsets.put(tp, committed.offset()));
                result.put(group.groupId(), offsets);
            }
        }
        return result;
    }

    /** Groups of {@code type} held here, in {@code state} (any but Dead when null). */
    private int countGroups(GroupType type, GroupState state) {
        int count = 0;
        if (type == GroupType.SHARE) {
            for (ShareGroup group : registry.shareGroupSnapshot()) {
                synchronized (group) {
                    boolean dead = group.isDead();
                    if (state == null ? !dead : (state == GroupState.DEAD ? dead : !dead && group.state() == state)) {
                        count++;
                    }
                }
            }
            return count;
        }
        for (Group group : registry.groups()) {
            synchronized (group) {
                if (state == null ? !group.is(GroupState.DEAD) : group.state() == state) {
                    count++;
                }
            }
        }
        return count;
    }

    /** DeleteGroups: each group must be empty; its offsets and metadata are tombstoned, then it is gone. */
    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        Map<String, Errors> results = Collections.synchronizedMap(new LinkedHashMap<>());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (String groupId : groupIds) {
            Errors error = registry.checkGroup(groupId);
            if (error != Errors.NONE) {
                results.put(groupId, error);
                continue;
            }
            ShareGroup shareGroup = registry.shareGroup(groupId);
            if (shareGroup != null) {
                writes.add(deleteShareGroup(shareGroup, results));
                continue;
            }
            Group group = registry.get(groupId);
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
                // Offsets of open transactions are tombstoned too (an empty group is deleted regardless of them, as
                // by Kafka): the tombstone comes after their records, so a later commit marker brings none back.
                Set<TopicPartition> deleted = new HashSet<>(group.offsets().keySet());
                deleted.addAll(group.pendingTxnOffsets().partitions());
                for (TopicPartition tp : deleted) {
                    tombstones.add(OffsetsTopicWriter.offsetTombstone(now, groupId, tp));
                }
                tombstones.add(OffsetsTopicWriter.groupTombstone(now, groupId));
                results.put(groupId, Errors.NONE);
                writes.add(writer.append(group, tombstones).thenAccept(appendError -> {
                    Errors outcome = OffsetsTopicWriter.groupAppendError(appendError);
                    synchronized (group) {
                        if (outcome == Errors.NONE) {
                            if (!group.is(GroupState.DEAD)) {
                                membership.markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                            }
                            registry.remove(group);
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

    /** Deletes an empty share group: its metadata is tombstoned, then it is gone (NON_EMPTY_GROUP with members). */
    private CompletableFuture<Void> deleteShareGroup(ShareGroup group, Map<String, Errors> results) {
        String groupId = group.groupId();
        synchronized (group) {
            if (group.isDead()) {
                results.put(groupId, Errors.GROUP_ID_NOT_FOUND);
                return CompletableFuture.completedFuture(null);
            }
            if (group.size() > 0) {
                results.put(groupId, Errors.NON_EMPTY_GROUP);
                return CompletableFuture.completedFuture(null);
            }
            results.put(groupId, Errors.NONE);
            return writer.deleteShareGroup(group).thenAccept(appendError -> {
                Errors outcome = OffsetsTopicWriter.groupAppendError(appendError);
                synchronized (group) {
                    if (outcome == Errors.NONE) {
                        group.markDead();
                        registry.removeShareGroup(group);
                        log.info("Deleted share group {}", groupId);
                    }
                    results.put(groupId, outcome);
                }
            });
        }
    }

    // Share groups (KIP-932)

    /** ShareGroupHeartbeat: join, heartbeat or leave; see {@link ShareGroupMembership}. */
    public CompletableFuture<ShareGroupHeartbeatResponseData> shareGroupHeartbeat(
            ShareGroupHeartbeatRequestData request, String clientId, String clientHost) {
        return shareMembership.heartbeat(request, clientId, clientHost);
    }

    /** ShareGroupDescribe of one group: members with their assignments, epochs and state, or the error. */
    public ShareGroupDescribeResponseData.DescribedGroup describeShareGroup(String groupId) {
        ShareGroupDescribeResponseData.DescribedGroup described = new ShareGroupDescribeResponseData.DescribedGroup()
                .setGroupId(groupId);
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return described.setErrorCode(error.code()).setErrorMessage(error.message());
        }
        ShareGroup group = registry.shareGroup(groupId);
        if (group == null) {
            String message = registry.hasClassicGroup(groupId) ? "Group " + groupId + " is not a share group."
                    : "Group " + groupId + " not found.";
            return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(message)
                    .setGroupState(GroupState.DEAD.wireName());
        }
        synchronized (group) {
            if (group.isDead()) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.")
                        .setGroupState(GroupState.DEAD.wireName());
            }
            Map<Uuid, String> topicNames = new HashMap<>();
            group.subscribedTopics().forEach((name, shape) -> topicNames.put(shape.topicId(), name));
            described.setErrorCode(Errors.NONE.code())
                    .setGroupState(group.state().wireName())
                    .setGroupEpoch(group.groupEpoch())
                    .setAssignmentEpoch(group.assignmentEpoch())
                    .setAssignorName(ShareAssignor.NAME);
            for (ShareMember member : group.members()) {
                ShareGroupDescribeResponseData.Assignment assignment = new ShareGroupDescribeResponseData.Assignment();
                new TreeMap<>(member.assignment).forEach((topicId, partitions) ->
                        assignment.topicPartitions().add(new ShareGroupDescribeResponseData.TopicPartitions()
                                .setTopicId(topicId)
                                .setTopicName(topicNames.getOrDefault(topicId, ""))
                                .setPartitions(new ArrayList<>(new TreeSet<>(partitions)))));
                described.members().add(new ShareGroupDescribeResponseData.Member()
                        .setMemberId(member.memberId())
                        .setRackId(member.rackId)
                        .setMemberEpoch(member.memberEpoch)
                        .setClientId(member.clientId == null ? "" : member.clientId)
                        .setClientHost(member.clientHost == null ? "" : member.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(member.subscribedTopicNames))
                        .setAssignment(assignment));
            }
            return described;
        }
    }

    /**
     * The partitions of a share group that may have share state (DescribeShareGroupOffsets, DeleteShareGroupOffsets,
     * DeleteGroups): GROUP_ID_NOT_FOUND for an id that is not a share group's, or the coordinator's error.
     */
    public ShareStateTopics shareStateTopics(String groupId) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return ShareStateTopics.failed(error, null);
        }
        ShareGroup group = registry.shareGroup(groupId);
        if (group == null) {
            return ShareStateTopics.failed(Errors.GROUP_ID_NOT_FOUND, registry.hasClassicGroup(groupId)
                    ? "Group " + groupId + " is not a share group." : "Group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.isDead()) {
                return ShareStateTopics.failed(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
            }
            return new ShareStateTopics(Errors.NONE, null, group.state(), stateTopicsOf(group));
        }
    }

    /**
     * AlterShareGroupOffsets' group: the share group, created (and stored) when this coordinator has none under the
     * id, as Kafka does, so that offsets can be set before the first consumer starts. NON_EMPTY_GROUP when it has
     * members; GROUP_ID_NOT_FOUND when a classic group holds the id.
     */
    public CompletableFuture<ShareStateTopics> shareGroupForOffsetsAlter(String groupId) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(ShareStateTopics.failed(error, null));
        }
        if (registry.hasClassicGroup(groupId)) {
            return CompletableFuture.completedFuture(ShareStateTopics.failed(Errors.GROUP_ID_NOT_FOUND,
                    "Group " + groupId + " is not a share group."));
        }
        boolean created = !registry.hasShareGroup(groupId);
        ShareGroup group = registry.getOrCreateShareGroup(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(ShareStateTopics.failed(Errors.GROUP_ID_NOT_FOUND,
                    "Group " + groupId + " is not a share group."));
        }
        synchronized (group) {
            if (group.isDead()) {
                return CompletableFuture.completedFuture(ShareStateTopics.failed(Errors.COORDINATOR_NOT_AVAILABLE,
                        null));
            }
            if (group.size() > 0) {
                return CompletableFuture.completedFuture(ShareStateTopics.failed(Errors.NON_EMPTY_GROUP,
                        "The share group " + groupId + " has members; its offsets can be altered only when it is "
                                + "empty."));
            }
            ShareStateTopics topics = new ShareStateTopics(Errors.NONE, null, group.state(), stateTopicsOf(group));
            if (!created) {
                return CompletableFuture.completedFuture(topics);
            }
            log.info("Share group {} created to alter its offsets", groupId);
            return writer.storeShareGroup(group, group.groupEpoch()).thenApply(stored -> stored == Errors.NONE
                    ? topics : ShareStateTopics.failed(stored, null));
        }
    }

    /**
     * Records, durably, that the share group has (or may have) state for these partitions of a topic; completes with
     * the store's error (NONE also when the group is gone meanwhile: there is nothing left to record it for).
     */
    public CompletableFuture<Errors> addShareStatePartitions(String groupId, Uuid topicId, String topicName,
                                                             Set<Integer> partitions) {
        ShareGroup group = registry.shareGroup(groupId);
        if (group == null || partitions.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        synchronized (group) {
            if (group.isDead()) {
                return CompletableFuture.completedFuture(Errors.NONE);
            }
            group.addStatePartitions(topicId, topicName, partitions);
            return writer.storeShareStateTopics(group);
        }
    }

    /** Records, durably, that the share group has no state left for these topics; completes with the store's error. */
    public CompletableFuture<Errors> removeShareStateTopics(String groupId, Set<Uuid> topicIds) {
        ShareGroup group = registry.shareGroup(groupId);
        if (group == null) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        synchronized (group) {
            if (group.isDead()) {
                return CompletableFuture.completedFuture(Errors.NONE);
            }
            group.removeStateTopics(topicIds);
            return writer.storeShareStateTopics(group);
        }
    }

    private static Map<Uuid, StateTopic> stateTopicsOf(ShareGroup group) {
        Map<Uuid, StateTopic> topics = new LinkedHashMap<>();
        group.stateTopics().forEach((topicId, topic) ->
                topics.put(topicId, new StateTopic(topic.name(), topic.partitions())));
        return topics;
    }

    @Override
    public void close() {
        registry.markClosed();
        scheduler.shutdownNow();
        for (ShareGroup group : registry.shareGroupSnapshot()) {
            synchronized (group) {
                group.markDead();
            }
        }
        for (Group group : registry.snapshot()) {
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    membership.markDead(group, Errors.COORDINATOR_NOT_AVAILABLE);
                }
            }
        }
        registry.clear();
    }

    /** For tests: the state of a group this coordinator holds. */
    Optional<GroupState> groupState(String groupId) {
        Group group = registry.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        synchronized (group) {
            return Optional.of(group.state());
        }
    }
}
