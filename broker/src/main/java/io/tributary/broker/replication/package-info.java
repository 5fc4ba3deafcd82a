/**
 * Replication: the partitions a broker hosts ({@link io.tributary.broker.replication.Partition}: role, high
 * watermark, acks=all waiters, followers' positions, ISR proposals, follower truncation), the operations requests need
 * on them ({@link io.tributary.broker.replication.ReplicaManager}: produce, fetch for consumers and followers with
 * long polling, ListOffsets, DeleteRecords), the follower side ({@link io.tributary.broker.replication.ReplicaFetcher}
 * threads over kafka-clients' {@code NetworkClient}, {@link io.tributary.broker.replication.BrokerConnection}), and the
 * leader's ISR writes to ZooKeeper ({@link io.tributary.broker.replication.ZkIsrChangeWriter}). The design is in
 * docs/architecture.md, "Replication and failover".
 */
package io.tributary.broker.replication;
