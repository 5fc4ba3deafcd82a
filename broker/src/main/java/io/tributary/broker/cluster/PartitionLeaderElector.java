package io.tributary.broker.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * The controller's decisions for one partition: given its replicas, its stored state and the brokers, what state it
 * should have. Pure; no ZooKeeper, so every rule is tested on its own.
 *
 * <p>Words used below: a broker is <em>live</em> while registered, <em>eligible</em> while live and not in a
 * controlled shutdown; an ISR member is <em>current</em> when its recorded broker epoch is that of its live
 * registration ({@link LeaderAndIsr#isCurrentMember}), i.e. it has not restarted since it was last known in sync.
 * A broker that reported its replica of the partition lost with a failed log directory counts as not live for that
 * partition ({@link Brokers#forPartition}): it leaves the ISR and gives up the leadership as a dead broker would, while
 * its other partitions are untouched.
 *
 * <ul>
 * <li><b>No state yet</b>: the first eligible replica in assignment order leads, the eligible replicas form the ISR
 * (with their epochs), leader epoch 0. With none eligible, nothing is written until one registers.</li>
 * <li><b>Leader eligible and current</b>: ISR members that are dead, restarted or shutting down leave the ISR (the
 * leader would drop them after {@code replica.lag.time.max.ms} anyway; doing it at once lets {@code acks=all}
 * proceed). The leader epoch stays: leadership did not change.</li>
 * <li><b>Otherwise</b> (leader gone, restarted, shutting down, or none): the first replica in assignment order that
 * is eligible and a current ISR member leads, leader epoch + 1, ISR = the eligible current members. Failing that, a
 * leader that is only shutting down keeps leading (nobody else has its data). Failing that, the first eligible ISR
 * member that restarted leads (as Kafka elects a returning ISR member: it has everything that was committed, unless
 * its machine lost unflushed writes). Failing that, with {@code unclean.leader.election.enable}, the first eligible
 * replica leads with an ISR of itself, at the risk of losing committed records. Failing all, the partition has leader
 * -1 and keeps its ISR, so that any of those replicas can lead cleanly when it returns.</li>
 * </ul>
 */
final class PartitionLeaderElector {

    /**
     * What an election looks at of the cluster: live brokers with their epochs, those shutting down, and the replicas
     * live brokers lost with a failed log directory. A partition's election takes {@link #forPartition}'s view.
     */
    record Brokers(Map<Integer, Long> liveEpochs, Set<Integer> shuttingDown,
                   Map<Integer, Set<TopicPartition>> offlineReplicas) {

        Brokers {
            liveEpochs = Map.copyOf(liveEpochs);
            shuttingDown = Set.copyOf(shuttingDown);
            offlineReplicas = Map.copyOf(offlineReplicas);
        }

        Brokers(Map<Integer, Long> liveEpochs, Set<Integer> shuttingDown) {
            this(liveEpochs, shuttingDown, Map.of());
        }

        static Brokers of(MetadataSnapshot snapshot) {
            Map<Integer, Long> epochs = new LinkedHashMap<>();
            snapshot.brokers().forEach((id, broker) -> epochs.put(id, broker.epoch()));
            return new Brokers(epochs, snapshot.shuttingDown(), snapshot.offlineReplicas());
        }

        /** The brokers as {@code tp}'s election sees them: a broker whose replica of it is offline is not live. */
        Brokers forPartition(TopicPartition tp) {
            if (offlineReplicas.isEmpty()) {
                return this;
            }
            Map<Integer, Long> live = new LinkedHashMap<>(liveEpochs);
            boolean removed = live.keySet().removeIf(id -> offlineReplicas.getOrDefault(id, Set.of()).contains(tp));
            return removed ? new Brokers(live, shuttingDown, Map.of()) : this;
        }

        boolean isLive(int broker) {
            return liveEpochs.containsKey(broker);
        }

        boolean isEligible(int broker) {
            return liveEpochs.containsKey(broker) && !shuttingDown.contains(broker);
        }

        long epoch(int broker) {
            return liveEpochs.getOrDefault(broker, BrokerInfo.NO_EPOCH);
        }
    }

    /**
     * The state to write, or empty when {@code current} is right as it is.
     *
     * @param current         the stored state, or null when none was written yet
     * @param stateZxid       the zxid of the stored state's last write (-1 without one)
     * @param unclean         {@code unclean.leader.election.enable} of the partition's topic
     * @param controllerEpoch the deciding controller's epoch, recorded in the new state
     */
    Optional<LeaderAndIsr> decide(List<Integer> replicas, LeaderAndIsr current, long stateZxid, Brokers brokers,
                                  boolean unclean, int controllerEpoch) {
        if (current == null) {
            List<Integer> eligible = filter(replicas, brokers::isEligible);
            return eligible.isEmpty() ? Optional.empty()
                    : Optional.of(new LeaderAndIsr(eligible.get(0), 0, eligible, controllerEpoch,
                    epochsOf(eligible, brokers)));
        }
        java.util.function.IntPredicate currentMember =
                member -> current.isCurrentMember(member, brokers.epoch(member), stateZxid);
        if (current.hasLeader() && brokers.isEligible(current.leader()) && currentMember.test(current.leader())) {
            List<Integer> isr = current.isrWhere(m -> m == current.leader()
                    || (brokers.isEligible(m) && currentMember.test(m)));
            return isr.equals(current.isr()) ? Optional.empty()
                    : Optional.of(current.withIsr(isr, controllerEpoch));
        }
        List<Integer> currentIsr = current.isrWhere(m -> brokers.isEligible(m) && currentMember.test(m));
        for (int replica : replicas) {
            if (currentIsr.contains(replica)) {
                return Optional.of(current.elect(replica, currentIsr, Map.of(), controllerEpoch));
            }
        }
        if (current.hasLeader() && brokers.isLive(current.leader()) && currentMember.test(current.leader())) {
            // Shutting down, but the only current copy: it stays until it is gone.
            List<Integer> isr = current.isrWhere(m -> m == current.leader());
            return isr.equals(current.isr()) ? Optional.empty() : Optional.of(current.withIsr(isr, controllerEpoch));
        }
        List<Integer> returning = current.isrWhere(brokers::isEligible);
        for (int replica : replicas) {
            if (returning.contains(replica)) {
                return Optional.of(current.elect(replica, returning, epochsOf(returning, brokers), controllerEpoch));
            }
        }
        if (unclean) {
            for (int replica : replicas) {
                if (brokers.isEligible(replica)) {
                    return Optional.of(current.elect(replica, List.of(replica), epochsOf(List.of(replica), brokers),
                            controllerEpoch));
                }
            }
        }
        if (!current.hasLeader()) {
            return Optional.empty();
        }
        return Optional.of(current.elect(LeaderAndIsr.NO_LEADER, current.isr(), Map.of(), controllerEpoch));
    }

    /**
     * A preferred-leader election: the first replica leads if it is eligible and a current ISR member and does not
     * lead already. Empty when it leads or cannot.
     */
    Optional<LeaderAndIsr> preferred(List<Integer> replicas, LeaderAndIsr current, long stateZxid, Brokers brokers,
                                     int controllerEpoch) {
        if (current == null || replicas.isEmpty()) {
            return Optional.empty();
        }
        int preferred = replicas.get(0);
        if (current.leader() == preferred || !brokers.isEligible(preferred)
                || !current.isCurrentMember(preferred, brokers.epoch(preferred), stateZxid)) {
            return Optional.empty();
        }
        return Optional.of(current.elect(preferred, current.isr(), Map.of(), controllerEpoch));
    }

    private static List<Integer> filter(List<Integer> brokers, java.util.function.IntPredicate keep) {
        List<Integer> kept = new ArrayList<>(brokers.size());
        for (int broker : brokers) {
            if (keep.test(broker)) {
                kept.add(broker);
            }
        }
        return kept;
    }

    private static Map<Integer, Long> epochsOf(List<Integer> members, Brokers brokers) {
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        for (int member : members) {
            epochs.put(member, brokers.epoch(member));
        }
        return epochs;
    }
}
