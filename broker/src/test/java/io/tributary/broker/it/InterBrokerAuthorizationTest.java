package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other way Kafka lets brokers talk to each other under authorization: their principal ({@code User:broker}, the
 * inter-broker listener's login) is not a super user but holds ClusterAction on the cluster. Two in-process brokers
 * in one ZooKeeper; a topic with two replicas and {@code min.insync.replicas=2} acknowledges a write only once the
 * follower fetched it, so every acknowledged record proves the follower's Fetch was authorized.
 */
class InterBrokerAuthorizationTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"broker\" password=\"broker-secret\" user_broker=\"broker-secret\" "
            + "user_admin=\"admin-secret\";";
    private static final String[] ADMIN = {"security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
                + "password=\"admin-secret\";"};

    @TempDir
    Path dir;

    private Map<String, String> brokerProperties(int id, String zooKeeper) {
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", Integer.toString(id));
        props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0");
        props.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT");
        props.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        props.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        props.put("authorizer.class.name", "io.tributary.broker.security.AclAuthorizer");
        props.put("super.users", "User:admin");
        props.put("log.dirs", dir.resolve("logs-" + id).toString());
        props.put("zookeeper.connect", zooKeeper + "/interbroker");
        props.put("zookeeper.session.timeout.ms", "6000");
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "1");
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        return props;
    }

    @Test
    void brokersWhosePrincipalHoldsClusterActionReplicate() throws Exception {
        List<Broker> brokers = new ArrayList<>();
        try (TestingServer zooKeeper = new TestingServer(true)) {
            try {
                for (int id = 0; id < 2; id++) {
                    brokers.add(Broker.start(BrokerConfig.parse(brokerProperties(id, zooKeeper.getConnectString()))));
                }
                String bootstrap = "127.0.0.1:" + brokers.get(0).boundPort("SASL_PLAINTEXT");
                try (Admin admin = Clients.admin(bootstrap, ADMIN)) {
                    admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                            new AccessControlEntry("User:broker", "*", AclOperation.CLUSTER_ACTION,
                                    AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS);
                    admin.createTopics(List.of(new NewTopic("replicated", 1, (short) 2)
                            .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
                }
                try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, ADMIN)) {
                    for (int i = 0; i < 10; i++) {
                        producer.send(new ProducerRecord<>("replicated", "k", "record-" + i))
                                .get(30, TimeUnit.SECONDS);
                    }
                }
                try (Admin admin = Clients.admin(bootstrap, ADMIN)) {
                    assertEquals(2, admin.describeTopics(List.of("replicated")).allTopicNames()
                            .get(30, TimeUnit.SECONDS).get("replicated").partitions().get(0).isr().size());
                }
            } finally {
                for (Broker broker : brokers) {
                    broker.close();
                }
            }
        }
    }
}
