package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.group.GroupCoordinator.LeaveResult;
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
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership state machine of classic groups: the join/sync barrier (JoinGroup, SyncGroup), Heartbeat and
 * LeaveGroup, static membership, the initial-rebalance delay, the join and sync timers, and member sessions. A
 * generation's assignment is stored in {@code __consumer_offsets} (through {@link OffsetsTopicWriter}) before any
 * member is given its part.
 *
 * <p>Threads: the request methods are called from request-handler threads; timers run on the coordinator's
 * scheduler thread. Every method that takes a {@link Group} expects, and every timer takes, that group's monitor;
 * parked JoinGroup and SyncGroup requests ({@link Member#awaitingJoin}, {@link Member#awaitingSync}) are completed
 * under it. The scheduler is the coordinator's; this class only schedules on it.
 */
final class GroupMembership {

    private static final Logger log = LoggerFactory.getLogger(GroupMembership.class);

    private final GroupConfig config;
    private final GroupRegistry registry;
    private final OffsetsTopicWriter writer;
    private final ScheduledExecutorService scheduler;
    private final Time time;

    GroupMembership(GroupConfig config, GroupRegistry registry, OffsetsTopicWriter writer,
                    ScheduledExecutorService scheduler, Time time) {
        this.config = config;
        this.registry = registry;
        this.writer = writer;
        this.scheduler = scheduler;
        this.time = time;
    }

    /** Ends a group in this coordinator: parked requests fail with {@code error}, timers stop. */
    void markDead(Group group, Errors error) {
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

    /**
     * JoinGroup: answered when the join phase completes (or at once with an error, with MEMBER_ID_REQUIRED, or
     * when a member rejoins a generation unchanged).
     */
    CompletableFuture<JoinGroupResponseData> joinGroup(JoinGroupRequestData request, short version,
                                                       String clientId, String clientHost) {
        String groupId = request.groupId();
        String memberId = request.memberId() == null ? "" : request.memberId();
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(joinError(memberId, error));
        }
        int sessionTimeout = request.sessionTimeoutMs();
        if (sessionTimeout < config.minSessionTimeoutMs() || sessionTimeout > config.maxSessionTimeoutMs()) {
            return CompletableFuture.completedFuture(joinError(memberId, Errors.INVALID_SESSION_TIMEOUT));
        }
        boolean unknownMember = memberId.isEmpty();
        Group group = unknownMember
                ? registry.getOrCreate(groupId, time)
                : registry.get(groupId);
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
            writer.storeGroup(group, currentAssignments(group)).whenComplete((error, failure) -> {
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
            writer.storeGroup(group, Map.of()).whenComplete((error, failure) -> {
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

    static JoinGroupResponseData joinError(String memberId, Errors error) {
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
    static Errors validateMember(Group group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            Optional<String> holder = group.staticMemberId(groupInstanceId);
            if (holder.isPresent() && !holder.get().equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return group.hasMember(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    /** SyncGroup: followers wait for the leader's assignment; the leader's is stored before anyone gets theirs. */
    CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData request) {
        String groupId = request.groupId();
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return CompletableFuture.completedFuture(syncError(error));
        }
        Group group = registry.get(groupId);
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
        writer.storeGroup(group, assignments).whenComplete((error, failure) -> {
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

    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    Errors heartbeat(HeartbeatRequestData request) {
        String groupId = request.groupId();
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return error;
        }
        Group group = registry.get(groupId);
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
    LeaveResult leaveGroup(String groupId, List<MemberIdentity> leaving) {
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return new LeaveResult(error, List.of());
        }
        Group group = registry.get(groupId);
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

    /** A sign of life from a member: its session starts again, and a check is scheduled if none is. */
    void touch(Group group, Member member) {
        member.lastHeartbeatNanos = time.nanoseconds();
        if (!member.sessionCheckScheduled) {
            member.sessionCheckScheduled = true;
            scheduleSessionCheck(group, member, member.sessionTimeoutMs());
        }
    }

    private void scheduleSessionCheck(Group group, Member member, long delayMs) {
        if (registry.isClosed()) {
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
}
