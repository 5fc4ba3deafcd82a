package io.tributary.broker.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.broker.cluster.ClusterTestSupport.TIMEOUT;
import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedZooKeeperTest {

    private static final InetSocketAddress ANY_FREE_PORT = new InetSocketAddress("127.0.0.1", 0);

    @TempDir
    Path dir;

    @Test
    void startsOnAnEphemeralPortServesAndClosesTwice() throws Exception {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), ANY_FREE_PORT);
        try {
            assertNotEquals(0, zk.port());
            assertEquals("127.0.0.1:" + zk.port(), zk.connectString());
            CuratorFramework client = ClusterTestSupport.client(zk.connectString());
            try {
                client.create().forPath("/hello", new byte[] {42});
                assertEquals(42, client.getData().forPath("/hello")[0]);
            } finally {
                client.close();
            }
        } finally {
            zk.close();
            zk.close();
        }
        assertTrue(Files.isDirectory(dir.resolve("zk/version-2")), "ZooKeeper's files are in the data dir");
    }

    @Test
    void takenAddressIsRefusedWithAClearMessage() throws Exception {
        try (EmbeddedZooKeeper first = EmbeddedZooKeeper.start(dir.resolve("a"), ANY_FREE_PORT)) {
            InetSocketAddress taken = new InetSocketAddress("127.0.0.1", first.port());
            IOException e = assertThrows(IOException.class,
                    () -> EmbeddedZooKeeper.start(dir.resolve("b"), taken));
            assertTrue(e.getMessage().contains("zookeeper.connect"), e.getMessage());
        }
    }

    @Test
    void brokerWithoutZookeeperConnectRunsOneBesideItsLogsAndFindsItsTopicsAfterARestart() throws Exception {
        BrokerConfig config = config(1, null, dir);
        Path expectedDataDir = config.logDirs.get(0).getParent().resolve("zookeeper");
        Uuid id;
        try (ClusterManager broker = ClusterManager.open(config, Time.SYSTEM, ANY_FREE_PORT)) {
            broker.register(config.advertisedListeners, epoch -> { });
            assertTrue(broker.zookeeperConnect().startsWith("127.0.0.1:"), broker.zookeeperConnect());
            id = broker.topicAdmin().createTopic("kept", 2, 1, null, Map.of(), false).topicId();
            broker.topicAdmin().whenPartitionStatesWritten("kept", 2).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertTrue(Files.isDirectory(expectedDataDir.resolve("version-2")), expectedDataDir.toString());

        try (ClusterManager broker = startBrokerOnFreePort(config)) {
            TopicMetadata topic = broker.metadataCache().snapshot().topic("kept").orElseThrow();
            assertEquals(id, topic.topicId());
            assertEquals(2, topic.partitionCount());
            assertTrue(topic.partitions().values().stream().allMatch(PartitionMetadata::hasLeader));
        }
    }

    @Test
    void brokerWithZookeeperConnectStartsNoZooKeeperOfItsOwn() throws Exception {
        try (EmbeddedZooKeeper external = EmbeddedZooKeeper.start(dir.resolve("external"), ANY_FREE_PORT);
             ClusterManager broker = startBroker(config(1, external.connectString(), dir))) {
            assertEquals(external.connectString(), broker.zookeeperConnect());
            assertTrue(Files.notExists(ClusterManager.embeddedDataDir(config(1, null, dir))));
        }
    }

    private static ClusterManager startBrokerOnFreePort(BrokerConfig config) {
        ClusterManager broker = ClusterManager.open(config, Time.SYSTEM, ANY_FREE_PORT);
        broker.register(config.advertisedListeners, epoch -> { });
        return broker;
    }
}
