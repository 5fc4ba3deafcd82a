package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JMS on a broker with ACLs: a user holding what docs/jms-mapping.md lists for a share-group queue (Write and Read on
 * its topic, Read and AlterConfigs on its group) sends and receives; a user without them gets a
 * {@link JMSSecurityException} that names the queue, on send and on receive.
 */
class AuthorizedJmsTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

    @TempDir
    static Path dir;

    private static TestingServer zooKeeper;
    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", "0");
        props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0");
        props.put("security.inter.broker.protocol", "SASL_PLAINTEXT");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        props.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        props.put("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer");
        props.put("super.users", "User:admin");
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/authorized");
        props.putAll(SingleBrokerSettings.of(1));
        broker = Broker.start(BrokerConfig.parse(props));
        try (Admin admin = Clients.admin(broker.bootstrapServers(), "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "PLAIN", "sasl.jaas.config", "org.apache.kafka.common.security.plain."
                        + "PlainLoginModule required username=\"admin\" password=\"admin-secret\";")) {
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                    allow(ResourceType.TOPIC, "orders", AclOperation.WRITE),
                    allow(ResourceType.TOPIC, "orders", AclOperation.READ),
                    allow(ResourceType.GROUP, "orders", AclOperation.READ),
                    allow(ResourceType.GROUP, "orders", AclOperation.ALTER_CONFIGS))).all()
                    .get(30, TimeUnit.SECONDS);
            Waits.await("the ACLs in the broker's cache").untilAsserted(() -> assertEquals(4,
                    admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values()
                            .get(10, TimeUnit.SECONDS).size()));
        }
    }

    private static AclBinding allow(ResourceType type, String name, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW));
    }

    @AfterAll
    static void stopBroker() throws IOException {
        if (broker != null) {
            broker.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private static TributaryConnectionFactory factory() {
        TributaryConnectionFactory factory = TestConnectionFactory.create(broker.bootstrapServers());
        factory.setSecurityProtocol("SASL_PLAINTEXT");
        factory.setSaslMechanism("PLAIN");
        return factory;
    }

    @Test
    void aUserWithTheQueuesAclsSendsAndReceives() throws Exception {
        try (Connection connection = factory().createConnection("alice", "alice-secret")) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("orders");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            session.createProducer(queue).send(session.createTextMessage("allowed"));
            TextMessage received = (TextMessage) consumer.receive(30_000);
            assertNotNull(received, "alice receives what she sent");
            assertEquals("allowed", received.getText());
        }
    }

    @Test
    void aUserWithoutThemIsRefusedOnSendAndOnReceiveNamingTheQueue() throws Exception {
        try (Connection connection = factory().createConnection("bob", "bob-secret")) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("orders");
            JMSSecurityException send = assertThrows(JMSSecurityException.class,
                    () -> session.createProducer(queue).send(session.createTextMessage("refused")));
            assertTrue(send.getMessage().contains("orders"), send.getMessage());
            connection.start();
            JMSException receive = assertThrows(JMSException.class, () -> {
                MessageConsumer consumer = session.createConsumer(queue);
                consumer.receive(10_000);
            });
            assertTrue(receive instanceof JMSSecurityException, () -> "receive: " + receive);
            assertTrue(receive.getMessage().contains("orders"), receive.getMessage());
        }
    }
}
