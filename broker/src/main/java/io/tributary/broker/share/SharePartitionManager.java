package io.tributary.broker.share;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.tributary.broker.replication.FetchParams;
import io.tributary.broker.replication.FetchPartitionRequest;
import io.tributary.broker.replication.FetchPartitionResult;
import io.tributary.broker.replication.OffsetResult;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.share.SharePartition.AcquiredRange;
import io.tributary.broker.share.SharePartition.Acquisition;
import io.tributary.jms.format.RecordSelectorValues;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share-partitions this broker leads (KIP-932) and the share sessions of the consumers that fetch from it: the
 * data side of share groups. A share-partition is loaded on the first ShareFetch or ShareAcknowledge of its group for
 * a partition led here: from its durable state ({@link ShareStatePersister}, read with this leader's epoch, which
 * fences the previous leader's writes), or, when it has none, where the group's {@code share.auto.offset.reset} says
 * (and that start is written at once). It is loaded again when the partition's leader epoch changed since.
 *
 * <p>Every acknowledgement is answered once the state that holds it is durable. Writes are whole states, one at a
 * time per share-partition: changes made while one is in flight go out together in the next one, so that a busy
 * share-partition writes about once per round trip to its share coordinator, however many acknowledgements come.
 * Acquisitions are not written (a record's delivery count reaches the durable state with the next write); lock
 * expiries and released sessions are written in the background.
 *
 * <p>A fetch reads each session partition's log from {@link SharePartition#nextFetchOffset()} (up to the high
 * watermark, or the last stable offset for a read_committed group, which also passes over aborted transactions),
 * acquires the records of the batches read, walking them only as far as it acquires ({@link BatchWalk}), and answers
 * with those batches as they are on disk, cut after the last batch used. When nothing could be acquired it waits, like a consumer's fetch, for new data up to
 * {@code MaxWaitMs}, then tries once more.
 *
 * <p>Threads: request-handler threads call {@link #fetch} and {@link #acknowledge}; the manager's own thread expires
 * record locks and idle sessions. Each share-partition guards itself.
 */
public final class SharePartitionManager implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(SharePartitionManager.class);

    /** How often record locks and idle sessions are checked: a lock expires at most this much late. */
    private static final long SWEEP_INTERVAL_MS = 200;
    /** How long a share session's opening waits for the check of what is held (see {@link #revalidate}). */
    private static final long REVALIDATE_TIMEOUT_MS = 1_000;

    /**
     * The answer for one partition of a ShareFetch; {@code scannedTo}, for a member with a selector that got nothing,
     * is where its wait for new records starts (the records before it are all taken or not selected), else -1.
     */
    public record PartitionFetch(Errors error, String errorMessage, Records records, List<AcquiredRange> acquired,
                                 long scannedTo) {

        PartitionFetch(Errors error, String errorMessage, Records records, List<AcquiredRange> acquired) {
            this(error, errorMessage, records, acquired, -1L);
        }

        static PartitionFetch failed(Errors error, String message) {
            return new PartitionFetch(error, message, MemoryRecords.EMPTY, List.of());
        }

        static PartitionFetch scanned(long scannedTo) {
            return new PartitionFetch(Errors.NONE, null, MemoryRecords.EMPTY, List.of(), scannedTo);
        }

        boolean hasRecords() {
            return !acquired.isEmpty();
        }
    }

    /** A ShareFetch's limits. */
    public record FetchLimits(long maxWaitMs, int maxBytes, int maxRecords) {
    }

    private record Key(String groupId, TopicIdPartition partition) {
    }

    /** A share-partition being loaded or loaded, at the leader epoch it was loaded with. */
    private record Held(Key key, int leaderEpoch, CompletableFuture<Loaded> loaded) {
    }

    private final ReplicaManager replicaManager;
    private final ShareGroupSettings.Source settingsSource;
    private final ShareStatePersister persister;
    private final Time time;
    private final ShareSessions sessions;
    private final Map<Key, Held> partitions = new ConcurrentHashMap<>();
    /** Long-poll share fetches waiting on each share-partition, woken when records become available again. */
    private final Map<Key, Set<CompletableFuture<Object>>> availableWaiters = new ConcurrentHashMap<>();
    /**
     * Counts {@link #signalAvailable} calls, so that a fetch that found nothing and then registers as a waiter sees
     * a release it would otherwise have missed in between.
     */
    private final AtomicLong signals = new AtomicLong();
    private final ScheduledExecutorService sweeper;

    public SharePartitionManager(ReplicaManager replicaManager, ShareGroupSettings.Source settingsSource,
                                 ShareConfig config, ShareStatePersister persister, Time time) {
        this.replicaManager = replicaManager;
        this.settingsSource = settingsSource;
        this.persister = persister;
        this.time = time;
        this.sessions = new ShareSessions(config.maxShareSessions(), config.maxSessionTimeoutMs());
        this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "share-partition-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    public ShareSessions sessions() {
        return sessions;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetch

    /**
     * Acquires records of {@code fetchPartitions} for the member and reads them; waits up to the limits' max wait
     * when none could be acquired.
     */
    public CompletableFuture<Map<TopicIdPartition, PartitionFetch>> fetch(String groupId, String memberId,
                                                                          List<TopicIdPartition> fetchPartitions,
                                                                          FetchLimits limits) {
        return fetch(groupId, memberId, fetchPartitions, limits, MessageSelector.all());
    }

    /**
     * As {@link #fetch(String, String, List, FetchLimits)} for a member that takes only the records {@code selector}
     * selects (a JMS receiver's, from its client id): the others stay available to the group's other members.
     */
    public CompletableFuture<Map<TopicIdPartition, PartitionFetch>> fetch(String groupId, String memberId,
                                                                          List<TopicIdPartition> fetchPartitions,
                                                                          FetchLimits limits,
                                                                          MessageSelector selector) {
        Member member = new Member(groupId, memberId, selector);
        List<CompletableFuture<?>> loads = new ArrayList<>();
        for (TopicIdPartition partition : fetchPartitions) {
            loads.add(load(groupId, partition).exceptionally(failure -> null));
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new))
                .thenCompose(loaded -> acquireOrWait(member, fetchPartitions, limits,
                        time.milliseconds() + limits.maxWaitMs()));
    }

    /** The member a fetch is for, and the selector it takes records by. */
    private record Member(String groupId, String memberId, MessageSelector selector) {

        boolean selective() {
            return !selector.matchesAll();
        }
    }

    /**
     * Acquires what it can; with nothing acquired, waits until {@code deadlineMs} for new data at the end of each
     * window or records released by another member, as a consumer's long-poll fetch does, and tries again. A wait
     * that ends because another member took what woke it waits on: of the members parked on one share-partition,
     * one new record gets one of them an answer, the others keep waiting rather than go back to their clients empty
     * and come again at once. A member with a selector waits for records past those it passed over, and waits on
     * when new records are not ones it selects.
     */
    private CompletableFuture<Map<TopicIdPartition, PartitionFetch>> acquireOrWait(
            Member member, List<TopicIdPartition> fetchPartitions, FetchLimits limits, long deadlineMs) {
        String groupId = member.groupId();
        long signalsBefore = signals.get();
        Map<TopicIdPartition, PartitionFetch> first = acquireAll(member, fetchPartitions, limits);
        boolean any = first.values().stream().anyMatch(result -> result.hasRecords() || result.error() != Errors.NONE);
        long leftMs = deadlineMs - time.milliseconds();
        if (any || leftMs <= 0 || fetchPartitions.isEmpty()) {
            return CompletableFuture.completedFuture(first);
        }
        IsolationLevel isolation = settingsSource.settings(groupId).isolationLevel();
        LinkedHashMap<TopicPartition, FetchPartitionRequest> waits = new LinkedHashMap<>();
        Map<TopicIdPartition, Long> froms = new HashMap<>();
        for (TopicIdPartition partition : fetchPartitions) {
            SharePartition loaded = loadedNow(groupId, partition);
            PartitionFetch attempt = first.get(partition);
            long from = loaded == null ? -1L
                    : attempt != null && attempt.scannedTo() >= 0 ? attempt.scannedTo() : loaded.nextFetchOffset();
            if (from >= 0) {
                waits.put(partition.topicPartition(), new FetchPartitionRequest(from, 1, -1));
                froms.put(partition, from);
            }
        }
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(first);
        }
        FetchParams wait = new FetchParams(-1, -1L, leftMs, 1, 1, isolation);
        CompletableFuture<Object> released = new CompletableFuture<>();
        List<Key> keys = fetchPartitions.stream().map(partition -> new Key(groupId, partition)).toList();
        for (Key key : keys) {
            availableWaiters.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(released);
        }
        if (signals.get() != signalsBefore) {
            released.complete(null); // records came back between the attempt and the registration: try again
        }
        CompletableFuture<?> newData = replicaManager.fetch(wait, waits);
        return CompletableFuture.anyOf(newData, released).thenCompose(ignored -> {
            newData.cancel(false); // woken by a release: the parked read is not needed any more
            for (Key key : keys) {
                availableWaiters.computeIfPresent(key, (k, waiters) -> {
                    waiters.remove(released);
                    return waiters.isEmpty() ? null : waiters;
                });
            }
            Map<TopicIdPartition, PartitionFetch> after = acquireAll(member, fetchPartitions, limits);
            boolean got = after.values().stream()
                    .anyMatch(result -> result.hasRecords() || result.error() != Errors.NONE);
            if (got || !(member.selective() || released.isDone() || takenByAnother(groupId, froms))) {
                return CompletableFuture.completedFuture(after);
            }
            return acquireOrWait(member, fetchPartitions, limits, deadlineMs);
        });
    }

    /** Whether another member acquired, since the wait began, data at the offset the wait was for. */
    private boolean takenByAnother(String groupId, Map<TopicIdPartition, Long> froms) {
        for (Map.Entry<TopicIdPartition, Long> entry : froms.entrySet()) {
            SharePartition loaded = loadedNow(groupId, entry.getKey());
            if (loaded != null && loaded.nextFetchOffset() > entry.getValue()) {
                return true;
            }
        }
        return false;
    }

    /** Records of the share-partition became available again: wakes the fetches waiting on it. */
    private void signalAvailable(Key key) {
        signals.incrementAndGet();
        Set<CompletableFuture<Object>> waiters = availableWaiters.remove(key);
        if (waiters != null) {
            for (CompletableFuture<Object> waiter : waiters) {
                waiter.complete(null);
            }
        }
    }

    private Map<TopicIdPartition, PartitionFetch> acquireAll(Member member, List<TopicIdPartition> fetchPartitions,
                                                             FetchLimits limits) {
        Map<TopicIdPartition, PartitionFetch> results = new LinkedHashMap<>();
        int bytesLeft = limits.maxBytes();
        int recordsLeft = limits.maxRecords();
        for (TopicIdPartition partition : fetchPartitions) {
            if (recordsLeft <= 0 || bytesLeft <= 0) {
                results.put(partition, new PartitionFetch(Errors.NONE, null, MemoryRecords.EMPTY, List.of()));
                continue;
            }
            PartitionFetch result = acquire(member, partition, bytesLeft, recordsLeft);
            results.put(partition, result);
            bytesLeft -= result.records().sizeInBytes();
            for (AcquiredRange range : result.acquired()) {
                recordsLeft -= (int) (range.lastOffset() - range.firstOffset() + 1);
            }
        }
        return results;
    }

    private PartitionFetch acquire(Member member, TopicIdPartition partition, int maxBytes, int maxRecords) {
        SharePartition sharePartition;
        try {
            sharePartition = load(member.groupId(), partition).getNow(null);
        } catch (CompletionException e) {
            return failedLoad(e.getCause());
        }
        if (sharePartition == null) {
            return PartitionFetch.failed(Errors.NONE, null);
        }
        IsolationLevel isolation = sharePartition.settings().isolationLevel();
        long from = member.selective() ? sharePartition.nextFetchOffsetFor(member.memberId())
                : sharePartition.nextFetchOffset();
        // A member with a selector reads on past records it does not select, as far as the window allows.
        while (from >= 0) {
            LinkedHashMap<TopicPartition, FetchPartitionRequest> read = new LinkedHashMap<>();
            read.put(partition.topicPartition(), new FetchPartitionRequest(from, maxBytes, -1));
            FetchPartitionResult result = replicaManager.fetch(new FetchParams(-1, -1L, 0, 0, maxBytes, isolation),
                    read).join().get(partition.topicPartition());
            if (result.error() == Errors.OFFSET_OUT_OF_RANGE && result.logStartOffset() > from) {
                sharePartition.onLogStartOffset(result.logStartOffset());
                return PartitionFetch.failed(Errors.NONE, null);
            }
            if (result.error() != Errors.NONE) {
                return PartitionFetch.failed(result.error(), result.errorMessage());
            }
            Records records = result.records();
            if (records.sizeInBytes() == 0) {
                return member.selective() ? PartitionFetch.scanned(from) : PartitionFetch.failed(Errors.NONE, null);
            }
            BatchWalk spans = new BatchWalk(records,
                    isolation == IsolationLevel.READ_COMMITTED ? result.abortedTransactions() : null);
            Acquisition acquisition = sharePartition.acquire(member.memberId(), spans, maxRecords,
                    time.milliseconds(), filter(member.selector(), records, partition.partition()));
            if (!acquisition.ranges().isEmpty()) {
                return new PartitionFetch(Errors.NONE, null, sentBatches(records, spans, acquisition),
                        acquisition.ranges());
            }
            if (!member.selective()) {
                return PartitionFetch.failed(Errors.NONE, null);
            }
            long after = spans.span(acquisition.batchesUsed() == 0 ? 0 : acquisition.batchesUsed() - 1).lastOffset()
                    + 1;
            if (acquisition.batchesUsed() == 0) {
                return PartitionFetch.scanned(-1L); // the window is full of records this member does not select
            }
            from = sharePartition.nextFetchOffset(after);
        }
        return member.selective() ? PartitionFetch.scanned(-1L) : PartitionFetch.failed(Errors.NONE, null);
    }

    /**
     * The batches to send for an acquisition: from the first batch with an acquired record to the last batch used
     * (a selective member passes over batches with nothing for it).
     */
    private static Records sentBatches(Records records, BatchWalk spans, Acquisition acquisition) {
        long firstAcquired = acquisition.ranges().get(0).firstOffset();
        int firstBatch = 0;
        while (spans.span(firstBatch).lastOffset() < firstAcquired) {
            firstBatch++;
        }
        int start = firstBatch == 0 ? 0 : spans.end(firstBatch - 1);
        int end = spans.end(acquisition.batchesUsed() - 1);
        return start == 0 && end == records.sizeInBytes() ? records : records.slice(start, end - start);
    }

    /**
     * The records of {@code records} that {@code selector} selects; the records of a batch are read (and
     * decompressed) only when a record of that batch is asked about. The acquisition asks about offsets in increasing
     * order, so one walk through the batches and their records answers every question.
     */
    private static SharePartition.RecordFilter filter(MessageSelector selector, Records records, int partition) {
        if (selector.matchesAll()) {
            return SharePartition.RecordFilter.ALL;
        }
        Iterator<? extends RecordBatch> batches = records.batches().iterator();
        return new SharePartition.RecordFilter() {
            private RecordBatch batch;
            /** The records of {@link #batch} not yet passed; null until one of them is asked about. */
            private Iterator<Record> inBatch;
            private Record record;

            @Override
            public boolean selects(long offset, int deliveryCount) {
                while ((batch == null || batch.lastOffset() < offset) && batches.hasNext()) {
                    batch = batches.next();
                    inBatch = null;
                    record = null;
                }
                if (batch == null || offset < batch.baseOffset() || offset > batch.lastOffset()) {
                    return true; // not in the log (compacted away): the member acknowledges it as a gap
                }
                if (inBatch == null) {
                    inBatch = batch.iterator();
                }
                while ((record == null || record.offset() < offset) && inBatch.hasNext()) {
                    record = inBatch.next();
                }
                return record == null || record.offset() != offset || RecordSelectorValues.selects(selector,
                        record.headers(), record.timestamp(), record.key(), partition, offset, deliveryCount);
            }
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // Acknowledge and release

    /**
     * Applies one acknowledgement batch of the member to a partition led here; completes once the state holding it
     * is durable (or with why not).
     */
    public CompletableFuture<Errors> acknowledge(String groupId, String memberId, TopicIdPartition partition,
                                                 long firstOffset, long lastOffset, List<Byte> types) {
        return load(groupId, partition).handle((loaded, failure) -> {
            if (failure != null) {
                return CompletableFuture.completedFuture(failedLoad(failure).error());
            }
            Errors error = loaded.acknowledge(memberId, firstOffset, lastOffset, types, time.milliseconds());
            if (error == Errors.NONE && types.contains(SharePartition.RELEASE)) {
                signalAvailable(new Key(groupId, partition));
            }
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(error);
            }
            return persist(groupId, partition);
        }).thenCompose(written -> written);
    }

    /**
     * Releases what the member holds in these partitions (its share session closed or expired). When no member of the
     * group has a session here any more, the group's share-partitions are written and dropped from memory: the next
     * member loads them again from the durable state, which an administrator may have changed meanwhile (offsets
     * reset or deleted while the group was empty).
     */
    public void release(String groupId, String memberId, Collection<TopicIdPartition> sessionPartitions) {
        for (TopicIdPartition partition : sessionPartitions) {
            SharePartition loaded = loadedNow(groupId, partition);
            if (loaded != null && loaded.releaseMember(memberId) > 0) {
                signalAvailable(new Key(groupId, partition));
                persist(groupId, partition);
            }
        }
        if (!sessions.hasGroup(groupId)) {
            for (Held held : List.copyOf(partitions.values())) {
                if (held.key().groupId().equals(groupId)) {
                    persist(groupId, held.key().partition()).whenComplete((error, failure) -> {
                        // A member that opened a session meanwhile keeps the share-partition it is using.
                        if (!sessions.hasGroup(groupId)) {
                            partitions.remove(held.key(), held);
                        }
                    });
                }
            }
        }
    }

    /**
     * A member opened a share session on these partitions: those of its group held here whose durable state an
     * administrator reset or deleted since they were loaded (the state epoch differs, or the state is gone) are
     * dropped, so that the fetch that follows loads them again. The usual case needs none of this (a group's
     * share-partitions are dropped when its last session here closes, and offsets change only while the group has
     * no members), but a session that outlived its member (a consumer killed, its session not yet expired here) keeps
     * them. One summary read per held share-partition when a session opens, which members do rarely; a read not
     * answered within {@link #REVALIDATE_TIMEOUT_MS} keeps what is held, and the leader's next write is fenced
     * instead.
     */
    public CompletableFuture<Void> revalidate(String groupId, Collection<TopicIdPartition> sessionPartitions) {
        List<CompletableFuture<Void>> checks = new ArrayList<>();
        for (TopicIdPartition partition : sessionPartitions) {
            Held held = partitions.get(new Key(groupId, partition));
            if (held == null || !held.loaded().isDone() || held.loaded().isCompletedExceptionally()) {
                continue;
            }
            Loaded loaded = held.loaded().join();
            checks.add(persister.readSummary(groupId, partition).thenAccept(read -> {
                if (read.error() != Errors.NONE) {
                    return;
                }
                boolean reset = read.state().map(state -> state.stateEpoch() != loaded.stateEpoch).orElse(true);
                if (reset && partitions.remove(held.key(), held)) {
                    log.info("The share state of {} for group {} was reset or deleted by an administrator since it "
                            + "was loaded; it is loaded again", partition, groupId);
                }
            }).completeOnTimeout(null, REVALIDATE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .exceptionally(failure -> null));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new));
    }

    /** The loaded share-partition of the group, or null while it is loading, failed or not here. */
    private SharePartition loadedNow(String groupId, TopicIdPartition partition) {
        Held held = partitions.get(new Key(groupId, partition));
        if (held == null || !held.loaded().isDone() || held.loaded().isCompletedExceptionally()) {
            return null;
        }
        return held.loaded().join().sharePartition();
    }

    /**
     * The group's share-partition of a partition led here: loaded, being loaded, or loaded again when the leader
     * epoch changed. Completes exceptionally with a {@link ShareStateException} saying what to answer.
     */
    CompletableFuture<SharePartition> load(String groupId, TopicIdPartition partition) {
        Optional<Partition> local = replicaManager.partition(partition.topicPartition());
        if (local.isEmpty() || !local.get().isLeader()) {
            return CompletableFuture.failedFuture(new ShareStateException(Errors.NOT_LEADER_OR_FOLLOWER,
                    "This broker does not lead " + partition));
        }
        int epoch = local.get().state().leaderEpoch();
        Key key = new Key(groupId, partition);
        ShareGroupSettings settings = settingsSource.settings(groupId);
        Held held = partitions.compute(key, (k, current) -> {
            boolean usable = current != null && current.leaderEpoch() == epoch
                    && !current.loaded().isCompletedExceptionally();
            return usable ? current : new Held(k, epoch, startLoading(k, epoch, settings));
        });
        return held.loaded().thenApply(loaded -> {
            if (!loaded.sharePartition().settings().equals(settings)) {
                loaded.sharePartition().updateSettings(settings);
            }
            return loaded.sharePartition();
        });
    }

    private CompletableFuture<Loaded> startLoading(Key key, int leaderEpoch, ShareGroupSettings settings) {
        return persister.read(key.groupId(), key.partition(), leaderEpoch).thenCompose(read -> {
            if (read.error() != Errors.NONE) {
                throw new ShareStateException(persistError(read.error()), "Reading the share state of "
                        + key.partition() + " for group " + key.groupId() + ": " + read.error()
                        + (read.errorMessage() == null ? "" : " " + read.errorMessage()));
            }
            if (read.state().isPresent()) {
                ShareState state = read.state().get();
                SharePartition sharePartition = new SharePartition(key.groupId(), key.partition(), settings,
                        state.startOffset(), state.batches());
                log.info("Share group {} resumes on {} at offset {} with {} in-flight batches (state epoch {}, "
                                + "leader epoch {})", key.groupId(), key.partition(), state.startOffset(),
                        state.batches().size(), state.stateEpoch(), leaderEpoch);
                return CompletableFuture.completedFuture(new Loaded(sharePartition, state.stateEpoch(),
                        leaderEpoch));
            }
            long start = startOffset(key.partition().topicPartition(), settings);
            SharePartition sharePartition = new SharePartition(key.groupId(), key.partition(), settings, start,
                    List.of());
            Loaded loaded = new Loaded(sharePartition, 0, leaderEpoch);
            log.info("Share group {} starts on {} at offset {} ({})", key.groupId(), key.partition(), start,
                    settings.autoOffsetReset());
            // Written before use: a "latest" start must not move if this leader fails before the first ack.
            return loaded.writer.write().thenApply(error -> {
                if (error != Errors.NONE) {
                    throw new ShareStateException(persistError(error), "Writing the start of " + key.partition()
                            + " for group " + key.groupId() + ": " + error);
                }
                return loaded;
            });
        });
    }

    /** Writes the share-partition's state (coalesced with a write in flight); completes with the write's error. */
    private CompletableFuture<Errors> persist(String groupId, TopicIdPartition partition) {
        Held held = partitions.get(new Key(groupId, partition));
        if (held == null || !held.loaded().isDone() || held.loaded().isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        Loaded loaded = held.loaded().join();
        return loaded.writer.write().thenApply(error -> {
            if (error == Errors.FENCED_LEADER_EPOCH) {
                // A newer leader has read the state: this one must not serve the partition any more.
                partitions.remove(held.key(), held);
            } else if (error == Errors.FENCED_STATE_EPOCH) {
                // An administrator reset the state (offsets altered) since it was loaded: the next use loads it.
                log.info("The share state of {} for group {} was reset by an administrator; it is loaded again",
                        partition, groupId);
                partitions.remove(held.key(), held);
            }
            return persistError(error);
        });
    }

    /** What a client is told for a persister error. */
    private static Errors persistError(Errors error) {
        return switch (error) {
            case NONE -> Errors.NONE;
            case FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH, NOT_LEADER_OR_FOLLOWER -> Errors.NOT_LEADER_OR_FOLLOWER;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT,
                 NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND -> Errors.REQUEST_TIMED_OUT;
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    private static PartitionFetch failedLoad(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof ShareStateException e) {
            // A share state that cannot be read now is no records yet, not an error: the consumer tries again.
            return e.error == Errors.REQUEST_TIMED_OUT ? PartitionFetch.failed(Errors.NONE, null)
                    : PartitionFetch.failed(e.error, e.getMessage());
        }
        log.error("Loading a share-partition failed", cause);
        return PartitionFetch.failed(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
    }

    private long startOffset(TopicPartition tp, ShareGroupSettings settings) {
        ShareAutoOffsetReset reset = settings.autoOffsetReset();
        long timestamp = switch (reset.strategy()) {
            case EARLIEST -> ListOffsetsRequest.EARLIEST_TIMESTAMP;
            case LATEST -> ListOffsetsRequest.LATEST_TIMESTAMP;
            case BY_DURATION -> time.milliseconds() - reset.duration().toMillis();
        };
        OffsetResult found = replicaManager.listOffset(tp, timestamp, settings.isolationLevel(), -1, -1);
        if (found.error() != Errors.NONE) {
            throw new ShareStateException(found.error(), found.errorMessage());
        }
        if (found.offset() >= 0) {
            return found.offset();
        }
        // by_duration with no record that recent: the end.
        OffsetResult end = replicaManager.listOffset(tp, ListOffsetsRequest.LATEST_TIMESTAMP,
                settings.isolationLevel(), -1, -1);
        if (end.error() != Errors.NONE) {
            throw new ShareStateException(end.error(), end.errorMessage());
        }
        return end.offset();
    }

    /**
     * The share-partition start offset of every share-partition loaded here (this broker leads its partition), by
     * group: for the share-group lag of the scrape endpoint. Reads each start offset under its share-partition's
     * lock, which is held for moments only; share-partitions still loading are left out.
     */
    public Map<String, Map<TopicPartition, Long>> startOffsets() {
        Map<String, Map<TopicPartition, Long>> result = new java.util.TreeMap<>();
        for (Held held : partitions.values()) {
            CompletableFuture<Loaded> loading = held.loaded();
            if (!loading.isDone() || loading.isCompletedExceptionally()) {
                continue;
            }
            long startOffset = loading.join().sharePartition().startOffset();
            result.computeIfAbsent(held.key().groupId(), group -> new HashMap<>())
                    .put(held.key().partition().topicPartition(), startOffset);
        }
        return result;
    }

    /** A loaded share-partition, the epochs its writes carry, and its writer. */
    private final class Loaded {
        final SharePartition sharePartition;
        final int stateEpoch;
        final int leaderEpoch;
        final StateWriter writer;

        Loaded(SharePartition sharePartition, int stateEpoch, int leaderEpoch) {
            this.sharePartition = sharePartition;
            this.stateEpoch = stateEpoch;
            this.leaderEpoch = leaderEpoch;
            this.writer = new StateWriter(this);
        }

        SharePartition sharePartition() {
            return sharePartition;
        }
    }

    /**
     * One write at a time per share-partition: a write asked for while one is in flight is made after it, with the
     * state as it is then, and every caller that asked meanwhile waits for that one.
     */
    private final class StateWriter {
        private final Loaded loaded;
        private boolean writing;
        /** Completes with the result of the write after the one in flight; null when none was asked for. */
        private CompletableFuture<Errors> next;

        StateWriter(Loaded loaded) {
            this.loaded = loaded;
        }

        CompletableFuture<Errors> write() {
            synchronized (this) {
                if (writing) {
                    if (next == null) {
                        next = new CompletableFuture<>();
                    }
                    return next;
                }
                writing = true;
            }
            CompletableFuture<Errors> result = new CompletableFuture<>();
            writeNow(result);
            return result;
        }

        private void writeNow(CompletableFuture<Errors> result) {
            SharePartition sharePartition = loaded.sharePartition;
            ShareState state = sharePartition.toState(loaded.stateEpoch, loaded.leaderEpoch);
            persister.write(sharePartition.groupId(), sharePartition.topicIdPartition(), state)
                    .whenComplete((error, failure) -> {
                        CompletableFuture<Errors> waiting;
                        synchronized (this) {
                            waiting = next;
                            next = null;
                            writing = waiting != null;
                        }
                        if (failure != null) {
                            log.warn("Writing the share state of {} failed", sharePartition, failure);
                        }
                        result.complete(failure != null ? Errors.UNKNOWN_SERVER_ERROR : error);
                        if (waiting != null) {
                            writeNow(waiting);
                        }
                    });
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Housekeeping

    private void sweep() {
        try {
            long now = time.milliseconds();
            for (Key key : partitions.keySet()) {
                SharePartition loaded = loadedNow(key.groupId(), key.partition());
                if (loaded != null && loaded.expireLocks(now) > 0) {
                    signalAvailable(key);
                    persist(key.groupId(), key.partition());
                }
            }
            for (Map.Entry<ShareSessions.Key, Set<TopicIdPartition>> expired : sessions.expire(now).entrySet()) {
                release(expired.getKey().groupId(), expired.getKey().memberId(), expired.getValue());
            }
            partitions.entrySet().removeIf(entry -> replicaManager.partition(entry.getKey().partition()
                    .topicPartition()).map(partition -> !partition.isLeader()).orElse(true));
        } catch (RuntimeException e) {
            log.error("Share-partition housekeeping failed", e);
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    /** A share-partition cannot be served here: the error to answer. */
    static final class ShareStateException extends RuntimeException {
        final Errors error;

        ShareStateException(Errors error, String message) {
            super(message);
            this.error = error;
        }
    }
}
