package io.tributary.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.tributary.broker.share.ShareCoordinatorPersister.Location;
import io.tributary.broker.share.ShareStateFormat.Snapshot;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The persister's routing and retries with the coordinator on this broker (no network): the local coordinator is
 * called directly, retriable answers are retried with the coordinator looked up again until the retry limit, other
 * answers are final, and closing answers what still waits. The network path is {@code ShareCoordinatorFailoverTest}'s.
 */
class ShareCoordinatorPersisterTest {

    private static final int LOCAL = 1;
    private static final Node LOCAL_NODE = new Node(LOCAL, "127.0.0.1", 9092);
    private static final TopicIdPartition PARTITION = new TopicIdPartition(Uuid.randomUuid(), 0, "orders");
    private static final ShareState STATE = new ShareState(0, 2, 10L, List.of());

    /** A log whose appends succeed at once and which has nothing to load. */
    private static final class AcceptingLog implements ShareStateLog {
        @Override
        public CompletableFuture<Errors> append(int partition, ShareKey key, int snapshotEpoch, ShareState state) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }

        @Override
        public Map<ShareKey, Snapshot> load(int partition, BooleanSupplier current) {
            return Map.of();
        }
    }

    private final ManualTime time = new ManualTime();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final ShareCoordinator coordinator = new ShareCoordinator(
            new ShareCoordinatorConfig(1, (short) 1, 1, 1 << 20), new AcceptingLog(), Runnable::run, scheduler, time);
    private ShareCoordinatorPersister persister;

    @AfterEach
    void tearDown() {
        persister.close();
        coordinator.close();
        scheduler.shutdownNow();
    }

    private ShareCoordinatorPersister persister(ShareCoordinatorPersister.Locator locator) {
        return new ShareCoordinatorPersister(LOCAL, locator, coordinator, null, time);
    }

    @Test
    void theCoordinatorOnThisBrokerIsCalledDirectly() throws Exception {
        coordinator.onLeadershipChange(Map.of(0, 0), 1);
        persister = persister(key -> CompletableFuture.completedFuture(Location.at(LOCAL_NODE)));
        assertEquals(Errors.NONE, persister.write("g", PARTITION, STATE).get(10, TimeUnit.SECONDS));
        assertEquals(Optional.of(STATE), persister.read("g", PARTITION, 2).get(10, TimeUnit.SECONDS).state());
        assertEquals(Errors.FENCED_LEADER_EPOCH, persister.read("g", PARTITION, 1).get(10, TimeUnit.SECONDS).error(),
                "not retriable: answered at once");
        assertEquals(Errors.NONE, persister.delete("g", PARTITION).get(10, TimeUnit.SECONDS));
    }

    @Test
    void summaryReadsAndInitializationsGoToTheCoordinatorOnThisBroker() throws Exception {
        coordinator.onLeadershipChange(Map.of(0, 0), 1);
        persister = persister(key -> CompletableFuture.completedFuture(Location.at(LOCAL_NODE)));
        assertEquals(Errors.NONE, persister.write("g", PARTITION, STATE).get(10, TimeUnit.SECONDS));
        assertEquals(Optional.of(STATE), persister.readSummary("g", PARTITION).get(10, TimeUnit.SECONDS).state());
        assertEquals(Errors.NONE, persister.initialize("g", PARTITION, 0, 7L).get(10, TimeUnit.SECONDS));
        ShareState reset = persister.readSummary("g", PARTITION).get(10, TimeUnit.SECONDS).state().orElseThrow();
        assertEquals(7L, reset.startOffset());
        assertTrue(reset.stateEpoch() > STATE.stateEpoch(), reset.toString());
    }

    @Test
    void retriableAnswersAreRetriedWithTheCoordinatorLookedUpAgain() throws Exception {
        coordinator.onLeadershipChange(Map.of(0, 0), 1);
        AtomicInteger lookups = new AtomicInteger();
        persister = persister(key -> CompletableFuture.completedFuture(switch (lookups.incrementAndGet()) {
            case 1 -> Location.none(Errors.COORDINATOR_NOT_AVAILABLE, "no leader yet");
            case 2 -> Location.none(Errors.NOT_COORDINATOR, "moved");
            default -> Location.at(LOCAL_NODE);
        }));
        assertEquals(Errors.NONE, persister.write("g", PARTITION, STATE).get(10, TimeUnit.SECONDS));
        assertEquals(3, lookups.get());
    }

    @Test
    void aCoordinatorStillLoadingIsRetried() throws Exception {
        persister = persister(key -> CompletableFuture.completedFuture(Location.at(LOCAL_NODE)));
        CompletableFuture<Errors> write = persister.write("g", PARTITION, STATE);
        assertFalse(write.isDone(), "NOT_COORDINATOR from the local coordinator, which does not lead yet");
        coordinator.onLeadershipChange(Map.of(0, 0), 1);
        assertEquals(Errors.NONE, write.get(10, TimeUnit.SECONDS));
    }

    @Test
    void afterTheRetryLimitTheLastErrorIsTheAnswer() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        persister = persister(key -> {
            lookups.incrementAndGet();
            time.advance(10_000);
            return CompletableFuture.completedFuture(Location.none(Errors.COORDINATOR_LOAD_IN_PROGRESS, "loading"));
        });
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, persister.read("g", PARTITION, 1)
                .get(10, TimeUnit.SECONDS).error());
        assertEquals(3, lookups.get(), "30 s of retries, 10 s per lookup");
    }

    @Test
    void closingAnswersWhatStillWaits() throws Exception {
        persister = persister(key -> CompletableFuture.completedFuture(
                Location.none(Errors.COORDINATOR_NOT_AVAILABLE, "no leader")));
        CompletableFuture<Errors> delete = persister.delete("g", PARTITION);
        persister.close();
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, delete.get(10, TimeUnit.SECONDS));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, persister.write("g", PARTITION, STATE)
                .get(10, TimeUnit.SECONDS));
    }
}
