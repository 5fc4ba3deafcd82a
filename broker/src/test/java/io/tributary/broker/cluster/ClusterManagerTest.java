package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.Uuid;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.data;
import static io.tributary.broker.cluster.ClusterTestSupport.exists;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Registration, controller election, restart, chroot and session expiry against a real in-process ZooKeeper. */
class ClusterManagerTest extends ZooKeeperTestBase {

    @Test
    void registrationIsAnEphemeralZnodeWithKafkasJson() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir, "broker.rack", "r1"))) {
            String path = chroot + "/brokers/ids/1";
            Stat stat = inspector.checkExists().forPath(path);
            assertNotEquals(0, stat.getEphemeralOwner(), "ephemeral");
            JsonNode json = new ObjectMapper().readTree(data(inspector, path));
            assertEquals(5, json.get("version").asInt());
            assertEquals("127.0.0.1", json.get("host").asText());
            assertEquals(19001, json.get("port").asInt());
            assertEquals("PLAINTEXT://127.0.0.1:19001", json.get("endpoints").get(0).asText());
            assertEquals("PLAINTEXT", json.get("listener_security_protocol_map").get("PLAINTEXT").asText());
            assertEquals("r1", json.get("rack").asText());
            assertEquals(-1, json.get("jmx_port").asInt());
            assertTrue(json.get("timestamp").isTextual());
            BrokerInfo seen = broker.metadataCache().snapshot().broker(1).orElseThrow();
            assertEquals("r1", seen.rack());
            assertEquals(19001, seen.port());
        }
        assertFalse(exists(inspector, chroot + "/brokers/ids/1"), "deregistered on close");
    }

    @Test
    void secondBrokerWithALiveIdIsRefusedNamingTheId() {
        try (ClusterManager first = startBroker(config(4, connect, dir))) {
            // A short session: the second broker waits 1.5 session timeouts for a stale registration to go.
            BrokerIdInUseException e = assertThrows(BrokerIdInUseException.class,
                    () -> startBroker(config(4, connect, dir, "zookeeper.session.timeout.ms", "2000",
                            "zookeeper.connection.timeout.ms", "2000")));
            assertEquals(4, e.brokerId());
            assertTrue(e.getMessage().contains("broker.id 4"), e.getMessage());
            assertTrue(e.getMessage().contains("/brokers/ids/4"), e.getMessage());
            assertTrue(exists(inspector, chroot + "/brokers/ids/4"), "the first broker stays registered");
            assertTrue(first.metadataCache().snapshot().isLive(4));
        }
    }

    @Test
    void oneOfTwoBrokersControlsAndTheOtherTakesOverWithAHigherEpoch() throws Exception {
        ClusterManager one = startBroker(config(1, connect, dir));
        ClusterManager two = startBroker(config(2, connect, dir));
        try {
            await("one broker is the controller").until(() -> one.isController() != two.isController());
            ClusterManager controller = one.isController() ? one : two;
            ClusterManager other = controller == one ? two : one;
            int epoch = controller.controllerEpoch();
            JsonNode json = new ObjectMapper().readTree(data(inspector, chroot + "/controller"));
            assertEquals(1, json.get("version").asInt());
            assertEquals(controller.brokerId(), json.get("brokerid").asInt());
            assertEquals(Integer.toString(epoch), data(inspector, chroot + "/controller_epoch"));
            await("both caches know the controller")
                    .until(() -> other.metadataCache().snapshot().controllerId() == controller.brokerId());

            controller.close();
            await("the other broker takes over").until(other::isController);
            assertTrue(other.controllerEpoch() > epoch, "epoch " + other.controllerEpoch() + " > " + epoch);
            assertEquals(Integer.toString(other.controllerEpoch()), data(inspector, chroot + "/controller_epoch"));
            await("its cache shows itself as controller")
                    .until(() -> other.metadataCache().snapshot().controllerId() == other.brokerId());
        } finally {
            one.close();
            two.close();
        }
    }

    @Test
    void closeIsIdempotentAndReleasesControl() {
        ClusterManager broker = startBroker(config(1, connect, dir));
        await("the only broker is the controller").until(broker::isController);
        broker.close();
        broker.close();
        assertFalse(exists(inspector, chroot + "/controller"));
        assertFalse(exists(inspector, chroot + "/brokers/ids/1"));
    }

    @Test
    void restartedBrokerFindsItsTopicsWithTheSameIds() {
        Uuid id;
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            id = broker.topicAdmin().createTopic("orders", 3, 1, null, Map.of("retention.ms", "60000"), false)
                    .topicId();
            broker.topicAdmin().whenPartitionStatesWritten("orders", 3).join();
        }
        try (ClusterManager broker = ClusterManager.open(config(1, connect, dir))) {
            // Known at open, before registering: a restarted broker knows its topics before it serves.
            TopicMetadata topic = broker.metadataCache().snapshot().topic("orders").orElseThrow();
            assertEquals(id, topic.topicId());
            assertEquals(3, topic.partitionCount());
            assertEquals(Map.of("retention.ms", "60000"), topic.configOverrides());
            assertTrue(topic.partitions().values().stream().allMatch(PartitionMetadata::hasState));
            assertEquals(topic, broker.metadataCache().snapshot().topic(id).orElseThrow());
        }
    }

    @Test
    void chrootHoldsEveryZnode() throws Exception {
        String root = "/tributary" + newChroot();
        try (ClusterManager broker = startBroker(config(1, zooKeeper.getConnectString() + root + "/", dir))) {
            broker.topicAdmin().createTopic("t", 1, 1, null, Map.of(), false);
            broker.topicAdmin().whenPartitionStatesWritten("t", 1).join();
            broker.producerIdManager().nextProducerId();
            assertEquals(root, broker.connection().chroot());
            for (String path : List.of("/brokers/ids/1", "/brokers/topics/t", "/brokers/topics/t/partitions/0/state",
                    "/controller", "/controller_epoch", "/config/topics/t", "/admin/delete_topics",
                    "/latest_producer_id_block")) {
                assertTrue(exists(inspector, root + path), root + path);
            }
            List<String> top = inspector.getChildren().forPath(root);
            assertTrue(List.of("admin", "brokers", "cluster", "config", "controller", "controller_epoch",
                    "latest_producer_id_block", "kafka-acl", "kafka-acl-extended").containsAll(top), top.toString());
            assertFalse(exists(inspector, "/brokers/topics/t"));
        }
    }

    @Test
    void expiredSessionRegistersAgainAndRegainsControl() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            await("the only broker is the controller").until(broker::isController);
            int epoch = broker.controllerEpoch();
            long oldSession = ClusterTestSupport.expireSession(broker, zooKeeper.getConnectString());
            await("registered again in a new session").until(() -> {
                try {
                    Stat stat = inspector.checkExists().forPath(chroot + "/brokers/ids/1");
                    return stat != null && stat.getEphemeralOwner() != oldSession;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await("controller again with a new epoch")
                    .until(() -> broker.isController() && broker.controllerEpoch() > epoch);
            await("the metadata shows the broker live").until(() -> broker.metadataCache().snapshot().isLive(1));
        }
    }
}
