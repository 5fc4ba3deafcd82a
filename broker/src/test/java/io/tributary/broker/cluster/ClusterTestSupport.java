package io.tributary.broker.cluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.tributary.broker.BrokerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;

/** Real in-process ZooKeeper, broker configurations and waiting with deadlines for the cluster tests. */
final class ClusterTestSupport {

    /** Long enough for a loaded 2-core machine, short enough that a hung test fails in reasonable time. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private ClusterTestSupport() {
    }

    /** A ZooKeeper with a 500 ms tick, so that sessions may be as short as 1 s. */
    static TestingServer startZooKeeper() throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    }

    /** A broker configuration against {@code connect}; {@code extra} are further {@code name, value} pairs. */
    static BrokerConfig config(int brokerId, String connect, Path dataDir, String... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(BrokerConfig.BROKER_ID, Integer.toString(brokerId));
        if (connect != null) {
            props.put(BrokerConfig.ZOOKEEPER_CONNECT, connect);
        }
        props.put(BrokerConfig.LOG_DIRS, dataDir.resolve("logs-" + brokerId).toString());
        props.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:" + (19000 + brokerId));
        props.put(BrokerConfig.ZOOKEEPER_SESSION_TIMEOUT_MS, "6000");
        props.put(BrokerConfig.ZOOKEEPER_CONNECTION_TIMEOUT_MS, "6000");
        for (int i = 0; i < extra.length; i += 2) {
            props.put(extra[i], extra[i + 1]);
        }
        return BrokerConfig.parse(props);
    }

    /** Opens and registers a broker, as the Broker does once its listeners are bound. */
    static ClusterManager startBroker(BrokerConfig config) {
        ClusterManager manager = ClusterManager.open(config);
        try {
            manager.register(config.advertisedListeners, epoch -> { });
            return manager;
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** A plain client to look at znodes from outside, without chroot. */
    static CuratorFramework client(String connect) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 10_000, 10_000, new RetryOneTime(100));
        client.start();
        if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("no connection to " + connect);
        }
        return client;
    }

    static String data(CuratorFramework client, String path) throws Exception {
        return new String(client.getData().forPath(path), StandardCharsets.UTF_8);
    }

    static boolean exists(CuratorFramework client, String path) {
        try {
            return client.checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until {@code condition} holds, failing with {@code what} after {@link #TIMEOUT}. */
    static void await(String what, BooleanSupplier condition) {
        await(what, condition, TIMEOUT);
    }

    static void await(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    /**
     * Ends the broker's ZooKeeper session on the server, as an expiry does: another client attaches to the same
     * session and closes it, which deletes the session's ephemeral znodes at once.
     */
    static long expireSession(ClusterManager broker, String serverConnect) throws Exception {
        ZooKeeper zk = broker.connection().curator().getZookeeperClient().getZooKeeper();
        long sessionId = zk.getSessionId();
        ZooKeeper impostor = new ZooKeeper(serverConnect, 6_000, event -> { }, sessionId, zk.getSessionPasswd());
        try {
            await("the second handle is connected to session 0x" + Long.toHexString(sessionId),
                    () -> impostor.getState().isConnected());
        } finally {
            impostor.close();
        }
        return sessionId;
    }
}
