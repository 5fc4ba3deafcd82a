package io.tributary.itests.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.tributary.broker.BrokerConfig;
import io.tributary.itests.TributaryBroker;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A replicated Tributary cluster beside the managed WildFly, for one test class: test-support's process cluster
 * ({@link ProcessCluster}: a real ZooKeeper in the failsafe JVM, 500 ms tick, and brokers 1 to 3, each a process of its
 * own that the test can SIGKILL and start again) with its settings: replication factor 3 and
 * {@code min.insync.replicas=2} by default, the offsets topic (3 partitions) replicated three times, no initial
 * rebalance delay, a 6 s ZooKeeper session.
 *
 * <p>The brokers listen on {@code 127.0.0.1:<tributary.itests.cluster.port.N>}, ports the build reserved
 * (itests/pom.xml): they are known before any broker exists, so a deployment can name all three
 * ({@link #bootstrapServers()}), and a restarted broker comes back on the address the clients already have.
 *
 * <p>Register it before {@code ArquillianExtension}, so the cluster is up before Arquillian deploys. It starts in
 * the class's {@code beforeAll} and lives in the class's extension store, which closes it after the class (after
 * Arquillian's undeployments): every broker process is SIGKILLed there, whatever the test did, and ZooKeeper stops.
 * Each broker's output and data stay in a fresh directory under {@code tributary.itests.work} ({@code cluster-*}).
 *
 * <p>Threads: JUnit's (the test thread).
 */
public final class TributaryCluster implements BeforeAllCallback {

    /** Brokers in the cluster. */
    public static final int SIZE = 3;

    private static final String OFFSETS_TOPIC = "__consumer_offsets";
    /** offsets.topic.num.partitions of every broker, set explicitly: {@link #coordinatorOf} depends on it. */
    private static final int OFFSETS_PARTITIONS = 3;

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TributaryCluster.class);
    /** Bounds each wait: leader elections and ISR changes take seconds; a loaded machine, a few times that. */
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final long ADMIN_CALL_SECONDS = 10;

    /** The cluster of the running class; written by {@link #beforeAll}, cleared when the store closes it. */
    private static volatile ProcessCluster running;

    /** The three brokers' {@code host:port} list, from the reserved ports (whether or not they run). */
    public static String bootstrapServers() {
        return ports().stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    /** The brokers' ids: 1 to {@value #SIZE}. */
    public static Set<Integer> brokerIds() {
        return IntStream.rangeClosed(1, SIZE).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        running = context.getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(),
                Running.class).cluster();
    }

    /** The running cluster: kill, describe, create topics, wait for ISRs. */
    public static ProcessCluster cluster() {
        ProcessCluster current = running;
        if (current == null) {
            throw new IllegalStateException("the cluster was not started: extend the test class with "
                    + TributaryCluster.class.getSimpleName());
        }
        return current;
    }

    /** Starts broker {@code id} again on its port and data, and waits until the cluster lists it as live. */
    public static void start(int id) throws Exception {
        ProcessCluster cluster = cluster();
        cluster.start(id);
        cluster.awaitLiveBrokers(LIMIT);
    }

    /**
     * The broker that will coordinate consumer group {@code group}: the leader of its partition of the offsets topic
     * ({@code abs(group.hashCode()) % 3}, as Kafka and the broker's GroupCoordinator place groups), once all three
     * brokers are in that partition's ISR, so that it can fail over. The admin client cannot ask for the
     * coordinator of a group that does not exist yet (its description fails with GroupIdNotFoundException), but the
     * FindCoordinator request it sends first has the cluster create the offsets topic.
     */
    public static int coordinatorOf(String group) {
        ProcessCluster cluster = cluster();
        try (Admin admin = cluster.admin()) {
            admin.describeConsumerGroups(List.of(group)).all().get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            // GroupIdNotFoundException, expected; or the offsets topic is still being created (awaited below).
        }
        TopicPartition offsets = new TopicPartition(OFFSETS_TOPIC, Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS);
        int leader = ProcessCluster.leaderId(cluster.awaitIsr(offsets, brokerIds(), LIMIT));
        if (leader < 0) {
            throw new AssertionError(offsets + " (group " + group + ") has no leader: " + cluster.partition(offsets));
        }
        return leader;
    }

    /** The offset {@code group} has committed on {@code tp}, or -1 for none (or no answer). */
    public static long committedOffset(String group, TopicPartition tp) {
        try (Admin admin = cluster().admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS);
            OffsetAndMetadata offset = offsets.get(tp);
            return offset == null ? -1 : offset.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        }
    }

    /** The end of {@code tp}'s log (its high watermark), or -1 if the cluster does not answer. */
    public static long endOffset(TopicPartition tp) {
        try (Admin admin = cluster().admin()) {
            ListOffsetsResult.ListOffsetsResultInfo end = admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                    .partitionResult(tp).get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS);
            return end.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        }
    }

    private static List<Integer> ports() {
        return brokerIds().stream()
                .map(id -> Integer.parseInt(TributaryBroker.requiredProperty("tributary.itests.cluster.port." + id)))
                .toList();
    }

    /** The cluster in the class's extension store, which closes it after the class. */
    private record Running(ProcessCluster cluster) implements AutoCloseable {

        static Running start() {
            ProcessCluster cluster = null;
            try {
                Path work = Files.createDirectories(Path.of(
                        TributaryBroker.requiredProperty("tributary.itests.work")));
                cluster = new ProcessCluster(Files.createTempDirectory(work, "cluster-"), ports(), false,
                        BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, Integer.toString(OFFSETS_PARTITIONS));
                cluster.startAll();
                return new Running(cluster);
            } catch (Exception e) {
                try {
                    if (cluster != null) {
                        cluster.close();
                    }
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw new IllegalStateException("cannot start the cluster on " + bootstrapServers(), e);
            }
        }

        @Override
        public void close() throws Exception {
            running = null;
            cluster.close();
        }
    }
}
