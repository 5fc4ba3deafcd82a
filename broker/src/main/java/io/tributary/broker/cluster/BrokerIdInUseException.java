package io.tributary.broker.cluster;

/**
 * Another live ZooKeeper session holds {@code /brokers/ids/<id>}: a second broker runs with this {@code broker.id}, or
 * the previous run of this one ended so recently that its session has not yet expired.
 */
public final class BrokerIdInUseException extends ClusterException {

    private final int brokerId;

    BrokerIdInUseException(int brokerId, long ownerSessionId, long waitedMs) {
        super("broker.id " + brokerId + " is already registered at " + ZkPaths.broker(brokerId)
                + " by another live ZooKeeper session (0x" + Long.toHexString(ownerSessionId) + "), still there after "
                + waitedMs + " ms: another broker with id " + brokerId + " is running against this ZooKeeper");
        this.brokerId = brokerId;
    }

    public int brokerId() {
        return brokerId;
    }
}
