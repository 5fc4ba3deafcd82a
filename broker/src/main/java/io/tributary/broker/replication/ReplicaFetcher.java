package io.tributary.broker.replication;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.storage.StorageResourceException;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fetcher thread: replicates the partitions this broker follows whose leader is one source broker, with Fetch
 * requests as a replica (the replica id and broker epoch in the request, each partition's log end offset as fetch
 * offset and the epoch of its last batch as {@code lastFetchedEpoch}), long-polled at the leader for up to
 * {@code replica.fetch.wait.max.ms}.
 *
 * <p>Each answer is applied per partition through {@link Partition}: records appended, high watermark and log start
 * offset followed, a diverging epoch truncated (the next fetch checks again from the new end, until the logs agree),
 * an offset out of the leader's range resolved with ListOffsets. A partition whose fetch failed pauses for
 * {@code replica.fetch.backoff.ms} (for errors of a leadership in transition, which the metadata resolves within
 * moments, a tenth of it); a broken connection pauses them all.
 *
 * <p>Threads: the fetcher thread does all I/O; {@link #add}, {@link #remove} and {@link #close} may be called from
 * any thread (the replica manager's role changes) and take effect before the next request is built. Every partition
 * carries the leader epoch it was added for, and a {@link Partition} ignores calls for another epoch, so an answer to
 * a request sent before a role change cannot touch the new role's log.
 */
final class ReplicaFetcher implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);

    /** A partition to fetch, for one leader epoch, and when it may be fetched again after an error. */
    private static final class Target {
        final Partition partition;
        final int leaderEpoch;
        long delayUntilMs;

        Target(Partition partition, int leaderEpoch) {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
        }
    }

    private final int localBrokerId;
    private final int sourceBrokerId;
    private final ReplicationConfig config;
    private final ReplicaRegistry registry;
    private final LongSupplier localBrokerEpoch;
    private final Time time;
    private final Thread thread;
    /** Guarded by this. */
    private final Map<TopicPartition, Target> targets = new LinkedHashMap<>();
    private volatile boolean running = true;
    /** The fetcher thread's connection; replaced when the source broker re-registers elsewhere. */
    private volatile BrokerConnection connection;
    /** Where the next request starts in the partition list, so that no partition always comes last. */
    private int rotation;
    private boolean connectionFailureLogged;

    ReplicaFetcher(int localBrokerId, int sourceBrokerId, int fetcherIndex, ReplicationConfig config,
                   ReplicaRegistry registry, LongSupplier localBrokerEpoch, Time time) {
        this.localBrokerId = localBrokerId;
        this.sourceBrokerId = sourceBrokerId;
        this.config = config;
        this.registry = registry;
        this.localBrokerEpoch = localBrokerEpoch;
        this.time = time;
        this.thread = new Thread(this, "replica-fetcher-" + localBrokerId + "-from-" + sourceBrokerId + "-"
                + fetcherIndex);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Fetches {@code partition} in {@code leaderEpoch} from now on (replacing an earlier epoch's entry). */
    synchronized void add(Partition partition, int leaderEpoch) {
        targets.put(partition.topicPartition(), new Target(partition, leaderEpoch));
        notifyAll();
    }

    /** Stops fetching a partition. */
    synchronized void remove(TopicPartition tp) {
        targets.remove(tp);
    }

    synchronized boolean isEmpty() {
        return targets.isEmpty();
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    /** Tells the thread to stop after its current request; does not wait. Idempotent. */
    void shutdown() {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        BrokerConnection current = connection;
        if (current != null) {
            try {
                current.wakeup();
            } catch (RuntimeException e) {
                // closed by the fetcher thread meanwhile
            }
        }
    }

    /** Waits for the thread to end, up to the request timeout. */
    void awaitTermination() {
        try {
            thread.join(config.requestTimeoutMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        try {
            while (running) {
                try {
                    fetchOnce();
                } catch (RuntimeException e) {
                    // Never let one bad answer end replication from this broker.
                    log.error("Replica fetcher of broker {} from broker {} failed; retrying in {} ms", localBrokerId,
                            sourceBrokerId, config.fetchBackoffMs(), e);
                    pauseAll(config.fetchBackoffMs());
                }
            }
        } finally {
            if (connection != null) {
                connection.close();
            }
        }
    }

    private void fetchOnce() {
        Map<TopicPartition, Target> batch = due();
        if (batch.isEmpty()) {
            return;
        }
        Optional<BrokerConnection> source = connect();
        if (source.isEmpty()) {
            pause(batch, config.fetchBackoffMs());
            return;
        }
        Map<TopicPartition, FetchRequest.PartitionData> fetchData = new LinkedHashMap<>();
        Map<Uuid, String> topicNames = new HashMap<>();
        for (Map.Entry<TopicPartition, Target> entry : batch.entrySet()) {
            Partition partition = entry.getValue().partition;
            topicNames.put(partition.topicId(), entry.getKey().topic());
            fetchData.put(entry.getKey(), new FetchRequest.PartitionData(partition.topicId(),
                    partition.log().logEndOffset(), partition.log().logStartOffset(), config.fetchMaxBytes(),
                    Optional.of(entry.getValue().leaderEpoch),
                    partition.log().leaderEpochCache().latestEpoch().stream().boxed().findFirst()));
        }
        FetchRequest.Builder request = FetchRequest.Builder.forReplica(ApiKeys.FETCH.latestVersion(),
                        localBrokerId, localBrokerEpoch.getAsLong(), config.fetchWaitMaxMs(), config.fetchMinBytes(),
                        fetchData)
                .setMaxBytes(config.fetchResponseMaxBytes());
        ClientResponse response;
        try {
            response = source.get().send(request);
        } catch (IOException e) {
            connectionFailed(e);
            pause(batch, config.fetchBackoffMs());
            return;
        }
        if (!response.hasResponse() || response.versionMismatch() != null) {
            connectionFailed(new IOException("no answer to a fetch: " + response));
            pause(batch, config.fetchBackoffMs());
            return;
        }
        connectionFailureLogged = false;
        FetchResponse fetchResponse = (FetchResponse) response.responseBody();
        if (fetchResponse.error() != Errors.NONE) {
            log.warn("Broker {} answered the fetch of broker {} with {}", sourceBrokerId, localBrokerId,
                    fetchResponse.error());
            pause(batch, config.fetchBackoffMs());
            return;
        }
        for (FetchResponseData.FetchableTopicResponse topic : fetchResponse.data().responses()) {
            String name = topic.topic() != null && !topic.topic().isEmpty() ? topic.topic()
                    : topicNames.get(topic.topicId());
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData data : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name, data.partitionIndex());
                Target target = batch.get(tp);
                if (target != null && isCurrent(tp, target)) {
                    process(source.get(), tp, target, data);
                }
            }
        }
    }

    /** The partitions due for fetching, in rotated order; waits a while when there are none. */
    private synchronized Map<TopicPartition, Target> due() {
        long now = time.milliseconds();
        List<Map.Entry<TopicPartition, Target>> ready = new ArrayList<>();
        long nextDue = Long.MAX_VALUE;
        for (Map.Entry<TopicPartition, Target> entry : targets.entrySet()) {
            if (entry.getValue().delayUntilMs <= now) {
                ready.add(entry);
            } else {
                nextDue = Math.min(nextDue, entry.getValue().delayUntilMs);
            }
        }
        if (ready.isEmpty()) {
            try {
                wait(nextDue == Long.MAX_VALUE ? 1_000 : Math.max(1, nextDue - now));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
            return Map.of();
        }
        Map<TopicPartition, Target> batch = new LinkedHashMap<>();
        int start = Math.floorMod(rotation++, ready.size());
        for (int i = 0; i < ready.size(); i++) {
            Map.Entry<TopicPartition, Target> entry = ready.get((start + i) % ready.size());
            batch.put(entry.getKey(), entry.getValue());
        }
        return batch;
    }

    private synchronized boolean isCurrent(TopicPartition tp, Target target) {
        return targets.get(tp) == target;
    }

    /** The connection to the source broker at its registered address, or empty while it is not registered. */
    private Optional<BrokerConnection> connect() {
        Optional<BrokerInfo> source = registry.broker(sourceBrokerId);
        if (source.isEmpty()) {
            if (connection != null) {
                connection.close();
                connection = null;
            }
            return Optional.empty();
        }
        BrokerInfo broker = source.get();
        if (connection != null && (!connection.target().host().equals(broker.host())
                || connection.target().port() != broker.port())) {
            connection.close();
            connection = null;
        }
        if (connection == null) {
            connection = new BrokerConnection(localBrokerId, broker, "replica-fetcher",
                    config.socketReceiveBufferBytes(), config.requestTimeoutMs(), config.security(), time);
        }
        return Optional.of(connection);
    }

    private void connectionFailed(IOException e) {
        if (!connectionFailureLogged) {
            log.warn("Broker {} cannot fetch from broker {}: {}", localBrokerId, sourceBrokerId, e.getMessage());
            connectionFailureLogged = true;
        } else {
            log.debug("Broker {} cannot fetch from broker {}: {}", localBrokerId, sourceBrokerId, e.getMessage());
        }
    }

    private void process(BrokerConnection source, TopicPartition tp, Target target,
                         FetchResponseData.PartitionData data) {
        Partition partition = target.partition;
        int epoch = target.leaderEpoch;
        Errors error = Errors.forCode(data.errorCode());
        try {
            switch (error) {
                case NONE -> {
                    if (FetchResponse.isDivergingEpoch(data)) {
                        if (!partition.truncateDivergence(epoch, data.divergingEpoch().epoch(),
                                data.divergingEpoch().endOffset())) {
                            // Nothing to cut, yet the leader sees divergence: do not spin on it.
                            log.warn("Broker {}: the leader {} of {} reports divergence at epoch {} offset {}, but "
                                    + "nothing here can be truncated; retrying in {} ms", localBrokerId,
                                    sourceBrokerId, tp, data.divergingEpoch().epoch(),
                                    data.divergingEpoch().endOffset(), config.fetchBackoffMs());
                            pause(tp, target, config.fetchBackoffMs());
                        }
                        return;
                    }
                    Records records = FetchResponse.recordsOrFail(data);
                    if (records.sizeInBytes() > 0) {
                        if (!(records instanceof MemoryRecords memoryRecords)) {
                            throw new KafkaException("unexpected records of " + tp + ": " + records.getClass());
                        }
                        partition.appendAsFollower(epoch, memoryRecords);
                    }
                    partition.updateFollowerHighWatermark(epoch, data.highWatermark());
                    partition.followLeaderLogStart(epoch, data.logStartOffset());
                }
                case OFFSET_OUT_OF_RANGE -> resolveOutOfRange(source, tp, target);
                case NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION,
                     UNKNOWN_TOPIC_ID, REPLICA_NOT_AVAILABLE, LEADER_NOT_AVAILABLE ->
                    // A leadership in transition: one side has not seen the newest state yet.
                        pause(tp, target, Math.max(1, config.fetchBackoffMs() / 10));
                default -> {
                    log.warn("Broker {} fetching {} from broker {}: {}", localBrokerId, tp, sourceBrokerId, error);
                    pause(tp, target, config.fetchBackoffMs());
                }
            }
        } catch (StorageResourceException e) {
            // A full disk or no file descriptor left: the log is as it was, fetch again after the back-off.
            log.warn("Broker {} could not append what it fetched of {} from broker {}; retrying in {} ms: {}",
                    localBrokerId, tp, sourceBrokerId, config.fetchBackoffMs(), e.getMessage());
            pause(tp, target, config.fetchBackoffMs());
        } catch (RuntimeException e) {
            log.error("Broker {} could not apply what it fetched of {} from broker {}; retrying in {} ms",
                    localBrokerId, tp, sourceBrokerId, config.fetchBackoffMs(), e);
            pause(tp, target, config.fetchBackoffMs());
        }
    }

    /** The leader's log does not hold the fetch offset: asks for its start and end, and adjusts the local log. */
    private void resolveOutOfRange(BrokerConnection source, TopicPartition tp, Target target) {
        try {
            long start = listOffset(source, tp, target.leaderEpoch, ListOffsetsRequest.EARLIEST_TIMESTAMP);
            long end = listOffset(source, tp, target.leaderEpoch, ListOffsetsRequest.LATEST_TIMESTAMP);
            target.partition.resetToLeader(target.leaderEpoch, start, end);
        } catch (IOException | KafkaException e) {
            log.warn("Broker {} could not find the offset range of {} at broker {}: {}", localBrokerId, tp,
                    sourceBrokerId, e.getMessage());
            pause(tp, target, config.fetchBackoffMs());
        }
    }

    private long listOffset(BrokerConnection source, TopicPartition tp, int leaderEpoch, long timestamp)
            throws IOException {
        ListOffsetsRequestData.ListOffsetsTopic topic = new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(tp.topic());
        topic.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition()
                .setPartitionIndex(tp.partition())
                .setCurrentLeaderEpoch(leaderEpoch)
                .setTimestamp(timestamp));
        ClientResponse response = source.send(ListOffsetsRequest.Builder
                .forReplica(ApiKeys.LIST_OFFSETS.latestVersion(), localBrokerId)
                .setTargetTimes(List.of(topic)));
        if (!response.hasResponse()) {
            throw new IOException("no answer to ListOffsets for " + tp);
        }
        for (ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse
                : ((ListOffsetsResponse) response.responseBody()).topics()) {
            for (ListOffsetsResponseData.ListOffsetsPartitionResponse partition : topicResponse.partitions()) {
                if (partition.partitionIndex() == tp.partition()) {
                    Errors error = Errors.forCode(partition.errorCode());
                    if (error != Errors.NONE) {
                        throw error.exception("ListOffsets for " + tp + " at broker " + sourceBrokerId);
                    }
                    return partition.offset();
                }
            }
        }
        throw new KafkaException("ListOffsets for " + tp + " at broker " + sourceBrokerId + " named no such partition");
    }

    private synchronized void pause(TopicPartition tp, Target target, long delayMs) {
        if (targets.get(tp) == target) {
            target.delayUntilMs = time.milliseconds() + delayMs;
        }
    }

    private synchronized void pause(Map<TopicPartition, Target> batch, long delayMs) {
        long until = time.milliseconds() + delayMs;
        for (Map.Entry<TopicPartition, Target> entry : batch.entrySet()) {
            if (targets.get(entry.getKey()) == entry.getValue()) {
                entry.getValue().delayUntilMs = until;
            }
        }
    }

    private synchronized void pauseAll(long delayMs) {
        long until = time.milliseconds() + delayMs;
        for (Target target : targets.values()) {
            target.delayUntilMs = until;
        }
    }
}
