package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replicated state of one partition, the content of {@code /brokers/topics/<topic>/partitions/<p>/state}:
 * {@code {"controller_epoch":E,"leader":L,"version":1,"leader_epoch":LE,"isr":[..],"isr_broker_epochs":{"1":Z,..}}}.
 * The last field is Tributary's (Kafka's tools read partition state through the Metadata API, never from these
 * znodes, and Kafka's own parsers skip unknown fields).
 *
 * <p>Broker epochs: a broker's epoch is the creation zxid of its registration znode {@code /brokers/ids/<id>}, so
 * every run (every registration) of a broker has a larger one. The ISR records the epoch in which each member was
 * last known to be in sync; a member whose live registration has another epoch has restarted since (it may have lost
 * what it had not flushed) and is no member any more until a leader sees it catch up again. A state written without
 * epochs (by Kafka, or an earlier Tributary) falls back on the state znode's modification zxid: a member registered
 * after the state was written has restarted since.
 *
 * @param leader          the leading broker, or {@link #NO_LEADER} when no eligible replica is alive
 * @param leaderEpoch     incremented by every leader election; followers truncate to its boundaries
 * @param isr             the in-sync replicas, leader included; kept as it was while the partition has no leader, so
 *                        that any of them may lead cleanly when it returns
 * @param controllerEpoch the epoch of the controller that wrote this state (or of the one whose state a leader's
 *                        ISR change was based on)
 * @param isrEpochs       the broker epoch of each ISR member when it was last known in sync; a member may be missing
 */
public record LeaderAndIsr(int leader, int leaderEpoch, List<Integer> isr, int controllerEpoch,
                           Map<Integer, Long> isrEpochs) {

    public static final int NO_LEADER = -1;

    public LeaderAndIsr {
        isr = List.copyOf(isr);
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        for (int member : isr) {
            Long epoch = isrEpochs.get(member);
            if (epoch != null) {
                epochs.put(member, epoch);
            }
        }
        isrEpochs = Collections.unmodifiableMap(epochs);
    }

    /** A state without recorded broker epochs. */
    public LeaderAndIsr(int leader, int leaderEpoch, List<Integer> isr, int controllerEpoch) {
        this(leader, leaderEpoch, isr, controllerEpoch, Map.of());
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    /**
     * The same leadership with another ISR, as a leader or the controller records an ISR change. Members kept from
     * this state keep their recorded epochs; {@code newEpochs} gives (or replaces) the epochs of others.
     */
    public LeaderAndIsr withIsr(List<Integer> newIsr, Map<Integer, Long> newEpochs, int writerControllerEpoch) {
        Map<Integer, Long> epochs = new LinkedHashMap<>(isrEpochs);
        epochs.putAll(newEpochs);
        return new LeaderAndIsr(leader, leaderEpoch, newIsr, writerControllerEpoch, epochs);
    }

    /** {@link #withIsr(List, Map, int)} with no new epochs. */
    public LeaderAndIsr withIsr(List<Integer> newIsr, int writerControllerEpoch) {
        return withIsr(newIsr, Map.of(), writerControllerEpoch);
    }

    /** A new leadership (leader epoch + 1) over the given ISR, the epochs of kept members carried over. */
    public LeaderAndIsr elect(int newLeader, List<Integer> newIsr, Map<Integer, Long> newEpochs,
                              int writerControllerEpoch) {
        Map<Integer, Long> epochs = new LinkedHashMap<>(isrEpochs);
        epochs.putAll(newEpochs);
        return new LeaderAndIsr(newLeader, leaderEpoch + 1, newIsr, writerControllerEpoch, epochs);
    }

    /**
     * Whether {@code broker}, registered now with {@code brokerEpoch}, is an ISR member of this state in its current
     * run: it is in the ISR and its recorded epoch is that one (or, with none recorded, it registered before the
     * state was written at {@code stateZxid}).
     */
    public boolean isCurrentMember(int broker, long brokerEpoch, long stateZxid) {
        if (brokerEpoch < 0 || !isr.contains(broker)) {
            return false;
        }
        Long recorded = isrEpochs.get(broker);
        return recorded != null ? recorded == brokerEpoch : brokerEpoch < stateZxid;
    }

    /** The ISR members for which {@code keep} holds, in order. */
    List<Integer> isrWhere(java.util.function.IntPredicate keep) {
        List<Integer> kept = new ArrayList<>(isr.size());
        for (int member : isr) {
            if (keep.test(member)) {
                kept.add(member);
            }
        }
        return kept;
    }
}
