package io.tributary.broker.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.tributary.testsupport.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Watches the high watermark that consumers are told (ListOffsets latest) of a topic's partitions through a fault
 * test, and records every time it went back: a committed record can never become uncommitted. Samples every
 * 50 ms on a thread of its own; an answer that does not come (a dead leader) is skipped.
 */
final class HighWatermarkWatch implements AutoCloseable {

    private final Admin admin;
    private final List<TopicPartition> partitions;
    private final Thread thread;
    private final long[] highest;
    private final List<String> regressions = new ArrayList<>();
    private volatile boolean running = true;
    private volatile long samples;

    HighWatermarkWatch(String bootstrap, String topic, int partitionCount) {
        // Metadata every second, for the addresses of restarted brokers (see AckedProducer).
        this.admin = Clients.admin(bootstrap, "default.api.timeout.ms", "5000", "request.timeout.ms", "3000",
                "metadata.max.age.ms", "1000");
        this.partitions = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        this.highest = new long[partitionCount];
        this.thread = new Thread(this::run, "high-watermark-watch-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        while (running) {
            for (TopicPartition tp : partitions) {
                try {
                    ListOffsetsResult.ListOffsetsResultInfo info = admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                            .partitionResult(tp).get(5, TimeUnit.SECONDS);
                    record(tp.partition(), info.offset());
                } catch (Exception e) {
                    // leader dead or moving: no sample
                }
            }
            samples++;
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    private synchronized void record(int partition, long highWatermark) {
        if (highWatermark < highest[partition]) {
            regressions.add("partition " + partition + ": " + highest[partition] + " -> " + highWatermark);
        }
        highest[partition] = Math.max(highest[partition], highWatermark);
    }

    /** Every time a high watermark went back, as {@code "partition p: before -> after"}. */
    synchronized List<String> regressions() {
        return List.copyOf(regressions);
    }

    long samples() {
        return samples;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
        admin.close(Duration.ofSeconds(5));
    }
}
