package io.tributary.ra.inbound;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.tributary.ra.TributaryResourceAdapter;
import jakarta.resource.ResourceException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture of the adapter's delivery tests: one real broker for the test class ({@link TestCluster}), and for
 * each test a resource adapter started with a test BootstrapContext (a thread-pool WorkManager), activation specs,
 * recording endpoints and names no other test uses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdapterOnBroker {

    static final Duration WAIT = Duration.ofSeconds(60);

    TestCluster cluster;
    TestBootstrapContext context;
    TributaryResourceAdapter adapter;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        cluster = new TestCluster(dir, true);
    }

    @AfterAll
    void stopCluster() throws Exception {
        cluster.close();
    }

    @BeforeEach
    void startAdapter() throws Exception {
        context = new TestBootstrapContext();
        adapter = new TributaryResourceAdapter();
        adapter.setBootstrapServers(cluster.bootstrapServers());
        adapter.setKafkaProperties(cluster.clientProperties());
        adapter.start(context);
    }

    @AfterEach
    void stopAdapter() throws Exception {
        adapter.stop();
        context.close();
    }

    String name(String prefix) {
        return prefix + "-" + names.incrementAndGet();
    }

    /** A validated spec of this adapter; {@code queueMode} null leaves it unset (the default, share). */
    TributaryActivationSpec spec(String queueMode, Consumer<TributaryActivationSpec> settings)
            throws ResourceException {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        spec.setQueueMode(queueMode);
        settings.accept(spec);
        spec.setResourceAdapter(adapter);
        spec.validate();
        return spec;
    }

    RecordingEndpointFactory endpoints(boolean transacted) {
        return new RecordingEndpointFactory(transacted, context.getTransactionSynchronizationRegistry());
    }

    static List<String> texts(String prefix, int count) {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add(prefix + i);
        }
        return texts;
    }

    void send(String topic, int partition, List<String> texts) throws Exception {
        for (String text : texts) {
            cluster.send(topic, partition, text);
        }
    }
}
