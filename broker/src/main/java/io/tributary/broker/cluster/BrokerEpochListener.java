package io.tributary.broker.cluster;

/**
 * Hears this broker's epoch ({@link BrokerInfo#epoch()}) change: after every (re-)registration, and
 * {@link BrokerInfo#NO_EPOCH} as soon as the registration is known lost. Called on the registration's thread, in
 * order; must not block.
 */
@FunctionalInterface
public interface BrokerEpochListener {

    void onBrokerEpoch(long epoch);
}
