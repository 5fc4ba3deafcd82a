package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReassignmentPlannerTest {

    private static final int EPOCH = 9;
    private static final long STATE_ZXID = 1_000;

    private static PartitionLeaderElector.Brokers live(Integer... ids) {
        Map<Integer, Long> epochs = new java.util.HashMap<>();
        for (int id : ids) {
            epochs.put(id, 100L + id);
        }
        return new PartitionLeaderElector.Brokers(epochs, Set.of());
    }

    private static ReassignmentPlanner.Placement placement(List<Integer> replicas, List<Integer> adding,
                                                           List<Integer> removing) {
        return new ReassignmentPlanner.Placement(replicas, adding, removing);
    }

    @Test
    void startingListsTheTargetThenTheLeavingReplicasWithTheirMarkers() {
        ReassignmentPlanner.Placement started = ReassignmentPlanner.start(placement(List.of(1, 2, 3), List.of(),
                List.of()), List.of(2, 3, 4));
        assertEquals(placement(List.of(2, 3, 4, 1), List.of(4), List.of(1)), started);
        assertEquals(List.of(1, 2, 3), started.original().stream().sorted().toList());
        assertEquals(List.of(2, 3, 4), started.target());
    }

    @Test
    void aNewTargetKeepsTheOriginalReplicasAndCancellingGoesBackToThem() {
        ReassignmentPlanner.Placement running = placement(List.of(2, 3, 4, 1), List.of(4), List.of(1));
        assertEquals(placement(List.of(5, 2, 3, 1), List.of(5), List.of(1)),
                ReassignmentPlanner.start(running, List.of(5, 2, 3)));
        assertEquals(placement(List.of(2, 3, 1), List.of(), List.of()), ReassignmentPlanner.cancel(running));
        assertEquals(placement(List.of(2, 3, 1), List.of(), List.of()),
                ReassignmentPlanner.start(running, List.of(2, 3, 1)), "the original target is no reassignment");
    }

    @Test
    void completionWaitsUntilEveryTargetReplicaIsACurrentIsrMember() {
        ReassignmentPlanner.Placement running = placement(List.of(2, 3, 4, 1), List.of(4), List.of(1));
        LeaderAndIsr catchingUp = new LeaderAndIsr(1, 5, List.of(1, 2, 3), 3);
        assertEquals(Optional.empty(), ReassignmentPlanner.complete(running, catchingUp, STATE_ZXID,
                live(1, 2, 3, 4), EPOCH));
    }

    @Test
    void completionMovesALeaderOutsideTheTargetAndDropsTheRemovedReplicasFromTheIsr() {
        ReassignmentPlanner.Placement running = placement(List.of(2, 3, 4, 1), List.of(4), List.of(1));
        LeaderAndIsr caughtUp = new LeaderAndIsr(1, 5, List.of(1, 2, 3, 4), 3);
        ReassignmentPlanner.Completion done = ReassignmentPlanner.complete(running, caughtUp, STATE_ZXID,
                live(1, 2, 3, 4), EPOCH).orElseThrow();
        assertEquals(new LeaderAndIsr(2, 6, List.of(2, 3, 4), EPOCH), done.state());
        assertEquals(placement(List.of(2, 3, 4), List.of(), List.of()), done.placement());
    }

    @Test
    void completionKeepsALeaderInsideTheTargetAndItsLeaderEpoch() {
        ReassignmentPlanner.Placement running = placement(List.of(2, 3, 4, 1), List.of(4), List.of(1));
        LeaderAndIsr caughtUp = new LeaderAndIsr(3, 5, List.of(1, 2, 3, 4), 3);
        assertEquals(new LeaderAndIsr(3, 5, List.of(2, 3, 4), EPOCH), ReassignmentPlanner.complete(running, caughtUp,
                STATE_ZXID, live(1, 2, 3, 4), EPOCH).orElseThrow().state());
    }
}
