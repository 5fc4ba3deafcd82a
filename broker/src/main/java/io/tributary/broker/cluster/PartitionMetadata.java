package io.tributary.broker.cluster;

import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * What a broker knows of one partition: its replicas from the topic's assignment and, once the controller has written
 * it, its leader and ISR.
 *
 * @param replicas        assigned replicas in preference order
 * @param leader          the leader, or {@link LeaderAndIsr#NO_LEADER} when there is none or no state yet
 * @param leaderEpoch     the leader epoch, or -1 when there is no state yet
 * @param isr             the in-sync replicas; empty when there is no state yet
 * @param controllerEpoch the epoch of the controller that wrote the state, or -1
 * @param zkVersion       the version of the state znode, which a conditional write must name; -1 when there is no
 *                        state yet
 */
public record PartitionMetadata(Uuid topicId, TopicPartition topicPartition, List<Integer> replicas, int leader,
                                int leaderEpoch, List<Integer> isr, int controllerEpoch, int zkVersion) {

    public PartitionMetadata {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
    }

    static PartitionMetadata withoutState(Uuid topicId, TopicPartition tp, List<Integer> replicas) {
        return new PartitionMetadata(topicId, tp, replicas, LeaderAndIsr.NO_LEADER, -1, List.of(), -1, -1);
    }

    static PartitionMetadata of(Uuid topicId, TopicPartition tp, List<Integer> replicas, LeaderAndIsr state,
                                int zkVersion) {
        return new PartitionMetadata(topicId, tp, replicas, state.leader(), state.leaderEpoch(), state.isr(),
                state.controllerEpoch(), zkVersion);
    }

    /** Whether the controller has written this partition's state. */
    public boolean hasState() {
        return zkVersion >= 0;
    }

    public boolean hasLeader() {
        return leader != LeaderAndIsr.NO_LEADER;
    }

    public boolean isReplica(int brokerId) {
        return replicas.contains(brokerId);
    }

    /** The state as stored, or null when there is none yet. */
    public LeaderAndIsr leaderAndIsr() {
        return hasState() ? new LeaderAndIsr(leader, leaderEpoch, isr, controllerEpoch) : null;
    }
}
