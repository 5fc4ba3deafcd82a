package io.tributary.itests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Tributary broker, with an in-process ZooKeeper, beside the managed WildFly: started in the failsafe JVM
 * before the first IT class that uses this extension, shared by all of them, and stopped when the test run ends (it
 * lives in the root extension context's store, which closes it).
 *
 * <p>The broker listens on {@code 127.0.0.1:<tributary.itests.broker.port>}, a port that the build reserved
 * (itests/pom.xml) and also handed to the server as {@code tributary.bootstrap.servers} (arquillian.xml): the server
 * starts before any test runs, so the address must be known before the broker exists. Single-node settings as in
 * the other modules' test clusters (offsets topic replication factor 1, no initial rebalance delay); topics are
 * created on first use, with one partition, so each queue of a test is delivered in order.
 *
 * <p>Register it before {@code ArquillianExtension}, so the broker is up before Arquillian deploys: an activation
 * would otherwise start by retrying its connection.
 */
public final class TributaryBroker implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TributaryBroker.class);

    /** The broker's host:port, for the tests' own clients. */
    public static String bootstrapServers() {
        return "127.0.0.1:" + requiredProperty("tributary.itests.broker.port");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(),
                Running.class);
    }

    static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the ITs through Maven"
                    + " (./mvnw verify -pl itests -am), which reserves the broker's port and starts WildFly");
        }
        return value;
    }

    /** The running broker and its ZooKeeper; closed by JUnit at the end of the run. */
    private record Running(TestingServer zooKeeper, Broker broker, Path logs) implements AutoCloseable {

        static Running start() {
            TestingServer zooKeeper = null;
            try {
                Path work = Files.createDirectories(Path.of(requiredProperty("tributary.itests.work")));
                Path logs = Files.createTempDirectory(work, "broker-logs-");
                zooKeeper = new TestingServer(true);
                Broker broker = Broker.start(BrokerConfig.parse(Map.of(
                        BrokerConfig.BROKER_ID, "0",
                        BrokerConfig.LISTENERS, "PLAINTEXT://" + bootstrapServers(),
                        BrokerConfig.LOG_DIRS, logs.toString(),
                        BrokerConfig.ZOOKEEPER_CONNECT, zooKeeper.getConnectString() + "/itests",
                        BrokerConfig.NUM_IO_THREADS, "2",
                        BrokerConfig.NUM_NETWORK_THREADS, "2",
                        BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, "1",
                        BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, "3",
                        BrokerConfig.GROUP_INITIAL_REBALANCE_DELAY_MS, "0",
                        BrokerConfig.NUM_PARTITIONS, "1")));
                return new Running(zooKeeper, broker, logs);
            } catch (Exception e) {
                if (zooKeeper != null) {
                    try {
                        zooKeeper.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw new IllegalStateException("cannot start the broker on " + bootstrapServers(), e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                broker.close();
            } finally {
                zooKeeper.close();
            }
            // Each run starts from an empty log; the failing test's output and server.log tell what happened.
            try (Stream<Path> files = Files.walk(logs)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }
}
