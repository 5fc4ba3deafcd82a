package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.tributary.broker.BrokerConfig.Endpoint;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZkJsonTest {

    @Test
    void brokerRegistrationIsKafkasVersion5Json() {
        BrokerInfo broker = BrokerInfo.of(3, List.of(new Endpoint("PLAINTEXT", "10.0.0.3", 9092)), null);
        String json = new String(ZkJson.brokerRegistration(broker, 1_700_000_000_000L), UTF_8);
        assertEquals("{\"version\":5,\"host\":\"10.0.0.3\",\"port\":9092,\"endpoints\":[\"PLAINTEXT://10.0.0.3:9092\"],"
                + "\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},\"rack\":null,\"jmx_port\":-1,"
                + "\"timestamp\":\"1700000000000\",\"features\":{}}", json);
        assertEquals(broker, ZkJson.parseBrokerRegistration("/brokers/ids/3", json.getBytes(UTF_8)));
    }

    @Test
    void brokerRegistrationMapsEachListenerToItsSecurityProtocol() {
        BrokerInfo broker = BrokerInfo.of(2, List.of(new Endpoint("INTERNAL", "10.0.0.2", 9092),
                new Endpoint("CLIENTS", "broker-2", 9094)), null);
        Map<String, String> protocols = Map.of("INTERNAL", "SASL_SSL", "CLIENTS", "SSL");
        String json = new String(ZkJson.brokerRegistration(broker, e -> protocols.get(e.listenerName()), -1, 1L),
                UTF_8);
        assertTrue(json.contains("\"listener_security_protocol_map\":{\"INTERNAL\":\"SASL_SSL\",\"CLIENTS\":\"SSL\"}"),
                json);
        assertTrue(json.contains("\"host\":\"10.0.0.2\",\"port\":9092"), "the first (inter-broker) endpoint: " + json);
        assertEquals(broker, ZkJson.parseBrokerRegistration("/brokers/ids/2", json.getBytes(UTF_8)));
    }

    @Test
    void brokerRegistrationCarriesTheJmxPort() {
        BrokerInfo broker = BrokerInfo.of(3, List.of(new Endpoint("PLAINTEXT", "10.0.0.3", 9092)), null);
        String json = new String(ZkJson.brokerRegistration(broker, e -> "PLAINTEXT", 9999, 1L), UTF_8);
        assertTrue(json.contains("\"jmx_port\":9999"), json);
        assertEquals(9999, BrokerRegistration.jmxPort("9999", null));
        assertEquals(9998, BrokerRegistration.jmxPort(null, "9998"));
        assertEquals(9999, BrokerRegistration.jmxPort("9999", "9998"));
        assertEquals(-1, BrokerRegistration.jmxPort(null, null));
        assertEquals(-1, BrokerRegistration.jmxPort("not-a-port", "9998"));
    }

    @Test
    void brokerRegistrationKeepsRackAndBracketsIpv6Hosts() {
        BrokerInfo broker = BrokerInfo.of(1, List.of(new Endpoint("PLAINTEXT", "::1", 9093)), "rack-a");
        String json = new String(ZkJson.brokerRegistration(broker, 1L), UTF_8);
        assertTrue(json.contains("\"PLAINTEXT://[::1]:9093\""), json);
        assertEquals(broker, ZkJson.parseBrokerRegistration("/brokers/ids/1", json.getBytes(UTF_8)));
    }

    @Test
    void registrationWrittenByKafkaWithoutRackIsRead() {
        String kafka = "{\"features\":{},\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},"
                + "\"endpoints\":[\"PLAINTEXT://kafka-1:9092\"],\"jmx_port\":-1,\"port\":9092,\"host\":\"kafka-1\","
                + "\"version\":5,\"timestamp\":\"1700000000000\"}";
        BrokerInfo broker = ZkJson.parseBrokerRegistration("/brokers/ids/7", kafka.getBytes(UTF_8));
        assertEquals(7, broker.id());
        assertEquals("kafka-1", broker.host());
        assertEquals(9092, broker.port());
        assertNull(broker.rack());
    }

    @Test
    void controllerAndEpochAreKafkasFormats() {
        assertEquals("{\"version\":1,\"brokerid\":2,\"timestamp\":\"42\"}",
                new String(ZkJson.controller(2, 42L), UTF_8));
        assertEquals(2, ZkJson.parseControllerId("/controller", ZkJson.controller(2, 42L)));
        assertEquals("17", new String(ZkJson.controllerEpoch(17), UTF_8));
        assertEquals(17, ZkJson.parseControllerEpoch("/controller_epoch", "17".getBytes(UTF_8)));
    }

    @Test
    void topicAssignmentIsVersion3WithTopicId() {
        Uuid id = Uuid.randomUuid();
        TreeMap<Integer, List<Integer>> partitions = new TreeMap<>(Map.of(0, List.of(1, 2), 1, List.of(2, 1)));
        String json = new String(ZkJson.topicAssignment(new TopicAssignment(id, partitions)), UTF_8);
        assertEquals("{\"version\":3,\"topic_id\":\"" + id + "\",\"partitions\":{\"0\":[1,2],\"1\":[2,1]},"
                + "\"adding_replicas\":{},\"removing_replicas\":{}}", json);
        TopicAssignment read = ZkJson.parseTopicAssignment("/brokers/topics/t", json.getBytes(UTF_8));
        assertEquals(id, read.topicId());
        assertEquals(partitions, read.partitions());
    }

    @Test
    void topicWithoutIdFromAnOldKafkaReadsAsZeroUuid() {
        String old = "{\"version\":2,\"partitions\":{\"0\":[1]},\"adding_replicas\":{},\"removing_replicas\":{}}";
        assertEquals(Uuid.ZERO_UUID, ZkJson.parseTopicAssignment("/brokers/topics/t", old.getBytes(UTF_8)).topicId());
    }

    @Test
    void partitionStateIsKafkasFormat() {
        LeaderAndIsr state = new LeaderAndIsr(1, 4, List.of(1, 2), 3);
        String json = new String(ZkJson.partitionState(state), UTF_8);
        assertEquals("{\"controller_epoch\":3,\"leader\":1,\"version\":1,\"leader_epoch\":4,\"isr\":[1,2]}", json);
        assertEquals(state, ZkJson.parsePartitionState("/s", json.getBytes(UTF_8)));
    }

    @Test
    void topicConfigAndProducerIdBlockAreKafkasFormats() {
        assertEquals("{\"version\":1,\"config\":{\"cleanup.policy\":\"compact\",\"retention.ms\":\"1000\"}}",
                new String(ZkJson.topicConfig(Map.of("retention.ms", "1000", "cleanup.policy", "compact")), UTF_8));
        assertEquals(Map.of("retention.ms", "1000"), ZkJson.parseTopicConfig("/c",
                "{\"version\":1,\"config\":{\"retention.ms\":\"1000\"}}".getBytes(UTF_8)));
        ProducerIdBlock block = new ProducerIdBlock(2, 1000, 1999);
        String json = new String(ZkJson.producerIdBlock(block), UTF_8);
        assertEquals("{\"version\":1,\"broker\":2,\"block_start\":\"1000\",\"block_end\":\"1999\"}", json);
        assertEquals(block, ZkJson.parseProducerIdBlock("/p", json.getBytes(UTF_8)));
    }

    @Test
    void offlineReplicasListPartitionsByTopicWithTheBrokerEpoch() {
        OfflineReplicas replicas = new OfflineReplicas(List.of("/data/a"), Set.of(
                new org.apache.kafka.common.TopicPartition("orders", 2),
                new org.apache.kafka.common.TopicPartition("orders", 0),
                new org.apache.kafka.common.TopicPartition("audit", 1)));
        byte[] json = ZkJson.offlineReplicas(4242L, replicas);
        assertEquals("{\"version\":1,\"broker_epoch\":4242,\"log_dirs\":[\"/data/a\"],"
                + "\"partitions\":{\"audit\":[1],\"orders\":[0,2]}}", new String(json, UTF_8));
        assertEquals(new ZkJson.OfflineReplicaMarker(4242L, replicas),
                ZkJson.parseOfflineReplicas("/brokers/offline_replicas/1", json));
    }

    @Test
    void malformedJsonNamesTheZnode() {
        ClusterException e = assertThrows(ClusterException.class,
                () -> ZkJson.parsePartitionState("/brokers/topics/t/partitions/0/state", "{\"leader\":".getBytes(UTF_8)));
        assertTrue(e.getMessage().contains("/brokers/topics/t/partitions/0/state"), e.getMessage());
    }
}
