package io.tributary.broker.group;

/**
 * An offset committed for one partition by a group.
 *
 * @param offset           the next offset the group will consume
 * @param leaderEpoch      the leader epoch of the last consumed record, or -1
 * @param metadata         the client's metadata string (never null)
 * @param commitTimestamp  when the coordinator accepted the commit (epoch milliseconds)
 * @param recordOffset     the offset of the record that holds this commit in {@code __consumer_offsets}: of two
 *                         commits of one partition the later record wins, also when a transactional commit
 *                         becomes visible only after a plain commit written after it
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestamp,
                              long recordOffset) {

    /** Whether this commit's record comes after {@code other}'s in the log (a missing other is older). */
    boolean isNewerThan(CommittedOffset other) {
        return other == null || recordOffset > other.recordOffset;
    }
}
