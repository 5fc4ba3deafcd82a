package io.tributary.broker.replication;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.storage.LogAppendInfo;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One partition hosted by this broker: its log and its replica role (leader or follower) as the controller last
 * assigned it, the in-sync replica set, and the high watermark.
 *
 * <p>High watermark: the smallest log end offset among the ISR. With the leader alone in the ISR it follows the
 * leader's log end offset after every append; followers' fetch positions (replication, a later step) move it too.
 * Produce requests with {@code acks=all} wait here until the high watermark passes their last offset.
 *
 * <p>Threads: appends and role changes are serialised on this object's monitor; reads of the role fields are
 * lock-free (volatile, replaced as a whole). Waiters are completed outside the monitor.
 */
public final class Partition {

    /** The role fields, replaced as a whole on every state change from the controller. */
    public record State(int leaderId, int leaderEpoch, List<Integer> replicas, Set<Integer> isr) {
    }

    private final TopicPartition topicPartition;
    private final int localBrokerId;
    private final PartitionLog log;
    private final Runnable onNewData;
    private volatile Uuid topicId;
    private volatile State state;
    /** acks=all produces waiting for the high watermark; guarded by this. */
    private final List<PendingAck> pendingAcks = new ArrayList<>();

    private record PendingAck(long requiredOffset, CompletableFuture<Void> done) {
    }

    Partition(TopicPartition topicPartition, Uuid topicId, int localBrokerId, PartitionLog log, State state,
              Runnable onNewData) {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.localBrokerId = localBrokerId;
        this.log = log;
        this.state = state;
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

    public boolean isLeader() {
        return state.leaderId() == localBrokerId;
    }

    /** Takes a new role from the controller. Returns whether this broker leads the partition afterwards. */
    synchronized boolean applyState(Uuid newTopicId, State newState) {
        this.topicId = newTopicId;
        this.state = newState;
        maybeAdvanceHighWatermark();
        return isLeader();
    }

    /**
     * Appends a client's batches as leader. {@code acks=-1} needs at least the log's {@code min.insync.replicas} (the
     * topic's setting, or the broker default) in the ISR.
     *
     * @throws NotLeaderOrFollowerException if this broker does not lead the partition
     * @throws NotEnoughReplicasException   if the ISR is too small for acks=all
     */
    LogAppendInfo appendAsLeader(MemoryRecords records, short acks) {
        int minInsyncReplicas = log.config().minInsyncReplicas;
        LogAppendInfo info;
        List<PendingAck> completed;
        synchronized (this) {
            State current = state;
            if (current.leaderId() != localBrokerId) {
                throw new NotLeaderOrFollowerException("Broker " + localBrokerId + " is not the leader of "
                        + topicPartition + " (leader: " + current.leaderId() + ")");
            }
            if (acks == -1 && current.isr().size() < minInsyncReplicas) {
                throw new NotEnoughReplicasException("The ISR of " + topicPartition + " is " + current.isr()
                        + ", fewer than min.insync.replicas=" + minInsyncReplicas);
            }
            info = log.appendAsLeader(records, current.leaderEpoch());
            completed = maybeAdvanceHighWatermark();
        }
        complete(completed);
        onNewData.run();
        return info;
    }

    /** Completes when the high watermark reaches {@code offset} (acks=all); the caller bounds it with a timeout. */
    CompletableFuture<Void> awaitHighWatermark(long offset) {
        synchronized (this) {
            if (log.highWatermark() >= offset) {
                return CompletableFuture.completedFuture(null);
            }
            PendingAck pending = new PendingAck(offset, new CompletableFuture<>());
            pendingAcks.add(pending);
            return pending.done();
        }
    }

    /**
     * Moves the high watermark to the smallest log end offset in the ISR. Today only the leader's own log end offset
     * is known, so with followers in the ISR the watermark waits for replication (a later step). Caller holds the
     * monitor; returns the acks=all waiters to complete outside it.
     */
    private List<PendingAck> maybeAdvanceHighWatermark() {
        State current = state;
        if (current.leaderId() != localBrokerId) {
            return List.of();
        }
        boolean aloneInIsr = current.isr().isEmpty()
                || (current.isr().size() == 1 && current.isr().contains(localBrokerId));
        if (aloneInIsr && log.highWatermark() < log.logEndOffset()) {
            log.updateHighWatermark(log.logEndOffset());
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
        return done;
    }

    private static void complete(List<PendingAck> completed) {
        for (PendingAck pending : completed) {
            pending.done().complete(null);
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

    /** Fails every waiting acks=all produce, e.g. when leadership moves away or the partition is removed. */
    void failPending(RuntimeException cause) {
        List<PendingAck> failed;
        synchronized (this) {
            failed = new ArrayList<>(pendingAcks);
            pendingAcks.clear();
        }
        for (PendingAck pending : failed) {
            pending.done().completeExceptionally(cause);
        }
    }

    @Override
    public String toString() {
        return "Partition(" + topicPartition + ", " + state + ")";
    }
}
