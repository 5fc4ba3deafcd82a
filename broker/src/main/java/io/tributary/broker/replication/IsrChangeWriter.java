package io.tributary.broker.replication;

import io.tributary.broker.cluster.LeaderAndIsr;

/**
 * Records a leader's ISR changes where the controller reads them. A proposal names the znode version it was based
 * on; the writer reports back to the {@link Partition} with {@link Partition#onIsrChangeCommitted} or
 * {@link Partition#onIsrChangeRejected}, from its own thread (never the caller's: a ZooKeeper write can take seconds,
 * and the caller holds the partition's monitor).
 */
public interface IsrChangeWriter {

    void submit(Partition partition, LeaderAndIsr proposed, int expectedZkVersion);
}
