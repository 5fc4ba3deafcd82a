package io.tributary.broker.replication;

import java.util.Optional;

import io.tributary.broker.cluster.BrokerInfo;

/**
 * What replication needs to know of the other brokers, from the current cluster metadata: where each one is, its
 * broker epoch, and whether it may join an ISR. Implementations read an immutable metadata snapshot; any thread.
 */
public interface ReplicaRegistry {

    /** A live broker's registration, for its address. */
    Optional<BrokerInfo> broker(int brokerId);

    /** A live broker's epoch ({@link BrokerInfo#epoch()}), or {@link BrokerInfo#NO_EPOCH} if it is not live. */
    default long brokerEpoch(int brokerId) {
        return broker(brokerId).map(BrokerInfo::epoch).orElse(BrokerInfo.NO_EPOCH);
    }

    /** Whether a broker may join an ISR: live and not in a controlled shutdown. */
    boolean isEligible(int brokerId);
}
