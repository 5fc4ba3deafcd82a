package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.tributary.broker.group.ShareGroupContext.TopicShape;
import org.apache.kafka.common.Uuid;

/**
 * One share group (KIP-932) as its coordinator holds it: the group epoch (bumped by every change of membership,
 * subscriptions or subscribed topics' partitions), the epoch of the target assignment, the members, and the target
 * assignment the {@link ShareAssignor} computed at that epoch. Share groups need no revocation, so the target
 * assignment is computed at the new group epoch at once (the assignment epoch equals the group epoch), and each
 * member takes it at its next heartbeat.
 *
 * <p>State: {@link GroupState#EMPTY} without members, {@link GroupState#STABLE} with, {@link GroupState#DEAD} once
 * deleted or dropped by the coordinator. Only the group id and epoch (the share group metadata record in
 * {@code __consumer_offsets}) and the partitions that may have share state (the share group state partition metadata
 * record) are durable; members rejoin a new coordinator.
 *
 * <p>Not thread-safe: the coordinator holds this object's monitor around every read and change.
 */
final class ShareGroup {

    private final String groupId;
    private final int offsetsPartition;
    private int groupEpoch;
    private int assignmentEpoch;
    private boolean dead;
    private final Map<String, ShareMember> members = new LinkedHashMap<>();
    /** The subscribed topics that existed at the last computation, by name. */
    private Map<String, TopicShape> subscribedTopics = Map.of();
    private SortedMap<String, SortedMap<Uuid, SortedSet<Integer>>> targetAssignment = new TreeMap<>();
    /**
     * The partitions that may have share state (Kafka's initialized partitions), by topic id: every partition of a
     * topic the group has been assigned, and those an administrator altered; a topic leaves it when its offsets are
     * deleted. The offset admin APIs read and delete the states of these.
     */
    private final SortedMap<Uuid, StateTopic> stateTopics = new TreeMap<>();
    /** Whether {@link #stateTopics} changed since they were last given to be stored. */
    private boolean stateTopicsUnstored;

    ShareGroup(String groupId, int offsetsPartition, int groupEpoch) {
        this.groupId = groupId;
        this.offsetsPartition = offsetsPartition;
        this.groupEpoch = groupEpoch;
        this.assignmentEpoch = groupEpoch;
    }

    String groupId() {
        return groupId;
    }

    int offsetsPartition() {
        return offsetsPartition;
    }

    int groupEpoch() {
        return groupEpoch;
    }

    int assignmentEpoch() {
        return assignmentEpoch;
    }

    GroupState state() {
        if (dead) {
            return GroupState.DEAD;
        }
        return members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
    }

    boolean isDead() {
        return dead;
    }

    void markDead() {
        dead = true;
    }

    Collection<ShareMember> members() {
        return members.values();
    }

    ShareMember member(String memberId) {
        return members.get(memberId);
    }

    int size() {
        return members.size();
    }

    void add(ShareMember member) {
        members.put(member.memberId(), member);
    }

    ShareMember remove(String memberId) {
        return members.remove(memberId);
    }

    Map<String, TopicShape> subscribedTopics() {
        return subscribedTopics;
    }

    /** The union of the members' subscriptions, sorted. */
    Set<String> subscribedTopicNames() {
        Set<String> names = new TreeSet<>();
        for (ShareMember member : members.values()) {
            names.addAll(member.subscribedTopicNames);
        }
        return names;
    }

    /** A member's part of the target assignment (empty if none). */
    Map<Uuid, ? extends Set<Integer>> targetAssignment(String memberId) {
        return targetAssignment.getOrDefault(memberId, new TreeMap<>());
    }

    /** A topic's partitions that may have share state; the name is the topic's when they were recorded. */
    record StateTopic(String name, SortedSet<Integer> partitions) {

        StateTopic {
            partitions = Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        }
    }

    Map<Uuid, StateTopic> stateTopics() {
        return Collections.unmodifiableMap(stateTopics);
    }

    /** Records partitions that may have share state; returns whether the set changed. */
    boolean addStatePartitions(Uuid topicId, String name, Collection<Integer> partitions) {
        StateTopic current = stateTopics.get(topicId);
        SortedSet<Integer> merged = new TreeSet<>(partitions);
        if (current != null) {
            merged.addAll(current.partitions());
            if (merged.equals(current.partitions()) && current.name().equals(name)) {
                return false;
            }
        }
        stateTopics.put(topicId, new StateTopic(name, merged));
        stateTopicsUnstored = true;
        return true;
    }

    /** Forgets the topics' share state; returns whether the set changed. */
    boolean removeStateTopics(Collection<Uuid> topicIds) {
        boolean changed = stateTopics.keySet().removeAll(topicIds);
        stateTopicsUnstored |= changed;
        return changed;
    }

    /** The state topics as loaded from {@code __consumer_offsets} (stored already). */
    void restoreStateTopics(Map<Uuid, StateTopic> stored) {
        stateTopics.clear();
        stateTopics.putAll(stored);
        stateTopicsUnstored = false;
    }

    /** Whether the state topics changed since {@link #stateTopicsStoring()} last took them. */
    boolean stateTopicsUnstored() {
        return stateTopicsUnstored;
    }

    /** The state topics, to be stored now: they count as stored unless {@link #stateTopicsNotStored()} follows. */
    Map<Uuid, StateTopic> stateTopicsStoring() {
        stateTopicsUnstored = false;
        return Map.copyOf(stateTopics);
    }

    /** Storing the state topics failed: the next store writes them again. */
    void stateTopicsNotStored() {
        stateTopicsUnstored = true;
    }

    /**
     * Bumps the group epoch and computes the target assignment at it, for the members and topics as they are now.
     * The subscribed topics' partitions join the {@link #stateTopics()}.
     */
    void bumpEpochAndAssign(Map<String, TopicShape> topics) {
        groupEpoch++;
        subscribedTopics = Map.copyOf(topics);
        topics.forEach((name, shape) -> {
            List<Integer> all = new ArrayList<>(shape.partitionCount());
            for (int partition = 0; partition < shape.partitionCount(); partition++) {
                all.add(partition);
            }
            addStatePartitions(shape.topicId(), name, all);
        });
        Map<String, Set<String>> subscriptions = new LinkedHashMap<>();
        Map<String, Map<Uuid, Set<Integer>>> previous = new LinkedHashMap<>();
        for (ShareMember member : members.values()) {
            subscriptions.put(member.memberId(), member.subscribedTopicNames);
            previous.put(member.memberId(), member.assignment);
        }
        targetAssignment = ShareAssignor.assign(subscriptions, subscribedTopics, previous);
        assignmentEpoch = groupEpoch;
    }

    @Override
    public String toString() {
        return "ShareGroup(" + groupId + ", " + state().wireName() + ", epoch " + groupEpoch + ", " + members.size()
                + " members)";
    }
}
