package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.broker.replication.InterBrokerChannel;
import io.tributary.broker.share.RecordState;
import io.tributary.broker.share.ShareCoordinatorPersister;
import io.tributary.broker.share.ShareCoordinatorPersister.Location;
import io.tributary.broker.share.ShareKey;
import io.tributary.broker.share.SharePartition.StateBatch;
import io.tributary.broker.share.ShareState;
import io.tributary.broker.share.ShareStateMessages;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share coordinator on a cluster of three broker processes, reached through {@link ShareCoordinatorPersister}
 * as a share-partition leader on another broker reaches it: the persister runs in the test JVM (no local
 * coordinator, every request over an {@link InterBrokerChannel}) and finds the coordinator by asking broker A
 * FindCoordinator for the share key (key type 2), which names broker B and creates {@code __share_group_state} on
 * the first lookup. Writes, reads, leader-epoch fencing and deletion go to B; then B is SIGKILLed and the next leader
 * of the key's partition answers with exactly the state last acknowledged: acknowledged writes are never lost.
 */
class ShareCoordinatorFailoverTest {

    private static final Duration LIMIT = Duration.ofSeconds(90);
    private static final String GROUP = "share-ledger";

    @TempDir
    Path dir;

    @Test
    void stateWrittenThroughThePersisterSurvivesItsCoordinatorsDeath() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false);
             InterBrokerChannel channel = new InterBrokerChannel(-1, "test-share-state", Time.SYSTEM)) {
            cluster.startAll();
            TopicIdPartition partition = new TopicIdPartition(Uuid.randomUuid(), 4, "ledger");
            ShareKey key = ShareKey.of(GROUP, partition);

            AtomicReference<Node> askedBroker = new AtomicReference<>(node(cluster, 1));
            ShareCoordinatorPersister.Locator findCoordinator = k -> findCoordinator(channel, askedBroker.get(), k);
            int coordinator = awaitCoordinator(findCoordinator, key);
            int other = coordinator == 1 ? 2 : 1;
            askedBroker.set(node(cluster, other));
            cluster.awaitFullIsr("__share_group_state", 3, 3, LIMIT);

            try (ShareCoordinatorPersister persister = new ShareCoordinatorPersister(-1, findCoordinator, null,
                    channel, Time.SYSTEM)) {
                assertEquals(new ReadResult(Errors.NONE, null, Optional.empty()),
                        persister.read(GROUP, partition, 1).get(60, TimeUnit.SECONDS));
                ShareState first = state(1, 100L);
                assertEquals(Errors.NONE, persister.write(GROUP, partition, first).get(60, TimeUnit.SECONDS));
                assertEquals(Optional.of(first), persister.read(GROUP, partition, 1).get(60, TimeUnit.SECONDS)
                        .state());

                // A new leader of the share-partition reads with its epoch: the old leader is fenced from then on.
                ReadResult newLeader = persister.read(GROUP, partition, 2).get(60, TimeUnit.SECONDS);
                assertEquals(Optional.of(state(2, 100L)), newLeader.state());
                assertEquals(Errors.FENCED_LEADER_EPOCH,
                        persister.write(GROUP, partition, state(1, 110L)).get(60, TimeUnit.SECONDS));
                assertEquals(Errors.FENCED_LEADER_EPOCH,
                        persister.read(GROUP, partition, 1).get(60, TimeUnit.SECONDS).error());

                // An administrator's summary read (ReadShareGroupStateSummary) fences nobody.
                ShareState summary = persister.readSummary(GROUP, partition).get(60, TimeUnit.SECONDS).state()
                        .orElseThrow();
                assertEquals(List.of(0, 2, 100L, 9), List.of(summary.stateEpoch(), summary.leaderEpoch(),
                        summary.startOffset(), ShareStateMessages.deliveryCompleteCount(summary)));

                ShareState acknowledged = null;
                for (long start = 101; start <= 120; start++) {
                    ShareState next = state(2, start);
                    assertEquals(Errors.NONE, persister.write(GROUP, partition, next).get(60, TimeUnit.SECONDS));
                    acknowledged = next;
                }

                cluster.kill(coordinator);
                // Broker A names the killed one until its ZooKeeper session expires and the partition is moved.
                await("another share coordinator than the killed " + coordinator).atMost(LIMIT)
                        .until(() -> awaitCoordinator(findCoordinator, key) != coordinator);
                ReadResult afterFailover = awaitRead(persister, partition, 2);
                assertEquals(Optional.of(acknowledged), afterFailover.state(),
                        "the new coordinator has the last acknowledged state");
                assertEquals(Errors.FENCED_LEADER_EPOCH,
                        persister.write(GROUP, partition, state(1, 130L)).get(60, TimeUnit.SECONDS),
                        "the fencing survived the failover");

                // An administrator resets the offsets (InitializeShareGroupState): the leader holding the old state
                // is fenced by the newer state epoch.
                assertEquals(Errors.NONE, persister.initialize(GROUP, partition, 0, 7L).get(60, TimeUnit.SECONDS));
                ShareState reset = persister.readSummary(GROUP, partition).get(60, TimeUnit.SECONDS).state()
                        .orElseThrow();
                assertEquals(List.of(1, 7L, 0), List.of(reset.stateEpoch(), reset.startOffset(),
                        ShareStateMessages.deliveryCompleteCount(reset)));
                assertEquals(Errors.FENCED_STATE_EPOCH,
                        persister.write(GROUP, partition, state(2, 140L)).get(60, TimeUnit.SECONDS));

                assertEquals(Errors.NONE, persister.delete(GROUP, partition).get(60, TimeUnit.SECONDS));
                assertEquals(Optional.empty(), persister.read(GROUP, partition, 3).get(60, TimeUnit.SECONDS)
                        .state());
            }
        }
    }

    private static ShareState state(int leaderEpoch, long startOffset) {
        List<StateBatch> batches = new ArrayList<>();
        batches.add(new StateBatch(startOffset, startOffset + 2, RecordState.ACKNOWLEDGED, (short) 1));
        batches.add(new StateBatch(startOffset + 3, startOffset + 3, RecordState.AVAILABLE, (short) 2));
        batches.add(new StateBatch(startOffset + 4, startOffset + 9, RecordState.ARCHIVED, (short) 5));
        return new ShareState(0, leaderEpoch, startOffset, batches);
    }

    private static Node node(ProcessCluster cluster, int id) {
        String[] hostPort = cluster.broker(id).bootstrapServers().split(":");
        return new Node(id, hostPort[0], Integer.parseInt(hostPort[1]));
    }

    /** FindCoordinator for a share key (key type 2, v6) asked of {@code broker}. */
    private static CompletableFuture<Location> findCoordinator(InterBrokerChannel channel, Node broker, ShareKey key) {
        FindCoordinatorRequest.Builder request = new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                .setKeyType(FindCoordinatorRequest.CoordinatorType.SHARE.id())
                .setCoordinatorKeys(List.of(key.coordinatorKey())));
        return channel.send(broker, request).handle((response, failure) -> {
            if (failure != null || response.wasDisconnected() || !response.hasResponse()) {
                return Location.none(Errors.COORDINATOR_NOT_AVAILABLE, "no answer from broker " + broker.id());
            }
            Coordinator found = ((FindCoordinatorResponse) response.responseBody()).data().coordinators().get(0);
            Errors error = Errors.forCode(found.errorCode());
            return error == Errors.NONE ? Location.at(new Node(found.nodeId(), found.host(), found.port()))
                    : Location.none(error, found.errorMessage());
        });
    }

    private static int awaitCoordinator(ShareCoordinatorPersister.Locator locator, ShareKey key) {
        AtomicReference<Location> found = new AtomicReference<>();
        await("a share coordinator for " + key).atMost(LIMIT).untilAsserted(() -> {
            found.set(locator.locate(key).get(30, TimeUnit.SECONDS));
            assertEquals(Errors.NONE, found.get().error(), () -> "FindCoordinator answered " + found.get());
        });
        return found.get().coordinator().id();
    }

    /** Reads until the answer is not a retriable coordinator error (each read retries for 30 s itself). */
    private static ReadResult awaitRead(ShareCoordinatorPersister persister, TopicIdPartition partition,
                                        int leaderEpoch) {
        AtomicReference<ReadResult> read = new AtomicReference<>();
        await("a read answered by the new coordinator").atMost(LIMIT).untilAsserted(() -> {
            read.set(persister.read(GROUP, partition, leaderEpoch).get(60, TimeUnit.SECONDS));
            assertTrue(read.get().error() == Errors.NONE, () -> "the read answered " + read.get());
        });
        return read.get();
    }
}
