package io.tributary.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.tributary.broker.storage.ManualTime;
import io.tributary.broker.txn.TransactionCoordinator.InitResult;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's state machine without network or disk: an in-memory transaction log, markers the test completes
 * by hand, manual time, and write completions run inline (or queued, to see a load in progress).
 */
class TransactionCoordinatorTest {

    private static final int PARTITIONS = 3;
    private static final int EPOCH = 5;
    private static final String ID = "tx-a";
    private static final int ID_PARTITION = Utils.abs(ID.hashCode()) % PARTITIONS;
    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);

    private final ManualTime time = new ManualTime();
    private final MemoryLog txnLog = new MemoryLog();
    private final FakeMarkers markers = new FakeMarkers();
    private final AtomicLong producerIds = new AtomicLong(1000);
    private ScheduledThreadPoolExecutor scheduler;
    private TransactionCoordinator coordinator;

    @BeforeEach
    void start() {
        scheduler = new ScheduledThreadPoolExecutor(1);
        coordinator = newCoordinator(Runnable::run);
        coordinator.onLeadershipChange(Map.of(ID_PARTITION, EPOCH), PARTITIONS);
    }

    @AfterEach
    void stop() {
        coordinator.close();
        scheduler.shutdownNow();
    }

    private TransactionCoordinator newCoordinator(java.util.concurrent.Executor executor) {
        TransactionConfig config = new TransactionConfig(PARTITIONS, (short) 1, 1, 1 << 20, 60_000, 3_600_000L,
                10_000L, 60_000L);
        return new TransactionCoordinator(config, txnLog, markers, producerIds::getAndIncrement, executor, scheduler,
                time);
    }

    @Test
    void newTransactionalIdGetsANewProducerIdAtEpochZero() {
        InitResult result = init(-1L, (short) -1);
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 0), result);
        TransactionData written = txnLog.last(ID);
        assertEquals(TransactionState.EMPTY, written.state());
        assertEquals(1000L, written.producerId());
        assertEquals((short) 0, written.producerEpoch());
        assertEquals(30_000, written.timeoutMs());
    }

    @Test
    void initAgainBumpsTheEpochAndFencesTheOldProducer() {
        init(-1L, (short) -1);
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 1), init(-1L, (short) -1));
        assertEquals(Errors.PRODUCER_FENCED, add((short) 0, T0));
        assertEquals(Errors.NONE, add((short) 1, T0));
    }

    @Test
    void transactionTimeoutAboveTheMaximumIsRefused() {
        InitResult result = coordinator.initProducerId(ID, 60_001, -1L, (short) -1).join();
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT, result.error());
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT,
                coordinator.initProducerId(ID, 0, -1L, (short) -1).join().error());
        assertTrue(txnLog.appends.isEmpty());
    }

    @Test
    void commitWritesPrepareCommitThenMarkersThenCompleteCommit() {
        init(-1L, (short) -1);
        time.advance(10);
        assertEquals(Errors.NONE, add((short) 0, T0));
        assertEquals(Errors.NONE, add((short) 0, T1));
        TransactionData ongoing = txnLog.last(ID);
        assertEquals(TransactionState.ONGOING, ongoing.state());
        assertEquals(Set.of(T0, T1), ongoing.partitions());
        long started = ongoing.startTimestamp();

        assertEquals(Errors.NONE, end((short) 0, TransactionResult.COMMIT));
        assertEquals(TransactionState.PREPARE_COMMIT, txnLog.last(ID).state());
        FakeMarkers.Sent sent = markers.only();
        assertEquals(TransactionResult.COMMIT, sent.job.result());
        assertEquals(Set.of(T0, T1), sent.job.partitions());
        assertEquals(EPOCH, sent.job.coordinatorEpoch());
        assertEquals(1000L, sent.job.producerId());

        // While the markers are written: the same decision again is to be retried, the opposite one is invalid,
        // and the next transaction cannot begin yet.
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.INVALID_TXN_STATE, end((short) 0, TransactionResult.ABORT));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, add((short) 0, T0));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, init(-1L, (short) -1).error());

        sent.done.complete(true);
        TransactionData complete = txnLog.last(ID);
        assertEquals(TransactionState.COMPLETE_COMMIT, complete.state());
        assertEquals(Set.of(), complete.partitions());
        assertEquals(started, complete.startTimestamp());
        assertEquals(Errors.NONE, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.INVALID_TXN_STATE, end((short) 0, TransactionResult.ABORT));
        // The next transaction.
        assertEquals(Errors.NONE, add((short) 0, T1));
        assertEquals(Set.of(T1), txnLog.last(ID).partitions());
    }

    @Test
    void abortWritesPrepareAbortAndAbortMarkers() {
        init(-1L, (short) -1);
        add((short) 0, T0);
        assertEquals(Errors.NONE, end((short) 0, TransactionResult.ABORT));
        assertEquals(TransactionState.PREPARE_ABORT, txnLog.last(ID).state());
        FakeMarkers.Sent sent = markers.only();
        assertEquals(TransactionResult.ABORT, sent.job.result());
        sent.done.complete(true);
        assertEquals(TransactionState.COMPLETE_ABORT, txnLog.last(ID).state());
    }

    @Test
    void endWithoutATransactionOrWithAnUnknownProducerIsRefused() {
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, add((short) 0, T0));
        init(-1L, (short) -1);
        assertEquals(Errors.INVALID_TXN_STATE, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING,
                coordinator.addPartitions(ID, 999L, (short) 0, List.of(T0)).join());
    }

    @Test
    void initDuringAnOngoingTransactionAbortsItWithTheNextEpochAndAsksToRetry() {
        init(-1L, (short) -1);
        add((short) 0, T0);

        assertEquals(Errors.CONCURRENT_TRANSACTIONS, init(-1L, (short) -1).error());
        TransactionData aborting = txnLog.last(ID);
        assertEquals(TransactionState.PREPARE_ABORT, aborting.state());
        assertEquals((short) 1, aborting.producerEpoch());
        FakeMarkers.Sent sent = markers.only();
        assertEquals(TransactionResult.ABORT, sent.job.result());
        assertEquals((short) 1, sent.job.producerEpoch());
        // The old producer is fenced at once.
        assertEquals(Errors.PRODUCER_FENCED, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, init(-1L, (short) -1).error());

        sent.done.complete(true);
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 2), init(-1L, (short) -1));
    }

    @Test
    void timedOutTransactionIsAbortedAndItsProducerFenced() {
        init(-1L, (short) -1);
        add((short) 0, T0);
        time.advance(29_999);
        coordinator.abortTimedOutTransactions();
        assertEquals(TransactionState.ONGOING, txnLog.last(ID).state());

        time.advance(2);
        coordinator.abortTimedOutTransactions();
        TransactionData aborting = txnLog.last(ID);
        assertEquals(TransactionState.PREPARE_ABORT, aborting.state());
        assertEquals((short) 1, aborting.producerEpoch());
        markers.only().done.complete(true);
        assertEquals(TransactionState.COMPLETE_ABORT, txnLog.last(ID).state());
        assertEquals(Errors.PRODUCER_FENCED, end((short) 0, TransactionResult.COMMIT));
        assertEquals(Errors.PRODUCER_FENCED, add((short) 0, T0));
    }

    @Test
    void retriedInitWithTheExpectedEpochGetsTheSameAnswerAndAStaleOneIsFenced() {
        init(-1L, (short) -1);
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 1), init(1000L, (short) 0));
        // The answer was lost; the producer asks again with what it had.
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 1), init(1000L, (short) 0));
        assertEquals(Errors.PRODUCER_FENCED, init(5L, (short) 0).error());
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 2), init(1000L, (short) 1));
    }

    @Test
    void exhaustedEpochMovesTheIdToANewProducerId() {
        TransactionData old = new TransactionData(77L, -1L, (short) (Short.MAX_VALUE - 1), TransactionData.NO_EPOCH,
                30_000, TransactionState.COMPLETE_COMMIT, Set.of(), 1L, 2L);
        txnLog.contents.computeIfAbsent(ID_PARTITION, p -> new LinkedHashMap<>()).put(ID, old);
        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        coordinator.onLeadershipChange(Map.of(ID_PARTITION, EPOCH + 1), PARTITIONS);

        InitResult result = init(77L, (short) (Short.MAX_VALUE - 1));
        assertEquals(new InitResult(Errors.NONE, 1000L, (short) 0), result);
        assertEquals(77L, txnLog.last(ID).previousProducerId());
    }

    @Test
    void newCoordinatorCompletesADecidedTransactionFromTheLog() {
        TransactionData prepared = new TransactionData(77L, -1L, (short) 3, TransactionData.NO_EPOCH, 30_000,
                TransactionState.PREPARE_COMMIT, Set.of(T0, T1), 1L, 2L);
        txnLog.contents.computeIfAbsent(ID_PARTITION, p -> new LinkedHashMap<>()).put(ID, prepared);
        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        coordinator.onLeadershipChange(Map.of(ID_PARTITION, EPOCH + 1), PARTITIONS);

        FakeMarkers.Sent sent = markers.only();
        assertEquals(TransactionResult.COMMIT, sent.job.result());
        assertEquals(Set.of(T0, T1), sent.job.partitions());
        assertEquals((short) 3, sent.job.producerEpoch());
        assertEquals(EPOCH + 1, sent.job.coordinatorEpoch());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, coordinator.endTransaction(ID, 77L, (short) 3,
                TransactionResult.COMMIT).join());
        sent.done.complete(true);
        assertEquals(TransactionState.COMPLETE_COMMIT, txnLog.last(ID).state());
        assertEquals(Errors.NONE, coordinator.endTransaction(ID, 77L, (short) 3, TransactionResult.COMMIT).join());
    }

    @Test
    void resigningAnswersNotCoordinatorAndAbandonsMarkers() {
        init(-1L, (short) -1);
        add((short) 0, T0);
        end((short) 0, TransactionResult.COMMIT);
        FakeMarkers.Sent sent = markers.only();
        assertTrue(sent.job.current().getAsBoolean());

        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        assertFalse(sent.job.current().getAsBoolean());
        int appends = txnLog.appends.size();
        sent.done.complete(true);
        assertEquals(appends, txnLog.appends.size(), "a deposed coordinator writes no completion");
        assertEquals(Errors.NOT_COORDINATOR, init(-1L, (short) -1).error());
        assertEquals(Errors.NOT_COORDINATOR, add((short) 0, T0));
        assertEquals(Errors.NOT_COORDINATOR, coordinator.describe(ID).error());
    }

    @Test
    void partitionIsLoadInProgressUntilItsLoadRan() {
        Queue<Runnable> queued = new ArrayDeque<>();
        TransactionCoordinator loading = newCoordinator(queued::add);
        try {
            loading.onLeadershipChange(Map.of(ID_PARTITION, EPOCH), PARTITIONS);
            assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS,
                    loading.initProducerId(ID, 30_000, -1L, (short) -1).join().error());
            assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, loading.list(Set.of(), Set.of(), -1).error());
            queued.poll().run();
            CompletableFuture<InitResult> init = loading.initProducerId(ID, 30_000, -1L, (short) -1);
            queued.poll().run(); // the write's completion
            assertEquals(Errors.NONE, init.join().error());
        } finally {
            loading.close();
        }
    }

    @Test
    void failedLoadIsRetriedWhileThePartitionIsLed() {
        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        txnLog.failLoads = 1;
        coordinator.onLeadershipChange(Map.of(ID_PARTITION, EPOCH + 1), PARTITIONS);
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, init(-1L, (short) -1).error());
        io.tributary.testsupport.Waits.await("the load retried").until(() ->
                init(-1L, (short) -1).error() == Errors.NONE);
    }

    @Test
    void failedWriteChangesNothingAndMapsToCoordinatorErrors() {
        init(-1L, (short) -1);
        txnLog.failNext = Errors.NOT_ENOUGH_REPLICAS;
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, add((short) 0, T0));
        assertEquals(TransactionState.EMPTY, coordinator.describe(ID).state());
        txnLog.failNext = Errors.NOT_LEADER_OR_FOLLOWER;
        assertEquals(Errors.NOT_COORDINATOR, add((short) 0, T0));
        assertEquals(Errors.NONE, add((short) 0, T0));
        assertEquals(TransactionState.ONGOING, coordinator.describe(ID).state());
    }

    @Test
    void idleTransactionalIdExpiresWithATombstone() {
        init(-1L, (short) -1);
        time.advance(3_600_000L - 1);
        coordinator.removeExpiredTransactionalIds();
        assertEquals(Errors.NONE, coordinator.describe(ID).error());
        time.advance(1);
        coordinator.removeExpiredTransactionalIds();
        assertNull(txnLog.contents.get(ID_PARTITION).get(ID));
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND, coordinator.describe(ID).error());
        // Known again as new.
        assertEquals(new InitResult(Errors.NONE, 1001L, (short) 0), init(-1L, (short) -1));
    }

    @Test
    void describeAndListShowStatesAndApplyFilters() {
        init(-1L, (short) -1);
        add((short) 0, T0);
        TransactionCoordinator.Described described = coordinator.describe(ID);
        assertEquals(TransactionState.ONGOING, described.state());
        assertEquals(Set.of(T0), described.partitions());
        assertEquals(1000L, described.producerId());
        assertEquals(time.milliseconds(), described.startTimestamp());

        assertEquals(List.of(new TransactionCoordinator.Listed(ID, 1000L, TransactionState.ONGOING)),
                coordinator.list(Set.of(), Set.of(), -1).transactions());
        assertEquals(List.of(), coordinator.list(Set.of(TransactionState.EMPTY), Set.of(), -1).transactions());
        assertEquals(List.of(), coordinator.list(Set.of(), Set.of(5L), -1).transactions());
        assertEquals(1, coordinator.list(Set.of(), Set.of(1000L), -1).transactions().size());
        assertEquals(List.of(), coordinator.list(Set.of(), Set.of(), 1_000).transactions());
        time.advance(1_000);
        assertEquals(1, coordinator.list(Set.of(), Set.of(), 1_000).transactions().size());
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND, coordinator.describe("other-" + ID).error());
    }

    @Test
    void addingPartitionsAlreadyInTheTransactionWritesNothing() {
        init(-1L, (short) -1);
        add((short) 0, T0);
        int appends = txnLog.appends.size();
        assertEquals(Errors.NONE, add((short) 0, T0));
        assertEquals(appends, txnLog.appends.size());
        assertEquals(Map.of(T0, Errors.NONE, T1, Errors.INVALID_TXN_STATE),
                coordinator.verifyPartitions(ID, 1000L, (short) 0, List.of(T0, T1)));
    }

    private InitResult init(long expectedProducerId, short expectedEpoch) {
        return coordinator.initProducerId(ID, 30_000, expectedProducerId, expectedEpoch).join();
    }

    private Errors add(short epoch, TopicPartition tp) {
        return coordinator.addPartitions(ID, 1000L, epoch, List.of(tp)).join();
    }

    private Errors end(short epoch, TransactionResult result) {
        return coordinator.endTransaction(ID, 1000L, epoch, result).join();
    }

    /** The transaction log in memory: each append is applied and recorded, or fails once with {@link #failNext}. */
    private static final class MemoryLog implements TransactionLog {
        record Append(int partition, String transactionalId, TransactionData data) {
        }

        final Map<Integer, LinkedHashMap<String, TransactionData>> contents = new HashMap<>();
        final List<Append> appends = new ArrayList<>();
        Errors failNext;
        int failLoads;

        @Override
        public synchronized CompletableFuture<Errors> append(int partition, String transactionalId,
                                                             TransactionData data) {
            if (failNext != null) {
                Errors error = failNext;
                failNext = null;
                return CompletableFuture.completedFuture(error);
            }
            appends.add(new Append(partition, transactionalId, data));
            LinkedHashMap<String, TransactionData> partitionContents =
                    contents.computeIfAbsent(partition, p -> new LinkedHashMap<>());
            if (data == null) {
                partitionContents.remove(transactionalId);
            } else {
                partitionContents.put(transactionalId, data);
            }
            return CompletableFuture.completedFuture(Errors.NONE);
        }

        @Override
        public synchronized Map<String, TransactionData> load(int partition, BooleanSupplier current) {
            if (failLoads > 0) {
                failLoads--;
                throw new IllegalStateException("unreadable partition " + partition);
            }
            return new HashMap<>(contents.getOrDefault(partition, new LinkedHashMap<>()));
        }

        synchronized TransactionData last(String transactionalId) {
            for (int i = appends.size() - 1; i >= 0; i--) {
                if (appends.get(i).transactionalId().equals(transactionalId)) {
                    return appends.get(i).data();
                }
            }
            throw new AssertionError("nothing written for " + transactionalId);
        }
    }

    /** Records each job; the test completes it. */
    private static final class FakeMarkers implements TransactionMarkers {
        record Sent(Job job, CompletableFuture<Boolean> done) {
        }

        final List<Sent> sent = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<Boolean> write(Job job) {
            Sent s = new Sent(job, new CompletableFuture<>());
            sent.add(s);
            return s.done;
        }

        synchronized Sent only() {
            List<Sent> open = sent.stream().filter(s -> !s.done.isDone()).toList();
            assertEquals(1, open.size(), "open marker jobs: " + open);
            assertNotEquals(null, open.get(0).job);
            return open.get(0);
        }
    }
}
