package io.tributary.broker.group;

/**
 * An offset committed for one partition by a group.
 *
 * @param offset           the next offset the group will consume
 * @param leaderEpoch      the leader epoch of the last consumed record, or -1
 * @param metadata         the client's metadata string (never null)
 * @param commitTimestamp  when the coordinator accepted the commit (epoch milliseconds)
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestamp) {
}
