package io.tributary.broker;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.tributary.broker.cluster.ClusterManager;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a clean shutdown ({@code controlled.shutdown.enable}): the broker announces it
 * ({@link ClusterManager#announceShutdown()}), and the controller elects other in-sync replicas as leaders of its
 * partitions and takes it out of every ISR; the broker waits until its metadata shows that done, for at most
 * {@code controlled.shutdown.max.retries} x {@code controlled.shutdown.retry.backoff.ms}. Partitions with no other
 * in-sync replica keep this broker as leader until it is gone (nobody else has their data), and go offline then.
 *
 * <p>The broker keeps serving meanwhile: requests for moved partitions are answered NOT_LEADER_OR_FOLLOWER with the
 * new leader (KIP-951), so clients switch without a metadata round trip. Runs on the shutting-down thread.
 */
final class ControlledShutdown {

    private static final Logger log = LoggerFactory.getLogger(ControlledShutdown.class);

    private final BrokerConfig config;
    private final ClusterManager cluster;

    ControlledShutdown(BrokerConfig config, ClusterManager cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    void run() {
        if (!cluster.announceShutdown()) {
            return;
        }
        long timeoutMs = Math.max(1, config.controlledShutdownMaxRetries) * config.controlledShutdownRetryBackoffMs;
        long started = System.nanoTime();
        try {
            MetadataSnapshot done = cluster.metadataCache().when(this::handedOver).get(timeoutMs,
                    TimeUnit.MILLISECONDS);
            log.info("Controlled shutdown of broker {}: leaderships handed over in {} ms; {} partitions stay led here "
                            + "(no other in-sync replica)", config.brokerId,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), stillLed(done));
        } catch (TimeoutException e) {
            log.warn("Controlled shutdown of broker {}: leaderships not all handed over within {} ms; stopping anyway",
                    config.brokerId, timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.warn("Controlled shutdown of broker {} could not wait for the controller: {}", config.brokerId,
                    e.getCause().toString());
        }
    }

    /**
     * Whether the controller has done what it can: the broker is known to be shutting down, leads no partition that
     * has another eligible ISR member, and is in no ISR of a partition another broker leads.
     */
    private boolean handedOver(MetadataSnapshot snapshot) {
        int me = config.brokerId;
        if (!snapshot.shuttingDown().contains(me)) {
            return false;
        }
        for (TopicMetadata topic : snapshot.topics().values()) {
            for (PartitionMetadata partition : topic.partitions().values()) {
                if (partition.leader() == me) {
                    for (int member : partition.isr()) {
                        if (member != me && snapshot.isEligible(member)) {
                            return false;
                        }
                    }
                } else if (partition.hasLeader() && partition.isr().contains(me)) {
                    return false;
                }
            }
        }
        return true;
    }

    private int stillLed(MetadataSnapshot snapshot) {
        int count = 0;
        for (TopicMetadata topic : snapshot.topics().values()) {
            for (PartitionMetadata partition : topic.partitions().values()) {
                if (partition.leader() == config.brokerId) {
                    count++;
                }
            }
        }
        return count;
    }
}
