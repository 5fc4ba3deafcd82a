package io.tributary.broker.cluster;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.codahale.metrics.Histogram;
import io.tributary.broker.metrics.BrokerMetrics;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started Curator client of a ZooKeeper ensemble, rooted at the chroot of the connect string.
 *
 * <p>{@code zookeeper.connect} is Kafka's {@code host:port[,host:port...][/chroot]}. The chroot is created if missing
 * (as a persistent znode, so it stays when it has no children) and becomes the namespace of every path this client
 * uses: {@code /brokers/ids/1} is {@code /tributary/brokers/ids/1} in the ensemble.
 *
 * <p>Operations are retried on connection loss with exponential backoff (100 ms doubling to 2 s, 10 times, about 15 s
 * in all): long enough to ride out a ZooKeeper leader election, short enough that a request handler gets an answer.
 * Thread-safe; {@link #close()} is idempotent.
 */
public final class ZkConnection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ZkConnection.class);

    private static final int RETRY_BASE_SLEEP_MS = 100;
    private static final int RETRY_MAX_SLEEP_MS = 2_000;
    private static final int RETRY_MAX_RETRIES = 10;

    private final CuratorFramework root;
    private final CuratorFramework client;
    private final String connectString;
    private final String chroot;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ZkConnection(CuratorFramework root, CuratorFramework client, String connectString, String chroot) {
        this.root = root;
        this.client = client;
        this.connectString = connectString;
        this.chroot = chroot;
    }

    /**
     * Connects and waits for the first session.
     *
     * @throws ClusterException if no session is established within {@code connectionTimeoutMs}
     */
    public static ZkConnection open(String connectString, int sessionTimeoutMs, int connectionTimeoutMs) {
        return open(connectString, sessionTimeoutMs, connectionTimeoutMs, ZkClientSecurity.NONE);
    }

    /**
     * Connects with {@code security} (TLS, znode ACLs) and waits for the first session.
     *
     * @throws ClusterException if no session is established within {@code connectionTimeoutMs}
     */
    public static ZkConnection open(String connectString, int sessionTimeoutMs, int connectionTimeoutMs,
                                    ZkClientSecurity security) {
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        String chroot = slash < 0 ? "" : connectString.substring(slash).replaceAll("/+$", "");
        if (hosts.isBlank()) {
            throw new ClusterException("zookeeper.connect '" + connectString + "' names no host:port");
        }
        CuratorFramework root = CuratorFrameworkFactory.builder()
                .connectString(hosts)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(connectionTimeoutMs)
                .retryPolicy(new BoundedExponentialBackoffRetry(RETRY_BASE_SLEEP_MS, RETRY_MAX_SLEEP_MS,
                        RETRY_MAX_RETRIES))
                // The connect string is what the operator configured; do not rewrite it from the ensemble's
                // dynamic configuration.
                .ensembleTracker(false)
                // Parents, the chroot and deletion requests carry no data, as in Kafka; Curator's default would
                // store this host's IP address in them.
                .defaultData(new byte[0])
                .zkClientConfig(security.clientConfig())
                .aclProvider(security.aclProvider(chroot))
                .build();
        try {
            root.start();
            if (!root.blockUntilConnected(connectionTimeoutMs, TimeUnit.MILLISECONDS)) {
                throw new ClusterException("could not connect to ZooKeeper at " + hosts + " within "
                        + connectionTimeoutMs + " ms (zookeeper.connection.timeout.ms)");
            }
            CuratorFramework client = root;
            if (!chroot.isEmpty()) {
                try {
                    root.create().creatingParentsIfNeeded().forPath(chroot);
                    log.info("Created the ZooKeeper chroot {} on {}", chroot, hosts);
                } catch (KeeperException.NodeExistsException alreadyThere) {
                    // the usual case
                }
                client = root.usingNamespace(chroot.substring(1));
            }
            log.info("Connected to ZooKeeper at {} (session 0x{}, timeout {} ms{}{})", connectString,
                    Long.toHexString(root.getZookeeperClient().getZooKeeper().getSessionId()),
                    root.getZookeeperClient().getZooKeeper().getSessionTimeout(), security.tls() ? ", TLS" : "",
                    security.setAcl() ? ", znodes with ACLs" : "");
            return new ZkConnection(root, client, connectString, chroot);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            root.close();
            throw new ClusterException("interrupted while connecting to ZooKeeper at " + connectString, e);
        } catch (ClusterException e) {
            root.close();
            throw e;
        } catch (Exception e) {
            root.close();
            throw new ClusterException("could not set up ZooKeeper at " + connectString + ": " + e, e);
        }
    }

    /**
     * Publishes the ZooKeeper session's state ({@code SessionState}: ZooKeeper's {@code CONNECTED},
     * {@code CONNECTING}, {@code CLOSED}, ...) and the latency of every ZooKeeper operation Curator runs
     * ({@code ZooKeeperRequestLatencyMs}, through its tracer), under Kafka's ZooKeeper-mode names.
     */
    void registerMetrics(BrokerMetrics metrics) {
        metrics.gauge("kafka.server:type=SessionExpireListener,name=SessionState", () -> {
            try {
                return root.getZookeeperClient().getZooKeeper().getState().toString();
            } catch (Exception e) {
                return "CLOSED";
            }
        });
        Histogram latency = metrics.histogram("kafka.server:type=ZooKeeperClientMetrics,name=ZooKeeperRequestLatencyMs");
        root.getZookeeperClient().setTracerDriver(new TracerDriver() {
            @Override
            public void addTrace(String name, long time, TimeUnit unit) {
                latency.update(unit.toMillis(time));
            }

            @Override
            public void addCount(String name, int increment) {
            }
        });
    }

    /** The client for every path of the layout, inside the chroot. */
    CuratorFramework curator() {
        return client;
    }

    /** The id of the current session: the {@code ephemeralOwner} of the ephemeral znodes this broker creates. */
    long sessionId() {
        try {
            return root.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new ClusterException("no ZooKeeper session with " + connectString, e);
        }
    }

    /** The session timeout the ensemble granted (it may clamp the requested one). */
    int negotiatedSessionTimeoutMs() {
        try {
            return root.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            throw new ClusterException("no ZooKeeper session with " + connectString, e);
        }
    }

    public String connectString() {
        return connectString;
    }

    /** The chroot, such as {@code /tributary}, or the empty string. */
    public String chroot() {
        return chroot;
    }

    /** Whether the client is connected to the ensemble now (a session may still be alive while it is not). */
    public boolean isConnected() {
        return !closed.get() && root.getZookeeperClient().isConnected();
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            root.close();
            log.info("Disconnected from ZooKeeper at {}", connectString);
        }
    }
}
