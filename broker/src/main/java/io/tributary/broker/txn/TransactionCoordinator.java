package io.tributary.broker.txn;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

import io.tributary.broker.replication.InternalTopicLog;
import io.tributary.broker.replication.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator (KIP-98) of the transactional ids whose {@code __transaction_state} partition this
 * broker leads: InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
 * DescribeTransactions and ListTransactions, and the completion of decided transactions by markers.
 *
 * <p>A transactional id belongs to partition {@code abs(id.hashCode()) % partitions} of {@code __transaction_state}.
 * When this broker becomes that partition's leader it reads the partition ({@code COORDINATOR_LOAD_IN_PROGRESS}
 * meanwhile), then completes every transaction the previous coordinator had decided (PrepareCommit, PrepareAbort)
 * but perhaps not finished, by sending its markers again; when leadership moves away it drops the partition's ids
 * ({@code NOT_COORDINATOR}). The partition's leader epoch is the coordinator epoch markers carry.
 *
 * <p>Every change is written to the partition with acks=all before it takes effect in memory
 * ({@link TransactionMetadata}); EndTxn is answered once its PrepareCommit/PrepareAbort is replicated, then the
 * markers are written ({@link TransactionMarkers}), then CompleteCommit/CompleteAbort. A coordinator that dies in
 * between leaves the decision in the log for the next one.
 *
 * <p>Threads: the public methods are called from request-handler threads (InitProducerId from the admin thread, as
 * a new producer id may need ZooKeeper); write completions, loading, marker completions and the two periodic tasks
 * (aborting timed-out transactions, removing expired ids) run on the coordinator's own thread. Each transactional
 * id is guarded by its {@link TransactionMetadata}'s monitor.
 */
public final class TransactionCoordinator implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinator.class);

    /** A failed CompleteCommit/CompleteAbort write is retried after this long while this broker still leads. */
    private static final long COMPLETE_RETRY_BACKOFF_MS = 100;
    /**
     * How long an EndTxn answer waits for the markers and the Complete state: below the clients' default
     * {@code request.timeout.ms} (30 s), long enough for any healthy cluster.
     */
    private static final long END_TXN_COMPLETION_WAIT_MS = 5_000;
    /** A failed load is retried after this long while this broker still leads the partition. */
    private static final long LOAD_RETRY_BACKOFF_MS = 500;

    /** InitProducerId's answer. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult failed(Errors error) {
            return new InitResult(error, TransactionData.NO_PRODUCER_ID, TransactionData.NO_EPOCH);
        }
    }

    /** One transaction in a DescribeTransactions answer ({@code error} NONE) or why it cannot be described. */
    public record Described(String transactionalId, Errors error, TransactionState state, int timeoutMs,
                            long startTimestamp, long producerId, short producerEpoch,
                            Set<TopicPartition> partitions) {
    }

    /** One transaction in a ListTransactions answer. */
    public record Listed(String transactionalId, long producerId, TransactionState state) {
    }

    /** ListTransactions: the transactions, and COORDINATOR_LOAD_IN_PROGRESS while some partition is loading. */
    public record ListResult(Errors error, List<Listed> transactions) {
    }

    /** A {@code __transaction_state} partition this broker leads, at one leader epoch. */
    private static final class LogPartition {
        final int partition;
        final int coordinatorEpoch;
        final Map<String, TransactionMetadata> transactions = new ConcurrentHashMap<>();
        volatile boolean loaded;

        LogPartition(int partition, int coordinatorEpoch) {
            this.partition = partition;
            this.coordinatorEpoch = coordinatorEpoch;
        }
    }

    private record Lookup(Errors error, LogPartition partition) {
    }

    private final TransactionConfig config;
    private final TransactionLog txnLog;
    private final TransactionMarkers markers;
    private final LongSupplier producerIds;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final Time time;
    /** Shut down by {@link #close()} when the coordinator created it. */
    private final ScheduledThreadPoolExecutor ownScheduler;
    private final Map<Integer, LogPartition> owned = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The partition count of {@code __transaction_state}: the topic's once it exists, else the configured one. */
    private volatile int partitionCount;

    /**
     * @param executor  runs write completions and loads (the coordinator's thread; a test may run them inline)
     * @param scheduler runs delayed retries
     */
    TransactionCoordinator(TransactionConfig config, TransactionLog txnLog, TransactionMarkers markers,
                           LongSupplier producerIds, Executor executor, ScheduledExecutorService scheduler,
                           Time time) {
        this(config, txnLog, markers, producerIds, executor, scheduler, time, null);
    }

    private TransactionCoordinator(TransactionConfig config, TransactionLog txnLog, TransactionMarkers markers,
                                   LongSupplier producerIds, Executor executor, ScheduledExecutorService scheduler,
                                   Time time, ScheduledThreadPoolExecutor ownScheduler) {
        this.config = config;
        this.txnLog = txnLog;
        this.markers = markers;
        this.producerIds = producerIds;
        this.executor = executor;
        this.scheduler = scheduler;
        this.time = time;
        this.ownScheduler = ownScheduler;
        this.partitionCount = config.logNumPartitions();
    }

    /**
     * The broker's coordinator: writes and reads {@code __transaction_state} through the replica manager, runs on a
     * thread of its own, and aborts timed-out transactions and removes expired ids at the configured intervals.
     */
    public static TransactionCoordinator create(TransactionConfig config, ReplicaManager replicaManager,
                                                TransactionMarkerSender markers, LongSupplier producerIds,
                                                Time time) {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "tributary-transaction-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        TransactionCoordinator coordinator = new TransactionCoordinator(config,
                new ReplicatedTransactionLog(replicaManager, time), markers, producerIds, scheduler, scheduler, time,
                scheduler);
        scheduler.scheduleWithFixedDelay(coordinator::abortTimedOutTransactions, config.abortTimedOutIntervalMs(),
                config.abortTimedOutIntervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(coordinator::removeExpiredTransactionalIds,
                config.removeExpiredIntervalMs(), config.removeExpiredIntervalMs(), TimeUnit.MILLISECONDS);
        return coordinator;
    }

    public TransactionConfig config() {
        return config;
    }

    /** The {@code __transaction_state} partition of a transactional id (Kafka's placement). */
    public int partitionFor(String transactionalId) {
        return Utils.abs(transactionalId.hashCode()) % partitionCount;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leadership

    /**
     * The partitions of {@code __transaction_state} this broker leads now, each with its leader epoch, and the
     * topic's partition count (0 while it does not exist). Newly led partitions (or led at a new epoch) are loaded;
     * the others are dropped. Called by the broker's coordinator elections, one call at a time.
     */
    public synchronized void onLeadershipChange(Map<Integer, Integer> ledPartitionEpochs, int topicPartitions) {
        if (closed.get()) {
            return;
        }
        if (topicPartitions > 0) {
            partitionCount = topicPartitions;
        }
        for (LogPartition partition : List.copyOf(owned.values())) {
            Integer epoch = ledPartitionEpochs.get(partition.partition);
            if (epoch == null || epoch != partition.coordinatorEpoch) {
                resign(partition);
            }
        }
        for (Map.Entry<Integer, Integer> led : ledPartitionEpochs.entrySet()) {
            if (!owned.containsKey(led.getKey())) {
                LogPartition partition = new LogPartition(led.getKey(), led.getValue());
                owned.put(partition.partition, partition);
                executor.execute(() -> load(partition));
            }
        }
    }

    private void resign(LogPartition partition) {
        owned.remove(partition.partition, partition);
        for (TransactionMetadata metadata : partition.transactions.values()) {
            synchronized (metadata) {
                metadata.remove();
            }
        }
        log.info("No longer the transaction coordinator for partition {} of {} (epoch {}): dropped {} "
                + "transactional ids", partition.partition, TransactionConfig.TRANSACTION_STATE_TOPIC,
                partition.coordinatorEpoch, partition.transactions.size());
    }

    /** Whether this coordinator leads {@code partition} at the epoch it loaded it with. */
    private boolean isCurrent(LogPartition partition) {
        return owned.get(partition.partition) == partition && !closed.get();
    }

    private void load(LogPartition partition) {
        if (!isCurrent(partition)) {
            return;
        }
        long started = time.milliseconds();
        Map<String, TransactionData> loaded;
        try {
            loaded = txnLog.load(partition.partition, () -> isCurrent(partition));
        } catch (RuntimeException e) {
            // Its ids stay unavailable (COORDINATOR_LOAD_IN_PROGRESS) until a load succeeds or leadership moves.
            log.error("Loading partition {} of {} failed; retrying in {} ms", partition.partition,
                    TransactionConfig.TRANSACTION_STATE_TOPIC, LOAD_RETRY_BACKOFF_MS, e);
            scheduler.schedule(() -> executor.execute(() -> load(partition)), LOAD_RETRY_BACKOFF_MS,
                    TimeUnit.MILLISECONDS);
            return;
        }
        List<TransactionMetadata> decided = new ArrayList<>();
        for (Map.Entry<String, TransactionData> entry : loaded.entrySet()) {
            if (entry.getValue().state() == TransactionState.DEAD) {
                continue;
            }
            TransactionMetadata metadata = new TransactionMetadata(entry.getKey(), partition.partition,
                    entry.getValue());
            partition.transactions.put(entry.getKey(), metadata);
            if (entry.getValue().state().isPreparing()) {
                decided.add(metadata);
            }
        }
        if (!isCurrent(partition)) {
            return;
        }
        partition.loaded = true;
        log.info("Loaded {} transactional ids from partition {} of {} (coordinator epoch {}) in {} ms; completing {} "
                + "decided transactions", partition.transactions.size(), partition.partition,
                TransactionConfig.TRANSACTION_STATE_TOPIC, partition.coordinatorEpoch,
                time.milliseconds() - started, decided.size());
        for (TransactionMetadata metadata : decided) {
            writeMarkers(partition, metadata);
        }
    }

    private Lookup lookup(String transactionalId) {
        if (closed.get()) {
            return new Lookup(Errors.NOT_COORDINATOR, null);
        }
        LogPartition partition = owned.get(partitionFor(transactionalId));
        if (partition == null) {
            return new Lookup(Errors.NOT_COORDINATOR, null);
        }
        if (!partition.loaded) {
            return new Lookup(Errors.COORDINATOR_LOAD_IN_PROGRESS, null);
        }
        return new Lookup(Errors.NONE, partition);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Requests

    /**
     * InitProducerId with a transactional id. A new id gets a new producer id at epoch 0; a known one its next
     * epoch, which fences the producer that had the previous one. An ongoing transaction is aborted first (with a
     * bumped epoch, so its producer is fenced) and the caller answered CONCURRENT_TRANSACTIONS until that is done.
     * With {@code expectedProducerId} (KIP-360, a producer recovering), a retry of an answered call gets the same
     * epoch again, and a stale producer PRODUCER_FENCED. Exhausted epochs move the id to a new producer id.
     */
    public CompletableFuture<InitResult> initProducerId(String transactionalId, int timeoutMs,
                                                        long expectedProducerId, short expectedEpoch) {
        if (transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(InitResult.failed(Errors.INVALID_REQUEST));
        }
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeoutMs()) {
            return CompletableFuture.completedFuture(InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT));
        }
        Lookup lookup = lookup(transactionalId);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(InitResult.failed(lookup.error()));
        }
        try {
            return initProducerId(lookup.partition(), transactionalId, timeoutMs, expectedProducerId, expectedEpoch);
        } catch (ProducerIdUnavailableException e) {
            // Retriable for the client, as Kafka answers when its producer id manager cannot hand one out.
            log.warn("No producer id for transactional id {}: {}", transactionalId, e.getMessage());
            return CompletableFuture.completedFuture(InitResult.failed(Errors.COORDINATOR_NOT_AVAILABLE));
        }
    }

    /** No new producer id could be had (ZooKeeper unreachable while a new block is claimed). */
    private static final class ProducerIdUnavailableException extends RuntimeException {
        ProducerIdUnavailableException(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    private long newProducerId() {
        try {
            return producerIds.getAsLong();
        } catch (RuntimeException e) {
            throw new ProducerIdUnavailableException(e);
        }
    }

    private CompletableFuture<InitResult> initProducerId(LogPartition partition, String transactionalId,
                                                         int timeoutMs, long expectedProducerId,
                                                         short expectedEpoch) {
        TransactionMetadata metadata = partition.transactions.computeIfAbsent(transactionalId, id ->
                new TransactionMetadata(id, partition.partition,
                        TransactionData.fresh(newProducerId(), timeoutMs, time.milliseconds())));
        boolean expected = expectedProducerId != TransactionData.NO_PRODUCER_ID;
        synchronized (metadata) {
            if (metadata.isRemoved()) {
                return CompletableFuture.completedFuture(InitResult.failed(Errors.NOT_COORDINATOR));
            }
            if (metadata.hasPending()) {
                return CompletableFuture.completedFuture(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
            }
            TransactionData data = metadata.data();
            if (expected && !(data.producerEpoch() == TransactionData.NO_EPOCH
                    || expectedProducerId == data.producerId()
                    || (expectedProducerId == data.previousProducerId() && isEpochExhausted(expectedEpoch)))) {
                return CompletableFuture.completedFuture(InitResult.failed(Errors.PRODUCER_FENCED));
            }
            long now = time.milliseconds();
            switch (data.state()) {
                case PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE, DEAD -> {
                    return CompletableFuture.completedFuture(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                }
                case ONGOING -> {
                    // Abort with the next epoch: the markers fence the current producer on every partition. The
                    // caller retries and then gets the epoch after that (or a new producer id).
                    return abortWithFencing(partition, metadata, now)
                            .thenApply(error -> InitResult.failed(
                                    error == Errors.NONE ? Errors.CONCURRENT_TRANSACTIONS : error));
                }
                default -> {
                    TransactionData next;
                    if (isEpochExhausted(data.producerEpoch())
                            && (!expected || expectedEpoch == data.producerEpoch())) {
                        next = new TransactionData(newProducerId(), data.producerId(), (short) 0,
                                TransactionData.NO_EPOCH, timeoutMs, TransactionState.EMPTY, Set.of(), -1L, now);
                    } else if (!expected || data.producerEpoch() == TransactionData.NO_EPOCH
                            || (expectedProducerId == data.producerId() && expectedEpoch == data.producerEpoch())) {
                        next = new TransactionData(data.producerId(), data.previousProducerId(),
                                (short) (data.producerEpoch() + 1), data.producerEpoch(), timeoutMs,
                                TransactionState.EMPTY, Set.of(), -1L, now);
                    } else if (expectedProducerId == data.producerId()
                            && expectedEpoch == data.lastProducerEpoch()) {
                        // A retry whose answer was lost: the same epoch again.
                        next = new TransactionData(data.producerId(), data.previousProducerId(),
                                data.producerEpoch(), data.lastProducerEpoch(), timeoutMs, TransactionState.EMPTY,
                                Set.of(), -1L, now);
                    } else if (expectedProducerId == data.previousProducerId()) {
                        // A retry after the rotation to a new producer id: the new id again.
                        next = new TransactionData(data.producerId(), data.previousProducerId(),
                                data.producerEpoch(), data.lastProducerEpoch(), timeoutMs, TransactionState.EMPTY,
                                Set.of(), -1L, now);
                    } else {
                        return CompletableFuture.completedFuture(InitResult.failed(Errors.PRODUCER_FENCED));
                    }
                    TransactionData written = next;
                    return persist(partition, metadata, next).thenApply(error -> error == Errors.NONE
                            ? new InitResult(Errors.NONE, written.producerId(), written.producerEpoch())
                            : InitResult.failed(error));
                }
            }
        }
    }

    /** Kafka's rule: an epoch this high cannot be bumped twice more (once to fence, once for the producer). */
    static boolean isEpochExhausted(short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    /**
     * AddPartitionsToTxn (and AddOffsetsToTxn with the group's {@code __consumer_offsets} partition): adds the
     * partitions to the producer's transaction, beginning one if none is open.
     */
    public CompletableFuture<Errors> addPartitions(String transactionalId, long producerId, short producerEpoch,
                                                   Collection<TopicPartition> partitions) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
        }
        Lookup lookup = lookup(transactionalId);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(lookup.error());
        }
        TransactionMetadata metadata = lookup.partition().transactions.get(transactionalId);
        if (metadata == null) {
            return CompletableFuture.completedFuture(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        synchronized (metadata) {
            Errors error = checkProducer(metadata, producerId, producerEpoch);
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(error);
            }
            TransactionData data = metadata.data();
            if (data.state().isPreparing() || data.state() == TransactionState.PREPARE_EPOCH_FENCE) {
                return CompletableFuture.completedFuture(Errors.CONCURRENT_TRANSACTIONS);
            }
            if (data.state() == TransactionState.DEAD) {
                return CompletableFuture.completedFuture(Errors.INVALID_PRODUCER_ID_MAPPING);
            }
            if (data.state() == TransactionState.ONGOING && data.partitions().containsAll(partitions)) {
                return CompletableFuture.completedFuture(Errors.NONE);
            }
            long now = time.milliseconds();
            Set<TopicPartition> all = new HashSet<>(data.partitions());
            all.addAll(partitions);
            long start = data.state() == TransactionState.ONGOING ? data.startTimestamp() : now;
            TransactionData next = new TransactionData(data.producerId(), data.previousProducerId(),
                    data.producerEpoch(), data.lastProducerEpoch(), data.timeoutMs(), TransactionState.ONGOING, all,
                    start, now);
            return persist(lookup.partition(), metadata, next);
        }
    }

    /**
     * AddPartitionsToTxn with verifyOnly (v4+, sent by brokers, KIP-890): whether each partition is in the producer's
     * ongoing transaction (INVALID_TXN_STATE if not); nothing changes.
     */
    public Map<TopicPartition, Errors> verifyPartitions(String transactionalId, long producerId, short producerEpoch,
                                                        Collection<TopicPartition> partitions) {
        Errors error = transactionalId == null || transactionalId.isEmpty() ? Errors.INVALID_REQUEST
                : lookup(transactionalId).error();
        TransactionMetadata metadata = null;
        if (error == Errors.NONE) {
            metadata = lookup(transactionalId).partition().transactions.get(transactionalId);
            if (metadata == null) {
                error = Errors.INVALID_PRODUCER_ID_MAPPING;
            }
        }
        Map<TopicPartition, Errors> results = new HashMap<>();
        if (error != Errors.NONE) {
            for (TopicPartition tp : partitions) {
                results.put(tp, error);
            }
            return results;
        }
        synchronized (metadata) {
            Errors producerError = checkProducer(metadata, producerId, producerEpoch);
            TransactionData data = metadata.data();
            for (TopicPartition tp : partitions) {
                results.put(tp, producerError != Errors.NONE ? producerError
                        : data.state() == TransactionState.ONGOING && data.partitions().contains(tp)
                        ? Errors.NONE : Errors.INVALID_TXN_STATE);
            }
        }
        return results;
    }

    /** The checks every request of a producer passes: its id, its epoch, no change in flight. */
    private static Errors checkProducer(TransactionMetadata metadata, long producerId, short producerEpoch) {
        if (metadata.isRemoved()) {
            return Errors.NOT_COORDINATOR;
        }
        TransactionData data = metadata.data();
        if (data.producerId() != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (data.producerEpoch() != producerEpoch) {
            return Errors.PRODUCER_FENCED;
        }
        if (metadata.hasPending()) {
            return Errors.CONCURRENT_TRANSACTIONS;
        }
        return Errors.NONE;
    }

    /**
     * EndTxn: decides the producer's ongoing transaction. The decision is durable once PrepareCommit/PrepareAbort is
     * replicated; the markers and the Complete state follow, and the answer waits for them, up to
     * {@value #END_TXN_COMPLETION_WAIT_MS} ms. Kafka answers at the decision already, and the producer's next
     * AddPartitionsToTxn then meets CONCURRENT_TRANSACTIONS while the markers are written, and retries after a
     * backoff (20 ms in the Java client): a back-to-back producer lost most of its time there. Answered after the
     * completion, the next transaction starts at once. When markers take longer (a partition without leader), the
     * answer goes out at the bound: the decision stands either way. A retry of a completed decision is answered NONE; a contrary one
     * INVALID_TXN_STATE; one arriving while markers are written CONCURRENT_TRANSACTIONS.
     */
    public CompletableFuture<Errors> endTransaction(String transactionalId, long producerId, short producerEpoch,
                                                    TransactionResult result) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
        }
        Lookup lookup = lookup(transactionalId);
        if (lookup.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(lookup.error());
        }
        LogPartition partition = lookup.partition();
        TransactionMetadata metadata = partition.transactions.get(transactionalId);
        if (metadata == null) {
            return CompletableFuture.completedFuture(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        boolean commit = result == TransactionResult.COMMIT;
        synchronized (metadata) {
            Errors error = checkProducer(metadata, producerId, producerEpoch);
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(error);
            }
            TransactionData data = metadata.data();
            Errors answer = switch (data.state()) {
                case ONGOING -> null;
                case COMPLETE_COMMIT -> commit ? Errors.NONE : Errors.INVALID_TXN_STATE;
                case COMPLETE_ABORT -> commit ? Errors.INVALID_TXN_STATE : Errors.NONE;
                case PREPARE_COMMIT -> commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE;
                case PREPARE_ABORT -> commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS;
                case PREPARE_EPOCH_FENCE -> Errors.CONCURRENT_TRANSACTIONS;
                case EMPTY, DEAD -> Errors.INVALID_TXN_STATE;
            };
            if (answer != null) {
                return CompletableFuture.completedFuture(answer);
            }
            TransactionData next = data.withState(commit ? TransactionState.PREPARE_COMMIT
                    : TransactionState.PREPARE_ABORT, time.milliseconds());
            CompletableFuture<Void> completed = metadata.completion();
            return decide(partition, metadata, next).thenCompose(decided -> decided != Errors.NONE
                    ? CompletableFuture.completedFuture(decided)
                    : completed.copy().completeOnTimeout(null, END_TXN_COMPLETION_WAIT_MS, TimeUnit.MILLISECONDS)
                            .handle((ignored, failure) -> Errors.NONE));
        }
    }

    /** Writes the decision; once it is replicated the markers go out (on the coordinator's thread). */
    private CompletableFuture<Errors> decide(LogPartition partition, TransactionMetadata metadata,
                                             TransactionData prepared) {
        return persist(partition, metadata, prepared).thenApply(error -> {
            if (error == Errors.NONE) {
                executor.execute(() -> writeMarkers(partition, metadata));
            }
            return error;
        });
    }

    /** Aborts the ongoing transaction with the next epoch (caller holds the monitor, nothing pending). */
    private CompletableFuture<Errors> abortWithFencing(LogPartition partition, TransactionMetadata metadata,
                                                       long now) {
        TransactionData data = metadata.data();
        // Kafka's limit too: at Short.MAX_VALUE there is no next epoch; abort with the current one.
        short epoch = data.producerEpoch() < Short.MAX_VALUE ? (short) (data.producerEpoch() + 1)
                : data.producerEpoch();
        TransactionData next = new TransactionData(data.producerId(), data.previousProducerId(), epoch,
                data.producerEpoch(), data.timeoutMs(), TransactionState.PREPARE_ABORT, data.partitions(),
                data.startTimestamp(), now);
        return decide(partition, metadata, next);
    }

    /** Sends the markers of a decided transaction, then writes its Complete state. Coordinator thread. */
    private void writeMarkers(LogPartition partition, TransactionMetadata metadata) {
        TransactionData prepared;
        synchronized (metadata) {
            prepared = metadata.data();
            if (metadata.isRemoved() || !prepared.state().isPreparing()) {
                return;
            }
        }
        TransactionResult result = prepared.state() == TransactionState.PREPARE_COMMIT
                ? TransactionResult.COMMIT : TransactionResult.ABORT;
        markers.write(new TransactionMarkers.Job(metadata.transactionalId, prepared.producerId(),
                        prepared.producerEpoch(), partition.coordinatorEpoch, result, prepared.partitions(),
                        () -> isCurrent(partition)))
                .whenCompleteAsync((done, failure) -> {
                    if (failure != null) {
                        log.error("Writing the {} markers of transactional id {} failed", result,
                                metadata.transactionalId, failure);
                    } else if (done) {
                        complete(partition, metadata, prepared);
                    }
                }, executor);
    }

    /** Writes CompleteCommit/CompleteAbort once every marker is written; retried while this broker leads. */
    private void complete(LogPartition partition, TransactionMetadata metadata, TransactionData prepared) {
        CompletableFuture<Errors> written;
        synchronized (metadata) {
            if (metadata.isRemoved() || metadata.data() != prepared || !isCurrent(partition)) {
                return;
            }
            if (metadata.hasPending()) {
                scheduleCompleteRetry(partition, metadata, prepared);
                return;
            }
            TransactionState completed = prepared.state() == TransactionState.PREPARE_COMMIT
                    ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
            TransactionData next = new TransactionData(prepared.producerId(), prepared.previousProducerId(),
                    prepared.producerEpoch(), prepared.lastProducerEpoch(), prepared.timeoutMs(), completed, Set.of(),
                    prepared.startTimestamp(), time.milliseconds());
            written = persist(partition, metadata, next);
        }
        written.thenAccept(error -> {
            if (error != Errors.NONE) {
                log.warn("Writing the completion of transactional id {} failed ({}); retrying",
                        metadata.transactionalId, error);
                scheduleCompleteRetry(partition, metadata, prepared);
            }
        });
    }

    private void scheduleCompleteRetry(LogPartition partition, TransactionMetadata metadata,
                                       TransactionData prepared) {
        if (!isCurrent(partition)) {
            return;
        }
        scheduler.schedule(() -> executor.execute(() -> complete(partition, metadata, prepared)),
                COMPLETE_RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Writes {@code next} (the caller holds the monitor and has checked nothing is pending); it takes effect once
     * replicated, unless this coordinator lost the partition meanwhile (NOT_COORDINATOR).
     */
    private CompletableFuture<Errors> persist(LogPartition partition, TransactionMetadata metadata,
                                              TransactionData next) {
        metadata.begin(next);
        CompletableFuture<Errors> append;
        try {
            append = txnLog.append(partition.partition, metadata.transactionalId, next);
        } catch (RuntimeException e) {
            append = CompletableFuture.failedFuture(e);
        }
        return append.handleAsync((error, failure) -> {
            Errors appendError = failure != null ? Errors.UNKNOWN_SERVER_ERROR : error;
            if (failure != null) {
                log.error("Writing transactional id {} to partition {} of {} failed", metadata.transactionalId,
                        partition.partition, TransactionConfig.TRANSACTION_STATE_TOPIC, failure);
            }
            synchronized (metadata) {
                if (!metadata.isPending(next)) {
                    return Errors.NOT_COORDINATOR;
                }
                boolean current = isCurrent(partition);
                metadata.finish(appendError == Errors.NONE && current);
                if (appendError != Errors.NONE) {
                    return InternalTopicLog.coordinatorError(appendError);
                }
                return current ? Errors.NONE : Errors.NOT_COORDINATOR;
            }
        }, executor);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Housekeeping

    /**
     * Aborts every ongoing transaction older than its timeout, with the next epoch so that its producer is fenced
     * (its next request fails with PRODUCER_FENCED / INVALID_PRODUCER_EPOCH). Every
     * {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}.
     */
    void abortTimedOutTransactions() {
        long now = time.milliseconds();
        forEachSettled((partition, metadata) -> {
            TransactionData data = metadata.data();
            if (data.state() == TransactionState.ONGOING && data.startTimestamp() + data.timeoutMs() <= now) {
                log.info("Aborting the transaction of transactional id {} (producer id {}, epoch {}): it has run "
                        + "{} ms, its timeout is {} ms", metadata.transactionalId, data.producerId(),
                        data.producerEpoch(), now - data.startTimestamp(), data.timeoutMs());
                abortWithFencing(partition, metadata, now);
            }
        });
    }

    /**
     * Removes transactional ids without a transaction whose last change is older than
     * {@code transactional.id.expiration.ms} (a tombstone in the log). Every
     * {@code transaction.remove.expired.transaction.cleanup.interval.ms}.
     */
    void removeExpiredTransactionalIds() {
        long now = time.milliseconds();
        forEachSettled((partition, metadata) -> {
            TransactionData data = metadata.data();
            if (!data.state().isIdle() || data.lastUpdateTimestamp() + config.idExpirationMs() > now) {
                return;
            }
            metadata.beginRemoval();
            txnLog.append(partition.partition, metadata.transactionalId, null)
                    .whenCompleteAsync((error, failure) -> {
                        boolean removed = failure == null && error == Errors.NONE;
                        synchronized (metadata) {
                            if (!metadata.isPending(null)) {
                                return;
                            }
                            metadata.finish(removed);
                            if (removed) {
                                partition.transactions.remove(metadata.transactionalId, metadata);
                                log.info("Removed transactional id {}: idle since {}",
                                        metadata.transactionalId, data.lastUpdateTimestamp());
                            }
                        }
                    }, executor);
        });
    }

    /**
     * Calls {@code action} with each transactional id of the loaded partitions that is neither removed nor waiting for
     * a log append, holding the id's monitor (housekeeping thread).
     */
    private void forEachSettled(BiConsumer<LogPartition, TransactionMetadata> action) {
        for (LogPartition partition : owned.values()) {
            if (!partition.loaded) {
                continue;
            }
            for (TransactionMetadata metadata : partition.transactions.values()) {
                synchronized (metadata) {
                    if (!metadata.isRemoved() && !metadata.hasPending()) {
                        action.accept(partition, metadata);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Admin

    /** DescribeTransactions of one transactional id. */
    public Described describe(String transactionalId) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return notDescribed(transactionalId, Errors.TRANSACTIONAL_ID_NOT_FOUND);
        }
        Lookup lookup = lookup(transactionalId);
        if (lookup.error() != Errors.NONE) {
            return notDescribed(transactionalId, lookup.error());
        }
        TransactionMetadata metadata = lookup.partition().transactions.get(transactionalId);
        if (metadata == null) {
            return notDescribed(transactionalId, Errors.TRANSACTIONAL_ID_NOT_FOUND);
        }
        synchronized (metadata) {
            TransactionData data = metadata.data();
            if (metadata.isRemoved() || data.state() == TransactionState.DEAD) {
                return notDescribed(transactionalId, Errors.TRANSACTIONAL_ID_NOT_FOUND);
            }
            return new Described(transactionalId, Errors.NONE, data.state(), data.timeoutMs(), data.startTimestamp(),
                    data.producerId(), data.producerEpoch(), data.partitions());
        }
    }

    private static Described notDescribed(String transactionalId, Errors error) {
        return new Described(transactionalId, error, null, 0, -1L, TransactionData.NO_PRODUCER_ID,
                TransactionData.NO_EPOCH, Set.of());
    }

    /**
     * ListTransactions over the partitions this coordinator leads: filtered by state and producer id when those sets
     * are not empty, and to transactions started more than {@code minDurationMs} ago when that is not negative (as
     * in Kafka, an id without a transaction, start -1, passes that filter).
     */
    public ListResult list(Set<TransactionState> states, Set<Long> producerIdFilter, long minDurationMs) {
        long now = time.milliseconds();
        Errors error = Errors.NONE;
        List<Listed> listed = new ArrayList<>();
        for (LogPartition partition : owned.values()) {
            if (!partition.loaded) {
                error = Errors.COORDINATOR_LOAD_IN_PROGRESS;
                continue;
            }
            for (TransactionMetadata metadata : partition.transactions.values()) {
                synchronized (metadata) {
                    TransactionData data = metadata.data();
                    if (metadata.isRemoved() || data.state() == TransactionState.DEAD
                            || (!states.isEmpty() && !states.contains(data.state()))
                            || (!producerIdFilter.isEmpty() && !producerIdFilter.contains(data.producerId()))
                            || (minDurationMs >= 0 && now - data.startTimestamp() <= minDurationMs)) {
                        continue;
                    }
                    listed.add(new Listed(metadata.transactionalId, data.producerId(), data.state()));
                }
            }
        }
        return new ListResult(error, listed);
    }

    /** Stops the coordinator's thread; requests are answered NOT_COORDINATOR afterwards. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (this) {
            for (LogPartition partition : List.copyOf(owned.values())) {
                resign(partition);
            }
        }
        if (ownScheduler != null) {
            ownScheduler.shutdownNow();
        }
    }
}
