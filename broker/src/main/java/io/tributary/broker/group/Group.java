package io.tributary.broker.group;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;

import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * One classic group as its coordinator holds it: the state machine, the members of the current generation, the
 * members still completing the {@code MEMBER_ID_REQUIRED} handshake, the static members by instance id, the
 * committed offsets, and the offsets of transactions still open ({@link PendingTxnOffsets}).
 *
 * <p>Not thread-safe: the coordinator holds this object's monitor ({@code synchronized (group)}) around every read
 * and change, including the callbacks that complete a log write.
 */
final class Group {

    private static final Map<GroupState, Set<GroupState>> VALID_PREVIOUS = Map.of(
            GroupState.EMPTY, EnumSet.of(GroupState.PREPARING_REBALANCE),
            GroupState.PREPARING_REBALANCE, EnumSet.of(GroupState.EMPTY, GroupState.STABLE,
                    GroupState.COMPLETING_REBALANCE),
            GroupState.COMPLETING_REBALANCE, EnumSet.of(GroupState.PREPARING_REBALANCE),
            GroupState.STABLE, EnumSet.of(GroupState.COMPLETING_REBALANCE),
            GroupState.DEAD, EnumSet.allOf(GroupState.class));

    private final String groupId;
    private final int offsetsPartition;
    private GroupState state = GroupState.EMPTY;
    private long stateTimestampMs;
    private String protocolType;
    private String protocolName;
    private int generationId;
    private String leaderId;

    private final Map<String, Member> members = new LinkedHashMap<>();
    /** group.instance.id to the member id that currently holds it. */
    private final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED whose holders have not joined with them yet. */
    private final Set<String> pendingMembers = new HashSet<>();
    /** Members of the current generation that have not sent their SyncGroup yet. */
    final Set<String> pendingSync = new HashSet<>();
    private final Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
    private final PendingTxnOffsets pendingTxnOffsets = new PendingTxnOffsets();

    /** The timer that ends the current join phase, or null. */
    ScheduledFuture<?> joinTimer;
    /** The timer that removes members that did not sync in this generation, or null. */
    ScheduledFuture<?> syncTimer;
    /** During the first rebalance of an empty group: when it started ({@code nanoTime}), and whether members came. */
    long initialRebalanceStartNanos;
    boolean initialRebalancePending;
    boolean memberJoinedDuringDelay;

    Group(String groupId, int offsetsPartition, long nowMs) {
        this.groupId = groupId;
        this.offsetsPartition = offsetsPartition;
        this.stateTimestampMs = nowMs;
    }

    String groupId() {
        return groupId;
    }

    int offsetsPartition() {
        return offsetsPartition;
    }

    GroupState state() {
        return state;
    }

    boolean is(GroupState wanted) {
        return state == wanted;
    }

    long stateTimestampMs() {
        return stateTimestampMs;
    }

    void transitionTo(GroupState next, long nowMs) {
        if (!VALID_PREVIOUS.get(next).contains(state)) {
            throw new IllegalStateException("group " + groupId + " cannot go from " + state.wireName() + " to "
                    + next.wireName());
        }
        state = next;
        stateTimestampMs = nowMs;
    }

    /** Restores the state of a group loaded from {@code __consumer_offsets}. */
    void restore(GroupState loadedState, String protocolType, String protocolName, int generationId,
                 String leaderId, long stateTimestampMs) {
        this.state = loadedState;
        this.protocolType = protocolType;
        this.protocolName = protocolName;
        this.generationId = generationId;
        this.leaderId = leaderId;
        this.stateTimestampMs = stateTimestampMs;
    }

    String protocolType() {
        return protocolType;
    }

    String protocolName() {
        return protocolName;
    }

    int generationId() {
        return generationId;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Members

    Collection<Member> members() {
        return members.values();
    }

    int size() {
        return members.size();
    }

    boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    Member member(String memberId) {
        return members.get(memberId);
    }

    void add(Member member) {
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        members.put(member.memberId(), member);
        if (member.isStatic()) {
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
    }

    void remove(String memberId) {
        Member removed = members.remove(memberId);
        pendingSync.remove(memberId);
        if (removed != null && removed.isStatic()) {
            staticMembers.remove(removed.groupInstanceId(), memberId);
        }
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** The member id that holds {@code groupInstanceId}, if any. */
    Optional<String> staticMemberId(String groupInstanceId) {
        return Optional.ofNullable(staticMembers.get(groupInstanceId));
    }

    /** A static member rejoined with an unknown member id: it keeps everything but gets {@code newMemberId}. */
    Member replaceStaticMember(String groupInstanceId, String oldMemberId, String newMemberId) {
        Member member = members.remove(oldMemberId);
        member.replaceMemberId(newMemberId);
        members.put(newMemberId, member);
        staticMembers.put(groupInstanceId, newMemberId);
        if (oldMemberId.equals(leaderId)) {
            leaderId = newMemberId;
        }
        if (pendingSync.remove(oldMemberId)) {
            pendingSync.add(newMemberId);
        }
        return member;
    }

    boolean isPendingMember(String memberId) {
        return pendingMembers.contains(memberId);
    }

    void addPendingMember(String memberId) {
        pendingMembers.add(memberId);
    }

    boolean removePendingMember(String memberId) {
        return pendingMembers.remove(memberId);
    }

    void clearPendingMembers() {
        pendingMembers.clear();
    }

    int pendingMemberCount() {
        return pendingMembers.size();
    }

    /** Every member has rejoined in this join phase, and no handed-out member id is still expected. */
    boolean allMembersJoined() {
        for (Member member : members.values()) {
            if (member.awaitingJoin == null) {
                return false;
            }
        }
        return pendingMembers.isEmpty();
    }

    int maxRebalanceTimeoutMs() {
        int max = 0;
        for (Member member : members.values()) {
            max = Math.max(max, member.rebalanceTimeoutMs());
        }
        return max;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Protocols

    /** The protocols every member supports. */
    Set<String> candidateProtocols() {
        Set<String> candidates = null;
        for (Member member : members.values()) {
            if (candidates == null) {
                candidates = new HashSet<>(member.protocols().keySet());
            } else {
                candidates.retainAll(member.protocols().keySet());
            }
        }
        return candidates == null ? Set.of() : candidates;
    }

    /**
     * Whether a member offering {@code offered} of {@code type} may join: an empty group takes any non-empty offer;
     * otherwise the type must match and at least one protocol must be one every current member supports.
     */
    boolean supportsProtocols(String type, Set<String> offered) {
        if (type == null || type.isEmpty() || offered.isEmpty()) {
            return false;
        }
        if (members.isEmpty()) {
            return true;
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        for (String protocol : offered) {
            if (candidateProtocols().contains(protocol)) {
                return true;
            }
        }
        return false;
    }

    /** The protocol the members vote for: each votes for its most preferred candidate; the most votes win. */
    String selectProtocol() {
        Set<String> candidates = candidateProtocols();
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (Member member : members.values()) {
            votes.merge(member.vote(candidates), 1, Integer::sum);
        }
        String best = null;
        int bestVotes = -1;
        for (Map.Entry<String, Integer> vote : votes.entrySet()) {
            if (vote.getValue() > bestVotes) {
                best = vote.getKey();
                bestVotes = vote.getValue();
            }
        }
        return best;
    }

    /**
     * Starts the next generation: with members, the protocol is chosen and the group waits for the leader's
     * assignment; without members it is empty.
     */
    void initNextGeneration(long nowMs) {
        generationId++;
        if (members.isEmpty()) {
            protocolName = null;
            transitionTo(GroupState.EMPTY, nowMs);
        } else {
            protocolName = selectProtocol();
            transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
        }
    }

    /**
     * The topics the members subscribe to, when this is a consumer group whose subscriptions can be read; empty
     * when that is not known (another protocol type, or an unreadable subscription).
     */
    Optional<Set<String>> subscribedTopics() {
        if (members.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (!ConsumerProtocol.PROTOCOL_TYPE.equals(protocolType) || protocolName == null) {
            return Optional.empty();
        }
        Set<String> topics = new HashSet<>();
        for (Member member : members.values()) {
            try {
                topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(member.metadata(protocolName)))
                        .topics());
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.of(topics);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets

    Map<TopicPartition, CommittedOffset> offsets() {
        return offsets;
    }

    /** Commits an offset whose record was appended, unless a commit written later in the log is already held. */
    void commitOffset(TopicPartition tp, CommittedOffset offset) {
        if (offset.isNewerThan(offsets.get(tp))) {
            offsets.put(tp, offset);
        }
    }

    /** A tombstone of {@code tp} was appended: its committed offset and the pending ones of open transactions go. */
    void removeOffset(TopicPartition tp) {
        offsets.remove(tp);
        pendingTxnOffsets.remove(tp);
    }

    PendingTxnOffsets pendingTxnOffsets() {
        return pendingTxnOffsets;
    }

    @Override
    public String toString() {
        return "Group(" + groupId + ", " + state.wireName() + ", generation " + generationId + ", " + members.size()
                + " members)";
    }
}
