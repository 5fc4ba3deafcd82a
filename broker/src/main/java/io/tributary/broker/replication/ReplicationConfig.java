package io.tributary.broker.replication;

import io.tributary.broker.security.InterBrokerSecurity;

/**
 * The broker settings replication runs on, typed once from the broker configuration (Kafka's names and defaults).
 *
 * @param replicaLagTimeMaxMs        {@code replica.lag.time.max.ms}: a follower not caught up for this long leaves
 *                                   the ISR
 * @param numReplicaFetchers         {@code num.replica.fetchers}: fetcher threads per source broker
 * @param fetchWaitMaxMs             {@code replica.fetch.wait.max.ms}
 * @param fetchMinBytes              {@code replica.fetch.min.bytes}
 * @param fetchMaxBytes              {@code replica.fetch.max.bytes} (per partition)
 * @param fetchResponseMaxBytes      {@code replica.fetch.response.max.bytes}
 * @param fetchBackoffMs             {@code replica.fetch.backoff.ms}
 * @param socketTimeoutMs            {@code replica.socket.timeout.ms}
 * @param socketReceiveBufferBytes   {@code replica.socket.receive.buffer.bytes}
 * @param highWatermarkCheckpointMs  {@code replica.high.watermark.checkpoint.interval.ms}
 * @param security                   how fetchers reach the leaders' inter-broker listener
 */
public record ReplicationConfig(long replicaLagTimeMaxMs, int numReplicaFetchers, int fetchWaitMaxMs,
                                int fetchMinBytes, int fetchMaxBytes, int fetchResponseMaxBytes, int fetchBackoffMs,
                                int socketTimeoutMs, int socketReceiveBufferBytes, long highWatermarkCheckpointMs,
                                InterBrokerSecurity security) {

    /** Settings whose fetchers connect in plaintext. */
    public ReplicationConfig(long replicaLagTimeMaxMs, int numReplicaFetchers, int fetchWaitMaxMs,
                             int fetchMinBytes, int fetchMaxBytes, int fetchResponseMaxBytes, int fetchBackoffMs,
                             int socketTimeoutMs, int socketReceiveBufferBytes, long highWatermarkCheckpointMs) {
        this(replicaLagTimeMaxMs, numReplicaFetchers, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes,
                fetchResponseMaxBytes, fetchBackoffMs, socketTimeoutMs, socketReceiveBufferBytes,
                highWatermarkCheckpointMs, InterBrokerSecurity.PLAINTEXT);
    }

    /** Kafka's defaults. */
    public static ReplicationConfig defaults() {
        return new ReplicationConfig(30_000L, 1, 500, 1, 1024 * 1024, 10 * 1024 * 1024, 1_000, 30_000, 64 * 1024,
                5_000L);
    }

    /** How long a fetcher waits for an answer: the leader may hold the fetch for its wait first. */
    int requestTimeoutMs() {
        return socketTimeoutMs + fetchWaitMaxMs;
    }
}
