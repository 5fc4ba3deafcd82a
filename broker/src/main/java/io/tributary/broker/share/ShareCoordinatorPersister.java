package io.tributary.broker.share;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.replication.InterBrokerChannel;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateResponse;
import org.apache.kafka.common.requests.InitializeShareGroupStateResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryResponse;
import org.apache.kafka.common.requests.WriteShareGroupStateResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link ShareStatePersister}: each read, write or delete goes to the share coordinator of the
 * share-partition, the leader of its partition of {@code __share_group_state} ({@link ShareCoordinator#partitionFor}),
 * found by a {@link Locator} (the broker's reads its metadata cache, {@link #fromMetadata}, and has the topic created
 * when it does not exist yet, as FindCoordinator does). When that is this broker the local {@link ShareCoordinator}
 * is called directly; otherwise the request (ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState, one
 * share-partition each: {@link ShareStateMessages}) goes over an {@link InterBrokerChannel}.
 *
 * <p>NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, no coordinator yet, and a broken or
 * refused connection are retried, the coordinator looked up again each time, after a backoff of 100 ms doubling to
 * 1 s, for up to 30 s (Kafka's {@code request.timeout.ms}, which bounds its own persister's retries); then that
 * error is the answer (a disconnection as COORDINATOR_NOT_AVAILABLE). Other errors are answered at once.
 *
 * <p>Threads: any thread may call; futures complete on the channel's, the coordinator's or the persister's retry
 * thread, so their continuations must not block. {@link #close()} is idempotent; operations still retrying are then
 * answered COORDINATOR_NOT_AVAILABLE, and later ones at once.
 */
public final class ShareCoordinatorPersister implements ShareStatePersister, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShareCoordinatorPersister.class);

    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 1_000;
    /** Kafka's {@code request.timeout.ms} default. */
    private static final long RETRY_LIMIT_MS = 30_000;

    /** Where the coordinator of a share-partition is: a broker, or why none can be named now. */
    public record Location(Errors error, String errorMessage, Node coordinator) {

        public static Location at(Node coordinator) {
            return new Location(Errors.NONE, null, coordinator);
        }

        public static Location none(Errors error, String message) {
            return new Location(error, message, null);
        }
    }

    /** Finds the coordinator of a share-partition; the broker's is {@link #fromMetadata}. */
    @FunctionalInterface
    public interface Locator {
        CompletableFuture<Location> locate(ShareKey key);
    }

    /**
     * The coordinators as this broker's metadata names them: the live leader of the key's partition of
     * {@code __share_group_state}, placed by the topic's partition count. While the topic does not exist,
     * {@code createTopic} is asked to create it (it answers null when the creation is under way, else why not) and
     * the answer is COORDINATOR_NOT_AVAILABLE.
     */
    public static Locator fromMetadata(Supplier<MetadataSnapshot> metadata, Supplier<String> createTopic) {
        return key -> {
            MetadataSnapshot snapshot = metadata.get();
            Optional<TopicMetadata> topic = snapshot.topic(ShareCoordinatorConfig.STATE_TOPIC);
            if (topic.isEmpty()) {
                String problem = createTopic.get();
                return CompletableFuture.completedFuture(Location.none(Errors.COORDINATOR_NOT_AVAILABLE,
                        problem != null ? problem : ShareCoordinatorConfig.STATE_TOPIC + " is being created"));
            }
            int partition = ShareCoordinator.partitionFor(key, topic.get().partitionCount());
            Optional<BrokerInfo> leader = snapshot.partition(
                            new TopicPartition(ShareCoordinatorConfig.STATE_TOPIC, partition))
                    .filter(PartitionMetadata::hasLeader).flatMap(p -> snapshot.broker(p.leader()));
            return CompletableFuture.completedFuture(leader
                    .map(b -> Location.at(new Node(b.id(), b.host(), b.port(), b.rack())))
                    .orElseGet(() -> Location.none(Errors.COORDINATOR_NOT_AVAILABLE, "Partition " + partition
                            + " of " + ShareCoordinatorConfig.STATE_TOPIC + " has no live leader")));
        };
    }

    /** One operation on one share-partition, retried until it is answered. */
    private final class Operation<T> {
        final String what;
        final ShareKey key;
        final Supplier<CompletableFuture<T>> local;
        final Supplier<AbstractRequest.Builder<?>> request;
        final Function<ClientResponse, T> answer;
        final Function<T, Errors> errorOf;
        final BiFunction<Errors, String, T> failed;
        final long deadlineMs;
        final CompletableFuture<T> result = new CompletableFuture<>();
        long backoffMs = FIRST_BACKOFF_MS;

        Operation(String what, ShareKey key, Supplier<CompletableFuture<T>> local,
                  Supplier<AbstractRequest.Builder<?>> request, Function<ClientResponse, T> answer,
                  Function<T, Errors> errorOf, BiFunction<Errors, String, T> failed) {
            this.what = what;
            this.key = key;
            this.local = local;
            this.request = request;
            this.answer = answer;
            this.errorOf = errorOf;
            this.failed = failed;
            this.deadlineMs = time.milliseconds() + RETRY_LIMIT_MS;
        }

        void attempt() {
            if (closed.get()) {
                finish(failed.apply(Errors.COORDINATOR_NOT_AVAILABLE, "The share state persister is closed"));
                return;
            }
            CompletableFuture<T> attempt;
            try {
                attempt = locator.locate(key).thenCompose(this::ask);
            } catch (RuntimeException e) {
                attempt = CompletableFuture.failedFuture(e);
            }
            attempt.whenComplete((value, failure) -> {
                T outcome = value;
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    log.error("{} of share-partition {} failed", what, key, cause);
                    outcome = failed.apply(Errors.UNKNOWN_SERVER_ERROR, cause.toString());
                }
                Errors error = errorOf.apply(outcome);
                long now = time.milliseconds();
                if (isRetriable(error) && now + backoffMs < deadlineMs && !closed.get()) {
                    long delay = backoffMs;
                    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
                    try {
                        retries.schedule(this::attempt, delay, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                        finish(failed.apply(Errors.COORDINATOR_NOT_AVAILABLE, "The share state persister is closed"));
                    }
                } else {
                    finish(outcome);
                }
            });
        }

        private CompletableFuture<T> ask(Location location) {
            if (location.error() != Errors.NONE) {
                return CompletableFuture.completedFuture(failed.apply(location.error(), location.errorMessage()));
            }
            Node coordinator = location.coordinator();
            if (coordinator.id() == localBrokerId && localCoordinator != null) {
                return local.get();
            }
            return channel.send(coordinator, request.get()).handle((response, failure) -> {
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    return failed.apply(Errors.COORDINATOR_NOT_AVAILABLE, cause.getMessage());
                }
                if (response.versionMismatch() != null) {
                    return failed.apply(Errors.UNSUPPORTED_VERSION, response.versionMismatch().getMessage());
                }
                if (response.wasDisconnected() || !response.hasResponse()) {
                    return failed.apply(Errors.COORDINATOR_NOT_AVAILABLE, "The connection to share coordinator "
                            + coordinator.id() + " broke or timed out");
                }
                return answer.apply(response);
            });
        }

        void finish(T outcome) {
            pending.remove(this);
            result.complete(outcome);
        }
    }

    private final int localBrokerId;
    private final Locator locator;
    /** The coordinator on this broker; null where none runs (a client of the cluster, not a broker). */
    private final ShareCoordinator localCoordinator;
    private final InterBrokerChannel channel;
    private final Time time;
    private final ScheduledThreadPoolExecutor retries;
    private final Set<Operation<?>> pending = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param localBrokerId    this broker's id: requests for it go to {@code localCoordinator}
     * @param locator          finds each share-partition's coordinator ({@link #fromMetadata} on a broker)
     * @param localCoordinator this broker's coordinator, or null to send every request over the channel
     * @param channel          carries requests to the other brokers; owned by the caller
     */
    public ShareCoordinatorPersister(int localBrokerId, Locator locator, ShareCoordinator localCoordinator,
                                     InterBrokerChannel channel, Time time) {
        this.localBrokerId = localBrokerId;
        this.locator = locator;
        this.localCoordinator = localCoordinator;
        this.channel = channel;
        this.time = time;
        this.retries = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-share-persister");
            thread.setDaemon(true);
            return thread;
        });
        retries.setRemoveOnCancelPolicy(true);
    }

    @Override
    public CompletableFuture<ReadResult> read(String groupId, TopicIdPartition partition, int leaderEpoch) {
        ShareKey key = ShareKey.of(groupId, partition);
        return run(new Operation<>("Reading the state", key, () -> localCoordinator.read(key, leaderEpoch),
                () -> ShareStateMessages.readRequest(key, leaderEpoch),
                response -> ShareStateMessages.readResult(
                        ((ReadShareGroupStateResponse) response.responseBody()).data(), key, leaderEpoch),
                ReadResult::error, ReadResult::failed));
    }

    @Override
    public CompletableFuture<Errors> write(String groupId, TopicIdPartition partition, ShareState state) {
        ShareKey key = ShareKey.of(groupId, partition);
        return run(new Operation<>("Writing the state", key, () -> localCoordinator.write(key, state),
                () -> ShareStateMessages.writeRequest(key, state),
                response -> ShareStateMessages.writeError(
                        ((WriteShareGroupStateResponse) response.responseBody()).data(), key),
                error -> error, (error, message) -> error));
    }

    @Override
    public CompletableFuture<ReadResult> readSummary(String groupId, TopicIdPartition partition) {
        ShareKey key = ShareKey.of(groupId, partition);
        return run(new Operation<>("Reading the state summary", key, () -> localCoordinator.readSummary(key),
                () -> ShareStateMessages.readSummaryRequest(key),
                response -> ShareStateMessages.readSummaryResult(
                        ((ReadShareGroupStateSummaryResponse) response.responseBody()).data(), key),
                ReadResult::error, ReadResult::failed));
    }

    @Override
    public CompletableFuture<Errors> initialize(String groupId, TopicIdPartition partition, int stateEpoch,
                                                long startOffset) {
        ShareKey key = ShareKey.of(groupId, partition);
        return run(new Operation<>("Initializing the state", key,
                () -> localCoordinator.initialize(key, stateEpoch, startOffset),
                () -> ShareStateMessages.initializeRequest(key, stateEpoch, startOffset),
                response -> ShareStateMessages.initializeError(
                        ((InitializeShareGroupStateResponse) response.responseBody()).data(), key),
                error -> error, (error, message) -> error));
    }

    @Override
    public CompletableFuture<Errors> delete(String groupId, TopicIdPartition partition) {
        ShareKey key = ShareKey.of(groupId, partition);
        return run(new Operation<>("Deleting the state", key, () -> localCoordinator.delete(key),
                () -> ShareStateMessages.deleteRequest(key),
                response -> ShareStateMessages.deleteError(
                        ((DeleteShareGroupStateResponse) response.responseBody()).data(), key),
                error -> error, (error, message) -> error));
    }

    private <T> CompletableFuture<T> run(Operation<T> operation) {
        pending.add(operation);
        operation.attempt();
        return operation.result;
    }

    private static boolean isRetriable(Errors error) {
        return error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE
                || error == Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /** Stops retrying: operations left are answered COORDINATOR_NOT_AVAILABLE. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        retries.shutdownNow();
        for (Operation<?> operation : Set.copyOf(pending)) {
            failOnClose(operation);
        }
    }

    private static <T> void failOnClose(Operation<T> operation) {
        operation.finish(operation.failed.apply(Errors.COORDINATOR_NOT_AVAILABLE,
                "The share state persister is closed"));
    }
}
