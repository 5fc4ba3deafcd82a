package io.tributary.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import io.tributary.broker.group.OffsetsTopicFormat.GroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.GroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetKey;
import io.tributary.broker.group.OffsetsTopicFormat.OffsetValue;
import io.tributary.broker.group.OffsetsTopicFormat.ShareGroupKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareGroupValue;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsKey;
import io.tributary.broker.group.OffsetsTopicFormat.ShareStatePartitionsValue;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Replaying a {@code __consumer_offsets} partition built by hand, batch by batch at explicit log offsets: plain
 * commits, transactional commits of several producers, their COMMIT and ABORT markers, tombstones, and transactions
 * still open at the end of the log.
 */
class OffsetsPartitionReplayTest {

    private static final TopicPartition OFFSETS = new TopicPartition(GroupConfig.OFFSETS_TOPIC, 0);
    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);
    private static final long P1 = 1000L;
    private static final long P2 = 2000L;
    private static final short EPOCH = 0;

    private final OffsetsPartitionReplay replay = new OffsetsPartitionReplay(OFFSETS);

    private static SimpleRecord offsetRecord(String group, TopicPartition tp, long offset) {
        return new SimpleRecord(1L, OffsetsTopicFormat.serializeKey(new OffsetKey(group, tp.topic(), tp.partition())),
                OffsetsTopicFormat.serializeOffsetValue(new OffsetValue(offset, 2, "m", 1L, -1L)));
    }

    private static SimpleRecord tombstone(String group, TopicPartition tp) {
        return OffsetsTopicWriter.offsetTombstone(1L, group, tp);
    }

    private void plain(long at, SimpleRecord... records) {
        feed(MemoryRecords.withRecords(at, Compression.NONE, records));
    }

    private void transactional(long at, long producerId, SimpleRecord... records) {
        feed(MemoryRecords.withTransactionalRecords(at, Compression.NONE, producerId, EPOCH, 0, 0, records));
    }

    private void marker(long at, long producerId, ControlRecordType type) {
        feed(MemoryRecords.withEndTransactionMarker(at, 1L, 0, producerId, EPOCH,
                new EndTransactionMarker(type, 0)));
    }

    private void feed(MemoryRecords records) {
        for (RecordBatch batch : records.batches()) {
            replay.replay(batch);
        }
    }

    private Long committed(String group, TopicPartition tp) {
        CommittedOffset offset = replay.offsets(group).get(tp);
        return offset == null ? null : offset.offset();
    }

    @Test
    void aCommittedTransactionsOffsetsAreCommittedAnAbortedOnesAreNot() {
        plain(0, offsetRecord("g", T0, 5), offsetRecord("g", T1, 5));
        transactional(2, P1, offsetRecord("g", T0, 10));
        transactional(3, P2, offsetRecord("g", T1, 20));
        marker(4, P2, ControlRecordType.ABORT);
        marker(5, P1, ControlRecordType.COMMIT);

        assertEquals(10L, committed("g", T0));
        assertEquals(5L, committed("g", T1), "the aborted transaction left the plain commit");
        assertNull(replay.pending("g"));
        assertEquals(2, replay.offsets("g").get(T0).recordOffset(), "the committed record's log position");
    }

    @Test
    void transactionsOpenAtTheEndOfTheLogStayPending() {
        plain(0, offsetRecord("g", T0, 5));
        transactional(1, P1, offsetRecord("g", T0, 10), offsetRecord("g", T1, 11));

        assertEquals(5L, committed("g", T0));
        assertNull(committed("g", T1));
        PendingTxnOffsets pending = replay.pending("g");
        assertNotNull(pending);
        assertTrue(pending.hasProducer(P1));
        assertEquals(Set.of(T0, T1), pending.partitions());
    }

    @Test
    void aGroupKnownOnlyByPendingOffsetsIsLoaded() {
        transactional(0, P1, offsetRecord("txn-only", T0, 10));

        assertEquals(Set.of("txn-only"), replay.groupIds());
        assertTrue(replay.offsets("txn-only").isEmpty());
    }

    @Test
    void aPlainCommitWrittenBetweenTheTransactionalCommitAndItsMarkerWins() {
        transactional(0, P1, offsetRecord("g", T0, 10));
        plain(1, offsetRecord("g", T0, 12));
        marker(2, P1, ControlRecordType.COMMIT);

        assertEquals(12L, committed("g", T0));
    }

    @Test
    void aTombstoneAfterTheTransactionalCommitKeepsTheMarkerFromBringingItBack() {
        plain(0, offsetRecord("g", T0, 5));
        transactional(1, P1, offsetRecord("g", T0, 10), offsetRecord("g", T1, 11));
        plain(3, tombstone("g", T0));
        marker(4, P1, ControlRecordType.COMMIT);

        assertNull(committed("g", T0));
        assertEquals(11L, committed("g", T1));
    }

    @Test
    void aMarkerEndsOnlyItsOwnProducersTransactionAcrossGroups() {
        transactional(0, P1, offsetRecord("a", T0, 10));
        transactional(1, P1, offsetRecord("b", T0, 20));
        transactional(2, P2, offsetRecord("a", T1, 30));
        marker(3, P1, ControlRecordType.COMMIT);

        assertEquals(10L, committed("a", T0));
        assertEquals(20L, committed("b", T0));
        assertNull(committed("a", T1));
        assertTrue(replay.pending("a").hasProducer(P2));
        assertNull(replay.pending("b"));
    }

    @Test
    void aProducersNextTransactionAfterItsMarkerIsPendingAgain() {
        transactional(0, P1, offsetRecord("g", T0, 10));
        marker(1, P1, ControlRecordType.COMMIT);
        transactional(2, P1, offsetRecord("g", T0, 20));

        assertEquals(10L, committed("g", T0));
        assertTrue(replay.pending("g").contains(T0));

        marker(3, P1, ControlRecordType.ABORT);
        assertEquals(10L, committed("g", T0));
        assertNull(replay.pending("g"));
    }

    @Test
    void groupMetadataAndItsTombstoneAreReplayedAsBefore() {
        GroupValue value = new GroupValue("consumer", 3, "range", "m-1", 7L, List.of());
        plain(0, new SimpleRecord(1L, OffsetsTopicFormat.serializeKey(new GroupKey("g")),
                OffsetsTopicFormat.serializeGroupValue(value)), offsetRecord("g", T0, 5));
        assertEquals(3, replay.groupValue("g").generation());

        plain(2, OffsetsTopicWriter.groupTombstone(1L, "g"), tombstone("g", T0));
        assertNull(replay.groupValue("g"));
        assertFalse(replay.groupIds().contains("g"));
        assertEquals(Map.of(), replay.offsets("g"));
        assertEquals(4, replay.recordCount());
    }

    private static SimpleRecord shareGroupRecord(String group, int epoch) {
        return new SimpleRecord(1L, OffsetsTopicFormat.serializeKey(new ShareGroupKey(group)),
                OffsetsTopicFormat.serializeShareGroupValue(new ShareGroupValue(epoch)));
    }

    @Test
    void aShareGroupComesBackAtItsLastEpochAndATombstoneDeletesIt() {
        plain(0, shareGroupRecord("share-a", 1), shareGroupRecord("share-b", 1));
        plain(2, shareGroupRecord("share-a", 4));
        plain(3, new SimpleRecord(1L, OffsetsTopicFormat.serializeKey(new ShareGroupKey("share-b")), null));

        assertEquals(Map.of("share-a", 4), replay.shareGroupEpochs());
    }

    @Test
    void aShareGroupsPartitionsWithStateAreTheLastStoredAndATombstoneForgetsThem() {
        Uuid topicId = new Uuid(3L, 4L);
        Function<List<Integer>, SimpleRecord> states = partitions -> new SimpleRecord(1L,
                OffsetsTopicFormat.serializeKey(new ShareStatePartitionsKey("share-a")),
                OffsetsTopicFormat.serializeShareStatePartitionsValue(new ShareStatePartitionsValue(
                        Map.of(topicId, new ShareGroup.StateTopic("orders", new TreeSet<>(partitions))))));
        plain(0, shareGroupRecord("share-a", 1), states.apply(List.of(0)));
        plain(2, states.apply(List.of(0, 1)));
        assertEquals(Map.of(topicId, new ShareGroup.StateTopic("orders", new TreeSet<>(List.of(0, 1)))),
                replay.shareStateTopics("share-a"));
        plain(3, new SimpleRecord(1L, OffsetsTopicFormat.serializeKey(
                new ShareStatePartitionsKey("share-a")), null));
        assertEquals(Map.of(), replay.shareStateTopics("share-a"));
        assertEquals(Map.of("share-a", 1), replay.shareGroupEpochs(), "the group itself stays");
    }

    @Test
    void shareGroupRecordsUseKafkasKeyVersionElevenAndFlexibleValueVersionZero() {
        byte[] key = OffsetsTopicFormat.serializeKey(new ShareGroupKey("g"));
        byte[] value = OffsetsTopicFormat.serializeShareGroupValue(new ShareGroupValue(7));

        // key: int16 version 11, int16 length 1, "g"; value: int16 version 0, int32 epoch, no tagged fields (0)
        assertArrayEquals(new byte[] {0, 11, 0, 1, 'g'}, key);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 7, 0}, value);
        assertEquals(new ShareGroupKey("g"), OffsetsTopicFormat.deserializeKey(java.nio.ByteBuffer.wrap(key)).get());
        assertEquals(new ShareGroupValue(7),
                OffsetsTopicFormat.deserializeShareGroupValue(java.nio.ByteBuffer.wrap(value)));
    }
}
