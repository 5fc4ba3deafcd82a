package io.tributary.broker.share;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where share-partition leaders keep their {@link ShareState}: the share coordinator of the partition's key, on this
 * broker or another one. Every write is the whole state of the share-partition (it replaces what was there), durable
 * (replicated to the in-sync replicas of its {@code __share_group_state} partition) once its future completes with
 * NONE.
 *
 * <p>Any thread; futures may complete on other threads.
 */
public interface ShareStatePersister {

    /** The answer to a read: the state, or none when the share-partition has none yet (or it was deleted). */
    record ReadResult(Errors error, String errorMessage, Optional<ShareState> state) {

        public static ReadResult failed(Errors error, String message) {
            return new ReadResult(error, message, Optional.empty());
        }
    }

    /**
     * Reads the state for the leader at {@code leaderEpoch}: a state written by an older leader epoch is fenced from
     * then on (later writes of older epochs fail with FENCED_LEADER_EPOCH); a read from an older epoch than the
     * state's fails with FENCED_LEADER_EPOCH.
     *
     * @return NONE with the state or none; NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE /
     *         COORDINATOR_LOAD_IN_PROGRESS (retriable), FENCED_LEADER_EPOCH, or another error
     */
    CompletableFuture<ReadResult> read(String groupId, TopicIdPartition partition, int leaderEpoch);

    /**
     * Replaces the state of the share-partition with {@code state}.
     *
     * @return NONE once durable; FENCED_LEADER_EPOCH if a newer leader has read or written it; a retriable
     *         coordinator error; or another error
     */
    CompletableFuture<Errors> write(String groupId, TopicIdPartition partition, ShareState state);

    /**
     * Reads the state for an administrator (ReadShareGroupStateSummary): fences nothing, writes nothing. The state
     * carries the leader epoch it was written with.
     */
    CompletableFuture<ReadResult> readSummary(String groupId, TopicIdPartition partition);

    /**
     * Replaces the state with a fresh one at {@code startOffset} without in-flight records (InitializeShareGroupState),
     * at state epoch {@code stateEpoch} or a newer one, so that a leader holding the old state is fenced at its next
     * write and loads this one. NONE once durable.
     */
    CompletableFuture<Errors> initialize(String groupId, TopicIdPartition partition, int stateEpoch,
                                         long startOffset);

    /** Removes the state of the share-partition (a tombstone); NONE once durable. */
    CompletableFuture<Errors> delete(String groupId, TopicIdPartition partition);
}
