package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * What a broker knows of one partition: its replicas from the topic's assignment (with a reassignment in progress,
 * if any) and, once the controller has written it, its leader and ISR.
 *
 * @param replicas         assigned replicas in preference order; during a reassignment the target replicas followed
 *                         by the ones being removed
 * @param leader           the leader, or {@link LeaderAndIsr#NO_LEADER} when there is none or no state yet
 * @param leaderEpoch      the leader epoch, or -1 when there is no state yet
 * @param isr              the in-sync replicas; empty when there is no state yet
 * @param controllerEpoch  the epoch of the controller that wrote the state, or -1
 * @param zkVersion        the version of the state znode, which a conditional write must name; -1 when there is no
 *                         state yet
 * @param isrEpochs        the recorded broker epoch of ISR members ({@link LeaderAndIsr#isrEpochs()})
 * @param stateZxid        the zxid of the last write of the state znode, -1 when there is none
 * @param addingReplicas   replicas a reassignment is adding (empty when none is in progress)
 * @param removingReplicas replicas a reassignment is removing
 */
public record PartitionMetadata(Uuid topicId, TopicPartition topicPartition, List<Integer> replicas, int leader,
                                int leaderEpoch, List<Integer> isr, int controllerEpoch, int zkVersion,
                                Map<Integer, Long> isrEpochs, long stateZxid, List<Integer> addingReplicas,
                                List<Integer> removingReplicas) {

    public PartitionMetadata {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        isrEpochs = Map.copyOf(isrEpochs);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }

    static PartitionMetadata withoutState(Uuid topicId, TopicPartition tp, List<Integer> replicas,
                                          List<Integer> adding, List<Integer> removing) {
        return new PartitionMetadata(topicId, tp, replicas, LeaderAndIsr.NO_LEADER, -1, List.of(), -1, -1, Map.of(),
                -1L, adding, removing);
    }

    static PartitionMetadata of(Uuid topicId, TopicPartition tp, List<Integer> replicas, LeaderAndIsr state,
                                int zkVersion, long stateZxid, List<Integer> adding, List<Integer> removing) {
        return new PartitionMetadata(topicId, tp, replicas, state.leader(), state.leaderEpoch(), state.isr(),
                state.controllerEpoch(), zkVersion, state.isrEpochs(), stateZxid, adding, removing);
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

    /** Whether a reassignment of this partition is in progress. */
    public boolean isReassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /** The state as stored, or null when there is none yet. */
    public LeaderAndIsr leaderAndIsr() {
        return hasState() ? new LeaderAndIsr(leader, leaderEpoch, isr, controllerEpoch, isrEpochs) : null;
    }

    /** {@link LeaderAndIsr#isCurrentMember} for this state. */
    public boolean isCurrentMember(int broker, long brokerEpoch) {
        return hasState() && leaderAndIsr().isCurrentMember(broker, brokerEpoch, stateZxid);
    }
}
