package io.tributary.broker.replication;

/** One partition of a fetch: where to read from, how much, and the client's view of the leader epoch (-1: none). */
public record FetchPartitionRequest(long fetchOffset, int maxBytes, int currentLeaderEpoch) {
}
