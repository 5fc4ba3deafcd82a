package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.group.ShareGroupContext.TopicShape;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership state machine of share groups (KIP-932): ShareGroupHeartbeat joins (member epoch 0), heartbeats
 * (the member's epoch) and leaves (-1); sessions expire members that stop heartbeating. Kafka's rules:
 * <ul>
 *   <li>The client names itself (a UUID string; empty is {@code INVALID_REQUEST}) and sends its subscribed topics on
 *       joining (null later means unchanged).</li>
 *   <li>The group epoch is bumped when a member joins, leaves, expires or changes its subscription, or when the
 *       subscribed topics' partitions change (checked on every heartbeat against the metadata); the target assignment
 *       ({@link ShareAssignor}) is computed at once at the new epoch.</li>
 *   <li>A member takes the target assignment and the group epoch as its member epoch at its next heartbeat (no
 *       revocation: share-partitions are not owned exclusively). The response carries the assignment on a join and
 *       whenever it changed for that member.</li>
 *   <li>An unknown member gets {@code UNKNOWN_MEMBER_ID}; an epoch other than the member's or its previous one
 *       {@code FENCED_MEMBER_EPOCH}. Either way the client rejoins with epoch 0 and the same member id, which starts
 *       that member afresh (so a member forgotten by a failover or a restart comes back by itself).</li>
 *   <li>A group id held by a classic group is {@code GROUP_ID_NOT_FOUND}; more than {@code group.share.max.size}
 *       members {@code GROUP_MAX_SIZE_REACHED}.</li>
 * </ul>
 * Every epoch bump is stored ({@link Store}: the share group metadata record, acks=all) before the heartbeat that
 * caused it is answered. Memory changes first: a failed store answers the error, and the client's retry (a rejoin
 * with epoch 0) is idempotent.
 *
 * <p>Threads: {@link #heartbeat} runs on request-handler threads, session checks on the coordinator's scheduler
 * thread; both under the group's monitor. The scheduler is the coordinator's; this class only schedules on it.
 */
final class ShareGroupMembership {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupMembership.class);

    /** Stores a share group's epoch durably; completes with the append's error for the client (NONE on success). */
    @FunctionalInterface
    interface Store {
        CompletableFuture<Errors> storeEpoch(ShareGroup group, int groupEpoch);
    }

    private final ShareGroupContext context;
    private final GroupRegistry registry;
    private final Store store;
    private final ScheduledExecutorService scheduler;
    private final Time time;

    ShareGroupMembership(ShareGroupContext context, GroupRegistry registry, Store store,
                         ScheduledExecutorService scheduler, Time time) {
        this.context = context;
        this.registry = registry;
        this.store = store;
        this.scheduler = scheduler;
        this.time = time;
    }

    CompletableFuture<ShareGroupHeartbeatResponseData> heartbeat(ShareGroupHeartbeatRequestData request,
                                                                 String clientId, String clientHost) {
        String groupId = request.groupId();
        String invalid = invalidRequest(request);
        if (invalid != null) {
            return done(error(Errors.INVALID_REQUEST, invalid));
        }
        Errors error = registry.checkGroup(groupId);
        if (error != Errors.NONE) {
            return done(error(error, null));
        }
        if (registry.hasClassicGroup(groupId)) {
            return done(notAShareGroup(groupId));
        }
        int epoch = request.memberEpoch();
        ShareGroup group = epoch == 0 ? registry.getOrCreateShareGroup(groupId) : registry.shareGroup(groupId);
        if (group == null) {
            if (epoch == 0) {
                return done(notAShareGroup(groupId)); // a classic group took the id meanwhile
            }
            return done(epoch == ShareGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH
                    ? error(Errors.GROUP_ID_NOT_FOUND, "Share group " + groupId + " not found.")
                    : unknownMember(groupId, request.memberId()));
        }
        synchronized (group) {
            if (group.isDead()) {
                // Deleted or moved meanwhile: the client looks up the coordinator again.
                return done(error(Errors.COORDINATOR_NOT_AVAILABLE, null));
            }
            if (epoch == ShareGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH) {
                return leave(group, request.memberId());
            }
            return joinOrHeartbeat(group, request, clientId, clientHost);
        }
    }

    /** Kafka's validation of the request; null if valid. */
    private static String invalidRequest(ShareGroupHeartbeatRequestData request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return "GroupId can't be empty.";
        }
        if (request.rackId() != null && request.rackId().isEmpty()) {
            return "RackId can't be empty.";
        }
        int epoch = request.memberEpoch();
        if (epoch < ShareGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH) {
            return "MemberEpoch is invalid.";
        }
        if (request.memberId() == null || request.memberId().isEmpty()) {
            return "MemberId can't be empty.";
        }
        if (epoch == 0 && (request.subscribedTopicNames() == null || request.subscribedTopicNames().isEmpty())) {
            return "SubscribedTopicNames must be set in first request.";
        }
        return null;
    }

    private CompletableFuture<ShareGroupHeartbeatResponseData> joinOrHeartbeat(ShareGroup group,
            ShareGroupHeartbeatRequestData request, String clientId, String clientHost) {
        String memberId = request.memberId();
        int epoch = request.memberEpoch();
        ShareMember member = group.member(memberId);
        boolean membershipChanged = false;
        if (member == null) {
            if (epoch != 0) {
                return done(unknownMember(group.groupId(), memberId));
            }
            if (group.size() >= context.config().maxSize()) {
                return done(error(Errors.GROUP_MAX_SIZE_REACHED, "The share group has reached its maximum "
                        + "capacity of " + context.config().maxSize() + " members."));
            }
            member = new ShareMember(memberId);
            group.add(member);
            membershipChanged = true;
            log.info("Member {} joins share group {}", memberId, group.groupId());
        } else if (epoch == 0) {
            // The same member joining again (fenced, or its join response was lost): it starts afresh.
            member.memberEpoch = 0;
            member.previousMemberEpoch = 0;
            member.assignment = Map.of();
            log.info("Member {} rejoins share group {}", memberId, group.groupId());
        } else if (epoch != member.memberEpoch && epoch != member.previousMemberEpoch) {
            return done(error(Errors.FENCED_MEMBER_EPOCH, "The share group member has epoch " + epoch
                    + ", the group coordinator knows it at epoch " + member.memberEpoch
                    + ". The member must rejoin."));
        }
        if (request.subscribedTopicNames() != null) {
            Set<String> topics = Collections.unmodifiableSet(new TreeSet<>(request.subscribedTopicNames()));
            if (!topics.equals(member.subscribedTopicNames)) {
                member.subscribedTopicNames = topics;
                membershipChanged = true;
            }
        }
        member.clientId = clientId == null ? "" : clientId;
        member.clientHost = clientHost;
        if (request.rackId() != null) {
            member.rackId = request.rackId();
        }
        boolean bumped = maybeBumpEpoch(group, membershipChanged);
        boolean assignmentChanged = reconcile(group, member);
        touch(group, member);
        ShareGroupHeartbeatResponseData response = new ShareGroupHeartbeatResponseData()
                .setErrorCode(Errors.NONE.code())
                .setMemberId(memberId)
                .setMemberEpoch(member.memberEpoch)
                .setHeartbeatIntervalMs(context.timeouts().heartbeatIntervalMs(group.groupId()));
        if (epoch == 0 || assignmentChanged) {
            response.setAssignment(assignment(member));
        }
        return bumped ? stored(group, response) : done(response);
    }

    private CompletableFuture<ShareGroupHeartbeatResponseData> leave(ShareGroup group, String memberId) {
        ShareMember member = group.member(memberId);
        if (member == null) {
            return done(unknownMember(group.groupId(), memberId));
        }
        group.remove(memberId);
        log.info("Member {} left share group {}", memberId, group.groupId());
        maybeBumpEpoch(group, true);
        return stored(group, new ShareGroupHeartbeatResponseData()
                .setErrorCode(Errors.NONE.code())
                .setMemberId(memberId)
                .setMemberEpoch(ShareGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH));
    }

    /**
     * Bumps the group epoch, with a new target assignment, if membership or subscriptions changed or the subscribed
     * topics' shapes in the metadata differ from those of the last assignment. Returns whether it did.
     */
    private boolean maybeBumpEpoch(ShareGroup group, boolean membershipChanged) {
        Map<String, TopicShape> topics = new TreeMap<>();
        for (String name : group.subscribedTopicNames()) {
            Optional<TopicShape> shape = context.topics().topic(name);
            shape.ifPresent(s -> topics.put(name, s));
        }
        if (!membershipChanged && topics.equals(group.subscribedTopics())) {
            return false;
        }
        group.bumpEpochAndAssign(topics);
        log.info("Share group {} is at epoch {} with {} members", group.groupId(), group.groupEpoch(),
                group.size());
        return true;
    }

    /** Moves the member to the target assignment and its epoch; returns whether its partitions changed. */
    private static boolean reconcile(ShareGroup group, ShareMember member) {
        if (member.memberEpoch == group.assignmentEpoch()) {
            return false;
        }
        Map<Uuid, Set<Integer>> target = new LinkedHashMap<>();
        group.targetAssignment(member.memberId())
                .forEach((topicId, partitions) -> target.put(topicId, Set.copyOf(partitions)));
        boolean changed = !target.equals(member.assignment);
        member.assignment = Collections.unmodifiableMap(target);
        member.previousMemberEpoch = member.memberEpoch;
        member.memberEpoch = group.assignmentEpoch();
        return changed;
    }

    /** The response once the group's epoch is stored, or the store's error. */
    private CompletableFuture<ShareGroupHeartbeatResponseData> stored(ShareGroup group,
                                                                     ShareGroupHeartbeatResponseData response) {
        return store.storeEpoch(group, group.groupEpoch())
                .thenApply(error -> error == Errors.NONE ? response : error(error, null));
    }

    // Sessions

    private void touch(ShareGroup group, ShareMember member) {
        member.lastHeartbeatMs = time.milliseconds();
        if (!member.sessionCheckScheduled) {
            member.sessionCheckScheduled = true;
            scheduleSessionCheck(group, member, context.timeouts().sessionTimeoutMs(group.groupId()));
        }
    }

    private void scheduleSessionCheck(ShareGroup group, ShareMember member, long delayMs) {
        if (registry.isClosed()) {
            return;
        }
        scheduler.schedule(() -> checkSession(group, member), delayMs, TimeUnit.MILLISECONDS);
    }

    /**
     * The session timer of a member: removes it if it has not heartbeated for the group's session timeout (read now,
     * so a changed {@code share.session.timeout.ms} applies to running sessions), else checks again when it would
     * expire.
     */
    void checkSession(ShareGroup group, ShareMember member) {
        synchronized (group) {
            if (group.isDead() || group.member(member.memberId()) != member) {
                member.sessionCheckScheduled = false;
                return;
            }
            long timeoutMs = context.timeouts().sessionTimeoutMs(group.groupId());
            long elapsedMs = time.milliseconds() - member.lastHeartbeatMs;
            if (elapsedMs < timeoutMs) {
                scheduleSessionCheck(group, member, timeoutMs - elapsedMs);
                return;
            }
            member.sessionCheckScheduled = false;
            group.remove(member.memberId());
            log.info("Member {} of share group {} expired after {} ms without a heartbeat", member.memberId(),
                    group.groupId(), elapsedMs);
            maybeBumpEpoch(group, true);
            store.storeEpoch(group, group.groupEpoch());
        }
    }

    // Responses

    private static ShareGroupHeartbeatResponseData.Assignment assignment(ShareMember member) {
        List<ShareGroupHeartbeatResponseData.TopicPartitions> topics = new ArrayList<>();
        new TreeMap<>(member.assignment).forEach((topicId, partitions) -> topics.add(
                new ShareGroupHeartbeatResponseData.TopicPartitions()
                        .setTopicId(topicId)
                        .setPartitions(new ArrayList<>(new TreeSet<>(partitions)))));
        return new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(topics);
    }

    private static ShareGroupHeartbeatResponseData notAShareGroup(String groupId) {
        return error(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a share group.");
    }

    private static ShareGroupHeartbeatResponseData unknownMember(String groupId, String memberId) {
        return error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of share group " + groupId
                + ".");
    }

    private static ShareGroupHeartbeatResponseData error(Errors error, String message) {
        return new ShareGroupHeartbeatResponseData().setErrorCode(error.code())
                .setErrorMessage(message == null ? error.message() : message);
    }

    private static CompletableFuture<ShareGroupHeartbeatResponseData> done(ShareGroupHeartbeatResponseData data) {
        return CompletableFuture.completedFuture(data);
    }
}
