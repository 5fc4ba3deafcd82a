package io.tributary.jms;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.tributary.testsupport.InProcessBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The cluster of the transacted session tests: an in-process Tributary broker, or, when the system property
 * {@value #EXTERNAL} names bootstrap servers (an Apache Kafka 4.4 of the shared bench, say), that cluster, so that the
 * same tests show how the provider behaves against Kafka's own transaction coordinator.
 *
 * <p>One per test class; not thread-safe.
 */
final class TransactionTestCluster implements AutoCloseable {

    static final String EXTERNAL = "tributary.jms.test.bootstrapServers";

    private final InProcessBroker broker;
    private final String bootstrapServers;
    private final String run = Long.toString(System.currentTimeMillis(), 36);

    private TransactionTestCluster(InProcessBroker broker, String bootstrapServers) {
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
    }

    static TransactionTestCluster start(Path dir) throws Exception {
        String external = System.getProperty(EXTERNAL);
        if (external != null && !external.isBlank()) {
            return new TransactionTestCluster(null, external);
        }
        InProcessBroker broker = InProcessBroker.builder(dir).start();
        return new TransactionTestCluster(broker, broker.bootstrapServers());
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    boolean isExternal() {
        return broker == null;
    }

    Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return Admin.create(props);
    }

    /**
     * Creates a topic named {@code name}, on an external cluster with this run's suffix (it keeps the topics and
     * groups of earlier runs); returns the name it has.
     */
    String createTopic(String name, int partitions) throws Exception {
        String topic = broker == null ? name + "-" + run : name;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(Map.of()))).all().get();
        }
        return topic;
    }

    @Override
    public void close() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }
}
