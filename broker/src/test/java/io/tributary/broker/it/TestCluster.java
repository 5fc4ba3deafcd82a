package io.tributary.broker.it;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A cluster of brokers for fault tests: a real ZooKeeper ({@link TestingServer}, in the test's JVM, 500 ms tick) and
 * each broker a process of its own ({@link BrokerProcess}) that the test may SIGKILL, SIGSTOP or cut off from
 * ZooKeeper ({@link ZooKeeperProxy}). Brokers listen on ephemeral ports, so a restarted broker has a new address;
 * clients learn it from metadata. Every broker's output goes to {@code <dir>/broker-<id>/}.
 *
 * <p>Test thread only. {@link #close()} SIGKILLs whatever still runs and stops ZooKeeper.
 */
final class TestCluster implements AutoCloseable {

    /** Settings every broker of a test cluster gets (a test may add more or override). */
    private static final List<String> DEFAULTS = List.of(
            "zookeeper.session.timeout.ms", "6000",
            "default.replication.factor", "3",
            "min.insync.replicas", "2",
            "offsets.topic.replication.factor", "3",
            "offsets.topic.num.partitions", "3",
            "group.initial.rebalance.delay.ms", "0",
            "num.io.threads", "2",
            "num.network.threads", "1",
            "log.cleaner.dedupe.buffer.size", "1048576",
            // A retried fetch after a leadership change should not wait the default second.
            "replica.fetch.backoff.ms", "200",
            "controlled.shutdown.retry.backoff.ms", "3000");

    private final Path dir;
    private final TestingServer zooKeeper;
    private final Map<Integer, BrokerProcess> brokers = new TreeMap<>();
    private final Map<Integer, ZooKeeperProxy> proxies = new TreeMap<>();

    /**
     * @param overrides broker settings as {@code name, value} pairs for every broker
     */
    TestCluster(Path dir, int size, boolean proxiedZooKeeper, String... overrides) throws Exception {
        this.dir = dir;
        this.zooKeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
        try {
            for (int id = 1; id <= size; id++) {
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
                Path output = dir.resolve("broker-" + id);
                java.nio.file.Files.createDirectories(output);
                brokers.put(id, new BrokerProcess(output, settings.toArray(String[]::new)));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** Starts every broker (all at once, then waits for each) and waits until each sees the others live. */
    void startAll() throws Exception {
        for (BrokerProcess broker : brokers.values()) {
            broker.startAsync();
        }
        for (BrokerProcess broker : brokers.values()) {
            broker.awaitStarted();
        }
        awaitLiveBrokers(brokers.keySet());
    }

    void start(int id) throws Exception {
        broker(id).start();
    }

    void kill(int id) throws InterruptedException {
        broker(id).kill();
    }

    /** SIGTERM: a clean (controlled) shutdown; returns the exit code. */
    int terminate(int id) throws InterruptedException {
        return broker(id).terminate();
    }

    void pause(int id) throws IOException, InterruptedException {
        broker(id).pause();
    }

    void resume(int id) throws IOException, InterruptedException {
        broker(id).resume();
    }

    /** The broker's connection to ZooKeeper, for cutting it (only with {@code proxiedZooKeeper}). */
    ZooKeeperProxy zooKeeperLink(int id) {
        ZooKeeperProxy proxy = proxies.get(id);
        if (proxy == null) {
            throw new IllegalStateException("broker " + id + " is not behind a ZooKeeper proxy");
        }
        return proxy;
    }

    BrokerProcess broker(int id) {
        BrokerProcess broker = brokers.get(id);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + id);
        }
        return broker;
    }

    Set<Integer> ids() {
        return brokers.keySet();
    }

    Path dir() {
        return dir;
    }

    /** The addresses of the brokers running now. */
    String bootstrapServers() {
        return brokers.values().stream().filter(BrokerProcess::isAlive).map(BrokerProcess::bootstrapServers)
                .collect(Collectors.joining(","));
    }

    Admin admin() {
        return Clients.admin(bootstrapServers());
    }

    /** Creates a topic with the given partitions and replication factor, and waits until every ISR is full. */
    void createTopic(String topic, int partitions, int replicationFactor, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        awaitFullIsr(topic, partitions, replicationFactor, Duration.ofSeconds(30));
    }

    /** Creates a topic with an explicit replica assignment (partition to replicas, preferred leader first). */
    void createTopic(String topic, Map<Integer, List<Integer>> assignment, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, assignment).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        int replicationFactor = assignment.values().iterator().next().size();
        awaitFullIsr(topic, assignment.size(), replicationFactor, Duration.ofSeconds(30));
    }

    /** The partitions of {@code topic} as the cluster describes them now (empty if it cannot answer). */
    Optional<List<TopicPartitionInfo>> describe(String topic) {
        try (Admin admin = admin()) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
            return Optional.of(description.partitions());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        }
    }

    /** The partition's info, waiting until the cluster answers. */
    TopicPartitionInfo partition(TopicPartition tp) {
        TopicPartitionInfo[] found = new TopicPartitionInfo[1];
        Await.until(Duration.ofSeconds(30), () -> {
            Optional<List<TopicPartitionInfo>> partitions = describe(tp.topic());
            partitions.ifPresent(list -> found[0] = list.get(tp.partition()));
            return found[0] != null;
        }, () -> "a description of " + tp);
        return found[0];
    }

    int leaderOf(TopicPartition tp) {
        Node leader = partition(tp).leader();
        return leader == null ? -1 : leader.id();
    }

    static Set<Integer> ids(Collection<Node> nodes) {
        return nodes.stream().map(Node::id).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** Waits until every partition of {@code topic} has a leader and an ISR of {@code size} members. */
    void awaitFullIsr(String topic, int partitions, int size, Duration limit) {
        Await.until(limit, () -> describe(topic).map(list -> list.size() == partitions && list.stream()
                .allMatch(p -> p.leader() != null && p.isr().size() == size)).orElse(false),
                () -> "every partition of " + topic + " with a leader and " + size + " in sync: "
                        + describe(topic).orElse(null));
    }

    /** Waits until the ISR of {@code tp} is exactly {@code expected}. */
    void awaitIsr(TopicPartition tp, Set<Integer> expected, Duration limit) {
        Await.until(limit, () -> describe(tp.topic()).map(list -> ids(list.get(tp.partition()).isr())
                .equals(expected)).orElse(false), () -> "ISR of " + tp + " to be " + expected + ": "
                + describe(tp.topic()).map(list -> list.get(tp.partition())).orElse(null));
    }

    /** Waits until the cluster's metadata lists exactly {@code expected} as live brokers. */
    void awaitLiveBrokers(Set<Integer> expected) {
        Await.until(Duration.ofSeconds(30), () -> {
            try (Admin admin = admin()) {
                return ids(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)).equals(expected);
            } catch (Exception e) {
                return false;
            }
        }, () -> "live brokers " + expected);
    }

    /** The controller's id as the cluster reports it. */
    int controller() {
        int[] id = {-1};
        Await.until(Duration.ofSeconds(30), () -> {
            try (Admin admin = admin()) {
                Node controller = admin.describeCluster().controller().get(10, TimeUnit.SECONDS);
                id[0] = controller == null ? -1 : controller.id();
                return id[0] >= 0;
            } catch (Exception e) {
                return false;
            }
        }, () -> "a controller");
        return id[0];
    }

    @Override
    public void close() throws Exception {
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
