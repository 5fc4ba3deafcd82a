package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;

/**
 * What the coordinator serves: the partitions of {@code __consumer_offsets} it leads (each with a load token and
 * whether its groups are loaded yet), the groups of those partitions by id, and whether the coordinator is closed.
 * Holds no I/O and decides nothing beyond "does this coordinator serve that group now".
 *
 * <p>A group belongs to partition {@code abs(groupId.hashCode()) % partitions} of {@code __consumer_offsets}, as in
 * Kafka.
 *
 * <p>Threads: both maps are concurrent and read from request-handler threads and the coordinator's scheduler
 * thread. Ownership entries are written by {@link GroupCoordinator#onLeadershipChange} (claim, release) and by
 * {@link GroupLoader} on the scheduler thread (marking a partition loaded, if its token is still current, after
 * applying the transactions that ended while it loaded, which {@link #deferIfLoading} kept). Groups
 * are added by JoinGroup and OffsetCommit ({@link #getOrCreate}), installed by the loader, and removed by
 * resignation, deletion and expiry; a {@link Group}'s own state is guarded by its monitor. Share groups are held in
 * a map of their own: created by a joining ShareGroupHeartbeat ({@link #getOrCreateShareGroup}), installed by the
 * loader, removed by resignation and deletion; a {@link ShareGroup} is guarded by its monitor too.
 */
final class GroupRegistry {

    /** What a partition of {@code __consumer_offsets} is to this coordinator while it leads it. */
    private record Ownership(long token, boolean loaded) {
    }

    /** A transaction of {@code producerId} that ended with {@code result} while its partition was loading. */
    record TxnCompletion(long producerId, TransactionResult result) {
    }

    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    /** Share groups (KIP-932) by id; an id is a classic group's or a share group's, never both. */
    private final Map<String, ShareGroup> shareGroups = new ConcurrentHashMap<>();
    private final Map<Integer, Ownership> owned = new ConcurrentHashMap<>();
    private final AtomicLong loadTokens = new AtomicLong();
    /**
     * Per partition still loading: the transactions that ended meanwhile, for its load to apply before it marks the
     * partition loaded. Guarded by this registry's monitor, as are the loaded flag's changes that must see it.
     */
    private final Map<Integer, List<TxnCompletion>> deferredCompletions = new HashMap<>();
    /** Written by {@link GroupCoordinator#onLeadershipChange}; fixed once the topic exists. */
    private volatile int offsetsPartitionCount;
    private volatile boolean closed;

    GroupRegistry(int offsetsPartitionCount) {
        this.offsetsPartitionCount = offsetsPartitionCount;
    }

    /** The {@code __consumer_offsets} partition that holds a group. */
    int partitionFor(String groupId) {
        return Utils.abs(groupId.hashCode()) % offsetsPartitionCount;
    }

    void offsetsPartitionCount(int partitionCount) {
        offsetsPartitionCount = partitionCount;
    }

    boolean isClosed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    /** Validates a group id and this coordinator's ownership: NONE, or the error to answer. */
    Errors checkGroup(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        return coordinatorError(groupId);
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

    // Ownership of __consumer_offsets partitions

    /** The partitions this coordinator leads, loaded or not, as a copy. */
    List<Integer> ownedPartitions() {
        return List.copyOf(owned.keySet());
    }

    boolean owns(int partition) {
        return owned.containsKey(partition);
    }

    /** Starts leading a partition, not loaded yet; returns the token its load must still hold to install. */
    synchronized long claim(int partition) {
        long token = loadTokens.incrementAndGet();
        owned.put(partition, new Ownership(token, false));
        deferredCompletions.remove(partition);
        return token;
    }

    synchronized void release(int partition) {
        owned.remove(partition);
        deferredCompletions.remove(partition);
    }

    /** Whether the load that holds {@code token} is still the one for this partition. */
    boolean isCurrent(int partition, long token) {
        Ownership ownership = owned.get(partition);
        return ownership != null && ownership.token() == token;
    }

    /**
     * Keeps the end of a transaction for the load of {@code partition} to apply, if that partition is loading now;
     * returns false if it is loaded (or not led), where the caller applies it to the groups held.
     */
    synchronized boolean deferIfLoading(int partition, TxnCompletion completion) {
        Ownership ownership = owned.get(partition);
        if (ownership == null || ownership.loaded()) {
            return false;
        }
        deferredCompletions.computeIfAbsent(partition, p -> new ArrayList<>()).add(completion);
        return true;
    }

    /**
     * Marks the partition loaded if {@code token} is still its current load and no transaction ended meanwhile;
     * otherwise hands over (and forgets) the transactions that ended, for the load to apply before it asks again.
     */
    synchronized List<TxnCompletion> markLoadedOrTakeCompletions(int partition, long token) {
        List<TxnCompletion> deferred = deferredCompletions.remove(partition);
        if (deferred != null) {
            return deferred;
        }
        owned.computeIfPresent(partition, (p, ownership) -> ownership.token() == token
                ? new Ownership(token, true) : ownership);
        return List.of();
    }

    /** Whether this coordinator leads the partition and has loaded it. */
    boolean isLoaded(int partition) {
        Ownership ownership = owned.get(partition);
        return ownership != null && ownership.loaded();
    }

    /** Whether some led partition is still loading. */
    boolean anyLoading() {
        for (Ownership ownership : owned.values()) {
            if (!ownership.loaded()) {
                return true;
            }
        }
        return false;
    }

    // Groups

    Group get(String groupId) {
        return groups.get(groupId);
    }

    /** The group, created empty in its partition when this coordinator does not hold it yet. */
    Group getOrCreate(String groupId, Time time) {
        return groups.computeIfAbsent(groupId, id -> new Group(id, partitionFor(id), time.milliseconds()));
    }

    void put(Group group) {
        groups.put(group.groupId(), group);
    }

    /** Removes the group if it is still the one held under its id. */
    void remove(Group group) {
        groups.remove(group.groupId(), group);
    }

    /** The live view of the held groups, for a weakly consistent iteration. */
    Collection<Group> groups() {
        return groups.values();
    }

    /** The held groups, as a copy. */
    List<Group> snapshot() {
        return List.copyOf(groups.values());
    }

    // Share groups

    ShareGroup shareGroup(String groupId) {
        return shareGroups.get(groupId);
    }

    /** Whether a share group holds the id (a classic group may not take it). */
    boolean hasShareGroup(String groupId) {
        return shareGroups.containsKey(groupId);
    }

    /** Whether a classic group that is not dead holds the id (a share group may not take it). */
    boolean hasClassicGroup(String groupId) {
        Group group = groups.get(groupId);
        return group != null && !group.is(GroupState.DEAD);
    }

    /**
     * The share group, created empty at epoch 0 when this coordinator does not hold it yet; null if a classic group
     * holds the id. Synchronized so that two joins create one group; a classic group created at the same moment
     * (JoinGroup, OffsetCommit check {@link #hasShareGroup} without this lock) could still share the id until one
     * of them is deleted, a race of two clients misusing one id that Kafka's single-threaded shard does not have.
     */
    synchronized ShareGroup getOrCreateShareGroup(String groupId) {
        ShareGroup existing = shareGroups.get(groupId);
        if (existing != null) {
            return existing;
        }
        if (hasClassicGroup(groupId)) {
            return null;
        }
        ShareGroup created = new ShareGroup(groupId, partitionFor(groupId), 0);
        shareGroups.put(groupId, created);
        return created;
    }

    void putShareGroup(ShareGroup group) {
        shareGroups.put(group.groupId(), group);
    }

    /** Removes the share group if it is still the one held under its id. */
    void removeShareGroup(ShareGroup group) {
        shareGroups.remove(group.groupId(), group);
    }

    /** The held share groups, as a copy. */
    List<ShareGroup> shareGroupSnapshot() {
        return List.copyOf(shareGroups.values());
    }

    /** Forgets every group and partition; after {@link #markClosed()}. */
    synchronized void clear() {
        groups.clear();
        shareGroups.clear();
        owned.clear();
        deferredCompletions.clear();
    }
}
