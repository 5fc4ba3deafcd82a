package io.tributary.jms;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import org.apache.curator.test.TestingServer;

/**
 * A real Tributary broker on an ephemeral port with an in-process ZooKeeper, for the provider's tests: single-node
 * settings (offsets topic replication factor 1, no initial rebalance delay, few offsets partitions).
 *
 * <p>Test thread only.
 */
final class TestCluster implements AutoCloseable {

    private final TestingServer zooKeeper;
    private final Broker broker;

    TestCluster(Path dataDir) throws Exception {
        zooKeeper = new TestingServer(true);
        Map<String, String> properties = new HashMap<>();
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
        broker = Broker.start(BrokerConfig.parse(properties));
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** A connection factory for this cluster with short client timeouts. */
    TributaryConnectionFactory connectionFactory() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers());
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "200");
        factory.setKafkaProperty("consumer.session.timeout.ms", "6000");
        return factory;
    }

    @Override
    public void close() throws IOException {
        broker.close();
        zooKeeper.close();
    }
}
