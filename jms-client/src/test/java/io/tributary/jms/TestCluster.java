package io.tributary.jms;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A real Tributary broker on an ephemeral port with an in-process ZooKeeper, for the provider's tests: single-node
 * settings (offsets topic replication factor 1, no initial rebalance delay, few offsets partitions). The broker can be
 * restarted on the same log directory and ZooKeeper; it then listens on a new port, so clients (and connection
 * factories) must be created again after {@link #restartBroker()}.
 *
 * <p>Test thread only. Public for the tests of {@code io.tributary.jms.kafka}.
 */
public final class TestCluster implements AutoCloseable {

    private final TestingServer zooKeeper;
    private final Map<String, String> properties = new HashMap<>();
    /** Null only while {@link #restartBroker()} runs. */
    private Broker broker;

    public TestCluster(Path dataDir) throws Exception {
        this(dataDir, Map.of());
    }

    /** A cluster whose broker has {@code overrides} on top of the single-node settings. */
    public TestCluster(Path dataDir, Map<String, String> overrides) throws Exception {
        zooKeeper = new TestingServer(true);
        properties.put(BrokerConfig.BROKER_ID, "0");
        properties.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        properties.put(BrokerConfig.LOG_DIRS, dataDir.resolve("logs").toString());
        properties.put(BrokerConfig.ZOOKEEPER_CONNECT, zooKeeper.getConnectString() + "/jms");
        properties.put(BrokerConfig.NUM_IO_THREADS, "4");
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "2");
        properties.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, "1");
        properties.put(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, "3");
        properties.put(BrokerConfig.GROUP_INITIAL_REBALANCE_DELAY_MS, "0");
        properties.put(BrokerConfig.NUM_PARTITIONS, "1");
        properties.putAll(overrides);
        broker = Broker.start(BrokerConfig.parse(properties));
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** A connection factory for this cluster with short client timeouts. */
    public TributaryConnectionFactory connectionFactory() {
        return connectionFactory(Clock.systemUTC());
    }

    /** A connection factory for this cluster with short client timeouts, whose connections read {@code clock}. */
    public TributaryConnectionFactory connectionFactory(Clock clock) {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers(), clock);
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "200");
        factory.setKafkaProperty("consumer.session.timeout.ms", "6000");
        return factory;
    }

    /**
     * Stops the broker cleanly and starts it again on the same log directory and ZooKeeper chroot, as an operator
     * restarts a broker. The new broker listens on another port: make new clients and connection factories.
     */
    public void restartBroker() {
        broker.close();
        broker = null;
        broker = Broker.start(BrokerConfig.parse(properties));
    }

    /** Creates {@code topic} with {@code partitions} partitions (replication factor 1) and waits for the result. */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** An admin client of this cluster; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    @Override
    public void close() throws IOException {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }
}
