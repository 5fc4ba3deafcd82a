package io.tributary.broker.cluster;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the controller which of this broker's replicas were lost with a failed log directory: the ephemeral
 * {@code /brokers/offline_replicas/<id>} ({@link ZkJson#offlineReplicas}) holds them with the broker epoch of this
 * run, and is deleted when nothing is lost. The controller treats the broker as dead for those partitions
 * ({@link PartitionLeaderElector.Brokers#forPartition}); a marker of an earlier epoch counts for nothing, so the
 * marker is written again after every (re-)registration. Kafka's ZooKeeper mode used a sequential
 * {@code /log_dir_event_notification} after which the controller asked the broker; a level (the set itself, read by
 * the same metadata cache as everything else) fits the controller's level-triggered reconciliation.
 *
 * <p>Threads: {@link #refresh()} from any thread (the failing I/O thread, the registration thread) only schedules the
 * write; writes run on the reporter's own thread, which also re-checks every {@value #RECHECK_MS} ms, so that a write
 * lost to a ZooKeeper error or a shrinking set (a lost partition's topic deleted) is published without a trigger.
 * {@link #close()} is idempotent.
 */
final class OfflineReplicaReporter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OfflineReplicaReporter.class);

    static final long RECHECK_MS = 5_000;

    private record Published(long brokerEpoch, OfflineReplicas replicas) {
    }

    private final CuratorFramework zk;
    private final int brokerId;
    private final String path;
    private final Supplier<OfflineReplicas> source;
    private final LongSupplier brokerEpoch;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    /** What the znode holds as far as this reporter knows; the reporter's thread only. */
    private Published published = new Published(BrokerInfo.NO_EPOCH, OfflineReplicas.NONE);

    OfflineReplicaReporter(ZkConnection connection, int brokerId, Supplier<OfflineReplicas> source,
                           LongSupplier brokerEpoch) {
        this.zk = connection.curator();
        this.brokerId = brokerId;
        this.path = ZkPaths.offlineReplicas(brokerId);
        this.source = source;
        this.brokerEpoch = brokerEpoch;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "offline-replica-reporter-" + brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    OfflineReplicaReporter start() {
        thread.scheduleWithFixedDelay(this::publish, 0, RECHECK_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** The lost replicas or the broker epoch changed: publish soon. */
    void refresh() {
        if (pending.compareAndSet(false, true)) {
            try {
                thread.execute(() -> {
                    pending.set(false);
                    publish();
                });
            } catch (RejectedExecutionException closed) {
                pending.set(false);
            }
        }
    }

    private void publish() {
        try {
            long epoch = brokerEpoch.getAsLong();
            OfflineReplicas current = source.get();
            if (epoch < 0) {
                return; // not registered: the next registration refreshes
            }
            Published wanted = new Published(epoch, current);
            if (wanted.equals(published) || (current.isEmpty() && published.replicas().isEmpty())) {
                return;
            }
            if (current.isEmpty()) {
                delete();
                log.info("Broker {} has no offline replicas any more", brokerId);
            } else {
                write(ZkJson.offlineReplicas(epoch, current));
                log.warn("Broker {} reported its offline log directories {} to the controller: replicas of {} lost",
                        brokerId, current.logDirs(), current.partitions().stream().map(Objects::toString).sorted()
                                .toList());
            }
            published = wanted;
        } catch (Exception e) {
            // The periodic re-check tries again.
            log.warn("Broker {} could not write {}: {}", brokerId, path, e.toString());
        }
    }

    /** Creates the znode in this session, or replaces it; one of another (expiring) session goes in one step. */
    private void write(byte[] value) throws Exception {
        long session = zk.getZookeeperClient().getZooKeeper().getSessionId();
        Stat stat = zk.checkExists().forPath(path);
        if (stat == null) {
            try {
                zk.create().withMode(CreateMode.EPHEMERAL).forPath(path, value);
                return;
            } catch (KeeperException.NodeExistsException raced) {
                stat = zk.checkExists().forPath(path);
                if (stat == null) {
                    throw raced;
                }
            }
        }
        if (stat.getEphemeralOwner() == session) {
            zk.setData().withVersion(stat.getVersion()).forPath(path, value);
        } else {
            zk.transaction().forOperations(
                    zk.transactionOp().delete().withVersion(stat.getVersion()).forPath(path),
                    zk.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(path, value));
        }
    }

    private void delete() throws Exception {
        try {
            zk.delete().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            // with an earlier session
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
