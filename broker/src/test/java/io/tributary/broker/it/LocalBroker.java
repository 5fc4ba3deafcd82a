package io.tributary.broker.it;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;

/**
 * A real broker in this JVM on an ephemeral port, against a ZooKeeper chroot of its own (so that tests sharing one
 * ZooKeeper do not see each other's topics), with its log directory under a test's temp directory. It can be
 * stopped cleanly and started again on the same directory and chroot, as an operator restarts a broker.
 *
 * <p>Test thread only. {@link #close()} is idempotent.
 */
final class LocalBroker implements AutoCloseable {

    private static final AtomicInteger CHROOTS = new AtomicInteger();

    private final Map<String, String> properties = new HashMap<>();
    private Broker broker;

    /**
     * @param zooKeeper  the connect string of the test's ZooKeeper, without chroot
     * @param dataDir    where the log directory goes
     * @param overrides  further broker properties as {@code name, value} pairs
     */
    LocalBroker(String zooKeeper, Path dataDir, String... overrides) {
        properties.put(BrokerConfig.BROKER_ID, "0");
        properties.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        properties.put(BrokerConfig.LOG_DIRS, dataDir.resolve("logs").toString());
        properties.put(BrokerConfig.ZOOKEEPER_CONNECT, zooKeeper + "/it" + CHROOTS.incrementAndGet());
        properties.put(BrokerConfig.ZOOKEEPER_SESSION_TIMEOUT_MS, "6000");
        properties.put(BrokerConfig.NUM_IO_THREADS, "4");
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "2");
        // As Kafka's own test harness and single-node config: one broker can host the offsets topic, a new group
        // does not wait for more members, and fewer offsets partitions keep start-up light.
        properties.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, "1");
        properties.put(BrokerConfig.GROUP_INITIAL_REBALANCE_DELAY_MS, "0");
        properties.put(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, "5");
        for (int i = 0; i < overrides.length; i += 2) {
            properties.put(overrides[i], overrides[i + 1]);
        }
        start();
    }

    /** Starts the broker (again); it must be stopped. */
    LocalBroker start() {
        if (broker != null) {
            throw new IllegalStateException("the broker is running");
        }
        broker = Broker.start(BrokerConfig.parse(properties));
        return this;
    }

    /** Clean shutdown, then a start on the same log directory and ZooKeeper chroot (on a new port). */
    void restart() {
        close();
        start();
    }

    String bootstrapServers() {
        if (broker == null) {
            throw new IllegalStateException("the broker is stopped");
        }
        return broker.bootstrapServers();
    }

    /** The ZooKeeper connect string with this broker's chroot: another broker given it joins the same cluster. */
    String zooKeeperConnect() {
        return properties.get(BrokerConfig.ZOOKEEPER_CONNECT);
    }

    /** The log directory. */
    java.nio.file.Path logDir() {
        return java.nio.file.Path.of(properties.get(BrokerConfig.LOG_DIRS));
    }

    int port() {
        return broker.boundPort("PLAINTEXT");
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
