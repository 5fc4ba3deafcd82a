package io.tributary.broker.replication;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.testsupport.Waits;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplicaManagerTest {

    private static final int BROKER = 1;
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final FetchParams CONSUMER_NO_WAIT = new FetchParams(-1, -1L, 0, 1, 1 << 20,
            IsolationLevel.READ_UNCOMMITTED);

    @TempDir
    Path dir;

    private LogManager logManager;
    private ReplicaManager replicaManager;

    @BeforeEach
    void start() throws Exception {
        logManager = new LogManager(LogManager.Config.defaults(List.of(dir)), Time.SYSTEM);
        logManager.startup(topic -> LogConfig.defaults());
        replicaManager = new ReplicaManager(BROKER, logManager, Time.SYSTEM);
    }

    @AfterEach
    void stop() {
        replicaManager.close();
        logManager.close();
    }

    private void lead(TopicPartition tp, int epoch) {
        replicaManager.applyPartitionState(tp, Uuid.randomUuid(),
                new Partition.State(BROKER, epoch, List.of(BROKER), Set.of(BROKER)), LogConfig.defaults());
    }

    private static MemoryRecords records(String... values) {
        SimpleRecord[] simple = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            simple[i] = new SimpleRecord(System.currentTimeMillis(), ("k" + i).getBytes(StandardCharsets.UTF_8),
                    values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, simple);
    }

    private ProduceResult produce(TopicPartition tp, short acks, String... values) throws Exception {
        return replicaManager.appendRecords(Map.of(tp, records(values)), acks, 5_000)
                .get(10, TimeUnit.SECONDS).get(tp);
    }

    /** A fetch of {@code TP} from offset 0 that waits up to 30 s for one byte. */
    private CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> longPollFromOffsetZero() {
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, -1));
        return replicaManager.fetch(new FetchParams(-1, -1L, 30_000, 1, 1 << 20, IsolationLevel.READ_UNCOMMITTED),
                request);
    }

    private static List<String> values(FetchPartitionResult result) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : result.records().batches()) {
            for (Record record : batch) {
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return values;
    }

    private FetchPartitionResult fetchNow(TopicPartition tp, long offset) throws Exception {
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(tp, new FetchPartitionRequest(offset, 1 << 20, -1));
        return replicaManager.fetch(CONSUMER_NO_WAIT, request).get(10, TimeUnit.SECONDS).get(tp);
    }

    @Test
    void aTopicsMetersAndLogGaugesLeaveWhenThisBrokerNoLongerLeadsOrHostsIt() throws Exception {
        BrokerMetrics metrics = BrokerMetrics.detached();
        ReplicaManager manager = new ReplicaManager(BROKER, logManager, ReplicationConfig.defaults(),
                new ReplicaRegistry() {
                    @Override
                    public java.util.Optional<io.tributary.broker.cluster.BrokerInfo> broker(int brokerId) {
                        return java.util.Optional.empty();
                    }

                    @Override
                    public boolean isEligible(int brokerId) {
                        return true;
                    }
                }, (partition, proposed, version) -> { }, Time.SYSTEM, metrics);
        try {
            manager.onBrokerEpoch(0L);
            TopicPartition tp = new TopicPartition("moving", 0);
            String topicMeter = "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=moving";
            String logGauge = "kafka.log:type=Log,name=LogEndOffset,topic=moving,partition=0";
            manager.applyPartitionState(tp, Uuid.randomUuid(),
                    new Partition.State(BROKER, 0, List.of(BROKER, 2), Set.of(BROKER, 2)), LogConfig.defaults());
            assertTrue(manager.partition(tp).orElseThrow().isLeader());
            manager.appendRecords(Map.of(tp, records("a")), (short) 1, 5_000).get(10, TimeUnit.SECONDS);
            assertTrue(metrics.names().contains(topicMeter));
            assertTrue(metrics.names().contains(logGauge));

            // Broker 2 leads now: the topic's meters go, the partition's log gauges stay while it is hosted here.
            manager.applyPartitionState(tp, Uuid.randomUuid(),
                    new Partition.State(2, 1, List.of(BROKER, 2), Set.of(BROKER, 2)), LogConfig.defaults());
            assertFalse(manager.partition(tp).orElseThrow().isLeader());
            assertFalse(metrics.names().contains(topicMeter));
            assertTrue(metrics.names().contains(logGauge));

            manager.stopReplica(tp, true);
            assertFalse(metrics.names().contains(logGauge));
            assertTrue(metrics.names().contains("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"));
        } finally {
            manager.close();
        }
    }

    @Test
    void aFailedLogDirectoryEndsTheLeadershipOfItsPartitionsAndTheyAnswerKafkaStorageError() throws Exception {
        lead(TP, 0);
        assertEquals(Errors.NONE, produce(TP, (short) 1, "a").error());
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> parked = fetchFrom(TP, 1, 30_000);
        Path partitionDir = replicaManager.partition(TP).orElseThrow().log().dir();

        try (var files = java.nio.file.Files.walk(partitionDir)) { // the disk under the partition is gone
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(file);
            }
        }
        assertThrows(org.apache.kafka.common.errors.KafkaStorageException.class,
                () -> replicaManager.partition(TP).orElseThrow().log().roll());

        Waits.await().untilAsserted(() -> assertTrue(() -> replicaManager.partition(TP).isEmpty(),
                () -> "the replica given up"));
        assertEquals(Set.of(TP), replicaManager.offlinePartitions());
        assertEquals(Errors.KAFKA_STORAGE_ERROR, parked.get(10, TimeUnit.SECONDS).get(TP).error(),
                "a parked long poll is answered at once");
        assertEquals(Errors.KAFKA_STORAGE_ERROR, produce(TP, (short) 1, "b").error());
        assertEquals(Errors.KAFKA_STORAGE_ERROR, fetchNow(TP, 0).error());
        lead(TP, 1);
        assertTrue(replicaManager.partition(TP).isEmpty(), "a later state does not bring an empty log back");
    }

    private CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> fetchFrom(TopicPartition tp,
                                                                                             long offset,
                                                                                             int maxWaitMs) {
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(tp, new FetchPartitionRequest(offset, 1 << 20, -1));
        return replicaManager.fetch(new FetchParams(-1, -1L, maxWaitMs, 1, 1 << 20,
                IsolationLevel.READ_UNCOMMITTED), request);
    }

    @Test
    void acksAllOnALeaderAloneInTheIsrIsAnsweredWithDenseOffsetsAndReadable() throws Exception {
        lead(TP, 0);
        ProduceResult first = produce(TP, (short) -1, "a", "b");
        ProduceResult second = produce(TP, (short) 1, "c");
        assertEquals(Errors.NONE, first.error());
        assertEquals(0L, first.baseOffset());
        assertEquals(2L, second.baseOffset());
        FetchPartitionResult fetched = fetchNow(TP, 0);
        assertEquals(Errors.NONE, fetched.error());
        assertEquals(3L, fetched.highWatermark());
        assertEquals(List.of("a", "b", "c"), values(fetched));
        assertEquals(List.of("c"), values(fetchNow(TP, 2)));
    }

    @Test
    void produceToAPartitionThisBrokerDoesNotLeadFails() throws Exception {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, produce(TP, (short) 1, "x").error());
        replicaManager.applyPartitionState(TP, Uuid.randomUuid(),
                new Partition.State(2, 0, List.of(2, BROKER), Set.of(2, BROKER)), LogConfig.defaults());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, produce(TP, (short) 1, "x").error());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, fetchNow(TP, 0).error());
    }

    @Test
    void acksAllIsRefusedWhenTheIsrIsSmallerThanTheTopicsMinInsyncReplicas() throws Exception {
        replicaManager.applyPartitionState(TP, Uuid.randomUuid(),
                new Partition.State(BROKER, 0, List.of(BROKER), Set.of(BROKER)),
                LogConfig.parse(Map.of(LogConfig.MIN_INSYNC_REPLICAS, 2)));
        ProduceResult result = replicaManager.appendRecords(Map.of(TP, records("x")), (short) -1, 5_000)
                .get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, result.error());
        assertEquals(0L, replicaManager.partition(TP).orElseThrow().log().logEndOffset(), "nothing written");
    }

    @Test
    void acksAllWaitingForFollowersTimesOut() throws Exception {
        replicaManager.applyPartitionState(TP, Uuid.randomUuid(),
                new Partition.State(BROKER, 0, List.of(BROKER, 2), Set.of(BROKER, 2)), LogConfig.defaults());
        ProduceResult result = replicaManager.appendRecords(Map.of(TP, records("x")), (short) -1, 200)
                .get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.REQUEST_TIMED_OUT, result.error());
    }

    @Test
    void aParkedFetchIsAnsweredAtOnceWhenItsPartitionChangesLeader() throws Exception {
        replicaManager.applyPartitionState(TP, Uuid.randomUuid(),
                new Partition.State(BROKER, 0, List.of(BROKER, 2), Set.of(BROKER, 2)), LogConfig.defaults());
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, -1));
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> parked = replicaManager.fetch(
                new FetchParams(-1, -1L, 60_000, 1, 1 << 20, IsolationLevel.READ_UNCOMMITTED), request);
        assertFalse(parked.isDone(), "nothing to read: the fetch waits");
        replicaManager.applyPartitionState(TP, Uuid.randomUuid(),
                new Partition.State(2, 1, List.of(BROKER, 2), Set.of(BROKER, 2)), LogConfig.defaults());
        // Long before its 60 s wait: the move answers it.
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, parked.get(10, TimeUnit.SECONDS).get(TP).error());
    }

    @Test
    void longPollFetchIsAnsweredWhenDataArrives() throws Exception {
        lead(TP, 0);
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> pending = longPollFromOffsetZero();
        assertFalse(pending.isDone(), "nothing to read yet: the fetch waits");
        produce(TP, (short) 1, "late");
        FetchPartitionResult result = pending.get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(List.of("late"), values(result));
    }

    @Test
    void theAppendThatSatisfiesAWaitingFetchCompletesItOnItsOwnThread() throws Exception {
        // No hand-off to another thread on the way from a producer's append to a waiting consumer's response.
        lead(TP, 0);
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> pending = longPollFromOffsetZero();
        AtomicReference<Thread> completedOn = new AtomicReference<>();
        pending.whenComplete((result, failure) -> completedOn.set(Thread.currentThread()));
        assertFalse(pending.isDone(), "nothing to read yet: the fetch waits");
        replicaManager.appendRecords(Map.of(TP, records("now")), (short) 1, 5_000);
        assertTrue(pending.isDone(), "complete when the append returns");
        assertEquals(Thread.currentThread(), completedOn.get());
        assertEquals(List.of("now"), values(pending.get().get(TP)));
    }

    @Test
    void aCancelledParkedFetchLeavesItsPartitionAndDeadline() throws Exception {
        lead(TP, 1);
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> parked = fetchFrom(TP, 0, 30_000);
        assertFalse(parked.isDone(), "nothing to read: the fetch waits");
        assertEquals(1, replicaManager.parkedFetchCount());
        parked.cancel(false);
        assertEquals(0, replicaManager.parkedFetchCount(), "cancelled: no longer parked until its deadline");
    }

    @Test
    void longPollFetchWithoutDataIsAnsweredEmptyAtItsDeadline() throws Exception {
        lead(TP, 0);
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, -1));
        FetchPartitionResult result = replicaManager.fetch(
                        new FetchParams(-1, -1L, 100, 1, 1 << 20, IsolationLevel.READ_UNCOMMITTED), request)
                .get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, result.error());
        assertEquals(0, result.records().sizeInBytes());
    }

    @Test
    void aShortWaitRegisteredAfterALongOneIsAnsweredAtItsOwnDeadline() throws Exception {
        // The deadlines are swept by one task for the earliest: a later, shorter wait must bring that task forward.
        lead(TP, 0);
        CompletableFuture<LinkedHashMap<TopicPartition, FetchPartitionResult>> longWait = longPollFromOffsetZero();
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, -1));
        FetchPartitionResult shortWait = replicaManager.fetch(
                        new FetchParams(-1, -1L, 100, 1, 1 << 20, IsolationLevel.READ_UNCOMMITTED), request)
                .get(10, TimeUnit.SECONDS).get(TP);
        assertEquals(0, shortWait.records().sizeInBytes(), "answered empty at its 100 ms deadline");
        assertFalse(longWait.isDone(), "the 30 s fetch still waits");
        produce(TP, (short) 1, "late");
        assertEquals(List.of("late"), values(longWait.get(10, TimeUnit.SECONDS).get(TP)));
    }

    @Test
    void fetchOutOfRangeReportsTheLogBounds() throws Exception {
        lead(TP, 0);
        produce(TP, (short) 1, "a");
        FetchPartitionResult result = fetchNow(TP, 5);
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, result.error());
        assertEquals(0L, result.logStartOffset());
    }

    @Test
    void fetchWithAStaleLeaderEpochIsFenced() throws Exception {
        lead(TP, 3);
        LinkedHashMap<TopicPartition, FetchPartitionRequest> request = new LinkedHashMap<>();
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, 2));
        assertEquals(Errors.FENCED_LEADER_EPOCH,
                replicaManager.fetch(CONSUMER_NO_WAIT, request).get(10, TimeUnit.SECONDS).get(TP).error());
        request.put(TP, new FetchPartitionRequest(0, 1 << 20, 4));
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH,
                replicaManager.fetch(CONSUMER_NO_WAIT, request).get(10, TimeUnit.SECONDS).get(TP).error());
    }

    @Test
    void listOffsetsFindsEarliestLatestAndByTimestamp() throws Exception {
        lead(TP, 0);
        long t0 = System.currentTimeMillis() - 10_000;
        MemoryRecords old = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(t0, "k".getBytes(StandardCharsets.UTF_8), "old".getBytes(StandardCharsets.UTF_8)));
        MemoryRecords young = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(t0 + 5_000,
                "k".getBytes(StandardCharsets.UTF_8), "young".getBytes(StandardCharsets.UTF_8)));
        replicaManager.appendRecords(Map.of(TP, old), (short) 1, 5_000).get(10, TimeUnit.SECONDS);
        replicaManager.appendRecords(Map.of(TP, young), (short) 1, 5_000).get(10, TimeUnit.SECONDS);
        assertEquals(0L, replicaManager.listOffset(TP, ListOffsetsRequest.EARLIEST_TIMESTAMP,
                IsolationLevel.READ_UNCOMMITTED, -1, -1).offset());
        assertEquals(2L, replicaManager.listOffset(TP, ListOffsetsRequest.LATEST_TIMESTAMP,
                IsolationLevel.READ_UNCOMMITTED, -1, -1).offset());
        OffsetResult byTime = replicaManager.listOffset(TP, t0 + 1, IsolationLevel.READ_UNCOMMITTED, -1, -1);
        assertEquals(1L, byTime.offset());
        assertEquals(t0 + 5_000, byTime.timestamp());
        assertEquals(-1L, replicaManager.listOffset(TP, t0 + 60_000, IsolationLevel.READ_UNCOMMITTED, -1, -1)
                .offset(), "no record that young");
        assertEquals(1L, replicaManager.listOffset(TP, ListOffsetsRequest.MAX_TIMESTAMP,
                IsolationLevel.READ_UNCOMMITTED, -1, -1).offset());
    }

    @Test
    void deleteRecordsMovesTheLogStartOffsetButNotPastTheHighWatermark() throws Exception {
        lead(TP, 0);
        produce(TP, (short) 1, "a", "b");
        produce(TP, (short) 1, "c");
        assertEquals(2L, replicaManager.deleteRecords(TP, 2));
        assertEquals(List.of("c"), values(fetchNow(TP, 2)));
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, fetchNow(TP, 1).error());
        org.junit.jupiter.api.Assertions.assertThrows(
                org.apache.kafka.common.errors.OffsetOutOfRangeException.class,
                () -> replicaManager.deleteRecords(TP, 4));
        assertEquals(3L, replicaManager.deleteRecords(TP, -1), "-1 means the high watermark");
    }

    @Test
    void stopReplicaWithDeleteRemovesTheLog() throws Exception {
        lead(TP, 0);
        produce(TP, (short) 1, "a");
        replicaManager.stopReplica(TP, true);
        assertTrue(replicaManager.partition(TP).isEmpty());
        assertTrue(logManager.getLog(TP).isEmpty());
    }
}
