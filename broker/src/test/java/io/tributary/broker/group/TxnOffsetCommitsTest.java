package io.tributary.broker.group;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.group.GroupCoordinator.GroupOffsets;
import io.tributary.broker.group.GroupCoordinator.OffsetCommit;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.AppendOrigin;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit against a real replica manager and log on disk (no network): offsets of an open transaction are
 * pending (not fetched as committed, unstable for requireStable) until the transaction's marker commits or aborts
 * them; KIP-447 member checks; pending offsets survive a new coordinator loading the partition; deletion and expiry
 * around them.
 */
class TxnOffsetCommitsTest {

    private static final int BROKER = 0;
    private static final TopicPartition OFFSETS_0 = new TopicPartition(GroupConfig.OFFSETS_TOPIC, 0);
    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final short EPOCH = 0;

    @TempDir
    Path dir;

    private LogManager logManager;
    private ReplicaManager replicaManager;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() throws Exception {
        logManager = new LogManager(LogManager.Config.defaults(List.of(dir)), Time.SYSTEM);
        logManager.startup(topic -> LogConfig.defaults());
        replicaManager = new ReplicaManager(BROKER, logManager, Time.SYSTEM);
        LogConfig compacted = LogConfig.defaults().withOverrides(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        replicaManager.applyPartitionState(OFFSETS_0, Uuid.randomUuid(),
                new Partition.State(BROKER, 0, List.of(BROKER), Set.of(BROKER)), compacted);
        coordinator = startCoordinator(Time.SYSTEM);
    }

    @AfterEach
    void stop() {
        coordinator.close();
        replicaManager.close();
        logManager.close();
    }

    private GroupCoordinator startCoordinator(Time time) {
        GroupConfig config = new GroupConfig(1, (short) 1, 100 * 1024 * 1024, 5 * 1024 * 1024, 60_000L, 600_000L,
                5_000, 4096, 100, 60_000, 0, 100);
        GroupCoordinator started = new GroupCoordinator(config, replicaManager, time);
        started.onLeadershipChange(Set.of(0), 1);
        await("partition 0 loaded").until(() -> started.checkGroup("g") != Errors.COORDINATOR_LOAD_IN_PROGRESS);
        return started;
    }

    private static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("no answer: " + e, e);
        }
    }

    private static Map<TopicPartition, OffsetCommit> offsets(long offset, TopicPartition... partitions) {
        Map<TopicPartition, OffsetCommit> offsets = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            offsets.put(tp, new OffsetCommit(offset, 4, "txn"));
        }
        return offsets;
    }

    private Map<TopicPartition, Errors> txnCommit(String group, long producerId, String memberId, int generation,
                                                  long offset, TopicPartition... partitions) {
        return get(coordinator.commitTxnOffsets(group, producerId, EPOCH, memberId, null, generation,
                offsets(offset, partitions)));
    }

    private Map<TopicPartition, Errors> plainCommit(String group, long offset, TopicPartition... partitions) {
        return get(coordinator.commitOffsets(group, "", null, -1, offsets(offset, partitions)));
    }

    private Long committed(String group, TopicPartition tp) {
        CommittedOffset offset = coordinator.fetchOffsets(group, List.of(tp)).offsets().get(tp);
        return offset == null ? null : offset.offset();
    }

    private Set<TopicPartition> unstable(String group, TopicPartition... partitions) {
        GroupOffsets offsets = coordinator.fetchOffsets(group, List.of(partitions), true);
        assertEquals(Errors.NONE, offsets.error());
        return offsets.unstable();
    }

    /**
     * Ends the transaction as WriteTxnMarkers does (the marker appended to the partition, then the coordinator
     * told).
     */
    private void endTransaction(String group, long producerId, TransactionResult result, TopicPartition tp) {
        EndTransactionMarker marker = new EndTransactionMarker(result == TransactionResult.COMMIT
                ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 0);
        ProduceResult appended = get(replicaManager.appendRecords(Map.of(OFFSETS_0,
                MemoryRecords.withEndTransactionMarker(1L, producerId, EPOCH, marker)), (short) -1, 10_000,
                AppendOrigin.COORDINATOR)).get(OFFSETS_0);
        assertEquals(Errors.NONE, appended.error(), "the marker appended");
        coordinator.onTransactionCompleted(producerId, List.of(0), result);
        // Before WriteTxnMarkers answers: the producer's next transaction may commit offsets right after.
        assertEquals(Set.of(), unstable(group, tp), "applied before onTransactionCompleted returns");
    }

    private JoinGroupResponseData joinedMember(String group) {
        ByteBuffer buffer = ConsumerProtocol.serializeSubscription(new Subscription(List.of("orders")));
        byte[] metadata = new byte[buffer.remaining()];
        buffer.get(metadata);
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        JoinGroupRequestData request = new JoinGroupRequestData().setGroupId(group).setMemberId("")
                .setGroupInstanceId("instance-1").setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer").setProtocols(protocols);
        JoinGroupResponseData joined = get(coordinator.joinGroup(request, (short) 9, "client", "/127.0.0.1"));
        assertEquals(Errors.NONE.code(), joined.errorCode());
        get(coordinator.syncGroup(new SyncGroupRequestData().setGroupId(group).setMemberId(joined.memberId())
                .setGroupInstanceId("instance-1").setGenerationId(joined.generationId()).setProtocolType("consumer")
                .setProtocolName("range").setAssignments(List.of(new SyncGroupRequestAssignment()
                        .setMemberId(joined.memberId()).setAssignment(new byte[0])))));
        return joined;
    }

    @Test
    void offsetsOfAnOpenTransactionArePendingAndBecomeCommittedWithTheCommitMarker() {
        plainCommit("g", 5, T0);

        assertEquals(Map.of(T0, Errors.NONE, T1, Errors.NONE), txnCommit("g", 1000L, "", -1, 10, T0, T1));

        assertEquals(5L, committed("g", T0), "not committed before the transaction is");
        assertNull(committed("g", T1));
        assertEquals(Set.of(T0, T1), unstable("g", T0, T1), "a read_committed consumer is told to retry");
        assertEquals(Set.of(T0), coordinator.fetchOffsets("g", null, true).unstable(),
                "all partitions: only the committed ones are listed");

        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);

        assertEquals(10L, committed("g", T0));
        assertEquals(10L, committed("g", T1));
        assertEquals(4, coordinator.fetchOffsets("g", List.of(T0)).offsets().get(T0).leaderEpoch());
    }

    @Test
    void offsetsOfAnAbortedTransactionAreDropped() {
        plainCommit("g", 5, T0);
        txnCommit("g", 1000L, "", -1, 10, T0, T1);

        endTransaction("g", 1000L, TransactionResult.ABORT, T0);

        assertEquals(5L, committed("g", T0));
        assertNull(committed("g", T1));
    }

    @Test
    void aMarkerOnlyEndsItsOwnProducersTransaction() {
        txnCommit("g", 1000L, "", -1, 10, T0);
        txnCommit("g", 2000L, "", -1, 20, T1);

        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);

        assertEquals(10L, committed("g", T0));
        assertNull(committed("g", T1));
        assertEquals(Set.of(T1), unstable("g", T0, T1));
    }

    @Test
    void aPlainCommitAfterTheTransactionalOneIsNotOverwrittenByTheLaterMarker() {
        txnCommit("g", 1000L, "", -1, 10, T0);
        plainCommit("g", 12, T0);

        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);

        assertEquals(12L, committed("g", T0), "the later record in the log wins");
    }

    @Test
    void aMemberOfTheGroupIsCheckedAgainstItsGenerationAndAnAnonymousProducerIsNot() {
        JoinGroupResponseData member = joinedMember("g");
        int generation = member.generationId();

        assertEquals(Map.of(T0, Errors.UNKNOWN_MEMBER_ID), txnCommit("g", 1000L, "stranger", generation, 1, T0));
        assertEquals(Map.of(T0, Errors.ILLEGAL_GENERATION),
                txnCommit("g", 1000L, member.memberId(), generation + 1, 1, T0));
        assertEquals(Map.of(T0, Errors.FENCED_INSTANCE_ID), get(coordinator.commitTxnOffsets("g", 1000L, EPOCH,
                "old-member-id", "instance-1", generation, offsets(1, T0))));
        assertEquals(Map.of(T0, Errors.UNKNOWN_MEMBER_ID), txnCommit("absent", 1000L, "someone", 3, 1, T0));
        assertFalse(coordinator.groupState("absent").isPresent(), "a refused commit creates no group");

        assertEquals(Map.of(T0, Errors.NONE), txnCommit("g", 1000L, member.memberId(), generation, 7, T0));
        assertEquals(Map.of(T1, Errors.NONE), txnCommit("g", 2000L, "", -1, 8, T1),
                "a producer without group metadata (an old client) commits to a group with members");
        assertEquals(Set.of(T0, T1), unstable("g", T0, T1));
    }

    @Test
    void aNewCoordinatorKeepsCommittedOffsetsAndOpenTransactionsFromTheLog() {
        plainCommit("g", 5, T0);
        txnCommit("g", 1000L, "", -1, 10, T0);
        txnCommit("only-pending", 2000L, "", -1, 20, T1);

        coordinator.close();
        coordinator = startCoordinator(Time.SYSTEM);

        assertEquals(5L, committed("g", T0));
        assertEquals(Set.of(T0), unstable("g", T0), "the transaction is still open after the load");
        assertEquals(Set.of(T1), unstable("only-pending", T1));

        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);
        endTransaction("only-pending", 2000L, TransactionResult.ABORT, T1);
        assertEquals(10L, committed("g", T0));
        assertNull(committed("only-pending", T1));
    }

    @Test
    void aNewCoordinatorReplaysTheMarkersInTheLog() {
        plainCommit("g", 5, T0);
        txnCommit("g", 1000L, "", -1, 10, T0);
        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);
        txnCommit("g", 2000L, "", -1, 20, T0, T1);
        endTransaction("g", 2000L, TransactionResult.ABORT, T0);
        txnCommit("g", 3000L, "", -1, 30, T1);
        plainCommit("g", 31, T1);
        endTransaction("g", 3000L, TransactionResult.COMMIT, T1);
        txnCommit("g", 1000L, "", -1, 40, T0);
        assertEquals(10L, committed("g", T0));
        assertEquals(31L, committed("g", T1), "the plain commit came later in the log");

        coordinator.close();
        coordinator = startCoordinator(Time.SYSTEM);

        assertEquals(10L, committed("g", T0), "the committed transaction's, not the aborted one's");
        assertEquals(31L, committed("g", T1));
        assertEquals(Set.of(T0), unstable("g", T0, T1), "the producer's next transaction is open");
        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);
        assertEquals(40L, committed("g", T0));
    }

    @Test
    void deletingAnEmptyGroupDropsItsPendingOffsetsAndTheMarkerBringsNoneBack() {
        plainCommit("g", 5, T0);
        txnCommit("g", 1000L, "", -1, 10, T0, T1);

        assertEquals(Map.of("g", Errors.NONE), get(coordinator.deleteGroups(List.of("g"))));
        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);

        assertNull(committed("g", T0));
        assertNull(committed("g", T1));
        coordinator.close();
        coordinator = startCoordinator(Time.SYSTEM);
        assertTrue(unstable("g", T0, T1).isEmpty(), "the tombstones follow the transactional records in the log");
        assertNull(committed("g", T1));
    }

    @Test
    void offsetsAnOpenTransactionWillReplaceDoNotExpireNorDoesTheirGroup() {
        coordinator.close();
        ManualTime time = new ManualTime();
        coordinator = startCoordinator(time);
        plainCommit("g", 5, T0);
        txnCommit("g", 1000L, "", -1, 10, T0);

        time.sleep(120_000);
        coordinator.expireOffsets();

        assertEquals(5L, committed("g", T0));
        assertTrue(coordinator.groupState("g").isPresent());
        endTransaction("g", 1000L, TransactionResult.COMMIT, T0);
        assertEquals(10L, committed("g", T0));
    }
}
