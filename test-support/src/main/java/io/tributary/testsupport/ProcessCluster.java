package io.tributary.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A cluster of brokers for fault tests: a real ZooKeeper ({@link TestZooKeeper}, in the test's JVM, 500 ms tick, the
 * brokers under the chroot {@code /cluster}) and brokers with ids 1 to n, each a process of its own
 * ({@link BrokerProcess}) that the test may SIGKILL, SIGSTOP or cut off from ZooKeeper ({@link ZooKeeperProxy}).
 * Brokers listen on ephemeral ports, so a restarted broker has a new address and clients learn it from metadata; or,
 * for clients whose bootstrap list is fixed before the cluster starts (an MDB's activation config), on fixed ports the
 * caller reserved, the same after every start. Broker n's output and data go to {@code <dir>/broker-<n>/} (its log
 * directory is {@code logs} there).
 *
 * <p>Every broker gets a small cluster's settings, then the caller's overrides: replication factor 3 and
 * {@code min.insync.replicas=2} by default, the offsets topic (3 partitions) replicated three times, no initial
 * rebalance delay, a 6 s ZooKeeper session.
 *
 * <p>Test thread only. {@link #close()} SIGKILLs whatever still runs and stops ZooKeeper; it may be called twice.
 */
public final class ProcessCluster implements AutoCloseable {

    /** Settings every broker of a test cluster gets (a test may add more or override). */
    private static final List<String> DEFAULTS = List.of(
            "zookeeper.session.timeout.ms", "6000",
            "default.replication.factor", "3",
            "min.insync.replicas", "2",
            "offsets.topic.replication.factor", "3",
            "offsets.topic.num.partitions", "3",
            "transaction.state.log.replication.factor", "3",
            "transaction.state.log.num.partitions", "3",
            "share.coordinator.state.topic.num.partitions", "3",
            "group.initial.rebalance.delay.ms", "0",
            "num.io.threads", "2",
            "num.network.threads", "1",
            // The default 128 MiB would not fit the brokers' 256 MiB heap beside everything else.
            "log.cleaner.dedupe.buffer.size", "1048576",
            // A retried fetch after a leadership change should not wait the default second.
            "replica.fetch.backoff.ms", "200",
            "controlled.shutdown.retry.backoff.ms", "3000");
    /** Bounds each wait on the cluster's answer to an admin request: elections take seconds on a loaded machine. */
    private static final Duration ANSWER_LIMIT = Duration.ofSeconds(30);

    private final Path dir;
    private final TestingServer zooKeeper;
    private final Map<Integer, BrokerProcess> brokers = new TreeMap<>();
    private final Map<Integer, ZooKeeperProxy> proxies = new TreeMap<>();
    private boolean closed;

    /**
     * A cluster of {@code size} brokers on ephemeral ports.
     *
     * @param proxiedZooKeeper whether each broker reaches ZooKeeper through a {@link ZooKeeperProxy}
     * @param overrides        broker settings as {@code name, value} pairs for every broker
     */
    public ProcessCluster(Path dir, int size, boolean proxiedZooKeeper, String... overrides) throws Exception {
        this(dir, Collections.nCopies(size, 0), proxiedZooKeeper, overrides);
    }

    /**
     * A cluster of {@code ports.size()} brokers on fixed ports: broker n listens on {@code ports.get(n - 1)}, or on an
     * ephemeral port where that is 0.
     *
     * @param proxiedZooKeeper whether each broker reaches ZooKeeper through a {@link ZooKeeperProxy}
     * @param overrides        broker settings as {@code name, value} pairs for every broker
     */
    public ProcessCluster(Path dir, List<Integer> ports, boolean proxiedZooKeeper, String... overrides)
            throws Exception {
        this.dir = dir;
        // A 500 ms tick (TestZooKeeper): the brokers' 6 s session as asked, a test's shorter one for a quick expiry.
        this.zooKeeper = TestZooKeeper.start();
        try {
            for (int id = 1; id <= ports.size(); id++) {
                String connect = zooKeeper.getConnectString();
                if (proxiedZooKeeper) {
                    ZooKeeperProxy proxy = new ZooKeeperProxy(zooKeeper.getPort());
                    proxies.put(id, proxy);
                    connect = "127.0.0.1:" + proxy.port();
                }
                List<String> settings = new ArrayList<>(DEFAULTS);
                settings.addAll(List.of("broker.id", Integer.toString(id),
                        "log.dirs", dir.resolve("broker-" + id).resolve("logs").toString(),
                        "zookeeper.connect", connect + "/cluster"));
                settings.addAll(List.of(overrides));
                Path output = Files.createDirectories(dir.resolve("broker-" + id));
                brokers.put(id, new BrokerProcess(output, ports.get(id - 1), settings.toArray(String[]::new)));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** Starts every broker (all at once, then waits for each) and waits until each sees the others live. */
    public void startAll() throws Exception {
        for (BrokerProcess broker : brokers.values()) {
            broker.startAsync();
        }
        for (BrokerProcess broker : brokers.values()) {
            broker.awaitStarted();
        }
        awaitLiveBrokers(Duration.ofSeconds(60));
    }

    /** Starts broker {@code id} and waits until it reports its port (not until the others see it live). */
    public void start(int id) throws Exception {
        broker(id).start();
    }

    /** SIGKILL; returns once the process is gone. */
    public void kill(int id) throws InterruptedException {
        broker(id).kill();
    }

    /** SIGTERM: a clean (controlled) shutdown; returns the exit code. */
    public int terminate(int id) throws InterruptedException {
        return broker(id).terminate();
    }

    public void pause(int id) throws IOException, InterruptedException {
        broker(id).pause();
    }

    public void resume(int id) throws IOException, InterruptedException {
        broker(id).resume();
    }

    /** The broker's connection to ZooKeeper, for cutting it (only with {@code proxiedZooKeeper}). */
    public ZooKeeperProxy zooKeeperLink(int id) {
        ZooKeeperProxy proxy = proxies.get(id);
        if (proxy == null) {
            throw new IllegalStateException("broker " + id + " is not behind a ZooKeeper proxy");
        }
        return proxy;
    }

    public BrokerProcess broker(int id) {
        BrokerProcess broker = brokers.get(id);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + id + " in " + brokers.keySet());
        }
        return broker;
    }

    public Set<Integer> ids() {
        return brokers.keySet();
    }

    public Path dir() {
        return dir;
    }

    /** The addresses of the brokers running and not frozen (a frozen one would hold a request for its timeout). */
    public String bootstrapServers() {
        return brokers.values().stream().filter(BrokerProcess::isServing).map(BrokerProcess::bootstrapServers)
                .collect(Collectors.joining(","));
    }

    /** An admin client of the brokers running now ({@link Clients#admin}); the caller closes it. */
    public Admin admin() {
        return Clients.admin(bootstrapServers());
    }

    /** Creates a topic with the given partitions and replication factor, and waits until every ISR is full. */
    public void createTopic(String topic, int partitions, int replicationFactor, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        awaitFullIsr(topic, partitions, replicationFactor, ANSWER_LIMIT);
    }

    /**
     * Creates a topic with an explicit replica assignment (partition to replicas, preferred leader first), and waits
     * until every ISR is full and every partition is led by its preferred leader.
     */
    public void createTopic(String topic, Map<Integer, List<Integer>> assignment, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, assignment).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        int replicationFactor = assignment.values().iterator().next().size();
        awaitFullIsr(topic, assignment.size(), replicationFactor, ANSWER_LIMIT);
        assignment.forEach((partition, replicas) -> {
            TopicPartition tp = new TopicPartition(topic, partition);
            TopicPartitionInfo[] seen = new TopicPartitionInfo[1];
            Waits.await(ANSWER_LIMIT).untilAsserted(() -> {
                seen[0] = partition(tp);
                assertEquals(replicas.get(0), leaderId(seen[0]),
                        () -> tp + " led by its preferred leader " + replicas.get(0) + ": " + seen[0]);
            });
        });
    }

    /** The partitions of {@code topic} as the cluster describes them now (empty if it cannot answer). */
    public Optional<List<TopicPartitionInfo>> describe(String topic) {
        try (Admin admin = admin()) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
            return Optional.of(description.partitions());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        }
    }

    /** The partition's info, waiting until the cluster answers. */
    public TopicPartitionInfo partition(TopicPartition tp) {
        TopicPartitionInfo[] found = new TopicPartitionInfo[1];
        Waits.await("a description of " + tp).atMost(ANSWER_LIMIT).until(() -> {
            Optional<List<TopicPartitionInfo>> partitions = describe(tp.topic());
            partitions.ifPresent(list -> found[0] = list.get(tp.partition()));
            return found[0] != null;
        });
        return found[0];
    }

    /** The id of the partition's leader, or -1 for none; waits until the cluster answers. */
    public int leaderOf(TopicPartition tp) {
        return leaderId(partition(tp));
    }

    /** The id of the partition's leader, or -1 for none. */
    public static int leaderId(TopicPartitionInfo partition) {
        Node leader = partition.leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    public static Set<Integer> ids(Collection<Node> nodes) {
        return nodes.stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Waits until every partition of {@code topic} has a leader and an ISR of {@code size} members. */
    public void awaitFullIsr(String topic, int partitions, int size, Duration limit) {
        Waits.await(limit).untilAsserted(() -> {
            List<TopicPartitionInfo> seen = describe(topic).orElse(null);
            assertTrue(seen != null && seen.size() == partitions && seen.stream()
                    .allMatch(p -> p.leader() != null && p.isr().size() == size),
                    () -> "every partition of " + topic + " with a leader and " + size + " in sync: " + seen);
        });
    }

    /** Waits until the ISR of {@code tp} is exactly {@code expected}; returns the description that showed it. */
    public TopicPartitionInfo awaitIsr(TopicPartition tp, Set<Integer> expected, Duration limit) {
        TopicPartitionInfo[] seen = new TopicPartitionInfo[1];
        Waits.await(limit).untilAsserted(() -> {
            seen[0] = describe(tp.topic()).map(list -> list.get(tp.partition())).orElse(seen[0]);
            assertTrue(seen[0] != null && ids(seen[0].isr()).equals(expected),
                    () -> "ISR of " + tp + " to be " + expected + ": " + seen[0]);
        });
        return seen[0];
    }

    /** Waits until the cluster's metadata lists as live exactly the brokers whose processes run. */
    public void awaitLiveBrokers(Duration limit) {
        Set<Integer> expected = brokers.entrySet().stream().filter(broker -> broker.getValue().isAlive())
                .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
        Waits.await("live brokers " + expected).atMost(limit).until(() -> {
            try (Admin admin = admin()) {
                return ids(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)).equals(expected);
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** The controller's id as the cluster reports it; waits until it names one. */
    public int controller() {
        return askForBroker("a controller", admin -> admin.describeCluster().controller());
    }

    /**
     * The broker coordinating consumer group {@code group} as the cluster names it ({@code DescribeGroups}); waits
     * until it names one. The group must exist: have members or committed offsets.
     */
    public int coordinatorOf(String group) {
        return askForBroker("a coordinator of group " + group, admin -> admin.describeConsumerGroups(List.of(group))
                .describedGroups().get(group).thenApply(ConsumerGroupDescription::coordinator));
    }

    /** Asks the cluster {@code query} until it answers with a broker; returns the broker's id. */
    private int askForBroker(String what, Function<Admin, KafkaFuture<Node>> query) {
        int[] id = {-1};
        Waits.await(what).atMost(ANSWER_LIMIT).until(() -> {
            try (Admin admin = admin()) {
                Node node = query.apply(admin).get(10, TimeUnit.SECONDS);
                id[0] = node == null ? -1 : node.id();
                return id[0] >= 0;
            } catch (Exception e) {
                return false;
            }
        });
        return id[0];
    }

    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        Exception failure = null;
        for (BrokerProcess broker : brokers.values()) {
            try {
                broker.kill();
            } catch (Exception e) {
                failure = e;
            }
        }
        for (ZooKeeperProxy proxy : proxies.values()) {
            proxy.close();
        }
        zooKeeper.close();
        if (failure != null) {
            throw failure;
        }
    }
}
