package io.tributary.broker.replication;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.LeaderAndIsr;
import io.tributary.broker.storage.LeaderEpochCache;
import io.tributary.broker.storage.LoadState;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogEnvironment;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import io.tributary.broker.storage.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication rules of one partition, on a real log and an injected clock, with the ISR writer and the cluster
 * registry replaced by recorders: high watermark over the maximal ISR, acks=all completion, ISR shrink and expansion,
 * a rejected ISR write, leadership from a previous run, and the follower's truncation and appends.
 */
class PartitionTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int ME = 1;
    private static final long MY_EPOCH = 100;
    private static final long LAG_MS = 10_000;

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime();
    private final List<LeaderAndIsr> proposals = new ArrayList<>();
    private final Map<Integer, Long> registered = new java.util.HashMap<>(Map.of(1, MY_EPOCH, 2, 200L, 3, 300L));
    private PartitionLog log;
    private Partition partition;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Partition partition(Map<String, Object> logConfig) throws Exception {
        log = PartitionLog.open(dir.resolve("t-0"), TP, LogConfig.parse(logConfig), LoadState.UNKNOWN,
                LogEnvironment.inline(time));
        ReplicaRegistry registry = new ReplicaRegistry() {
            @Override
            public Optional<BrokerInfo> broker(int brokerId) {
                Long epoch = registered.get(brokerId);
                return epoch == null ? Optional.empty()
                        : Optional.of(new BrokerInfo(brokerId, "127.0.0.1", 9000 + brokerId, null, List.of(), epoch));
            }

            @Override
            public boolean isEligible(int brokerId) {
                return registered.containsKey(brokerId);
            }
        };
        partition = new Partition(TP, Uuid.randomUuid(), ME, log, state(0, 0, List.of(1, 2, 3), 0), registry,
                (p, proposed, version) -> proposals.add(proposed), () -> { });
        return partition;
    }

    /** A state written after every broker's registration, recording their epochs. */
    private Partition.State state(int leader, int leaderEpoch, List<Integer> isr, int zkVersion) {
        Map<Integer, Long> epochs = new java.util.HashMap<>();
        isr.forEach(member -> epochs.put(member, registered.get(member)));
        return new Partition.State(leader, leaderEpoch, List.of(1, 2, 3), isr, epochs, zkVersion, 1_000, 1);
    }

    private static MemoryRecords records(String... values) {
        SimpleRecord[] simple = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            simple[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, simple);
    }

    private static MemoryRecords leaderBatch(long baseOffset, int leaderEpoch, String... values) {
        SimpleRecord[] simple = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            simple[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, leaderEpoch, simple);
    }

    private void lead(List<Integer> isr) {
        partition.applyState(partition.topicId(), state(ME, 1, isr, 1), MY_EPOCH, time.milliseconds());
        assertTrue(partition.isLeader());
    }

    @Test
    void highWatermarkIsTheSmallestLogEndOffsetInTheIsrAndAcksAllWaitsForIt() throws Exception {
        partition(Map.of(LogConfig.MIN_INSYNC_REPLICAS, 2));
        lead(List.of(1, 2, 3));
        partition.appendAsLeader(records("a", "b", "c"), (short) -1);
        CompletableFuture<Void> ack = partition.awaitHighWatermark(3);
        assertEquals(0, log.highWatermark(), "no follower has fetched yet");

        partition.onFollowerFetch(2, 200, 3, 1, time.milliseconds());
        assertEquals(0, log.highWatermark(), "follower 3 has not fetched: it may lack the records");
        assertFalse(ack.isDone());
        partition.onFollowerFetch(3, 300, 2, 1, time.milliseconds());
        assertEquals(2, log.highWatermark());
        assertFalse(ack.isDone());
        partition.onFollowerFetch(3, 300, 3, 1, time.milliseconds());
        assertEquals(3, log.highWatermark());
        assertTrue(ack.isDone() && !ack.isCompletedExceptionally());
    }

    @Test
    void aFollowerBehindForTheLagTimeIsProposedForRemovalAndTheHighWatermarkWaitsUntilTheWriteSucceeded()
            throws Exception {
        partition(Map.of());
        lead(List.of(1, 2, 3));
        partition.appendAsLeader(records("a", "b"), (short) -1);
        partition.onFollowerFetch(2, 200, 2, 1, time.milliseconds());
        partition.onFollowerFetch(3, 300, 0, 1, time.milliseconds());
        time.sleep(LAG_MS + 1);
        partition.onFollowerFetch(2, 200, 2, 1, time.milliseconds());
        partition.maybeShrinkIsr(time.milliseconds(), LAG_MS);
        assertEquals(List.of(1, 2), proposals.get(0).isr());
        assertEquals(0, log.highWatermark(), "broker 3 counts until the shrink is written");

        partition.onIsrChangeCommitted(proposals.get(0), 2, 2_000);
        assertEquals(List.of(1, 2), partition.state().isr());
        assertEquals(2, log.highWatermark());
    }

    @Test
    void anAcksAllWriteCompletesWithNotEnoughReplicasAfterAppendWhenTheIsrShrankBelowTheMinimum() throws Exception {
        partition(Map.of(LogConfig.MIN_INSYNC_REPLICAS, 2));
        lead(List.of(1, 2));
        partition.appendAsLeader(records("a"), (short) -1);
        CompletableFuture<Void> ack = partition.awaitHighWatermark(1);
        // The controller takes the dead follower out of the ISR.
        partition.applyState(partition.topicId(), state(ME, 1, List.of(1), 2), MY_EPOCH, time.milliseconds());
        ExecutionException failure = assertThrows(ExecutionException.class, ack::get);
        assertInstanceOf(NotEnoughReplicasAfterAppendException.class, failure.getCause());
    }

    @Test
    void theControllerTakingADeadFollowerOutOfTheIsrCompletesTheWritesWaitingForIt() throws Exception {
        partition(Map.of(LogConfig.MIN_INSYNC_REPLICAS, 2));
        lead(List.of(1, 2, 3));
        partition.appendAsLeader(records("a", "b"), (short) -1);
        CompletableFuture<Void> ack = partition.awaitHighWatermark(2);
        partition.onFollowerFetch(2, 200, 2, 1, time.milliseconds());
        assertFalse(ack.isDone(), "broker 3 has not fetched");
        partition.applyState(partition.topicId(), state(ME, 1, List.of(1, 2), 2), MY_EPOCH, time.milliseconds());
        assertEquals(2, log.highWatermark());
        assertTrue(ack.isDone() && !ack.isCompletedExceptionally(), "completed, not left to time out");
    }

    @Test
    void aCaughtUpFollowerOfItsCurrentRunIsProposedForTheIsrWithItsEpoch() throws Exception {
        partition(Map.of());
        lead(List.of(1, 2));
        partition.appendAsLeader(records("a", "b"), (short) 1);
        partition.onFollowerFetch(2, 200, 2, 1, time.milliseconds());
        partition.onFollowerFetch(3, 299, 2, 1, time.milliseconds());
        assertTrue(proposals.isEmpty(), "fetches of another run than the registered one do not count");
        partition.onFollowerFetch(3, 300, 2, 1, time.milliseconds());
        assertEquals(List.of(1, 2, 3), proposals.get(0).isr());
        assertEquals(300L, proposals.get(0).isrEpochs().get(3));
    }

    @Test
    void aRejectedIsrWriteOfAnotherLeadershipEndsThisLeadershipAndFailsItsWaiters() throws Exception {
        partition(Map.of());
        lead(List.of(1, 2, 3));
        partition.appendAsLeader(records("a"), (short) -1);
        CompletableFuture<Void> ack = partition.awaitHighWatermark(1);
        time.sleep(LAG_MS + 1);
        partition.maybeShrinkIsr(time.milliseconds(), LAG_MS);
        partition.onIsrChangeRejected(proposals.get(0), Optional.of(state(2, 2, List.of(2, 3), 5)));
        assertFalse(partition.isLeader());
        ExecutionException failure = assertThrows(ExecutionException.class, ack::get);
        assertInstanceOf(NotLeaderOrFollowerException.class, failure.getCause());
        assertThrows(NotLeaderOrFollowerException.class, () -> partition.appendAsLeader(records("b"), (short) 1));
    }

    @Test
    void aLeadershipRecordedForAnEarlierRunOfThisBrokerIsNotTakenUp() throws Exception {
        partition(Map.of());
        Partition.State old = new Partition.State(ME, 4, List.of(1, 2, 3), List.of(1, 2), Map.of(1, 42L, 2, 200L),
                3, 1_000, 1);
        partition.applyState(partition.topicId(), old, MY_EPOCH, time.milliseconds());
        assertEquals(Partition.Role.NONE, partition.role());
        partition.applyState(partition.topicId(), state(ME, 5, List.of(1, 2), 4), MY_EPOCH, time.milliseconds());
        assertEquals(Partition.Role.LEADER, partition.role());
        partition.applyState(partition.topicId(), state(ME, 5, List.of(1, 2), 4), BrokerInfo.NO_EPOCH,
                time.milliseconds());
        assertEquals(Partition.Role.NONE, partition.role(), "without a registration nothing is led");
    }

    @Test
    void aLeaderThatWroteNothingInItsEpochDropsThatEpochWhenItFollowsAgain() throws Exception {
        partition(Map.of());
        partition.applyState(partition.topicId(), state(2, 1, List.of(1, 2, 3), 1), MY_EPOCH, time.milliseconds());
        assertTrue(partition.appendAsFollower(1, leaderBatch(0, 1, "a", "b")));
        partition.applyState(partition.topicId(), state(ME, 2, List.of(1, 2, 3), 2), MY_EPOCH, time.milliseconds());
        assertEquals(2, log.leaderEpochCache().latestEpoch().getAsInt(), "epoch 2 starts at offset 2, empty");
        partition.applyState(partition.topicId(), state(3, 3, List.of(1, 2, 3), 3), MY_EPOCH, time.milliseconds());
        // Leader 3 never saw epoch 2: its epoch 1 ends where its epoch 3 starts, at offset 2.
        assertTrue(partition.truncateDivergence(3, 1, 2));
        assertEquals(1, log.leaderEpochCache().latestEpoch().getAsInt());
        assertEquals(2, log.logEndOffset(), "no record was lost");
        assertFalse(partition.truncateDivergence(3, 1, 2), "a second answer finds nothing more to do");
    }

    @Test
    void aFollowerTruncatesTheSuffixTheNewLeaderDoesNotHave() throws Exception {
        partition(Map.of());
        partition.applyState(partition.topicId(), state(2, 1, List.of(1, 2, 3), 1), MY_EPOCH, time.milliseconds());
        partition.appendAsFollower(1, leaderBatch(0, 1, "a", "b"));
        partition.appendAsFollower(1, leaderBatch(2, 1, "c"));
        partition.applyState(partition.topicId(), state(3, 2, List.of(1, 3), 2), MY_EPOCH, time.milliseconds());
        // The new leader's epoch 1 ended at offset 2: offset 2 ("c") diverges.
        assertTrue(partition.truncateDivergence(2, 1, 2));
        assertEquals(2, log.logEndOffset());
        LeaderEpochCache.EpochEndOffset end = log.leaderEpochCache().endOffsetFor(1, log.logEndOffset());
        assertEquals(2, end.endOffset());
    }

    @Test
    void aLeaderBatchStraddlingTheLogEndReplacesTheLocalRecordsFromItsBase() throws Exception {
        partition(Map.of());
        partition.applyState(partition.topicId(), state(2, 1, List.of(1, 2, 3), 1), MY_EPOCH, time.milliseconds());
        partition.appendAsFollower(1, leaderBatch(0, 1, "a", "b"));
        partition.appendAsFollower(1, leaderBatch(2, 1, "x"));
        // The leader's log has one batch 2..4 where this one has offset 2 alone.
        assertTrue(partition.appendAsFollower(1, leaderBatch(2, 1, "c", "d", "e")));
        assertEquals(5, log.logEndOffset());
        assertFalse(partition.appendAsFollower(7, leaderBatch(5, 1, "f")), "another term's answer is ignored");
    }
}
