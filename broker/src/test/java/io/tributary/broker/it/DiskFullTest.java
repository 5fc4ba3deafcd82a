package io.tributary.broker.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import io.tributary.testsupport.SmallFileSystem;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 20: a full disk (ENOSPC) took the broker's only log directory offline until a restart; freeing space,
 * deleting a topic or DeleteRecords did not bring it back. Here the log directory is a 24 MiB tmpfs
 * ({@link SmallFileSystem}). Filled up from outside, and then by the broker's own records, the disk fails appends
 * with KAFKA_STORAGE_ERROR (retriable) and takes nothing offline; deleting the filler file, DeleteRecords and deleting
 * the filling topic each bring writes back without a restart. Every acknowledged record is in the log exactly once,
 * the records written before read back byte for byte, and no write torn by ENOSPC is left for a reader or, after a
 * crash, for recovery to meet.
 */
class DiskFullTest {

    private static final String KEPT = "kept";
    private static final String BULK = "bulk";
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aFullDiskFailsAppendsUntilSpaceComesBackAndTakesNothingOffline() throws Exception {
        Path logDir = dir.resolve("broker-1").resolve("logs");
        Optional<SmallFileSystem> small = SmallFileSystem.mount(logDir, 24);
        Assumptions.assumeTrue(small.isPresent(), "this machine allows no tmpfs in an unprivileged user namespace");
        try (SmallFileSystem disk = small.get();
             ProcessCluster cluster = new ProcessCluster(dir, 1, false, "default.replication.factor", "1",
                     "min.insync.replicas", "1", "offsets.topic.replication.factor", "1",
                     "log.flush.offset.checkpoint.interval.ms", "500",
                     "replica.high.watermark.checkpoint.interval.ms", "500",
                     "log.retention.check.interval.ms", "1000")) {
            cluster.broker(1).launchThrough(disk.launcher().toArray(String[]::new));
            cluster.startAll();
            cluster.createTopic(KEPT, 1, 1, Map.of("segment.bytes", "1048576"));
            cluster.createTopic(BULK, 1, 1, Map.of("segment.bytes", "1048576", "file.delete.delay.ms", "0"));
            String bootstrap = cluster.bootstrapServers();
            EarlierRecords earlier = EarlierRecords.write(bootstrap, KEPT, 1, 300, 10_000, 24L);
            TopicPartition kept = new TopicPartition(KEPT, 0);

            try (AckedProducer load = new AckedProducer(bootstrap, KEPT, 1, 100, "delivery.timeout.ms", "120000");
                 KafkaProducer<String, String> probe = Clients.producer(bootstrap, "acks", "1",
                         "enable.idempotence", "false", "retries", "0", "delivery.timeout.ms", "15000")) {
                load.awaitMoreAcks(100, LIMIT);

                // 1. Full from outside; the filler is deleted again.
                Path filler = disk.root().resolve("filler");
                disk.fill(filler);
                assertRefusedForWantOfSpace(cluster, probe);
                Files.delete(filler);
                load.awaitMoreAcks(200, LIMIT);
                probe.send(new ProducerRecord<>(KEPT, 0, "probe", "y".repeat(50_000))).get(15, TimeUnit.SECONDS);

                // 2. Full with the broker's own records (and what space a refused append left, filled from
                // outside); DeleteRecords frees all but the active segment.
                fillWithRecords(probe);
                disk.fill(disk.root().resolve("slack-2"));
                assertRefusedForWantOfSpace(cluster, probe);
                try (Admin admin = cluster.admin()) {
                    admin.deleteRecords(Map.of(new TopicPartition(BULK, 0), RecordsToDelete.beforeOffset(-1L)))
                            .all().get(30, TimeUnit.SECONDS);
                }
                load.awaitMoreAcks(200, LIMIT);

                // 3. Full again; deleting the filling topic frees the rest.
                fillWithRecords(probe);
                disk.fill(disk.root().resolve("slack-3"));
                assertRefusedForWantOfSpace(cluster, probe);
                try (Admin admin = cluster.admin()) {
                    admin.deleteTopics(List.of(BULK)).all().get(30, TimeUnit.SECONDS);
                }
                load.awaitMoreAcks(200, LIMIT);
                load.stop();

                assertFalse(cluster.broker(1).output().contains("is now offline"),
                        "no log directory went offline:\n" + cluster.broker(1).output());
                assertEquals(1, cluster.leaderOf(kept), "the broker still leads");
                try (Admin admin = cluster.admin()) {
                    LogDirDescription description = admin.describeLogDirs(List.of(1)).allDescriptions()
                            .get(30, TimeUnit.SECONDS).get(1).values().iterator().next();
                    assertNull(description.error(), "the log directory is online");
                }
                try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap)) {
                    load.verify(onlyLoad(Records.readToEnd(consumer, List.of(kept))));
                }
                earlier.assertReadBack(bootstrap);

                // The files hold no torn batch: after a crash, recovery keeps every acknowledged record.
                // The disk is still full (the slack files stay): the restart must not need space either.
                cluster.kill(1);
                cluster.start(1);
                String restarted = cluster.bootstrapServers();
                try (KafkaConsumer<String, String> consumer = Clients.consumer(restarted)) {
                    load.verify(onlyLoad(Records.readToEnd(consumer, List.of(kept))));
                }
                earlier.assertReadBack(restarted);
                assertFalse(cluster.broker(1).output().contains("invalid"),
                        "recovery found nothing invalid to cut:\n" + cluster.broker(1).output());
            }
        }
    }

    /** A send that needs new space fails with KAFKA_STORAGE_ERROR, and the broker logged ENOSPC. */
    private static void assertRefusedForWantOfSpace(ProcessCluster cluster, KafkaProducer<String, String> probe) {
        ExecutionException refused = assertThrows(ExecutionException.class, () -> probe.send(
                new ProducerRecord<>(KEPT, 0, "probe", "x".repeat(200_000))).get(15, TimeUnit.SECONDS));
        assertInstanceOf(KafkaStorageException.class, refused.getCause(), () -> "a full disk fails the append, "
                + "retriably; the broker's output:\n" + cluster.broker(1).output());
        await(LIMIT)
                .untilAsserted(() -> assertTrue(() -> cluster.broker(1).output().contains("No space left on device"),
                () -> "the broker meeting ENOSPC"));
    }

    /** Produces 100 KiB records to the bulk topic until the broker refuses them. */
    private static void fillWithRecords(KafkaProducer<String, String> probe) {
        String value = "b".repeat(100_000);
        await(LIMIT).untilAsserted(() -> assertTrue(() -> {
            try {
                probe.send(new ProducerRecord<>(BULK, 0, "bulk", value)).get(15, TimeUnit.SECONDS);
                return false;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof KafkaStorageException) {
                    return true;
                }
                throw new AssertionError("filling " + BULK, e);
            } catch (Exception e) {
                throw new AssertionError("filling " + BULK, e);
            }
        }, () -> BULK + " filling the disk"));
    }

    /** The load's records (key {@code p0}): the earlier records and the probe's share the partition. */
    private static Map<Integer, List<ConsumerRecord<String, String>>> onlyLoad(
            Map<Integer, List<ConsumerRecord<String, String>>> log) {
        return Map.of(0, log.getOrDefault(0, List.of()).stream().filter(r -> "p0".equals(r.key())).toList());
    }
}
