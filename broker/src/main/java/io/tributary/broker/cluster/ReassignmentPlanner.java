package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The controller's decisions for moving a partition's replicas (AlterPartitionReassignments, KIP-455), without
 * ZooKeeper. A reassignment from the original replicas (ORS) to the target replicas (TRS) goes through these states:
 * <ol>
 * <li><b>started</b>: the assignment lists TRS followed by the replicas of ORS not in TRS, with {@code
 * adding_replicas} = TRS - ORS and {@code removing_replicas} = ORS - TRS. Every listed broker is a replica: the added
 * ones start following and catching up; the leader and ISR do not change yet.</li>
 * <li><b>caught up</b>: once every target replica is a current ISR member, the reassignment completes in one
 * transaction: a leader outside TRS (or not eligible) hands over to the first current ISR member of TRS (leader epoch
 * + 1), the ISR drops the removed replicas, and the assignment becomes TRS with no markers. The removed brokers then
 * see they are no replicas any more and delete their copies.</li>
 * </ol>
 * A new reassignment of a partition that is being reassigned keeps the same original replicas; cancelling one goes
 * back to them (ORS is always "the listed replicas minus the ones being added").
 */
final class ReassignmentPlanner {

    /** A partition's replica list with its reassignment markers, as written in the topic's znode. */
    record Placement(List<Integer> replicas, List<Integer> adding, List<Integer> removing) {

        Placement {
            replicas = List.copyOf(replicas);
            adding = List.copyOf(adding);
            removing = List.copyOf(removing);
        }

        boolean isReassigning() {
            return !adding.isEmpty() || !removing.isEmpty();
        }

        /** The replicas before the reassignment (ORS). */
        List<Integer> original() {
            List<Integer> original = new ArrayList<>(replicas);
            original.removeAll(adding);
            return original;
        }

        /** The replicas the reassignment goes to (TRS). */
        List<Integer> target() {
            List<Integer> target = new ArrayList<>(replicas);
            target.removeAll(removing);
            return target;
        }
    }

    /** The state and placement that finish a reassignment: write both, or neither. */
    record Completion(LeaderAndIsr state, Placement placement) {
    }

    private ReassignmentPlanner() {
    }

    /**
     * The placement that starts a reassignment to {@code target}, or replaces a running one's target; the plain
     * original placement when {@code target} is the original replica list.
     */
    static Placement start(Placement current, List<Integer> target) {
        List<Integer> original = current.original();
        if (target.equals(original)) {
            return new Placement(original, List.of(), List.of());
        }
        LinkedHashSet<Integer> all = new LinkedHashSet<>(target);
        all.addAll(original);
        List<Integer> adding = new ArrayList<>(target);
        adding.removeAll(original);
        List<Integer> removing = new ArrayList<>(original);
        removing.removeAll(target);
        return new Placement(new ArrayList<>(all), adding, removing);
    }

    /** The placement that cancels a running reassignment: back to the original replicas. */
    static Placement cancel(Placement current) {
        return new Placement(current.original(), List.of(), List.of());
    }

    /**
     * The completion of a running reassignment, once every target replica is a current ISR member; empty while it is
     * still catching up (or the partition has no leader to complete it with).
     *
     * @param state     the partition's stored state (null: none yet)
     * @param stateZxid the zxid of its last write
     */
    static Optional<Completion> complete(Placement placement, LeaderAndIsr state, long stateZxid,
                                         PartitionLeaderElector.Brokers brokers, int controllerEpoch) {
        if (!placement.isReassigning() || state == null || !state.hasLeader()) {
            return Optional.empty();
        }
        List<Integer> target = placement.target();
        for (int replica : target) {
            if (!brokers.isLive(replica) || !state.isCurrentMember(replica, brokers.epoch(replica), stateZxid)) {
                return Optional.empty();
            }
        }
        Placement done = new Placement(target, List.of(), List.of());
        List<Integer> isr = state.isrWhere(target::contains);
        if (target.contains(state.leader()) && brokers.isEligible(state.leader())) {
            LeaderAndIsr next = isr.equals(state.isr()) ? state : state.withIsr(isr, controllerEpoch);
            return Optional.of(new Completion(next, done));
        }
        for (int replica : target) {
            if (brokers.isEligible(replica)) {
                return Optional.of(new Completion(state.elect(replica, isr, Map.of(), controllerEpoch), done));
            }
        }
        return Optional.empty();
    }
}
