package io.tributary.itests.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.tributary.broker.BrokerConfig;
import io.tributary.itests.Clients;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A replicated Tributary cluster beside the managed WildFly, for one test class: a real ZooKeeper in the failsafe JVM
 * ({@link TestingServer}, 500 ms tick, as the broker module's fault tests use) and three brokers, ids 1 to 3, each a
 * process of its own ({@link BrokerProcess}) so that the test can SIGKILL one and start it again.
 *
 * <p>The brokers listen on {@code 127.0.0.1:<tributary.itests.cluster.port.N>}, ports the build reserved
 * (itests/pom.xml): they are known before any broker exists, so a deployment can name all three
 * ({@link #bootstrapServers()}), and a restarted broker comes back on the address the clients already have. The
 * settings are the broker module's test cluster's: replication factor 3 and {@code min.insync.replicas=2} by default,
 * the offsets topic (3 partitions) replicated three times, no initial rebalance delay, a 6 s ZooKeeper session.
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
    /** offsets.topic.num.partitions of every broker (settings). */
    private static final int OFFSETS_PARTITIONS = 3;

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TributaryCluster.class);
    /** Bounds each wait: leader elections and ISR changes take seconds; a loaded machine, a few times that. */
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final long ADMIN_CALL_SECONDS = 10;

    /** The cluster of the running class, for the static operations; written by {@link #beforeAll}. */
    private static volatile Running running;

    /** The three brokers' {@code host:port} list, from the reserved ports (whether or not they run). */
    public static String bootstrapServers() {
        return brokerIds().stream().map(id -> "127.0.0.1:" + port(id)).collect(Collectors.joining(","));
    }

    /** The brokers' ids: 1 to {@value #SIZE}. */
    public static Set<Integer> brokerIds() {
        return IntStream.rangeClosed(1, SIZE).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        running = context.getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(),
                Running.class);
    }

    /** SIGKILLs broker {@code id} and returns once its process is gone. */
    public static void kill(int id) {
        try {
            current().broker(id).kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Starts broker {@code id} again on its port and data, and waits until the cluster lists it as live. */
    public static void start(int id) {
        Running cluster = current();
        BrokerProcess broker = cluster.broker(id);
        try {
            broker.startAsync();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + broker, e);
        }
        broker.awaitStarted();
        cluster.awaitLiveBrokers();
    }

    /**
     * The broker that will coordinate consumer group {@code group}: the leader of its partition of the offsets topic
     * ({@code abs(group.hashCode()) % 3}, as Kafka and the broker's GroupCoordinator place groups), once all three
     * brokers are in that partition's ISR, so that it can fail over. The admin client cannot ask for the
     * coordinator of a group that does not exist yet (its description fails with GroupIdNotFoundException), but the
     * FindCoordinator request it sends first has the cluster create the offsets topic.
     */
    public static int coordinatorOf(String group) {
        try (Admin admin = admin()) {
            admin.describeConsumerGroups(List.of(group)).all().get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            // GroupIdNotFoundException, expected; or the offsets topic is still being created (awaited below).
        }
        TopicPartition offsets = new TopicPartition(OFFSETS_TOPIC, Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS);
        Set<Integer> all = brokerIds();
        Optional<TopicPartitionInfo> info = awaitIsr(offsets, all);
        int leader = info.map(TributaryCluster::leaderId).orElse(-1);
        if (leader < 0 || !info.map(p -> ids(p.isr()).equals(all)).orElse(false)) {
            throw new AssertionError(offsets + " (group " + group + ") has no leader with ISR " + all + " after "
                    + LIMIT + ": " + info.orElse(null));
        }
        return leader;
    }

    /** The broker the cluster names as {@code group}'s coordinator, for a group that exists; -1 if none. */
    public static int describedCoordinatorOf(String group) {
        try (Admin admin = admin()) {
            Node coordinator = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS).coordinator();
            return coordinator == null ? -1 : coordinator.id();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        }
    }

    /**
     * Creates {@code topic} with one partition on {@code replicas} (the first is the preferred leader) and the given
     * topic settings, and waits until all of them are in its ISR and the first leads.
     */
    public static void createTopic(String topic, List<Integer> replicas, Map<String, String> configs) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, replicas)).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("creating topic " + topic + " on " + replicas + " failed", e);
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        Predicate<TopicPartitionInfo> ready = p -> leaderId(p) == replicas.get(0)
                && ids(p.isr()).equals(new TreeSet<>(replicas));
        Optional<TopicPartitionInfo> info = Clients.await(() -> describe(tp), found -> found.filter(ready).isPresent(),
                LIMIT);
        if (info.filter(ready).isEmpty()) {
            throw new AssertionError(tp + " did not get leader " + replicas.get(0) + " and ISR " + replicas
                    + " within " + LIMIT + ": " + info.orElse(null));
        }
    }

    /** {@code tp} as the cluster describes it now; empty if it cannot answer. */
    public static Optional<TopicPartitionInfo> describe(TopicPartition tp) {
        try (Admin admin = admin()) {
            TopicDescription description = admin.describeTopics(List.of(tp.topic())).allTopicNames()
                    .get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS).get(tp.topic());
            return description.partitions().stream().filter(p -> p.partition() == tp.partition()).findFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        }
    }

    /** The id of {@code tp}'s leader as described, or -1 for none (or no answer). */
    public static int leaderOf(TopicPartition tp) {
        return describe(tp).map(TributaryCluster::leaderId).orElse(-1);
    }

    /** Waits until {@code tp}'s ISR is exactly {@code expected}; returns the last description either way. */
    public static Optional<TopicPartitionInfo> awaitIsr(TopicPartition tp, Set<Integer> expected) {
        return Clients.await(() -> describe(tp), found -> found.map(p -> ids(p.isr()).equals(expected))
                .orElse(false), LIMIT);
    }

    /** The offset {@code group} has committed on {@code tp}, or -1 for none (or no answer). */
    public static long committedOffset(String group, TopicPartition tp) {
        try (Admin admin = admin()) {
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
        try (Admin admin = admin()) {
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

    public static Set<Integer> ids(Collection<Node> nodes) {
        return nodes.stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    private static int leaderId(TopicPartitionInfo partition) {
        return partition.leader() == null || partition.leader().isEmpty() ? -1 : partition.leader().id();
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(ADMIN_CALL_SECONDS)));
    }

    private static Running current() {
        Running current = running;
        if (current == null) {
            throw new IllegalStateException("the cluster was not started: extend the test class with "
                    + TributaryCluster.class.getSimpleName());
        }
        return current;
    }

    private static int port(int id) {
        return Integer.parseInt(requiredProperty("tributary.itests.cluster.port." + id));
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the ITs through Maven"
                    + " (./mvnw verify -pl itests), which reserves the cluster's ports and sets the work directory");
        }
        return value;
    }

    /** ZooKeeper and the broker processes; closed by JUnit after the test class. */
    private static final class Running implements AutoCloseable {

        private final TestingServer zooKeeper;
        private final Map<Integer, BrokerProcess> brokers;

        private Running(TestingServer zooKeeper, Map<Integer, BrokerProcess> brokers) {
            this.zooKeeper = zooKeeper;
            this.brokers = brokers;
        }

        static Running start() {
            TestingServer zooKeeper = null;
            Running running = null;
            try {
                Path work = Files.createDirectories(Path.of(requiredProperty("tributary.itests.work")));
                Path dir = Files.createTempDirectory(work, "cluster-");
                // The broker module's fault tests' ZooKeeper: 500 ms tick, so a 6 s session is within its bounds.
                zooKeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                Map<String, String> settings = settings(zooKeeper.getConnectString() + "/itcluster");
                Map<Integer, BrokerProcess> brokers = new TreeMap<>();
                for (int id : brokerIds()) {
                    brokers.put(id, new BrokerProcess(id, port(id), dir, settings));
                }
                running = new Running(zooKeeper, brokers);
                for (BrokerProcess broker : brokers.values()) {
                    broker.startAsync();
                }
                for (BrokerProcess broker : brokers.values()) {
                    broker.awaitStarted();
                }
                running.awaitLiveBrokers();
                return running;
            } catch (Exception e) {
                try {
                    if (running != null) {
                        running.close();
                    } else if (zooKeeper != null) {
                        zooKeeper.close();
                    }
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw new IllegalStateException("cannot start the cluster on " + bootstrapServers(), e);
            }
        }

        /** The broker module's test cluster's settings (TestCluster), with one-partition topics by default. */
        private static Map<String, String> settings(String zooKeeperConnect) {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put(BrokerConfig.ZOOKEEPER_CONNECT, zooKeeperConnect);
            settings.put(BrokerConfig.ZOOKEEPER_SESSION_TIMEOUT_MS, "6000");
            settings.put(BrokerConfig.DEFAULT_REPLICATION_FACTOR, "3");
            settings.put(BrokerConfig.MIN_INSYNC_REPLICAS, "2");
            settings.put(BrokerConfig.NUM_PARTITIONS, "1");
            settings.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, "3");
            settings.put(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, Integer.toString(OFFSETS_PARTITIONS));
            settings.put(BrokerConfig.GROUP_INITIAL_REBALANCE_DELAY_MS, "0");
            settings.put(BrokerConfig.NUM_IO_THREADS, "2");
            settings.put(BrokerConfig.NUM_NETWORK_THREADS, "1");
            // The default 128 MiB would not fit the 256 MiB heap beside everything else.
            settings.put(BrokerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE, "1048576");
            // A follower retries its fetch from a new leader after 200 ms rather than the default second.
            settings.put(BrokerConfig.REPLICA_FETCH_BACKOFF_MS, "200");
            return settings;
        }

        BrokerProcess broker(int id) {
            BrokerProcess broker = brokers.get(id);
            if (broker == null) {
                throw new IllegalArgumentException("no broker " + id + " in " + brokers.keySet());
            }
            return broker;
        }

        /** Waits until the cluster's metadata lists every broker whose process runs, and only those. */
        void awaitLiveBrokers() {
            Set<Integer> expected = brokers.values().stream().filter(BrokerProcess::isAlive).map(BrokerProcess::id)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<Integer> live = Clients.await(() -> {
                try (Admin admin = admin()) {
                    return ids(admin.describeCluster().nodes().get(ADMIN_CALL_SECONDS, TimeUnit.SECONDS));
                } catch (ExecutionException | TimeoutException e) {
                    return Set.of();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }, expected::equals, LIMIT);
            if (!live.equals(expected)) {
                throw new IllegalStateException("the cluster lists live brokers " + live + ", not " + expected
                        + ", after " + LIMIT);
            }
        }

        @Override
        public void close() throws Exception {
            running = null;
            Exception failure = null;
            for (BrokerProcess broker : brokers.values()) {
                try {
                    broker.kill();
                } catch (Exception e) {
                    failure = e;
                }
            }
            zooKeeper.close();
            if (failure != null) {
                throw failure;
            }
        }
    }
}
