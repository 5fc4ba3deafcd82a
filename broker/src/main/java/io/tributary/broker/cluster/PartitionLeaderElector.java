package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The controller's decision for one partition: given its replicas, its stored state and the live brokers, what state
 * it should have. Pure; no ZooKeeper, so every rule is tested on its own.
 *
 * <ul>
 * <li><b>No state yet</b>: the first live replica in assignment order leads, the live replicas form the ISR, leader
 * epoch 0. With no live replica, nothing is written until one registers.</li>
 * <li><b>Leader alive</b>: dead replicas leave the ISR (the leader would drop them after
 * {@code replica.lag.time.max.ms} anyway; doing it at once lets {@code acks=all} proceed). The leader epoch stays:
 * leadership did not change.</li>
 * <li><b>Leader gone</b> (or none): the first replica in assignment order that is alive and in the ISR leads, leader
 * epoch + 1, ISR = the live part of the old ISR. With {@code unclean.leader.election.enable}, failing that, the first
 * live replica leads with an ISR of itself, at the risk of losing committed records. Failing both, the partition has
 * leader -1 and keeps its ISR, so that any of those replicas can lead cleanly when it returns.</li>
 * </ul>
 */
final class PartitionLeaderElector {

    private final boolean uncleanElectionEnabled;

    PartitionLeaderElector(boolean uncleanElectionEnabled) {
        this.uncleanElectionEnabled = uncleanElectionEnabled;
    }

    /**
     * The state to write, or empty when {@code current} is right as it is.
     *
     * @param current         the stored state, or null when none was written yet
     * @param controllerEpoch the deciding controller's epoch, recorded in the new state
     */
    Optional<LeaderAndIsr> decide(List<Integer> replicas, LeaderAndIsr current, Set<Integer> liveBrokers,
                                  int controllerEpoch) {
        if (current == null) {
            List<Integer> live = live(replicas, liveBrokers);
            return live.isEmpty() ? Optional.empty()
                    : Optional.of(new LeaderAndIsr(live.get(0), 0, live, controllerEpoch));
        }
        if (current.hasLeader() && liveBrokers.contains(current.leader())) {
            List<Integer> liveIsr = live(current.isr(), liveBrokers);
            return liveIsr.equals(current.isr()) ? Optional.empty()
                    : Optional.of(current.withIsr(liveIsr, controllerEpoch));
        }
        for (int replica : replicas) {
            if (liveBrokers.contains(replica) && current.isr().contains(replica)) {
                List<Integer> isr = live(current.isr(), liveBrokers);
                return Optional.of(new LeaderAndIsr(replica, current.leaderEpoch() + 1, isr, controllerEpoch));
            }
        }
        if (uncleanElectionEnabled) {
            for (int replica : replicas) {
                if (liveBrokers.contains(replica)) {
                    return Optional.of(new LeaderAndIsr(replica, current.leaderEpoch() + 1, List.of(replica),
                            controllerEpoch));
                }
            }
        }
        if (!current.hasLeader()) {
            return Optional.empty();
        }
        return Optional.of(new LeaderAndIsr(LeaderAndIsr.NO_LEADER, current.leaderEpoch() + 1, current.isr(),
                controllerEpoch));
    }

    private static List<Integer> live(List<Integer> brokers, Set<Integer> liveBrokers) {
        List<Integer> live = new ArrayList<>(brokers.size());
        for (int broker : brokers) {
            if (liveBrokers.contains(broker)) {
                live.add(broker);
            }
        }
        return live;
    }
}
