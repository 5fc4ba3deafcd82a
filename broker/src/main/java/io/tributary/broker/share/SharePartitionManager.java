package io.tributary.broker.share;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.replication.FetchParams;
import io.tributary.broker.replication.FetchPartitionRequest;
import io.tributary.broker.replication.FetchPartitionResult;
import io.tributary.broker.replication.OffsetResult;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.share.SharePartition.AcquiredRange;
import io.tributary.broker.share.SharePartition.Acquisition;
import io.tributary.broker.share.SharePartition.BatchSpan;
import io.tributary.broker.storage.AbortedTxn;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
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
 * data side of share groups. A share-partition is made on the first ShareFetch or ShareAcknowledge of its group for a
 * partition led here, starting where the group's {@code share.auto.offset.reset} says, and is made again when the
 * partition's leader epoch changed since.
 *
 * <p>A fetch reads each session partition's log from {@link SharePartition#nextFetchOffset()} (up to the high
 * watermark, or the last stable offset for a read_committed group, which also passes over aborted transactions),
 * acquires the records of the batches read, and answers with those batches as they are on disk, cut after the last
 * batch used. When nothing could be acquired it waits, like a consumer's fetch, for new data up to
 * {@code MaxWaitMs}, then tries once more.
 *
 * <p>Threads: request-handler threads call {@link #fetch} and {@link #acknowledge}; the manager's own thread expires
 * record locks and idle sessions. Each share-partition guards itself.
 */
public final class SharePartitionManager implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(SharePartitionManager.class);

    /** How often record locks and idle sessions are checked: a lock expires at most this much late. */
    private static final long SWEEP_INTERVAL_MS = 200;

    /** The answer for one partition of a ShareFetch. */
    public record PartitionFetch(Errors error, String errorMessage, Records records, List<AcquiredRange> acquired) {

        static PartitionFetch failed(Errors error, String message) {
            return new PartitionFetch(error, message, MemoryRecords.EMPTY, List.of());
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

    private record Held(SharePartition sharePartition, int leaderEpoch) {
    }

    private final ReplicaManager replicaManager;
    private final ShareGroupSettings.Source settingsSource;
    private final Time time;
    private final ShareSessions sessions;
    private final Map<Key, Held> partitions = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;

    public SharePartitionManager(ReplicaManager replicaManager, ShareGroupSettings.Source settingsSource,
                                 ShareConfig config, Time time) {
        this.replicaManager = replicaManager;
        this.settingsSource = settingsSource;
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
        Map<TopicIdPartition, PartitionFetch> first = acquireAll(groupId, memberId, fetchPartitions, limits);
        boolean any = first.values().stream().anyMatch(result -> result.hasRecords() || result.error() != Errors.NONE);
        if (any || limits.maxWaitMs() <= 0 || fetchPartitions.isEmpty()) {
            return CompletableFuture.completedFuture(first);
        }
        // Nothing to acquire: wait for new data at the end of each window, as a consumer's long-poll fetch does.
        IsolationLevel isolation = settingsSource.settings(groupId).isolationLevel();
        LinkedHashMap<TopicPartition, FetchPartitionRequest> waits = new LinkedHashMap<>();
        for (TopicIdPartition partition : fetchPartitions) {
            Held held = partitions.get(new Key(groupId, partition));
            long from = held == null ? -1L : held.sharePartition().nextFetchOffset();
            if (from >= 0) {
                waits.put(partition.topicPartition(), new FetchPartitionRequest(from, 1, -1));
            }
        }
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(first);
        }
        FetchParams wait = new FetchParams(-1, -1L, limits.maxWaitMs(), 1, 1, isolation);
        return replicaManager.fetch(wait, waits)
                .thenApply(ignored -> acquireAll(groupId, memberId, fetchPartitions, limits));
    }

    private Map<TopicIdPartition, PartitionFetch> acquireAll(String groupId, String memberId,
                                                             List<TopicIdPartition> fetchPartitions,
                                                             FetchLimits limits) {
        Map<TopicIdPartition, PartitionFetch> results = new LinkedHashMap<>();
        int bytesLeft = limits.maxBytes();
        int recordsLeft = limits.maxRecords();
        for (TopicIdPartition partition : fetchPartitions) {
            if (recordsLeft <= 0 || bytesLeft <= 0) {
                results.put(partition, new PartitionFetch(Errors.NONE, null, MemoryRecords.EMPTY, List.of()));
                continue;
            }
            PartitionFetch result = acquire(groupId, memberId, partition, bytesLeft, recordsLeft);
            results.put(partition, result);
            bytesLeft -= result.records().sizeInBytes();
            for (AcquiredRange range : result.acquired()) {
                recordsLeft -= (int) (range.lastOffset() - range.firstOffset() + 1);
            }
        }
        return results;
    }

    private PartitionFetch acquire(String groupId, String memberId, TopicIdPartition partition, int maxBytes,
                                   int maxRecords) {
        SharePartition sharePartition;
        try {
            sharePartition = sharePartition(groupId, partition);
        } catch (ShareStateException e) {
            return PartitionFetch.failed(e.error, e.getMessage());
        }
        long from = sharePartition.nextFetchOffset();
        if (from < 0) {
            return PartitionFetch.failed(Errors.NONE, null);
        }
        IsolationLevel isolation = sharePartition.settings().isolationLevel();
        LinkedHashMap<TopicPartition, FetchPartitionRequest> read = new LinkedHashMap<>();
        read.put(partition.topicPartition(), new FetchPartitionRequest(from, maxBytes, -1));
        FetchPartitionResult result = replicaManager.fetch(new FetchParams(-1, -1L, 0, 0, maxBytes, isolation), read)
                .join().get(partition.topicPartition());
        if (result.error() == Errors.OFFSET_OUT_OF_RANGE && result.logStartOffset() > from) {
            sharePartition.onLogStartOffset(result.logStartOffset());
            return PartitionFetch.failed(Errors.NONE, null);
        }
        if (result.error() != Errors.NONE) {
            return PartitionFetch.failed(result.error(), result.errorMessage());
        }
        Records records = result.records();
        if (records.sizeInBytes() == 0) {
            return PartitionFetch.failed(Errors.NONE, null);
        }
        List<BatchSpan> spans = new ArrayList<>();
        List<Integer> ends = new ArrayList<>();
        readBatches(records, isolation == IsolationLevel.READ_COMMITTED ? result.abortedTransactions() : null,
                spans, ends);
        Acquisition acquisition = sharePartition.acquire(memberId, spans, maxRecords, time.milliseconds());
        if (acquisition.ranges().isEmpty()) {
            return PartitionFetch.failed(Errors.NONE, null);
        }
        int bytes = ends.get(acquisition.batchesUsed() - 1);
        Records sent = bytes == records.sizeInBytes() ? records : records.slice(0, bytes);
        return new PartitionFetch(Errors.NONE, null, sent, acquisition.ranges());
    }

    /**
     * The batches of {@code records} with, for each, the byte position after it; with {@code aborted} (read_committed)
     * the batches of aborted transactions are marked not deliverable, as a read_committed consumer would skip them.
     */
    static void readBatches(Records records, List<AbortedTxn> aborted, List<BatchSpan> spans, List<Integer> ends) {
        PriorityQueue<AbortedTxn> pending = new PriorityQueue<>((a, b) -> Long.compare(a.firstOffset(),
                b.firstOffset()));
        if (aborted != null) {
            pending.addAll(aborted);
        }
        Set<Long> abortedProducers = new HashSet<>();
        int position = 0;
        for (RecordBatch batch : records.batches()) {
            while (!pending.isEmpty() && pending.peek().firstOffset() <= batch.lastOffset()) {
                abortedProducers.add(pending.poll().producerId());
            }
            boolean deliverable;
            if (batch.isControlBatch()) {
                deliverable = false;
                if (isAbortMarker(batch)) {
                    abortedProducers.remove(batch.producerId());
                }
            } else {
                deliverable = !(batch.isTransactional() && abortedProducers.contains(batch.producerId()));
            }
            position += batch.sizeInBytes();
            spans.add(new BatchSpan(batch.baseOffset(), batch.lastOffset(), deliverable));
            ends.add(position);
        }
    }

    private static boolean isAbortMarker(RecordBatch batch) {
        var iterator = batch.iterator();
        if (!iterator.hasNext()) {
            return false;
        }
        Record marker = iterator.next();
        ByteBuffer key = marker.key();
        return key != null && ControlRecordType.parse(key) == ControlRecordType.ABORT;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Acknowledge and release

    /** Applies one acknowledgement batch of the member to a partition led here. */
    public Errors acknowledge(String groupId, String memberId, TopicIdPartition partition, long firstOffset,
                              long lastOffset, List<Byte> types) {
        try {
            return sharePartition(groupId, partition).acknowledge(memberId, firstOffset, lastOffset, types,
                    time.milliseconds());
        } catch (ShareStateException e) {
            return e.error;
        }
    }

    /** Releases what the member holds in these partitions (its share session closed or expired). */
    public void release(String groupId, String memberId, Collection<TopicIdPartition> sessionPartitions) {
        for (TopicIdPartition partition : sessionPartitions) {
            Held held = partitions.get(new Key(groupId, partition));
            if (held != null) {
                held.sharePartition().releaseMember(memberId);
            }
        }
    }

    /** The share-partition of the group, made or made again (leader epoch changed) when needed. */
    SharePartition sharePartition(String groupId, TopicIdPartition partition) {
        Partition local = replicaManager.partition(partition.topicPartition())
                .orElseThrow(() -> new ShareStateException(Errors.NOT_LEADER_OR_FOLLOWER,
                        "This broker does not lead " + partition));
        if (!local.isLeader()) {
            throw new ShareStateException(Errors.NOT_LEADER_OR_FOLLOWER, "This broker does not lead " + partition);
        }
        int epoch = local.state().leaderEpoch();
        Key key = new Key(groupId, partition);
        ShareGroupSettings settings = settingsSource.settings(groupId);
        Held held = partitions.compute(key, (k, current) -> {
            if (current != null && current.leaderEpoch() == epoch) {
                return current;
            }
            return new Held(initialize(groupId, partition, settings), epoch);
        });
        SharePartition sharePartition = held.sharePartition();
        if (!sharePartition.settings().equals(settings)) {
            sharePartition.updateSettings(settings);
        }
        return sharePartition;
    }

    private SharePartition initialize(String groupId, TopicIdPartition partition, ShareGroupSettings settings) {
        long start = startOffset(partition.topicPartition(), settings);
        log.info("Share group {} starts on {} at offset {} ({})", groupId, partition, start,
                settings.autoOffsetReset());
        return new SharePartition(groupId, partition, settings, start, List.of());
    }

    /** Where {@code share.auto.offset.reset} starts a share-partition without state. */
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

    // ---------------------------------------------------------------------------------------------------------
    // Housekeeping

    private void sweep() {
        try {
            long now = time.milliseconds();
            for (Held held : partitions.values()) {
                held.sharePartition().expireLocks(now);
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
