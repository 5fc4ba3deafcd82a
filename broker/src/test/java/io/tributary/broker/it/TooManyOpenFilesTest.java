package io.tributary.broker.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
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
 * Issue 20: idle connections took every file descriptor of a broker (EMFILE), the next checkpoint took its only log
 * directory offline, and after the connections closed every produce and fetch still got KAFKA_STORAGE_ERROR while
 * the broker stayed leader. Here the broker runs with {@code ulimit -n 512}; idle sockets take the rest of its
 * descriptors while an idempotent producer writes to a topic whose small segments need a new file every few records.
 * Meanwhile appends fail with KAFKA_STORAGE_ERROR (retriable), nothing is taken offline; once the sockets close, the
 * waiting records are acknowledged, a new client is served, every acknowledged record is in the log once, and the
 * records written before read back byte for byte, also after a crash and restart.
 */
class TooManyOpenFilesTest {

    private static final String TOPIC = "crowded";
    private static final int FD_LIMIT = 512;
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void exhaustedFileDescriptorsFailAppendsUntilTheyComeBackAndTakeNothingOffline() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 1, false, "default.replication.factor", "1",
                "min.insync.replicas", "1", "offsets.topic.replication.factor", "1",
                // Checkpoints every half second: each needs a descriptor, as the one that failed in the issue.
                "log.flush.offset.checkpoint.interval.ms", "500",
                "replica.high.watermark.checkpoint.interval.ms", "500")) {
            cluster.broker(1).launchThrough("sh", "-c", "ulimit -n " + FD_LIMIT + " && exec \"$0\" \"$@\"");
            cluster.startAll();
            long pid = cluster.broker(1).pid();
            assertEquals(FD_LIMIT, openFileLimit(pid), "the broker runs under ulimit -n " + FD_LIMIT);
            cluster.createTopic(TOPIC, 1, 1, Map.of("segment.bytes", "16384"));
            String bootstrap = cluster.bootstrapServers();
            EarlierRecords earlier = EarlierRecords.write(bootstrap, TOPIC, 1, 200, 1000, 20L);
            TopicPartition tp = new TopicPartition(TOPIC, 0);

            try (AckedProducer load = new AckedProducer(bootstrap, TOPIC, 1, 200, "delivery.timeout.ms", "120000");
                 KafkaProducer<String, String> probe = Clients.producer(bootstrap, "acks", "1",
                         "enable.idempotence", "false", "retries", "0", "delivery.timeout.ms", "15000")) {
                load.awaitMoreAcks(200, LIMIT);
                probe.send(new ProducerRecord<>(TOPIC, 0, "probe", "warm-up")).get(10, TimeUnit.SECONDS);

                List<Socket> idle = exhaustDescriptors(pid, bootstrap);
                try {
                    await(LIMIT).untilAsserted(() -> assertTrue(
                            () -> cluster.broker(1).output().contains("Too many open files"),
                            () -> "the broker meeting EMFILE; its output:\n" + cluster.broker(1).output()));
                    ExecutionException refused = assertThrows(ExecutionException.class, () -> probe.send(
                            new ProducerRecord<>(TOPIC, 0, "probe", "x".repeat(16_000))).get(15, TimeUnit.SECONDS));
                    assertInstanceOf(KafkaStorageException.class, refused.getCause(), () -> "an append that needs a "
                            + "new segment file fails, retriably; the broker's output:\n" + cluster.broker(1).output());
                } finally {
                    for (Socket socket : idle) {
                        socket.close();
                    }
                }

                load.awaitMoreAcks(400, LIMIT);
                probe.send(new ProducerRecord<>(TOPIC, 0, "probe", "x".repeat(16_000))).get(15, TimeUnit.SECONDS);
                load.stop();
                assertFalse(cluster.broker(1).output().contains("is now offline"),
                        "no log directory went offline:\n" + cluster.broker(1).output());
                assertEquals(1, cluster.leaderOf(tp), "the broker still leads");
                try (Admin admin = cluster.admin()) {
                    LogDirDescription logDir = admin.describeLogDirs(List.of(1)).allDescriptions()
                            .get(30, TimeUnit.SECONDS).get(1).values().iterator().next();
                    assertNull(logDir.error(), "the log directory is online");
                }
                try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap)) {
                    load.verify(readOnlyLoad(Records.readToEnd(consumer, List.of(tp))));
                }
                earlier.assertReadBack(bootstrap);

                // The log on disk holds no torn write either: a crash and a recovery keep all of it.
                cluster.kill(1);
                cluster.broker(1).launchThrough();
                cluster.start(1);
                String restarted = cluster.bootstrapServers();
                try (KafkaConsumer<String, String> consumer = Clients.consumer(restarted)) {
                    load.verify(readOnlyLoad(Records.readToEnd(consumer, List.of(tp))));
                }
                earlier.assertReadBack(restarted);
            }
        }
    }

    /** The load's records (keys {@code p0}); the earlier records and the probe's share the partition. */
    private static Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> readOnlyLoad(
            Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> log) {
        return Map.of(0, log.getOrDefault(0, List.of()).stream().filter(r -> "p0".equals(r.key())).toList());
    }

    /**
     * Opens connections to the broker until it has no file descriptor left, i.e. its open files reach its limit (the
     * connections beyond wait in the listen backlog). Returns them for the caller to close.
     */
    private static List<Socket> exhaustDescriptors(long pid, String bootstrap) throws Exception {
        String[] hostPort = bootstrap.split(",")[0].split(":");
        InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        List<Socket> sockets = new ArrayList<>();
        try {
            await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                try {
                    if (openFiles(pid) >= FD_LIMIT) {
                        return true;
                    }
                    for (int i = 0; i < 16 && sockets.size() < 2 * FD_LIMIT; i++) {
                        Socket socket = new Socket();
                        socket.connect(address, 5_000);
                        sockets.add(socket);
                    }
                    return false;
                } catch (IOException e) {
                    throw new AssertionError("cannot open idle connections", e);
                }
            }, () -> "the broker holding " + FD_LIMIT + " open files (has " + openFiles(pid) + ", "
                    + sockets.size() + " idle connections)"));
        } catch (RuntimeException | Error e) {
            for (Socket socket : sockets) {
                socket.close();
            }
            throw e;
        }
        return sockets;
    }

    private static long openFiles(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static long openFileLimit(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(line.substring("Max open files".length()).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException("no open file limit in /proc/" + pid + "/limits");
    }
}
