package io.tributary.ra.outbound;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.jms.TributaryConnectionFactory;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * A real Tributary broker on an ephemeral port with an in-process ZooKeeper, for the adapter's tests: single-node
 * settings (offsets topic replication factor 1, no initial rebalance delay, few offsets partitions), and consumers
 * with short heartbeats so that group changes settle quickly.
 *
 * <p>Test thread only.
 */
final class OutboundCluster implements AutoCloseable {

    /** Consumer settings for quick rebalances, in the adapter's kafkaProperties form. */
    static final String FAST_CONSUMERS = "consumer.heartbeat.interval.ms=200;consumer.session.timeout.ms=6000";

    private final TestingServer zooKeeper;
    private final Broker broker;

    OutboundCluster(Path dataDir) throws Exception {
        zooKeeper = new TestingServer(true);
        Map<String, String> properties = new HashMap<>();
        properties.put(BrokerConfig.BROKER_ID, "0");
        properties.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        properties.put(BrokerConfig.LOG_DIRS, dataDir.resolve("logs").toString());
        properties.put(BrokerConfig.ZOOKEEPER_CONNECT, zooKeeper.getConnectString() + "/ra");
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

    /** The outbound connection definition for this cluster, as a container would configure it. */
    TributaryManagedConnectionFactory managedConnectionFactory() {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setBootstrapServers(bootstrapServers());
        factory.setKafkaProperties(FAST_CONSUMERS);
        return factory;
    }

    /** A plain (unpooled) connection factory of the JMS provider, to observe the cluster from outside the adapter. */
    TributaryConnectionFactory observer() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers());
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "200");
        factory.setKafkaProperty("consumer.session.timeout.ms", "6000");
        return factory;
    }

    /** The names of the cluster's topics. */
    Set<String> topics() throws Exception {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (Admin admin = Admin.create(properties)) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    /** The offset the next record of {@code topic}'s partition 0 will get: how many records it has. */
    long endOffset(String topic) throws Exception {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(properties)) {
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(30, TimeUnit.SECONDS).offset();
        }
    }

    /** Waits until {@code condition} holds, at most 20 s. */
    static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws IOException {
        broker.close();
        zooKeeper.close();
    }
}
