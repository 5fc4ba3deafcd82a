package io.tributary.broker.share;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;

import io.tributary.broker.share.SharePartition.StateBatch;
import io.tributary.broker.share.ShareStateFormat.Snapshot;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The share coordinator's state machine over an in-memory log whose appends the test completes: placement,
 * loading, leader-epoch and state-epoch fencing, memory changed only by replicated appends, and per share-partition
 * ordering.
 */
class ShareCoordinatorTest {

    private static final int PARTITIONS = 3;
    private static final ShareKey KEY = new ShareKey("sg", Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), 0);

    /** One append the coordinator made, and its pending outcome. */
    private record Append(int partition, ShareKey key, int snapshotEpoch, ShareState state,
                          CompletableFuture<Errors> outcome) {
    }

    /** Keeps appends until the test completes them; loads replay the completed ones. */
    private static final class MemoryLog implements ShareStateLog {
        final List<Append> appends = new ArrayList<>();
        boolean autoComplete = true;
        RuntimeException loadFailure;

        @Override
        public synchronized CompletableFuture<Errors> append(int partition, ShareKey key, int snapshotEpoch,
                                                             ShareState state) {
            Append append = new Append(partition, key, snapshotEpoch, state, new CompletableFuture<>());
            appends.add(append);
            if (autoComplete) {
                append.outcome().complete(Errors.NONE);
            }
            return append.outcome();
        }

        @Override
        public synchronized Map<ShareKey, Snapshot> load(int partition, BooleanSupplier current) {
            if (loadFailure != null) {
                throw loadFailure;
            }
            Map<ShareKey, Snapshot> states = new HashMap<>();
            for (Append append : appends) {
                if (append.partition() != partition || append.outcome().getNow(null) != Errors.NONE) {
                    continue;
                }
                if (append.state() == null) {
                    states.remove(append.key());
                } else {
                    states.put(append.key(), new Snapshot(append.snapshotEpoch(), append.state()));
                }
            }
            return states;
        }

        synchronized Append last() {
            return appends.get(appends.size() - 1);
        }
    }

    private final MemoryLog stateLog = new MemoryLog();
    private final Queue<Runnable> loads = new ArrayDeque<>();
    private ScheduledThreadPoolExecutor scheduler;
    private ShareCoordinator coordinator;

    @BeforeEach
    void setUp() {
        scheduler = new ScheduledThreadPoolExecutor(1);
        coordinator = newCoordinator();
    }

    @AfterEach
    void tearDown() {
        coordinator.close();
        scheduler.shutdownNow();
    }

    /** Tasks of the coordinator's thread run inline, or wait in {@link #loads} while {@link #loadsPending}. */
    private ShareCoordinator newCoordinator() {
        return new ShareCoordinator(new ShareCoordinatorConfig(PARTITIONS, (short) 1, 1, 1 << 20), stateLog,
                task -> {
                    if (loadsPending) {
                        loads.add(task);
                    } else {
                        task.run();
                    }
                }, scheduler, new ManualTime());
    }

    /** While true, tasks the coordinator gives its executor wait in {@link #loads} (the test makes no writes then). */
    private boolean loadsPending;

    private void lead(ShareCoordinator c, int epoch) {
        c.onLeadershipChange(Map.of(c.partitionFor(KEY), epoch), PARTITIONS);
    }

    private static ShareState state(int stateEpoch, int leaderEpoch, long startOffset) {
        return new ShareState(stateEpoch, leaderEpoch, startOffset,
                List.of(new StateBatch(startOffset, startOffset + 4, RecordState.ACKNOWLEDGED, (short) 1),
                        new StateBatch(startOffset + 5, startOffset + 5, RecordState.AVAILABLE, (short) 2)));
    }

    @Test
    void keysArePlacedAsKafkaPlacesThem() {
        assertEquals("sg:AAAAAAAAAAAAAAAAAAAAAQ:0", KEY.coordinatorKey());
        assertEquals(Math.abs("sg:AAAAAAAAAAAAAAAAAAAAAQ:0".hashCode()) % PARTITIONS, coordinator.partitionFor(KEY));
        assertEquals(Math.abs("sg:AAAAAAAAAAAAAAAAAAAAAQ:0".hashCode()) % 50, ShareCoordinator.partitionFor(KEY, 50));
    }

    @Test
    void aPartitionNotLedIsNotCoordinatedAndOneLoadingSaysSo() {
        assertEquals(Errors.NOT_COORDINATOR, coordinator.write(KEY, state(0, 1, 0)).join());
        loadsPending = true;
        lead(coordinator, 1);
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, coordinator.read(KEY, 1).join().error());
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, coordinator.write(KEY, state(0, 1, 0)).join());
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, coordinator.delete(KEY).join());
        loadsPending = false;
        loads.remove().run();
        assertEquals(new ReadResult(Errors.NONE, null, Optional.empty()), coordinator.read(KEY, 1).join());
    }

    @Test
    void aWrittenStateReadsBackWhole() {
        lead(coordinator, 0);
        ShareState written = state(0, 3, 100L);
        assertEquals(Errors.NONE, coordinator.write(KEY, written).join());
        assertEquals(written, stateLog.last().state());
        assertEquals(Optional.of(written), coordinator.read(KEY, 3).join().state());
        assertEquals(1, stateLog.appends.size(), "a read at the state's own epoch writes nothing");

        ShareState next = state(0, 3, 106L);
        assertEquals(Errors.NONE, coordinator.write(KEY, next).join());
        assertEquals(Optional.of(next), coordinator.read(KEY, 3).join().state());
    }

    @Test
    void aReadWithANewerLeaderEpochWritesItAndFencesTheOlderLeader() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(0, 3, 100L)).join();

        ReadResult read = coordinator.read(KEY, 4).join();
        assertEquals(Errors.NONE, read.error());
        assertEquals(Optional.of(state(0, 4, 100L)), read.state());
        assertEquals(state(0, 4, 100L), stateLog.last().state(), "the new epoch is written durably");

        assertEquals(Errors.FENCED_LEADER_EPOCH, coordinator.write(KEY, state(0, 3, 106L)).join());
        assertEquals(Errors.FENCED_LEADER_EPOCH, coordinator.read(KEY, 3).join().error());
        assertEquals(Errors.NONE, coordinator.write(KEY, state(0, 4, 106L)).join());
        assertEquals(Errors.NONE, coordinator.write(KEY, state(0, 5, 107L)).join());
        assertEquals(Errors.FENCED_LEADER_EPOCH, coordinator.write(KEY, state(0, 4, 108L)).join());
    }

    @Test
    void aReadWithoutAStateFencesOlderEpochsInMemory() {
        lead(coordinator, 0);
        assertEquals(Optional.empty(), coordinator.read(KEY, 7).join().state());
        assertTrue(stateLog.appends.isEmpty());
        assertEquals(Errors.FENCED_LEADER_EPOCH, coordinator.write(KEY, state(0, 6, 0L)).join());
        assertEquals(Errors.NONE, coordinator.write(KEY, state(0, 7, 0L)).join());
    }

    @Test
    void anOlderStateEpochIsFenced() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(2, 1, 0L)).join();
        assertEquals(Errors.FENCED_STATE_EPOCH, coordinator.write(KEY, state(1, 1, 5L)).join());
        assertEquals(Errors.NONE, coordinator.write(KEY, state(3, 1, 5L)).join());
    }

    @Test
    void aSummaryReadFencesNoLeaderAndWritesNothing() {
        lead(coordinator, 0);
        assertEquals(Optional.empty(), coordinator.readSummary(KEY).join().state());
        ShareState written = new ShareState(0, 3, 100L, List.of(
                new SharePartition.StateBatch(100L, 104L, RecordState.ACKNOWLEDGED, (short) 1),
                new SharePartition.StateBatch(105L, 105L, RecordState.AVAILABLE, (short) 1),
                new SharePartition.StateBatch(106L, 107L, RecordState.ARCHIVED, (short) 3)));
        coordinator.write(KEY, written).join();
        int appends = stateLog.appends.size();

        ReadResult summary = coordinator.readSummary(KEY).join();
        assertEquals(Optional.of(written), summary.state(), "at the leader epoch it was written with");
        assertEquals(7, ShareStateMessages.deliveryCompleteCount(summary.state().get()));
        assertEquals(appends, stateLog.appends.size());
        assertEquals(Errors.NONE, coordinator.write(KEY, new ShareState(0, 3, 106L, List.of())).join(),
                "the leader is not fenced");
    }

    @Test
    void anInitializedStateStartsAfreshAtANewerStateEpochAndFencesTheLeaderHoldingTheOldOne() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(2, 5, 100L)).join();

        assertEquals(Errors.NONE, coordinator.initialize(KEY, 0, 40L).join());
        ShareState reset = stateLog.last().state();
        assertEquals(new ShareState(3, 5, 40L, List.of()), reset, "one past the highest state epoch, same leader");
        assertEquals(Errors.FENCED_STATE_EPOCH, coordinator.write(KEY, state(2, 5, 110L)).join(),
                "the leader still holding the old state");
        assertEquals(Optional.of(reset), coordinator.read(KEY, 5).join().state(), "what it loads instead");

        assertEquals(Errors.NONE, coordinator.initialize(KEY, 10, 50L).join());
        assertEquals(10, stateLog.last().state().stateEpoch(), "a newer epoch asked for is taken");
    }

    @Test
    void aStateInitializedAfterADeletionIsNewerThanTheDeletedOne() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(4, 1, 100L)).join();
        coordinator.delete(KEY).join();
        assertEquals(Errors.NONE, coordinator.initialize(KEY, 0, 0L).join());
        assertEquals(5, stateLog.last().state().stateEpoch());
    }

    @Test
    void memoryChangesOnlyOnceTheAppendIsReplicated() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(0, 1, 0L)).join();
        stateLog.autoComplete = false;

        CompletableFuture<Errors> write = coordinator.write(KEY, state(0, 1, 10L));
        CompletableFuture<ReadResult> read = coordinator.read(KEY, 1);
        assertFalse(write.isDone());
        assertFalse(read.isDone(), "a read waits for the write queued before it");
        stateLog.last().outcome().complete(Errors.NOT_ENOUGH_REPLICAS);
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, write.join());
        assertEquals(Optional.of(state(0, 1, 0L)), read.join().state(), "the failed write changed nothing");

        CompletableFuture<Errors> second = coordinator.write(KEY, state(0, 1, 20L));
        CompletableFuture<Errors> third = coordinator.write(KEY, state(0, 1, 30L));
        assertEquals(3, stateLog.appends.size(), "the third write waits for the second's append");
        stateLog.last().outcome().complete(Errors.NONE);
        assertEquals(Errors.NONE, second.join());
        assertEquals(4, stateLog.appends.size());
        assertEquals(state(0, 1, 30L), stateLog.last().state());
        stateLog.last().outcome().complete(Errors.NOT_LEADER_OR_FOLLOWER);
        assertEquals(Errors.NOT_COORDINATOR, third.join());
        stateLog.autoComplete = true;
        assertEquals(Optional.of(state(0, 1, 20L)), coordinator.read(KEY, 1).join().state());
    }

    @Test
    void snapshotEpochsCountTheWritesOfASharepartition() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(0, 1, 0L)).join();
        coordinator.write(KEY, state(0, 1, 1L)).join();
        coordinator.read(KEY, 2).join();
        assertEquals(List.of(0, 1, 2), stateLog.appends.stream().map(Append::snapshotEpoch).toList());
    }

    @Test
    void deleteWritesATombstoneAndForgetsTheFencing() {
        lead(coordinator, 0);
        assertEquals(Errors.NONE, coordinator.delete(KEY).join(), "nothing to delete");
        assertTrue(stateLog.appends.isEmpty());
        coordinator.write(KEY, state(0, 5, 0L)).join();
        assertEquals(Errors.NONE, coordinator.delete(KEY).join());
        assertNull(stateLog.last().state());
        assertEquals(Optional.empty(), coordinator.read(KEY, 1).join().state());
        assertEquals(Errors.NONE, coordinator.write(KEY, state(0, 1, 0L)).join());
    }

    @Test
    void aLeaderStillHoldingADeletedStateCannotBringItBackButOneThatReadAgainWrites() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(0, 5, 40L)).join();
        assertEquals(Errors.NONE, coordinator.delete(KEY).join());
        assertEquals(Errors.FENCED_STATE_EPOCH, coordinator.write(KEY, state(0, 5, 45L)).join(),
                "the leader that held it before the deletion");
        assertEquals(Optional.empty(), coordinator.read(KEY, 5).join().state(), "it loads afresh");
        assertEquals(Errors.NONE, coordinator.write(KEY, state(0, 5, 0L)).join());
    }

    @Test
    void theNextCoordinatorLoadsTheStatesAndTheirFencing() {
        lead(coordinator, 0);
        coordinator.write(KEY, state(0, 3, 100L)).join();
        coordinator.read(KEY, 4).join();
        ShareKey deleted = new ShareKey("other", KEY.topicId(), 1);
        coordinator.onLeadershipChange(Map.of(0, 0, 1, 0, 2, 0), PARTITIONS);
        coordinator.write(deleted, state(0, 1, 0L)).join();
        coordinator.delete(deleted).join();

        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        assertEquals(Errors.NOT_COORDINATOR, coordinator.read(KEY, 4).join().error());

        ShareCoordinator next = newCoordinator();
        try {
            next.onLeadershipChange(Map.of(0, 1, 1, 1, 2, 1), PARTITIONS);
            assertEquals(Errors.FENCED_LEADER_EPOCH, next.write(KEY, state(0, 3, 106L)).join());
            assertEquals(Optional.of(state(0, 4, 100L)), next.read(KEY, 4).join().state());
            assertEquals(Optional.empty(), next.read(deleted, 1).join().state());
            next.write(KEY, state(0, 4, 101L)).join();
            assertEquals(2, stateLog.last().snapshotEpoch(), "snapshot epochs go on from the loaded one");
        } finally {
            next.close();
        }
    }

    @Test
    void anAppendReplicatedAfterLeadershipMovedIsNotApplied() {
        lead(coordinator, 0);
        stateLog.autoComplete = false;
        CompletableFuture<Errors> write = coordinator.write(KEY, state(0, 1, 0L));
        coordinator.onLeadershipChange(Map.of(), PARTITIONS);
        stateLog.last().outcome().complete(Errors.NONE);
        assertEquals(Errors.NOT_COORDINATOR, write.join());
    }

    @Test
    void aFailedLoadIsRetriedWhileThePartitionIsLed() {
        stateLog.loadFailure = new IllegalStateException("disk trouble");
        lead(coordinator, 0);
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, coordinator.read(KEY, 1).join().error());
        stateLog.loadFailure = null;
        await("the retried load")
                .until(() -> coordinator.read(KEY, 1).join().error() == Errors.NONE);
    }
}
