package io.tributary.broker.cluster;

import java.util.List;

/**
 * The replicated state of one partition, the content of {@code /brokers/topics/<topic>/partitions/<p>/state}:
 * {@code {"controller_epoch":E,"leader":L,"version":1,"leader_epoch":LE,"isr":[..]}}.
 *
 * @param leader          the leading broker, or {@link #NO_LEADER} when no eligible replica is alive
 * @param leaderEpoch     incremented by every leader election; followers truncate to its boundaries
 * @param isr             the in-sync replicas, leader included; kept as it was while the partition has no leader, so
 *                        that any of them may lead cleanly when it returns
 * @param controllerEpoch the epoch of the controller that wrote this state (or of the one whose state a leader's
 *                        ISR change was based on)
 */
public record LeaderAndIsr(int leader, int leaderEpoch, List<Integer> isr, int controllerEpoch) {

    public static final int NO_LEADER = -1;

    public LeaderAndIsr {
        isr = List.copyOf(isr);
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    /** The same leadership with another ISR, as a leader or the controller records an ISR change. */
    public LeaderAndIsr withIsr(List<Integer> newIsr, int writerControllerEpoch) {
        return new LeaderAndIsr(leader, leaderEpoch, newIsr, writerControllerEpoch);
    }
}
