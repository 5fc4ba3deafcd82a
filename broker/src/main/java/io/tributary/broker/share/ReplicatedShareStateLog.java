package io.tributary.broker.share;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.tributary.broker.replication.InternalTopicLog;
import io.tributary.broker.share.ShareStateFormat.Snapshot;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The {@link ShareStateLog} of the broker: the partitions of {@code __share_group_state} in the replica manager,
 * appended to as their leader with acks=all and read back whole when this broker becomes a partition's coordinator
 * ({@link InternalTopicLog}). Records are those of {@link ShareStateFormat}.
 *
 * <p>Threads: appends from any thread (their futures complete on the replica manager's threads); loads on the
 * coordinator's thread. Holds no state of its own.
 */
final class ReplicatedShareStateLog implements ShareStateLog {

    private final InternalTopicLog topicLog;

    ReplicatedShareStateLog(InternalTopicLog topicLog) {
        this.topicLog = topicLog;
    }

    @Override
    public CompletableFuture<Errors> append(int partition, ShareKey key, int snapshotEpoch, ShareState state) {
        TopicPartition tp = new TopicPartition(ShareCoordinatorConfig.STATE_TOPIC, partition);
        return topicLog.append(tp, ShareStateFormat.serializeKey(key),
                state == null ? null : ShareStateFormat.serializeValue(snapshotEpoch, state),
                (state == null ? "the deletion of share-partition " : "the state of share-partition ") + key);
    }

    @Override
    public Map<ShareKey, Snapshot> load(int partition, BooleanSupplier current) {
        TopicPartition tp = new TopicPartition(ShareCoordinatorConfig.STATE_TOPIC, partition);
        Map<ShareKey, Snapshot> states = new HashMap<>();
        topicLog.replay(tp, current, record -> {
            ShareKey key = ShareStateFormat.deserializeKey(record.key());
            if (!record.hasValue()) {
                states.remove(key);
            } else {
                states.put(key, ShareStateFormat.deserializeValue(record.value()));
            }
        });
        return states;
    }
}
