package io.tributary.broker.replication;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.cluster.ClusterException;
import io.tributary.broker.cluster.LeaderAndIsr;
import io.tributary.broker.cluster.PartitionStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link IsrChangeWriter} of a broker: writes each proposal to the partition's state znode with a conditional
 * {@code setData} on the version the proposal was based on ({@link PartitionStateStore#compareAndSet}). A version
 * that moved (the controller or a newer leader wrote) rejects it; the partition is told what the znode holds now. A
 * ZooKeeper failure is retried after a pause for as long as the partition still waits for that proposal; meanwhile
 * its HW counts on the larger of the two ISRs, so nothing is acknowledged that the old ISR would not have.
 *
 * <p>Threads: one writer thread; proposals of all partitions are written in the order they come.
 * {@link #close()} stops it; idempotent.
 */
public final class ZkIsrChangeWriter implements IsrChangeWriter, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ZkIsrChangeWriter.class);

    private static final long RETRY_BACKOFF_MS = 500;

    private final PartitionStateStore store;
    private final ScheduledExecutorService thread;

    public ZkIsrChangeWriter(int brokerId, PartitionStateStore store) {
        this.store = store;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "isr-change-writer-" + brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void submit(Partition partition, LeaderAndIsr proposed, int expectedZkVersion) {
        schedule(() -> write(partition, proposed, expectedZkVersion), 0);
    }

    private void write(Partition partition, LeaderAndIsr proposed, int expectedZkVersion) {
        if (!partition.isPending(proposed)) {
            return;
        }
        try {
            Optional<PartitionStateStore.VersionedState> written =
                    store.compareAndSet(partition.topicPartition(), proposed, expectedZkVersion);
            if (written.isPresent()) {
                partition.onIsrChangeCommitted(proposed, written.get().zkVersion(), written.get().zxid());
                return;
            }
            List<Integer> replicas = partition.state().replicas();
            Optional<Partition.State> current = store.read(partition.topicPartition())
                    .map(stored -> new Partition.State(stored.state().leader(), stored.state().leaderEpoch(),
                            replicas, stored.state().isr(), stored.state().isrEpochs(), stored.zkVersion(),
                            stored.zxid(), stored.state().controllerEpoch()));
            partition.onIsrChangeRejected(proposed, current);
        } catch (ClusterException e) {
            log.warn("Writing the ISR {} of {} failed; retrying in {} ms: {}", proposed.isr(),
                    partition.topicPartition(), RETRY_BACKOFF_MS, e.getMessage());
            schedule(() -> write(partition, proposed, expectedZkVersion), RETRY_BACKOFF_MS);
        }
    }

    private void schedule(Runnable task, long delayMs) {
        try {
            thread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
