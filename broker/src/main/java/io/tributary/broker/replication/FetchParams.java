package io.tributary.broker.replication;

import org.apache.kafka.common.IsolationLevel;

/**
 * The request-wide part of a fetch.
 *
 * @param replicaId    -1 for a consumer, a broker id for a follower (which reads up to the log end offset)
 * @param replicaEpoch a follower's broker epoch (Fetch v15+), else -1
 * @param maxWaitMs  how long to wait for {@code minBytes} to become available
 * @param minBytes   the response is sent as soon as this much is available
 * @param maxBytes   limit of the whole response (the first batch is returned whole even if larger)
 * @param isolation  read_committed consumers read only below the last stable offset and are told the aborted
 *                   transactions of what they read
 */
public record FetchParams(int replicaId, long replicaEpoch, long maxWaitMs, int minBytes, int maxBytes,
                          IsolationLevel isolation) {

    boolean isFromFollower() {
        return replicaId >= 0;
    }
}
