package io.tributary.broker.replication;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.LeaderAndIsr;
import io.tributary.broker.storage.AppendOrigin;
import io.tributary.broker.storage.LeaderEpochCache;
import io.tributary.broker.storage.LogAppendInfo;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetNotAvailableException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition hosted by this broker: its log, its role (leader, follower or none) as the controller last assigned
 * it, and, as leader, what it knows of its followers ({@link FollowerProgress}).
 *
 * <p><b>Roles.</b> The controller's state names a leader and an ISR. This broker leads only if the state names it
 * and it is a current member of the ISR ({@link State#isCurrentMember}): a broker that restarted does not take up a
 * leadership from its previous run; the controller elects again. It follows when another broker leads and it is a
 * replica. Without a broker epoch (not registered, or the registration was lost) it has no role at all.
 *
 * <p><b>Leader.</b> Follower fetches report each follower's log end offset (LEO). The high watermark (HW) is the
 * smallest LEO among the <em>maximal</em> ISR: the committed ISR, plus a member being added or minus none being
 * removed while that change is being written to ZooKeeper, so that the HW never counts on a replica that the
 * controller may not consider in sync. Produce requests with {@code acks=all} wait here until the HW passes their
 * last offset. A follower that has not caught up with the leader's LEO for {@code replica.lag.time.max.ms} is
 * proposed for removal from the ISR; one that reaches the HW (and the start of the current leader epoch) for
 * addition. Proposals go to the {@link IsrChangeWriter}, one at a time; the ISR changes here only once the
 * conditional write succeeded.
 *
 * <p><b>Follower.</b> The {@link ReplicaFetcher} appends the leader's batches, truncates a divergent suffix and
 * moves the HW to min(leader's HW, own LEO); every such call names the leader epoch it fetched under, and is ignored
 * if the role changed meanwhile.
 *
 * <p>Threads: appends, role changes, follower-state updates and ISR changes are serialised on this object's monitor
 * (lock order: a caller's own locks, e.g. a group's, then this monitor, then the log's); role fields are volatile
 * for lock-free reads. Waiters ({@code acks=all}) are completed outside the monitor, and so is the new-data callback.
 */
public final class Partition {

    private static final Logger logger = LoggerFactory.getLogger(Partition.class);
    /** Kafka's {@code state.change.logger}: one line per leadership and ISR change (config/logback.xml's file). */
    static final Logger STATE_CHANGE = LoggerFactory.getLogger("state.change.logger");

    /**
     * The controller's state of the partition (or the state this leader wrote itself), replaced as a whole.
     *
     * @param zkVersion the version of the state znode this state was read from or written as
     * @param stateZxid the zxid of that write, for {@link LeaderAndIsr#isCurrentMember}
     */
    public record State(int leaderId, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                        Map<Integer, Long> isrEpochs, int zkVersion, long stateZxid, int controllerEpoch) {

        public State {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            isrEpochs = Map.copyOf(isrEpochs);
        }

        /** A state as a test writes it: every member current for any broker epoch. */
        public State(int leaderId, int leaderEpoch, List<Integer> replicas, Set<Integer> isr) {
            this(leaderId, leaderEpoch, replicas, List.copyOf(new LinkedHashSet<>(isr)), Map.of(), 0, Long.MAX_VALUE,
                    0);
        }

        LeaderAndIsr leaderAndIsr() {
            return new LeaderAndIsr(leaderId, leaderEpoch, isr, controllerEpoch, isrEpochs);
        }

        boolean isCurrentMember(int broker, long brokerEpoch) {
            return leaderAndIsr().isCurrentMember(broker, brokerEpoch, stateZxid);
        }

        State withIsrWritten(LeaderAndIsr written, int newZkVersion, long newZxid) {
            return new State(leaderId, leaderEpoch, replicas, written.isr(), written.isrEpochs(), newZkVersion,
                    newZxid, written.controllerEpoch());
        }
    }

    /** This broker's role in the partition. */
    public enum Role { LEADER, FOLLOWER, NONE }

    private record PendingAck(long requiredOffset, CompletableFuture<Void> done) {
    }

    private final TopicPartition topicPartition;
    private final int localBrokerId;
    private final PartitionLog log;
    private final ReplicaRegistry registry;
    private final IsrChangeWriter isrWriter;
    private final Runnable onNewData;
    private final IsrSizeListener isrSizeListener;
    private volatile Uuid topicId;
    /** The latest state; written under the monitor. */
    private volatile State state;
    private volatile Role role = Role.NONE;
    /** The leader epoch the role was taken at. */
    private volatile int roleEpoch = -1;

    // Leader-only, guarded by this.
    private final Map<Integer, FollowerProgress> remotes = new HashMap<>();
    private final List<PendingAck> pendingAcks = new ArrayList<>();
    /** The ISR the HW is computed over: the committed ISR, and during a pending change the union with its outcome. */
    private List<Integer> maximalIsr = List.of();
    /** The ISR change being written to ZooKeeper, or null. */
    private LeaderAndIsr pendingIsr;
    /** The log end offset when this broker became leader in {@link #roleEpoch}. */
    private long leaderEpochStartOffset = -1L;

    /** Told of every change of the committed ISR's size while leading (for the ISR shrink and expand meters). */
    @FunctionalInterface
    interface IsrSizeListener {
        void changed(int before, int after);
    }

    Partition(TopicPartition topicPartition, Uuid topicId, int localBrokerId, PartitionLog log, State state,
              ReplicaRegistry registry, IsrChangeWriter isrWriter, Runnable onNewData) {
        this(topicPartition, topicId, localBrokerId, log, state, registry, isrWriter, onNewData, (before, after) -> { });
    }

    Partition(TopicPartition topicPartition, Uuid topicId, int localBrokerId, PartitionLog log, State state,
              ReplicaRegistry registry, IsrChangeWriter isrWriter, Runnable onNewData,
              IsrSizeListener isrSizeListener) {
        this.isrSizeListener = isrSizeListener;
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.localBrokerId = localBrokerId;
        this.log = log;
        this.state = state;
        this.registry = registry;
        this.isrWriter = isrWriter;
        this.onNewData = onNewData;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Uuid topicId() {
        return topicId;
    }

    public PartitionLog log() {
        return log;
    }

    public State state() {
        return state;
    }

    public Role role() {
        return role;
    }

    public boolean isLeader() {
        return role == Role.LEADER;
    }

    /** The leader epoch of the current role (-1 with none). */
    public int roleEpoch() {
        return roleEpoch;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Roles

    /** What {@link #applyState} changed. */
    record RoleChange(Role before, Role after, int leaderEpoch, boolean newTerm) {
        boolean changed() {
            return before != after || newTerm;
        }
    }

    /**
     * Takes a state from the controller (or re-evaluates the current one after the broker epoch changed). A state
     * older than the one held (a smaller znode version) is ignored.
     */
    RoleChange applyState(Uuid newTopicId, State newState, long brokerEpoch, long nowMs) {
        List<PendingAck> completed = List.of();
        List<PendingAck> failed = List.of();
        RoleChange change;
        synchronized (this) {
            this.topicId = newTopicId;
            State current = state;
            if (newState.zkVersion() >= current.zkVersion()) {
                current = newState;
                state = newState;
            }
            Role before = role;
            int beforeEpoch = roleEpoch;
            Role after = decideRole(current, brokerEpoch);
            boolean newTerm = after != Role.NONE && current.leaderEpoch() != beforeEpoch;
            if (after == Role.LEADER && (before != Role.LEADER || newTerm)) {
                becomeLeader(current, nowMs);
            } else if (after == Role.LEADER) {
                // The same term: the controller (or a write of ours) changed the ISR, or a reassignment the replicas.
                maximalIsr = pendingIsr == null ? current.isr() : union(current.isr(), pendingIsr.isr());
                remotes.keySet().retainAll(current.replicas());
                for (int replica : current.replicas()) {
                    if (replica != localBrokerId) {
                        remotes.computeIfAbsent(replica, id -> new FollowerProgress());
                    }
                }
            }
            if (after != Role.LEADER && before == Role.LEADER) {
                failed = leaveLeadership();
            }
            role = after;
            roleEpoch = after == Role.NONE ? -1 : current.leaderEpoch();
            if (after == Role.LEADER) {
                completed = maybeAdvanceHighWatermark();
            }
            change = new RoleChange(before, after, current.leaderEpoch(), newTerm);
        }
        fail(failed, new NotLeaderOrFollowerException("Broker " + localBrokerId + " no longer leads "
                + topicPartition + " (leader now " + state.leaderId() + ", leader epoch " + state.leaderEpoch() + ")"));
        complete(completed);
        return change;
    }

    private Role decideRole(State current, long brokerEpoch) {
        if (brokerEpoch < 0 || !current.replicas().contains(localBrokerId)) {
            return Role.NONE;
        }
        if (current.leaderId() == localBrokerId) {
            return current.isCurrentMember(localBrokerId, brokerEpoch) ? Role.LEADER : Role.NONE;
        }
        return current.leaderId() >= 0 ? Role.FOLLOWER : Role.NONE;
    }

    /** Caller holds the monitor. */
    private void becomeLeader(State current, long nowMs) {
        log.assignEpochStartOffset(current.leaderEpoch());
        leaderEpochStartOffset = log.logEndOffset();
        remotes.clear();
        for (int replica : current.replicas()) {
            if (replica != localBrokerId) {
                FollowerProgress remote = new FollowerProgress();
                // Members of the ISR get a full lag period to fetch from the new leader before they count as behind.
                remote.lastCaughtUpMs = current.isr().contains(replica) ? nowMs : 0L;
                remotes.put(replica, remote);
            }
        }
        maximalIsr = current.isr();
        pendingIsr = null;
        logger.info("Broker {} leads {} from leader epoch {} at offset {} (ISR {}, "
                        + "high watermark {})", localBrokerId, topicPartition, current.leaderEpoch(),
                leaderEpochStartOffset, current.isr(), log.highWatermark());
    }

    /** Caller holds the monitor; returns the waiters to fail outside it. */
    private List<PendingAck> leaveLeadership() {
        List<PendingAck> failed = new ArrayList<>(pendingAcks);
        pendingAcks.clear();
        remotes.clear();
        maximalIsr = List.of();
        pendingIsr = null;
        leaderEpochStartOffset = -1L;
        return failed;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: appends and acks

    /**
     * Appends a client's batches as leader. {@code acks=-1} needs at least the log's {@code min.insync.replicas} (the
     * topic's setting, or the broker default) in the ISR.
     *
     * @throws NotLeaderOrFollowerException if this broker does not lead the partition
     * @throws NotEnoughReplicasException   if the ISR is too small for acks=all
     */
    LogAppendInfo appendAsLeader(MemoryRecords records, short acks) {
        return appendAsLeader(records, acks, AppendOrigin.CLIENT);
    }

    /** {@link #appendAsLeader(MemoryRecords, short)} on behalf of {@code origin} ({@link AppendOrigin}). */
    LogAppendInfo appendAsLeader(MemoryRecords records, short acks, AppendOrigin origin) {
        int minInsyncReplicas = log.config().minInsyncReplicas;
        LogAppendInfo info;
        List<PendingAck> completed;
        synchronized (this) {
            checkLeader();
            State current = state;
            if (acks == -1 && current.isr().size() < minInsyncReplicas) {
                throw new NotEnoughReplicasException("The ISR of " + topicPartition + " is " + current.isr()
                        + ", fewer than min.insync.replicas=" + minInsyncReplicas);
            }
            info = log.appendAsLeader(records, roleEpoch, origin);
            completed = maybeAdvanceHighWatermark();
        }
        complete(completed);
        onNewData.run();
        return info;
    }

    /**
     * Completes when the high watermark reaches {@code offset} (acks=all), or fails with
     * NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR is smaller than {@code min.insync.replicas} by then, or with
     * NOT_LEADER_OR_FOLLOWER if the leadership moves first. The caller bounds it with a timeout.
     */
    CompletableFuture<Void> awaitHighWatermark(long offset) {
        List<PendingAck> completed;
        PendingAck pending = new PendingAck(offset, new CompletableFuture<>());
        synchronized (this) {
            if (role != Role.LEADER) {
                return CompletableFuture.failedFuture(new NotLeaderOrFollowerException("Broker " + localBrokerId
                        + " no longer leads " + topicPartition));
            }
            pendingAcks.add(pending);
            completed = maybeAdvanceHighWatermark();
        }
        complete(completed);
        return pending.done();
    }

    /**
     * Moves the high watermark to the smallest log end offset in the maximal ISR, never back. Caller holds the
     * monitor; returns the acks=all waiters to complete outside it.
     */
    private List<PendingAck> maybeAdvanceHighWatermark() {
        long newHw = log.logEndOffset();
        for (int member : maximalIsr) {
            if (member == localBrokerId) {
                continue;
            }
            FollowerProgress remote = remotes.get(member);
            long leo = remote == null ? -1L : remote.logEndOffset;
            newHw = Math.min(newHw, leo);
        }
        boolean advanced = false;
        if (newHw > log.highWatermark()) {
            log.updateHighWatermark(newHw);
            advanced = true;
        }
        if (pendingAcks.isEmpty()) {
            if (advanced) {
                // Consumers' long polls wait for the HW, not the LEO.
                return List.of(NEW_DATA);
            }
            return List.of();
        }
        long hw = log.highWatermark();
        List<PendingAck> done = new ArrayList<>();
        for (Iterator<PendingAck> it = pendingAcks.iterator(); it.hasNext(); ) {
            PendingAck pending = it.next();
            if (pending.requiredOffset() <= hw) {
                done.add(pending);
                it.remove();
            }
        }
        if (advanced) {
            done.add(NEW_DATA);
        }
        return done;
    }

    /** A marker in a completion list: run the new-data callback (wakes long-poll fetches). */
    private static final PendingAck NEW_DATA = new PendingAck(-1L, null);

    private void complete(List<PendingAck> completed) {
        if (completed.isEmpty()) {
            return;
        }
        int minInsync = log.config().minInsyncReplicas;
        int isrSize = state.isr().size();
        boolean newData = false;
        for (PendingAck pending : completed) {
            if (pending == NEW_DATA) {
                newData = true;
            } else if (isrSize < minInsync) {
                pending.done().completeExceptionally(new NotEnoughReplicasAfterAppendException("The ISR of "
                        + topicPartition + " shrank to " + state.isr() + ", fewer than min.insync.replicas="
                        + minInsync + ", after the records were appended"));
            } else {
                pending.done().complete(null);
            }
        }
        if (newData) {
            onNewData.run();
        }
    }

    private static void fail(List<PendingAck> failed, RuntimeException cause) {
        for (PendingAck pending : failed) {
            if (pending != NEW_DATA) {
                pending.done().completeExceptionally(cause);
            }
        }
    }

    /** Fails every waiting acks=all produce, e.g. when the partition is removed. */
    void failPending(RuntimeException cause) {
        List<PendingAck> failed;
        synchronized (this) {
            failed = new ArrayList<>(pendingAcks);
            pendingAcks.clear();
        }
        fail(failed, cause);
    }

    private void checkLeader() {
        if (role != Role.LEADER) {
            State current = state;
            throw new NotLeaderOrFollowerException("Broker " + localBrokerId + " is not the leader of "
                    + topicPartition + " (leader: " + current.leaderId() + ", leader epoch " + current.leaderEpoch()
                    + ")");
        }
    }

    /**
     * Checks a request's view of the leader epoch: -1 skips the check; an older epoch is fenced, a newer one is
     * unknown to this broker yet.
     */
    void checkLeaderEpoch(int requestEpoch) {
        if (requestEpoch < 0) {
            return;
        }
        int current = state.leaderEpoch();
        if (requestEpoch < current) {
            throw new FencedLeaderEpochException("Leader epoch " + requestEpoch + " of the request for "
                    + topicPartition + " is older than the current " + current);
        }
        if (requestEpoch > current) {
            throw new UnknownLeaderEpochException("Leader epoch " + requestEpoch + " of the request for "
                    + topicPartition + " is newer than the current " + current);
        }
    }

    /**
     * The high watermark a consumer may be told of: a new leader's HW may still be below what the previous leader
     * had committed until its followers have fetched, so until it reaches the start of this leader's epoch it is not
     * revealed (OFFSET_NOT_AVAILABLE, which clients retry), and the HW consumers see never goes back.
     *
     * @throws OffsetNotAvailableException while the HW is below the start of the current leader epoch
     */
    long establishedHighWatermark() {
        long hw = log.highWatermark();
        long epochStart;
        synchronized (this) {
            checkLeader();
            epochStart = leaderEpochStartOffset;
        }
        if (hw < epochStart) {
            throw new OffsetNotAvailableException("The high watermark of " + topicPartition + " (" + hw
                    + ") has not reached the start of leader epoch " + roleEpoch + " (" + epochStart + ") yet");
        }
        return hw;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: followers

    /**
     * A follower's fetch arrived: checks that it fetches from this leader's term and has not diverged, and records
     * its position.
     *
     * @param replicaId        the follower
     * @param replicaEpoch     its broker epoch (-1 when the request is older than Fetch v15)
     * @param fetchOffset      its log end offset
     * @param lastFetchedEpoch the epoch of its last batch (-1: none or unknown)
     * @return the epoch and end offset at which its log diverges from this one, if it does; nothing is recorded then
     */
    Optional<LeaderEpochCache.EpochEndOffset> onFollowerFetch(int replicaId, long replicaEpoch, long fetchOffset,
                                                              int lastFetchedEpoch, long nowMs) {
        List<PendingAck> completed;
        synchronized (this) {
            checkLeader();
            FollowerProgress remote = remotes.get(replicaId);
            if (remote == null) {
                throw new NotLeaderOrFollowerException("Broker " + replicaId + " is not a replica of "
                        + topicPartition + " (replicas " + state.replicas() + ")");
            }
            if (lastFetchedEpoch >= 0) {
                LeaderEpochCache.EpochEndOffset end = log.leaderEpochCache().endOffsetFor(lastFetchedEpoch,
                        log.logEndOffset());
                if (end.epoch() < 0) {
                    // The follower has an epoch newer than any of this log's: whatever it wrote in it diverges, and
                    // this log's latest epoch runs up to its end.
                    end = new LeaderEpochCache.EpochEndOffset(
                            log.leaderEpochCache().latestEpoch().orElse(roleEpoch), log.logEndOffset());
                }
                if (end.epoch() < lastFetchedEpoch || end.endOffset() < fetchOffset) {
                    return Optional.of(end);
                }
            }
            remote.onFetch(replicaEpoch, fetchOffset, log.logEndOffset(), nowMs);
            maybeExpandIsr(replicaId, remote);
            completed = maybeAdvanceHighWatermark();
        }
        complete(completed);
        return Optional.empty();
    }

    /** Proposes adding a caught-up follower to the ISR. Caller holds the monitor. */
    private void maybeExpandIsr(int replicaId, FollowerProgress remote) {
        if (pendingIsr != null || maximalIsr.contains(replicaId)) {
            return;
        }
        if (remote.logEndOffset < log.highWatermark() || remote.logEndOffset < leaderEpochStartOffset) {
            return;
        }
        long registered = registry.brokerEpoch(replicaId);
        if (!registry.isEligible(replicaId) || registered < 0 || remote.brokerEpoch != registered) {
            // Not live, shutting down, or its fetches come from another run than the registered one.
            return;
        }
        List<Integer> newIsr = new ArrayList<>(state.isr());
        newIsr.add(replicaId);
        propose(state.leaderAndIsr().withIsr(newIsr, Map.of(replicaId, registered), state.controllerEpoch()),
                "caught up with offset " + remote.logEndOffset);
    }

    /**
     * Proposes removing the followers that have not caught up for {@code lagMaxMs} (or that are no longer live) from
     * the ISR; the ISR keeps at least the leader.
     */
    void maybeShrinkIsr(long nowMs, long lagMaxMs) {
        synchronized (this) {
            if (role != Role.LEADER || pendingIsr != null) {
                return;
            }
            List<Integer> outOfSync = new ArrayList<>();
            for (int member : state.isr()) {
                if (member == localBrokerId) {
                    continue;
                }
                FollowerProgress remote = remotes.get(member);
                if (remote == null || remote.laggingLongerThan(nowMs, lagMaxMs)) {
                    outOfSync.add(member);
                }
            }
            if (outOfSync.isEmpty()) {
                return;
            }
            List<Integer> newIsr = new ArrayList<>(state.isr());
            newIsr.removeAll(outOfSync);
            propose(state.leaderAndIsr().withIsr(newIsr, state.controllerEpoch()),
                    "not caught up for " + lagMaxMs + " ms: " + outOfSync);
        }
    }

    /** Caller holds the monitor. */
    private void propose(LeaderAndIsr proposed, String reason) {
        pendingIsr = proposed;
        maximalIsr = union(state.isr(), proposed.isr());
        logger.info("{}: proposing ISR {} -> {} at leader epoch {} ({})", topicPartition, state.isr(), proposed.isr(),
                proposed.leaderEpoch(), reason);
        isrWriter.submit(this, proposed, state.zkVersion());
    }

    /** The {@link IsrChangeWriter} wrote {@code written} as znode version {@code zkVersion}. */
    void onIsrChangeCommitted(LeaderAndIsr written, int zkVersion, long zxid) {
        List<PendingAck> completed = List.of();
        synchronized (this) {
            if (pendingIsr == null || !pendingIsr.equals(written)) {
                return;
            }
            pendingIsr = null;
            if (role == Role.LEADER && roleEpoch == written.leaderEpoch() && zkVersion > state.zkVersion()) {
                int before = state.isr().size();
                state = state.withIsrWritten(written, zkVersion, zxid);
                isrSizeListener.changed(before, written.isr().size());
                STATE_CHANGE.info("[Broker id={}] {}: ISR changed to {} at leader epoch {} (znode version {})",
                        localBrokerId, topicPartition, written.isr(), written.leaderEpoch(), zkVersion);
                logger.info("{}: ISR is now {} (leader epoch {}, znode version {})", topicPartition, written.isr(),
                        written.leaderEpoch(), zkVersion);
            }
            maximalIsr = role == Role.LEADER ? state.isr() : List.of();
            if (role == Role.LEADER) {
                completed = maybeAdvanceHighWatermark();
            }
        }
        complete(completed);
    }

    /**
     * The {@link IsrChangeWriter} could not write {@code proposed}: the znode changed in between. {@code current}
     * is what it holds now (empty if it is gone). A state of this leader's term is taken over; anything else means
     * this broker no longer leads, and it stops acknowledging until the metadata says what it is.
     */
    void onIsrChangeRejected(LeaderAndIsr proposed, Optional<State> current) {
        List<PendingAck> failed = List.of();
        List<PendingAck> completed = List.of();
        synchronized (this) {
            if (pendingIsr == null || !pendingIsr.equals(proposed)) {
                return;
            }
            pendingIsr = null;
            if (role != Role.LEADER) {
                return;
            }
            if (current.isPresent() && current.get().leaderId() == localBrokerId
                    && current.get().leaderEpoch() == roleEpoch) {
                if (current.get().zkVersion() > state.zkVersion()) {
                    state = current.get();
                }
                maximalIsr = state.isr();
                completed = maybeAdvanceHighWatermark();
            } else {
                logger.warn("{}: the ISR change to {} was rejected: the partition state moved on to {}; broker {} "
                        + "stops leading leader epoch {}", topicPartition, proposed.isr(),
                        current.map(State::leaderAndIsr).orElse(null), localBrokerId, roleEpoch);
                failed = leaveLeadership();
                role = Role.NONE;
                roleEpoch = -1;
            }
        }
        fail(failed, new NotLeaderOrFollowerException("Broker " + localBrokerId + " no longer leads "
                + topicPartition));
        complete(completed);
    }

    /** The ISR change waiting to be written, if any (for the writer's retries). */
    synchronized boolean isPending(LeaderAndIsr proposed) {
        return role == Role.LEADER && proposed.equals(pendingIsr);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Follower

    /**
     * Appends batches fetched from the leader of {@code leaderEpoch}. Batches this log already holds are skipped; a
     * batch that starts below this log's end but reaches beyond it (the logs cut batches differently after an
     * unclean election or a truncation) replaces this log's records from its base offset: the leader's version of
     * them is in the batch, so nothing the leader has is dropped.
     *
     * @return false if this broker no longer follows in that epoch (nothing was appended)
     */
    boolean appendAsFollower(int leaderEpoch, MemoryRecords records) {
        synchronized (this) {
            if (role != Role.FOLLOWER || roleEpoch != leaderEpoch) {
                return false;
            }
            long leo = log.logEndOffset();
            Iterator<? extends RecordBatch> batches = records.batches().iterator();
            if (!batches.hasNext()) {
                return true;
            }
            RecordBatch first = batches.next();
            if (first.baseOffset() < leo) {
                if (first.lastOffset() < leo) {
                    // The leader resent what this log has (its read started at the batch holding our LEO).
                    MemoryRecords rest = skipBatchesBelow(records, leo);
                    if (rest.sizeInBytes() == 0) {
                        return true;
                    }
                    records = rest;
                    first = records.batches().iterator().next();
                }
                if (first.baseOffset() < leo) {
                    logger.info("{}: the leader's batch {}..{} straddles the log end offset {}; truncating to {}",
                            topicPartition, first.baseOffset(), first.lastOffset(), leo, first.baseOffset());
                    log.truncateTo(first.baseOffset());
                }
            }
            log.appendAsFollower(records);
            return true;
        }
    }

    private static MemoryRecords skipBatchesBelow(MemoryRecords records, long offset) {
        java.nio.ByteBuffer buffer = records.buffer().duplicate();
        int position = buffer.position();
        for (RecordBatch batch : records.batches()) {
            if (batch.lastOffset() >= offset) {
                break;
            }
            position += batch.sizeInBytes();
        }
        buffer.position(position);
        return MemoryRecords.readableRecords(buffer.slice());
    }

    /** A follower's high watermark: min(leader's HW, own LEO), never back. */
    void updateFollowerHighWatermark(int leaderEpoch, long leaderHighWatermark) {
        synchronized (this) {
            if (role != Role.FOLLOWER || roleEpoch != leaderEpoch) {
                return;
            }
            long hw = Math.min(leaderHighWatermark, log.logEndOffset());
            if (hw > log.highWatermark()) {
                log.updateHighWatermark(hw);
            }
        }
    }

    /**
     * Truncates a suffix that diverges from the leader's log, given where the leader's log says {@code divergingEpoch}
     * ended: to that end offset if this log has that epoch, else to where this log's largest smaller epoch ends (the
     * next fetch then checks again from there).
     *
     * @return whether anything changed (records or epochs cut); false also if this broker no longer follows in that
     *         epoch
     */
    boolean truncateDivergence(int leaderEpoch, int divergingEpoch, long leaderEndOffset) {
        synchronized (this) {
            if (role != Role.FOLLOWER || roleEpoch != leaderEpoch) {
                return false;
            }
            long leo = log.logEndOffset();
            LeaderEpochCache.EpochEndOffset local = log.leaderEpochCache().endOffsetFor(divergingEpoch, leo);
            long target;
            if (local.epoch() < 0) {
                target = Math.min(leaderEndOffset, leo);
            } else if (local.epoch() == divergingEpoch) {
                target = Math.min(leaderEndOffset, local.endOffset());
            } else {
                target = Math.min(local.endOffset(), leo);
            }
            if (target < leo) {
                logger.info("{}: log diverges from the leader's (leader epoch {}: its epoch {} ends at {}); truncating "
                        + "from {} to {}", topicPartition, leaderEpoch, divergingEpoch, leaderEndOffset, leo, target);
            }
            // Also when no record goes: an epoch this replica started as leader without writing in it is dropped.
            java.util.OptionalInt epochBefore = log.leaderEpochCache().latestEpoch();
            log.truncateTo(target);
            return log.logEndOffset() < leo || !log.leaderEpochCache().latestEpoch().equals(epochBefore);
        }
    }

    /**
     * The leader's log does not hold this replica's fetch offset: past its end (this replica kept records an unclean
     * leader does not have) it truncates to the leader's end; before its start it starts empty at the leader's start.
     */
    boolean resetToLeader(int leaderEpoch, long leaderStartOffset, long leaderEndOffset) {
        synchronized (this) {
            if (role != Role.FOLLOWER || roleEpoch != leaderEpoch) {
                return false;
            }
            long leo = log.logEndOffset();
            if (leo > leaderEndOffset) {
                logger.warn("{}: the log end offset {} is past the leader's {}; truncating (records lost to an unclean "
                        + "election)", topicPartition, leo, leaderEndOffset);
                log.truncateTo(leaderEndOffset);
            } else if (leo < leaderStartOffset) {
                logger.info("{}: the leader's log starts at {}, beyond this log's end {}; starting over there",
                        topicPartition, leaderStartOffset, leo);
                log.truncateFullyAndStartAt(leaderStartOffset);
            }
            return true;
        }
    }

    /** Moves a follower's log start offset up to the leader's (retention or DeleteRecords on the leader). */
    void followLeaderLogStart(int leaderEpoch, long leaderStartOffset) {
        synchronized (this) {
            if (role == Role.FOLLOWER && roleEpoch == leaderEpoch && leaderStartOffset > log.logStartOffset()
                    && leaderStartOffset <= log.logEndOffset()) {
                log.deleteRecordsBefore(leaderStartOffset);
            }
        }
    }

    private static List<Integer> union(List<Integer> a, List<Integer> b) {
        LinkedHashSet<Integer> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    @Override
    public String toString() {
        return "Partition(" + topicPartition + ", " + role + " at epoch " + roleEpoch + ", " + state + ")";
    }
}
