package io.tributary.jms;

/**
 * How a transacted session's commit is written, decided from what it holds: a commit that is a single write needs no
 * Kafka transaction, as that write is all or nothing by itself; anything more is one Kafka transaction
 * ({@link KafkaTransaction}).
 *
 * <p>Immutable; any thread.
 */
enum CommitKind {
    /** No send, and the offsets of at most one group-backed consumer: one offset commit (or nothing). */
    OFFSETS,
    /** One send and no group offsets: one record through the connection's idempotent producer. */
    SINGLE_SEND,
    /** More sends, or sends and group offsets, or the offsets of several consumers: one Kafka transaction. */
    TRANSACTION;

    /**
     * @param sends        the transaction's held sends
     * @param groupCommits the session's consumers with a group that delivered something since the last commit (each
     *                     is a member of its own, so two of them are two offset commits even for one group)
     */
    static CommitKind of(int sends, int groupCommits) {
        if (sends == 0 && groupCommits <= 1) {
            return OFFSETS;
        }
        if (sends == 1 && groupCommits == 0) {
            return SINGLE_SEND;
        }
        return TRANSACTION;
    }
}
