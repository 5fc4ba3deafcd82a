package io.tributary.broker.api;

import java.util.Optional;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The new leader of a partition, for the {@code currentLeader} and {@code nodeEndpoints} fields that Produce (v10+)
 * and Fetch (v12+ / v16+) carry with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH (KIP-951): a client that gets
 * them switches to the new leader at once instead of asking for metadata first. Stateless.
 */
final class LeaderHints {

    /** A partition's leader as this broker's metadata knows it, and where the leader listens. */
    record Leader(int id, int epoch, BrokerInfo broker) {
    }

    private LeaderHints() {
    }

    /** Whether an error is one that a leader hint helps with. */
    static boolean wanted(Errors error) {
        return error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.FENCED_LEADER_EPOCH;
    }

    /**
     * The live leader of {@code tp}, if there is one and this broker's metadata can be trusted: a broker without a
     * registration, or whose metadata still names itself (it has just stepped down), gives no hint.
     */
    static Optional<Leader> leader(ClusterView cluster, MetadataSnapshot snapshot, TopicPartition tp) {
        Optional<PartitionMetadata> partition = snapshot.partition(tp);
        if (!cluster.isRegistered() || partition.isEmpty() || !partition.get().hasLeader()
                || partition.get().leader() == cluster.localBrokerId()) {
            return Optional.empty();
        }
        PartitionMetadata p = partition.get();
        return snapshot.broker(p.leader()).map(broker -> new Leader(p.leader(), p.leaderEpoch(), broker));
    }
}
