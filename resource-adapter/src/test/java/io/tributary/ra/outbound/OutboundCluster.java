package io.tributary.ra.outbound;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * A real Tributary broker on an ephemeral port with an in-process ZooKeeper (test-support's {@link InProcessBroker}),
 * for the adapter's tests: single-node settings (offsets topic replication factor 1, no initial rebalance delay, few
 * offsets partitions), and consumers
 * with short heartbeats so that group changes settle quickly.
 *
 * <p>Test thread only.
 */
final class OutboundCluster implements AutoCloseable {

    /** Consumer settings for quick rebalances, in the adapter's kafkaProperties form. */
    static final String FAST_CONSUMERS = "consumer.heartbeat.interval.ms=200;consumer.session.timeout.ms=6000";

    private final InProcessBroker broker;

    OutboundCluster(Path dataDir) throws Exception {
        broker = InProcessBroker.builder(dataDir).start();
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

    /**
     * A plain (unpooled) connection factory of the JMS provider, to observe the cluster from outside the adapter; in
     * group mode, as the adapter's pooled connections read queues through their consumer groups.
     */
    TributaryConnectionFactory observer() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers());
        factory.setQueueMode("group");
        factory.setSubscriptionMode("group");
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

    /** Waits until {@code condition} holds, at most 20 s (test-support's {@link Waits}). */
    static void await(String what, Callable<Boolean> condition) {
        Waits.await(what).until(condition);
    }

    @Override
    public void close() throws IOException {
        broker.close();
    }
}
