package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Which commits of a transacted session need a Kafka transaction; no broker needed. */
class CommitKindTest {

    @Test
    void aCommitWithoutSendsOfAtMostOneConsumersOffsetsIsOneOffsetCommit() {
        assertEquals(CommitKind.OFFSETS, CommitKind.of(0, 0));
        assertEquals(CommitKind.OFFSETS, CommitKind.of(0, 1));
    }

    @Test
    void aCommitOfOneSendAndNoGroupOffsetsIsOneRecord() {
        assertEquals(CommitKind.SINGLE_SEND, CommitKind.of(1, 0));
    }

    @Test
    void anythingMoreIsOneKafkaTransaction() {
        assertEquals(CommitKind.TRANSACTION, CommitKind.of(2, 0), "two records");
        assertEquals(CommitKind.TRANSACTION, CommitKind.of(1, 1), "a record and offsets");
        assertEquals(CommitKind.TRANSACTION, CommitKind.of(0, 2), "two consumers' offset commits");
        assertEquals(CommitKind.TRANSACTION, CommitKind.of(100, 3));
    }
}
