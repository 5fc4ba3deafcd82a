package io.tributary.itests;

import static io.tributary.broker.BrokerConfig.BROKER_ID;
import static io.tributary.broker.BrokerConfig.NUM_IO_THREADS;
import static io.tributary.broker.BrokerConfig.NUM_NETWORK_THREADS;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import io.tributary.testsupport.InProcessBroker;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Tributary broker, with an in-process ZooKeeper (test-support's {@link InProcessBroker}), beside the managed
 * WildFly: started in the failsafe JVM before the first IT class that uses this extension, shared by all of them, and
 * stopped when the test run ends (it lives in the root extension context's store, which closes it).
 *
 * <p>The broker listens on {@code 127.0.0.1:<tributary.itests.broker.port>}, a port that the build reserved
 * (itests/pom.xml) and also handed to the server as {@code tributary.bootstrap.servers} (arquillian.xml): the server
 * starts before any test runs, so the address must be known before the broker exists. InProcessBroker's single-node
 * settings (offsets topic replication factor 1, no initial rebalance delay); topics are created on first use, with
 * one partition, so each queue of a test is delivered in order.
 *
 * <p>A test may stop the broker ({@link #stop()}) and start it again ({@link #start()}) on the same port, log
 * directory and ZooKeeper, as a broker restart would: the server's adapter only sees the connection go and come back.
 * After every test the extension starts the broker again if the test left it stopped (failed between the two calls),
 * so the tests that follow find it running.
 *
 * <p>Register it before {@code ArquillianExtension}, so the broker is up before Arquillian deploys: an activation
 * would otherwise start by retrying its connection.
 *
 * <p>Threads: JUnit's (the test thread); {@link #stop()} and {@link #start()} are synchronized on the running broker.
 */
public final class TributaryBroker implements BeforeAllCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TributaryBroker.class);

    /**
     * The broker of this run, for {@link #stop()} and {@link #start()}: the same object as in the root store, which
     * owns and closes it. Written by {@link #beforeAll}, the first time only.
     */
    private static volatile Running running;

    /** The broker's host:port, for the tests' own clients. */
    public static String bootstrapServers() {
        return "127.0.0.1:" + requiredProperty("tributary.itests.broker.port");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        running = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(),
                Running.class);
    }

    /** A test that stopped the broker and failed before starting it again leaves it running for the next. */
    @Override
    public void afterEach(ExtensionContext context) {
        Running current = running;
        if (current != null) {
            current.startBroker();
        }
    }

    /**
     * Stops the broker cleanly (its logs closed, its connections dropped, its ZooKeeper registration gone), leaving
     * ZooKeeper and the log directory as they are; nothing is listening on the port until {@link #start()}.
     */
    public static void stop() {
        current().stopBroker();
    }

    /** Starts the broker again on the same port and log directory, after {@link #stop()}; nothing if it runs. */
    public static void start() {
        current().startBroker();
    }

    private static Running current() {
        Running current = running;
        if (current == null) {
            throw new IllegalStateException("the broker was not started: extend the test class with "
                    + TributaryBroker.class.getSimpleName());
        }
        return current;
    }

    /** A system property that the build sets for the ITs (itests/pom.xml); fails if it is not set. */
    public static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the ITs through Maven"
                    + " (./mvnw verify -pl itests -am), which reserves the brokers' ports, sets the work directory"
                    + " and starts WildFly");
        }
        return value;
    }

    /**
     * The broker, its ZooKeeper and its log directory (test-support's {@link InProcessBroker} on the reserved port);
     * closed by JUnit at the end of the run. The broker may be stopped and started again in between.
     */
    private static final class Running implements AutoCloseable {

        private final InProcessBroker broker;
        private final Path dir;

        private Running(InProcessBroker broker, Path dir) {
            this.broker = broker;
            this.dir = dir;
        }

        static Running start() {
            try {
                Path work = Files.createDirectories(Path.of(requiredProperty("tributary.itests.work")));
                Path dir = Files.createTempDirectory(work, "broker-");
                InProcessBroker broker = InProcessBroker.builder(dir)
                        .fixedPort(Integer.parseInt(requiredProperty("tributary.itests.broker.port")))
                        .override(BROKER_ID, "0", NUM_IO_THREADS, "2", NUM_NETWORK_THREADS, "2")
                        .start();
                return new Running(broker, dir);
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the broker on " + bootstrapServers(), e);
            }
        }

        void startBroker() {
            broker.start();
        }

        void stopBroker() {
            broker.stop();
        }

        @Override
        public void close() throws IOException {
            broker.close();
            // Each run starts from an empty log; the failing test's output and server.log tell what happened.
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }
}
