package io.tributary.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * One real broker in the test JVM (through {@link BrokerRuntime}), the fast way to test against a broker: single-node
 * settings (id 0, the offsets topic with replication factor 1 and 3 partitions, no initial rebalance delay, new topics
 * with one partition, a 6 s ZooKeeper session), its log directory {@code <dataDir>/logs}, a ZooKeeper chroot of its
 * own (so that brokers sharing a ZooKeeper do not see each other's topics), on {@code 127.0.0.1}.
 *
 * <p>Its ZooKeeper is the caller's connect string, or one of its own ({@link TestZooKeeper}) that {@link #close()}
 * stops. It listens on an ephemeral port (a new one after every start: make new clients after {@link #restart()}) or
 * on a fixed port (the same after every start, known before the first: for clients configured before the broker
 * runs, such as an application server's). It can be stopped cleanly and started again on the same log directory and
 * chroot, as an operator restarts a broker.
 *
 * <p>Start, stop and close are synchronized; {@link #close()} is idempotent.
 */
public final class InProcessBroker implements AutoCloseable {

    private static final AtomicInteger CHROOTS = new AtomicInteger();

    private final TestingServer ownZooKeeper;
    private final Map<String, String> properties;
    private final int fixedPort;
    /** Null while stopped. Guarded by this. */
    private BrokerRuntime.Running broker;

    /**
     * A broker against {@code zooKeeper} (a connect string without chroot) on an ephemeral port, started.
     *
     * @param overrides further broker properties as {@code name, value} pairs
     */
    public InProcessBroker(String zooKeeper, Path dataDir, String... overrides) {
        this(builder(dataDir).zooKeeper(zooKeeper).override(overrides), null);
        start();
    }

    private InProcessBroker(Builder builder, TestingServer ownZooKeeper) {
        this.ownZooKeeper = ownZooKeeper;
        this.fixedPort = builder.port;
        String connect = ownZooKeeper != null ? ownZooKeeper.getConnectString() : builder.zooKeeper;
        properties = new LinkedHashMap<>();
        properties.put("broker.id", "0");
        properties.put("listeners", "PLAINTEXT://127.0.0.1:" + builder.port);
        properties.put("log.dirs", builder.dataDir.resolve("logs").toString());
        properties.put("zookeeper.connect", connect + "/broker" + CHROOTS.incrementAndGet());
        properties.put("zookeeper.session.timeout.ms", "6000");
        properties.put("num.io.threads", "4");
        properties.put("num.network.threads", "2");
        properties.putAll(SingleBrokerSettings.of(3));
        properties.put("num.partitions", "1");
        properties.putAll(builder.overrides);
    }

    /** A broker whose log directory is {@code <dataDir>/logs}; configure it, then {@link Builder#start()}. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /** Starts the broker (again), and waits until it serves; nothing if it runs. */
    public synchronized InProcessBroker start() {
        if (broker == null) {
            broker = BrokerRuntime.load().start(properties);
        }
        return this;
    }

    /**
     * Stops the broker cleanly (its logs closed, its connections dropped, its ZooKeeper registration gone), leaving
     * ZooKeeper and the log directory as they are; nothing if it is stopped.
     */
    public synchronized void stop() {
        if (broker != null) {
            try {
                broker.close();
            } finally {
                broker = null;
            }
        }
    }

    /** Clean shutdown, then a start on the same log directory and ZooKeeper chroot (on a new ephemeral port). */
    public void restart() {
        stop();
        start();
    }

    public synchronized boolean isRunning() {
        return broker != null;
    }

    /**
     * {@code 127.0.0.1:<port>}; on a fixed port whether or not the broker runs, on an ephemeral one only while it
     * runs.
     */
    public synchronized String bootstrapServers() {
        if (fixedPort > 0) {
            return "127.0.0.1:" + fixedPort;
        }
        if (broker == null) {
            throw new IllegalStateException("the broker is stopped");
        }
        return broker.bootstrapServers();
    }

    public synchronized int port() {
        if (fixedPort > 0) {
            return fixedPort;
        }
        if (broker == null) {
            throw new IllegalStateException("the broker is stopped");
        }
        return broker.port();
    }

    /** The ZooKeeper connect string with this broker's chroot: another broker given it joins the same cluster. */
    public String zooKeeperConnect() {
        return properties.get("zookeeper.connect");
    }

    /** The log directory. */
    public Path logDir() {
        return Path.of(properties.get("log.dirs"));
    }

    /** An admin client of this broker with short timeouts ({@link Clients#admin}); the caller closes it. */
    public Admin admin() {
        return Clients.admin(bootstrapServers());
    }

    /** Creates {@code topic} with {@code partitions} partitions (replication factor 1) and waits for the result. */
    public void createTopic(String topic, int partitions) throws Exception {
        createTopic(topic, partitions, Map.of());
    }

    /** Creates {@code topic} with {@code partitions} partitions, replication factor 1 and {@code configs}. */
    public void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            stop();
        } finally {
            if (ownZooKeeper != null) {
                ownZooKeeper.close();
            }
        }
    }

    /** What an {@link InProcessBroker} is to be. */
    public static final class Builder {

        private final Path dataDir;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private String zooKeeper;
        private int port;

        private Builder(Path dataDir) {
            this.dataDir = dataDir;
        }

        /** The ZooKeeper to use (a connect string without chroot); without it, the broker gets one of its own. */
        public Builder zooKeeper(String connect) {
            this.zooKeeper = connect;
            return this;
        }

        /** Listens on {@code port} after every start; 0 picks a free port now ({@link FreePorts}) and keeps it. */
        public Builder fixedPort(int port) {
            this.port = port == 0 ? FreePorts.next() : port;
            return this;
        }

        /** Broker properties as {@code name, value} pairs, over the single-node settings. */
        public Builder override(String... nameValuePairs) {
            for (int i = 0; i < nameValuePairs.length; i += 2) {
                overrides.put(nameValuePairs[i], nameValuePairs[i + 1]);
            }
            return this;
        }

        /** Broker properties over the single-node settings. */
        public Builder override(Map<String, String> properties) {
            overrides.putAll(properties);
            return this;
        }

        /** The broker, not started (its ZooKeeper is, if it has its own). */
        public InProcessBroker build() throws Exception {
            TestingServer own = zooKeeper == null ? TestZooKeeper.start() : null;
            return new InProcessBroker(this, own);
        }

        /** The broker, started. */
        public InProcessBroker start() throws Exception {
            InProcessBroker broker = build();
            try {
                return broker.start();
            } catch (RuntimeException e) {
                broker.close();
                throw e;
            }
        }
    }
}
