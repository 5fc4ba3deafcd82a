package io.tributary.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Tributary cluster for one test class, as a JUnit 5 extension: registered on a static field, it starts before the
 * class's first test ({@code @BeforeAll} methods already see it) and stops after its last ({@code @Nested} classes
 * share it); on an instance field, it starts before and stops after every test. Its data go to a fresh temporary directory, deleted afterwards.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
 * ...
 * try (Admin admin = cluster.admin()) { ... }
 * }</pre>
 *
 * <p>{@link #singleBroker} runs one {@link InProcessBroker} with its own ZooKeeper (fast: most tests);
 * {@link #processes} runs a {@link ProcessCluster} of broker processes that the test may SIGKILL or SIGSTOP (fault
 * tests), started and waited for until every broker sees the others live.
 *
 * <p>Threads: JUnit's.
 */
public final class TributaryClusterExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final int processes;
    private final String[] overrides;
    private Path dir;
    private InProcessBroker broker;
    private ProcessCluster cluster;
    /** Whether this extension started in beforeAll (a static field), so that afterEach leaves it running. */
    private boolean perClass;
    /** The class context that started it (not a {@code @Nested} class's, which shares it). */
    private String owner;

    private TributaryClusterExtension(int processes, String... overrides) {
        this.processes = processes;
        this.overrides = overrides.clone();
    }

    /**
     * One broker in the test JVM with its own ZooKeeper, on an ephemeral port.
     *
     * @param overrides broker properties as {@code name, value} pairs over {@link InProcessBroker}'s settings
     */
    public static TributaryClusterExtension singleBroker(String... overrides) {
        return new TributaryClusterExtension(0, overrides);
    }

    /**
     * {@code size} broker processes with ids 1 to {@code size}, on ephemeral ports, reaching ZooKeeper directly.
     *
     * @param overrides broker properties as {@code name, value} pairs over {@link ProcessCluster}'s settings
     */
    public static TributaryClusterExtension processes(int size, String... overrides) {
        if (size < 1) {
            throw new IllegalArgumentException("size " + size);
        }
        return new TributaryClusterExtension(size, overrides);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (owner != null) {
            return;
        }
        perClass = true;
        owner = context.getUniqueId();
        start(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            start(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            stop();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (context.getUniqueId().equals(owner)) {
            owner = null;
            perClass = false;
            stop();
        }
    }

    private void start(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("tributary-" + context.getRequiredTestClass().getSimpleName() + "-");
        try {
            if (processes == 0) {
                broker = InProcessBroker.builder(dir).override(overrides).start();
            } else {
                cluster = new ProcessCluster(dir, processes, false, overrides);
                cluster.startAll();
            }
        } catch (Exception | Error e) {
            stop();
            throw e;
        }
    }

    private void stop() throws Exception {
        try {
            if (broker != null) {
                broker.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            broker = null;
            cluster = null;
            if (dir != null) {
                delete(dir);
                dir = null;
            }
        }
    }

    /** The single broker ({@link #singleBroker}). */
    public InProcessBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("no single broker running: " + (processes > 0
                    ? "this extension runs broker processes, see cluster()" : "the extension has not started"));
        }
        return broker;
    }

    /** The broker processes ({@link #processes}). */
    public ProcessCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("no broker processes running: " + (processes == 0
                    ? "this extension runs a single broker, see broker()" : "the extension has not started"));
        }
        return cluster;
    }

    /** The brokers' addresses (of those running and not frozen, for processes). */
    public String bootstrapServers() {
        return processes == 0 ? broker().bootstrapServers() : cluster().bootstrapServers();
    }

    /** An admin client with short timeouts; the caller closes it. */
    public Admin admin() {
        return Clients.admin(bootstrapServers());
    }

    /** Creates {@code topic} on the single broker ({@link InProcessBroker#createTopic(String, int)}). */
    public void createTopic(String topic, int partitions) throws Exception {
        broker().createTopic(topic, partitions);
    }

    /** The directory holding the brokers' data while the extension runs. */
    public Path dir() {
        return dir;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
