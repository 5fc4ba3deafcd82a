package io.tributary.broker.cluster;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PartitionLeaderElectorTest {

    private static final int EPOCH = 7;
    private final PartitionLeaderElector clean = new PartitionLeaderElector(false);
    private final PartitionLeaderElector unclean = new PartitionLeaderElector(true);

    @Test
    void newPartitionIsLedByTheFirstLiveReplicaWithLiveReplicasAsIsr() {
        assertEquals(Optional.of(new LeaderAndIsr(2, 0, List.of(2, 3), EPOCH)),
                clean.decide(List.of(1, 2, 3), null, Set.of(2, 3), EPOCH));
    }

    @Test
    void newPartitionWithoutLiveReplicaWaits() {
        assertEquals(Optional.empty(), clean.decide(List.of(1, 2), null, Set.of(3), EPOCH));
    }

    @Test
    void healthyPartitionIsLeftAlone() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.empty(), clean.decide(List.of(1, 2), state, Set.of(1, 2), EPOCH));
    }

    @Test
    void deadFollowerLeavesTheIsrWithoutNewLeaderEpoch() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(1, 3, List.of(1), EPOCH)),
                clean.decide(List.of(1, 2), state, Set.of(1), EPOCH));
    }

    @Test
    void deadLeaderIsReplacedByTheFirstLiveIsrMemberInAssignmentOrder() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 3, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(3, 2), EPOCH)),
                clean.decide(List.of(1, 2, 3), state, Set.of(2, 3), EPOCH));
    }

    @Test
    void liveReplicaOutsideTheIsrIsNotElectedCleanly() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1), EPOCH)),
                clean.decide(List.of(1, 2), state, Set.of(2), EPOCH));
    }

    @Test
    void leaderlessPartitionStaysAsItIsUntilAnIsrMemberReturns() {
        LeaderAndIsr leaderless = new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1), 5);
        assertEquals(Optional.empty(), clean.decide(List.of(1, 2), leaderless, Set.of(2), EPOCH));
        assertEquals(Optional.of(new LeaderAndIsr(1, 5, List.of(1), EPOCH)),
                clean.decide(List.of(1, 2), leaderless, Set.of(1, 2), EPOCH));
    }

    @Test
    void uncleanElectionTakesAnyLiveReplicaWithAnIsrOfItself() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(2), EPOCH)),
                unclean.decide(List.of(1, 2), state, Set.of(2), EPOCH));
    }

    @Test
    void uncleanElectionStillPrefersTheIsr() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 3), 5);
        assertEquals(Optional.of(new LeaderAndIsr(3, 4, List.of(3), EPOCH)),
                unclean.decide(List.of(1, 2, 3), state, Set.of(2, 3), EPOCH));
    }

    @Test
    void allReplicasGoneLeavesNoLeaderAndTheIsrAsItWas() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1, 2), EPOCH)),
                unclean.decide(List.of(1, 2), state, Set.of(), EPOCH));
    }
}
