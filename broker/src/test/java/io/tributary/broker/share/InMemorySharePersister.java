package io.tributary.broker.share;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/** A {@link ShareStatePersister} in a map, with the leader-epoch fencing of the share coordinator, for unit tests. */
final class InMemorySharePersister implements ShareStatePersister {

    private record Key(String groupId, TopicIdPartition partition) {
    }

    private final Map<Key, ShareState> states = new ConcurrentHashMap<>();
    private final Map<Key, Integer> fencedBelow = new ConcurrentHashMap<>();

    @Override
    public synchronized CompletableFuture<ReadResult> read(String groupId, TopicIdPartition partition,
                                                           int leaderEpoch) {
        Key key = new Key(groupId, partition);
        if (leaderEpoch < fencedBelow.getOrDefault(key, -1)) {
            return CompletableFuture.completedFuture(ReadResult.failed(Errors.FENCED_LEADER_EPOCH, "fenced"));
        }
        fencedBelow.put(key, leaderEpoch);
        return CompletableFuture.completedFuture(new ReadResult(Errors.NONE, null,
                Optional.ofNullable(states.get(key))));
    }

    @Override
    public synchronized CompletableFuture<Errors> write(String groupId, TopicIdPartition partition,
                                                        ShareState state) {
        Key key = new Key(groupId, partition);
        if (state.leaderEpoch() < fencedBelow.getOrDefault(key, -1)) {
            return CompletableFuture.completedFuture(Errors.FENCED_LEADER_EPOCH);
        }
        states.put(key, state);
        return CompletableFuture.completedFuture(Errors.NONE);
    }

    @Override
    public synchronized CompletableFuture<ReadResult> readSummary(String groupId, TopicIdPartition partition) {
        return CompletableFuture.completedFuture(new ReadResult(Errors.NONE, null,
                Optional.ofNullable(states.get(new Key(groupId, partition)))));
    }

    @Override
    public synchronized CompletableFuture<Errors> initialize(String groupId, TopicIdPartition partition,
                                                             int stateEpoch, long startOffset) {
        Key key = new Key(groupId, partition);
        ShareState old = states.get(key);
        int epoch = old == null ? stateEpoch : Math.max(stateEpoch, old.stateEpoch() + 1);
        states.put(key, new ShareState(epoch, Math.max(fencedBelow.getOrDefault(key, 0), 0), startOffset,
                List.of()));
        return CompletableFuture.completedFuture(Errors.NONE);
    }

    @Override
    public synchronized CompletableFuture<Errors> delete(String groupId, TopicIdPartition partition) {
        states.remove(new Key(groupId, partition));
        return CompletableFuture.completedFuture(Errors.NONE);
    }

    Optional<ShareState> state(String groupId, TopicIdPartition partition) {
        return Optional.ofNullable(states.get(new Key(groupId, partition)));
    }
}
