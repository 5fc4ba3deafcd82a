package io.tributary.broker.cluster;

import static io.tributary.testsupport.Waits.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Waits;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooKeeper;

/**
 * Broker configurations, cluster managers and ZooKeeper clients for the cluster package's tests (below the broker: a
 * {@link ClusterManager}, not a whole broker). ZooKeeper itself is test-support's {@code TestZooKeeper}; waits are
 * Awaitility's ({@code Waits}).
 */
final class ClusterTestSupport {

    /** Bounds a wait on a future: long enough for a loaded 2-core machine, short enough for a hung test. */
    static final Duration TIMEOUT = Waits.DEADLINE;

    private ClusterTestSupport() {
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

    /**
     * Ends the broker's ZooKeeper session on the server, as an expiry does: another client attaches to the same
     * session and closes it, which deletes the session's ephemeral znodes at once.
     */
    static long expireSession(ClusterManager broker, String serverConnect) throws Exception {
        ZooKeeper zk = broker.connection().curator().getZookeeperClient().getZooKeeper();
        long sessionId = zk.getSessionId();
        ZooKeeper impostor = new ZooKeeper(serverConnect, 6_000, event -> { }, sessionId, zk.getSessionPasswd());
        try {
            await("the second handle is connected to session 0x" + Long.toHexString(sessionId))
                    .until(() -> impostor.getState().isConnected());
        } finally {
            impostor.close();
        }
        return sessionId;
    }
}
