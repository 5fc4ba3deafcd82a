package io.tributary.broker.replication;

/**
 * One partition of a fetch: where to read from, how much, the client's view of the leader epoch (-1: none), and for
 * a follower the epoch of its last batch (-1: none), with which the leader detects a divergent log.
 */
public record FetchPartitionRequest(long fetchOffset, int maxBytes, int currentLeaderEpoch, int lastFetchedEpoch) {

    /** A consumer's request, which names no last fetched epoch. */
    public FetchPartitionRequest(long fetchOffset, int maxBytes, int currentLeaderEpoch) {
        this(fetchOffset, maxBytes, currentLeaderEpoch, -1);
    }
}
