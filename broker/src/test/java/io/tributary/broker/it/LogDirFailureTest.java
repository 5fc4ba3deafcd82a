package io.tributary.broker.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.tributary.broker.storage.PartitionDirName;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 20: a log directory that is really lost must not leave its broker answering errors as leader. Broker 1 of
 * three has two log directories; its replicas spread over both. When one directory vanishes under the running broker
 * (renamed away and deleted, as a disk that is gone), the broker gives up exactly the replicas it held: the
 * controller elects other leaders for them and takes broker 1 out of their ISRs, while broker 1 keeps leading and
 * following in its other directory. When the second directory goes too, broker 1 has nothing left to serve and shuts
 * down with exit status 1. Writes with {@code acks=all} go on throughout; every acknowledged record is in the log
 * exactly once and the records written before read back byte for byte from the surviving replicas.
 */
class LogDirFailureTest {

    private static final String TOPIC = "disks";
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aLostLogDirectoryMovesItsLeadershipsAwayAndTheLastOneStopsTheBroker() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false,
                // The first write into a vanished directory is what reveals it: a checkpoint every half second.
                "replica.high.watermark.checkpoint.interval.ms", "500")) {
            Path dirA = dir.resolve("broker-1").resolve("logs-a");
            Path dirB = dir.resolve("broker-1").resolve("logs-b");
            cluster.broker(1).override("log.dirs", dirA + "," + dirB);
            cluster.startAll();
            Map<Integer, List<Integer>> assignment = Map.of(0, List.of(1, 2, 3), 1, List.of(1, 3, 2),
                    2, List.of(1, 2, 3), 3, List.of(1, 3, 2), 4, List.of(2, 1, 3), 5, List.of(3, 1, 2));
            cluster.createTopic(TOPIC, assignment, Map.of("min.insync.replicas", "2"));
            EarlierRecords earlier = EarlierRecords.write(cluster.bootstrapServers(), TOPIC, 6, 600, 1000, 21L);

            try (AckedProducer load = new AckedProducer(cluster.bootstrapServers(), TOPIC, 6, 300)) {
                load.awaitMoreAcks(300, LIMIT);
                Set<TopicPartition> inA = partitionsIn(dirA);
                Set<TopicPartition> inB = partitionsIn(dirB);
                assertFalse(inA.isEmpty() || inB.isEmpty(), "broker 1 spreads its replicas: " + inA + " " + inB);

                vanish(dirA);
                for (TopicPartition tp : inA) {
                    await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                        TopicPartitionInfo info = cluster.partition(tp);
                        return ProcessCluster.leaderId(info) > 1 && !ProcessCluster.ids(info.isr()).contains(1);
                    }, () -> tp + " led elsewhere and without broker 1 in its ISR: " + cluster.partition(tp)
                            + "; broker 1's output:\n" + cluster.broker(1).output()));
                }
                for (TopicPartition tp : inB) {
                    TopicPartitionInfo info = cluster.partition(tp);
                    assertTrue(ProcessCluster.ids(info.isr()).contains(1), "broker 1 keeps its seat: " + info);
                    if (assignment.get(tp.partition()).get(0) == 1) {
                        assertEquals(1, ProcessCluster.leaderId(info), "broker 1 keeps leading " + tp);
                    }
                }
                assertTrue(cluster.broker(1).isAlive(), "one log directory is left");
                load.awaitMoreAcks(600, LIMIT);

                vanish(dirB);
                assertEquals(1, cluster.broker(1).awaitExit(LIMIT), "broker 1 stops with an error status");
                assertTrue(cluster.broker(1).output().contains("every log directory"), cluster.broker(1).output());
                for (int p = 0; p < 6; p++) {
                    TopicPartition tp = new TopicPartition(TOPIC, p);
                    await(LIMIT)
                            .untilAsserted(() -> assertTrue(() -> ProcessCluster.leaderId(cluster.partition(tp)) > 1,
                            () -> tp + " led by broker 2 or 3: " + cluster.partition(tp)));
                }
                load.awaitMoreAcks(600, LIMIT);
                load.stop();

                List<TopicPartition> all = new ArrayList<>();
                for (int p = 0; p < 6; p++) {
                    all.add(new TopicPartition(TOPIC, p));
                }
                try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers())) {
                    load.verify(onlyLoad(Records.readToEnd(consumer, all)));
                }
                earlier.assertReadBack(cluster.bootstrapServers());
            }
        }
    }

    private static Set<TopicPartition> partitionsIn(Path logDir) throws IOException {
        Set<TopicPartition> found = new TreeSet<>(Comparator.comparing(TopicPartition::toString));
        try (Stream<Path> children = Files.list(logDir)) {
            children.forEach(child -> PartitionDirName.parse(child.getFileName().toString())
                    .filter(tp -> tp.topic().equals(TOPIC)).ifPresent(found::add));
        }
        return found;
    }

    /**
     * The directory disappears from under the broker in one step, as an unmounted disk: renamed away (a recursive
     * delete would race with the files the broker keeps creating), then deleted. Open files stay usable, as on Linux
     * after an unlink; every file the broker creates or renames by its path fails with ENOENT.
     */
    private static void vanish(Path logDir) throws IOException {
        Path gone = Files.move(logDir, logDir.resolveSibling(logDir.getFileName() + ".gone"));
        try (Stream<Path> paths = Files.walk(gone)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | java.io.UncheckedIOException stillWritten) {
            // The broker wrote into the renamed directory meanwhile (through a file it had open): left behind.
        }
    }

    /** The load's records (keys {@code p<n>}): the earlier records share the partitions. */
    private static Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> onlyLoad(
            Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> log) {
        Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> load =
                new java.util.TreeMap<>();
        log.forEach((p, records) -> load.put(p, records.stream().filter(r -> r.key().startsWith("p")).toList()));
        return load;
    }
}
