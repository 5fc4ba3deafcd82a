package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PartitionLeaderElectorTest {

    private static final int EPOCH = 7;
    /** The zxid of the stored state in these tests: brokers registered before it (epochs below) are its members. */
    private static final long STATE_ZXID = 1_000;

    private final PartitionLeaderElector elector = new PartitionLeaderElector();

    /** Live brokers, each registered before the state was written (epoch = 100 + id). */
    private static PartitionLeaderElector.Brokers live(Integer... ids) {
        Map<Integer, Long> epochs = new java.util.HashMap<>();
        for (int id : ids) {
            epochs.put(id, 100L + id);
        }
        return new PartitionLeaderElector.Brokers(epochs, Set.of());
    }

    private static PartitionLeaderElector.Brokers restarted(PartitionLeaderElector.Brokers brokers, int id) {
        Map<Integer, Long> epochs = new java.util.HashMap<>(brokers.liveEpochs());
        epochs.put(id, 5_000L + id);
        return new PartitionLeaderElector.Brokers(epochs, brokers.shuttingDown());
    }

    private static PartitionLeaderElector.Brokers shuttingDown(PartitionLeaderElector.Brokers brokers, int id) {
        return new PartitionLeaderElector.Brokers(brokers.liveEpochs(), Set.of(id));
    }

    private Optional<LeaderAndIsr> decide(List<Integer> replicas, LeaderAndIsr state,
                                          PartitionLeaderElector.Brokers brokers) {
        return elector.decide(replicas, state, STATE_ZXID, brokers, false, EPOCH);
    }

    /** {@code brokers} where broker {@code id} reported its replica of {@code tp} lost with a failed log dir. */
    private static PartitionLeaderElector.Brokers offline(PartitionLeaderElector.Brokers brokers, int id,
                                                          TopicPartition tp) {
        return new PartitionLeaderElector.Brokers(brokers.liveEpochs(), brokers.shuttingDown(),
                Map.of(id, Set.of(tp)));
    }

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    @Test
    void leaderWhoseReplicaIsOfflineIsReplacedByAnotherCurrentIsrMember() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2, 3), 5);
        PartitionLeaderElector.Brokers brokers = offline(live(1, 2, 3), 1, ORDERS_0);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(2, 3), EPOCH)),
                decide(List.of(1, 2, 3), state, brokers.forPartition(ORDERS_0)));
        assertEquals(Optional.empty(), decide(List.of(1, 2, 3), state, brokers.forPartition(ORDERS_1)),
                "the broker's other partitions keep their leader");
    }

    @Test
    void followerWhoseReplicaIsOfflineLeavesTheIsr() {
        LeaderAndIsr state = new LeaderAndIsr(2, 3, List.of(2, 1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 3, List.of(2), EPOCH)),
                decide(List.of(2, 1), state, offline(live(1, 2), 1, ORDERS_0).forPartition(ORDERS_0)));
    }

    @Test
    void onlyReplicaOfflineLeavesThePartitionWithoutLeader() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1), EPOCH)),
                decide(List.of(1), state, offline(live(1, 2), 1, ORDERS_0).forPartition(ORDERS_0)));
    }

    @Test
    void newPartitionIsLedByTheFirstLiveReplicaWithLiveReplicasAsIsrAndTheirEpochsRecorded() {
        assertEquals(Optional.of(new LeaderAndIsr(2, 0, List.of(2, 3), EPOCH, Map.of(2, 102L, 3, 103L))),
                decide(List.of(1, 2, 3), null, live(2, 3)));
    }

    @Test
    void newPartitionWithoutLiveReplicasGetsNoState() {
        assertEquals(Optional.empty(), decide(List.of(1, 2), null, live(3)));
    }

    @Test
    void liveLeaderWithLiveIsrNeedsNoChange() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.empty(), decide(List.of(1, 2), state, live(1, 2)));
    }

    @Test
    void deadFollowerLeavesTheIsrWithoutANewLeaderEpoch() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(1, 3, List.of(1), EPOCH)), decide(List.of(1, 2), state, live(1)));
    }

    @Test
    void deadLeaderIsReplacedByTheFirstLiveIsrMemberInAssignmentOrder() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 3, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(3, 2), EPOCH)),
                decide(List.of(1, 2, 3), state, live(2, 3)));
    }

    @Test
    void withoutALiveIsrMemberThePartitionGoesOfflineKeepingItsIsr() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1), EPOCH)),
                decide(List.of(1, 2), state, live(2)));
    }

    @Test
    void aReturningIsrMemberLeadsAnOfflinePartitionAgain() {
        LeaderAndIsr leaderless = new LeaderAndIsr(LeaderAndIsr.NO_LEADER, 4, List.of(1), 5, Map.of(1, 101L));
        assertEquals(Optional.empty(), decide(List.of(1, 2), leaderless, live(2)));
        // Broker 1 comes back with a new registration: it is the only one with the data, so it leads.
        PartitionLeaderElector.Brokers back = restarted(live(1, 2), 1);
        assertEquals(Optional.of(new LeaderAndIsr(1, 5, List.of(1), EPOCH, Map.of(1, 5_001L))),
                decide(List.of(1, 2), leaderless, back));
    }

    @Test
    void uncleanElectionPicksALiveReplicaOutsideTheIsrOnlyWhenEnabled() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(2), EPOCH, Map.of(2, 102L))),
                elector.decide(List.of(1, 2), state, STATE_ZXID, live(2), true, EPOCH));
    }

    @Test
    void aFollowerThatRestartedLeavesTheIsrEvenThoughItIsLive() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2, 3), 5, Map.of(1, 101L, 2, 102L, 3, 103L));
        assertEquals(Optional.of(new LeaderAndIsr(1, 3, List.of(1, 3), EPOCH, Map.of(1, 101L, 3, 103L))),
                decide(List.of(1, 2, 3), state, restarted(live(1, 2, 3), 2)));
    }

    @Test
    void aLeaderThatRestartedWithinOneRebuildIsReplacedByACurrentMember() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5, Map.of(1, 101L, 2, 102L));
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(2), EPOCH, Map.of(2, 102L))),
                decide(List.of(1, 2), state, restarted(live(1, 2), 1)));
    }

    @Test
    void theOnlyIsrMemberRestartingLeadsAgainInANewLeaderEpoch() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5, Map.of(1, 101L));
        assertEquals(Optional.of(new LeaderAndIsr(1, 4, List.of(1), EPOCH, Map.of(1, 5_001L))),
                decide(List.of(1, 2), state, restarted(live(1, 2), 1)));
    }

    @Test
    void withoutRecordedEpochsAMemberRegisteredAfterTheStateWasWrittenHasRestarted() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(1, 3, List.of(1), EPOCH)),
                decide(List.of(1, 2), state, restarted(live(1, 2), 2)));
    }

    @Test
    void aShuttingDownLeaderHandsOverToAnotherIsrMemberAndLeavesTheIsr() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2, 3), 5);
        assertEquals(Optional.of(new LeaderAndIsr(2, 4, List.of(2, 3), EPOCH)),
                decide(List.of(1, 2, 3), state, shuttingDown(live(1, 2, 3), 1)));
    }

    @Test
    void aShuttingDownLeaderWithoutAnotherIsrMemberKeepsLeading() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1), 5);
        assertEquals(Optional.empty(), decide(List.of(1, 2), state, shuttingDown(live(1, 2), 1)));
    }

    @Test
    void aShuttingDownFollowerLeavesTheIsr() {
        LeaderAndIsr state = new LeaderAndIsr(1, 3, List.of(1, 2), 5);
        assertEquals(Optional.of(new LeaderAndIsr(1, 3, List.of(1), EPOCH)),
                decide(List.of(1, 2), state, shuttingDown(live(1, 2), 2)));
    }

    @Test
    void preferredElectionMovesLeadershipToTheFirstReplicaWhenItIsACurrentMember() {
        LeaderAndIsr state = new LeaderAndIsr(2, 3, List.of(2, 1), 5);
        assertEquals(Optional.of(new LeaderAndIsr(1, 4, List.of(2, 1), EPOCH)),
                elector.preferred(List.of(1, 2), state, STATE_ZXID, live(1, 2), EPOCH));
        assertEquals(Optional.empty(), elector.preferred(List.of(1, 2), state, STATE_ZXID, live(2), EPOCH));
        assertEquals(Optional.empty(), elector.preferred(List.of(2, 1), state, STATE_ZXID, live(1, 2), EPOCH));
    }
}
