package io.tributary.broker.replication;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * Which {@link ReplicaFetcher} replicates each followed partition: {@code num.replica.fetchers} fetchers per source
 * broker, a partition going to one of its leader's by the hash of its name. A fetcher starts with its first
 * partition and stops when its last one leaves.
 *
 * <p>Threads: any (the replica manager's role changes, under its state-change lock); synchronized. Stopping a
 * fetcher does not wait for it: its thread may be inside a request to a dead leader, and the caller is the metadata
 * thread. {@link #close()} waits.
 */
final class ReplicaFetcherManager implements AutoCloseable {

    private record FetcherId(int sourceBrokerId, int index) {
    }

    private record Assignment(FetcherId fetcher, int leaderEpoch) {
    }

    private final int localBrokerId;
    private final ReplicationConfig config;
    private final ReplicaRegistry registry;
    private final LongSupplier localBrokerEpoch;
    private final Time time;
    private final Map<FetcherId, ReplicaFetcher> fetchers = new HashMap<>();
    private final Map<TopicPartition, Assignment> assignments = new HashMap<>();
    private final List<ReplicaFetcher> stopping = new ArrayList<>();
    private boolean closed;

    ReplicaFetcherManager(int localBrokerId, ReplicationConfig config, ReplicaRegistry registry,
                          LongSupplier localBrokerEpoch, Time time) {
        this.localBrokerId = localBrokerId;
        this.config = config;
        this.registry = registry;
        this.localBrokerEpoch = localBrokerEpoch;
        this.time = time;
    }

    /** Fetches {@code partition} from {@code leaderId} in {@code leaderEpoch}; nothing changes if it already does. */
    synchronized void follow(Partition partition, int leaderId, int leaderEpoch) {
        if (closed) {
            return;
        }
        TopicPartition tp = partition.topicPartition();
        FetcherId id = new FetcherId(leaderId, Math.floorMod(tp.hashCode(), config.numReplicaFetchers()));
        Assignment wanted = new Assignment(id, leaderEpoch);
        Assignment current = assignments.get(tp);
        if (wanted.equals(current)) {
            return;
        }
        if (current != null && !current.fetcher().equals(id)) {
            detach(tp, current.fetcher());
        }
        ReplicaFetcher fetcher = fetchers.computeIfAbsent(id, key -> {
            ReplicaFetcher created = new ReplicaFetcher(localBrokerId, key.sourceBrokerId(), key.index(), config,
                    registry, localBrokerEpoch, time);
            created.start();
            return created;
        });
        fetcher.add(partition, leaderEpoch);
        assignments.put(tp, wanted);
    }

    /** Stops fetching a partition (it is led here now, has no leader, or is gone). */
    synchronized void unfollow(TopicPartition tp) {
        Assignment current = assignments.remove(tp);
        if (current != null) {
            detach(tp, current.fetcher());
        }
    }

    private void detach(TopicPartition tp, FetcherId id) {
        ReplicaFetcher fetcher = fetchers.get(id);
        if (fetcher == null) {
            return;
        }
        fetcher.remove(tp);
        if (fetcher.isEmpty()) {
            fetchers.remove(id);
            fetcher.shutdown();
            stopping.removeIf(stopped -> !stopped.isAlive());
            stopping.add(fetcher);
        }
    }

    /** The leader epoch each followed partition is fetched in (diagnostics and tests). */
    synchronized Map<TopicPartition, Integer> followed() {
        Map<TopicPartition, Integer> followed = new HashMap<>();
        assignments.forEach((tp, assignment) -> followed.put(tp, assignment.leaderEpoch()));
        return followed;
    }

    /** Stops every fetcher and waits for each (bounded by its request timeout); idempotent. */
    @Override
    public void close() {
        List<ReplicaFetcher> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(fetchers.values());
            all.addAll(stopping);
            fetchers.clear();
            stopping.clear();
            assignments.clear();
        }
        for (ReplicaFetcher fetcher : all) {
            fetcher.shutdown();
        }
        for (ReplicaFetcher fetcher : all) {
            fetcher.awaitTermination();
        }
    }
}
