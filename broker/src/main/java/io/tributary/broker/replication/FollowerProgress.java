package io.tributary.broker.replication;

/**
 * What a leader knows of one follower of a partition, from the follower's fetches: its log end offset, when it last
 * had everything the leader had, and the broker epoch its fetches carry. Decides, without I/O, how long the follower
 * has not been caught up, which is what takes it out of the ISR after {@code replica.lag.time.max.ms} (Kafka's
 * {@code lastCaughtUpTimeMs} rule).
 *
 * <p>Not thread-safe: a {@link Partition} holds one per follower while it leads and reads and changes it only under
 * its monitor.
 */
final class FollowerProgress {

    /** The follower's log end offset as its last fetch reported it; -1 until it fetched in this term. */
    long logEndOffset = -1L;
    /** When the follower last had everything the leader had (its fetch offset reached the leader's LEO). */
    long lastCaughtUpMs;
    /** The leader's LEO and the time at the follower's previous fetch. */
    private long previousFetchLeaderLeo = -1L;
    private long previousFetchMs;
    /** The broker epoch its fetches carry (Fetch v15+), -1 when unknown. */
    long brokerEpoch = -1L;

    /**
     * Records a fetch at {@code fetchOffset} while the leader's log ended at {@code leaderLeo}. The follower counts as
     * caught up now if it asked for the leader's end, or as of its previous fetch if it now has everything the leader
     * had then.
     *
     * @param replicaEpoch the follower's broker epoch (-1 when the request is older than Fetch v15)
     */
    void onFetch(long replicaEpoch, long fetchOffset, long leaderLeo, long nowMs) {
        if (replicaEpoch >= 0 && brokerEpoch != replicaEpoch) {
            // A new run of the follower: what was known of the old one does not hold.
            brokerEpoch = replicaEpoch;
            previousFetchLeaderLeo = -1L;
        }
        if (fetchOffset >= leaderLeo) {
            lastCaughtUpMs = nowMs;
        } else if (previousFetchLeaderLeo >= 0 && fetchOffset >= previousFetchLeaderLeo) {
            lastCaughtUpMs = Math.max(lastCaughtUpMs, previousFetchMs);
        }
        previousFetchLeaderLeo = leaderLeo;
        previousFetchMs = nowMs;
        logEndOffset = Math.min(fetchOffset, leaderLeo);
    }

    /** Whether the follower has not been caught up for longer than {@code lagMaxMs}. */
    boolean laggingLongerThan(long nowMs, long lagMaxMs) {
        return nowMs - lastCaughtUpMs > lagMaxMs;
    }
}
