package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.TestCertificates;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.config.ConfigException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose ZooKeeper ensemble takes TLS clients only (its certificate required, ZooKeeper's x509
 * authentication) and creates its znodes with ACLs ({@code zookeeper.set.acl}): it serves, its znodes are writable by
 * its certificate's identity only and readable by all, the SCRAM credentials readable by that identity alone; bad
 * settings are refused at start-up naming the property.
 */
class ZooKeeperSecurityTest {

    private static final String IDENTITY = "CN=app-1,O=Tributary Tests";

    @TempDir
    static Path dir;

    private static TestCertificates certs;
    private static TestingServer zooKeeper;
    private static int securePort;
    /** The system properties before ZooKeeper's server set its own from the ssl.* and authProvider.* settings. */
    private static java.util.Set<String> propertiesBefore;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        propertiesBefore = new java.util.HashSet<>(System.getProperties().stringPropertyNames());
        certs = TestCertificates.create(dir);
        securePort = InstanceSpec.getRandomPort();
        Map<String, Object> server = new HashMap<>();
        server.put("secureClientPort", String.valueOf(securePort));
        server.put("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        server.put("ssl.keyStore.location", certs.brokerKeyStore.toString());
        server.put("ssl.keyStore.password", TestCertificates.PASSWORD);
        server.put("ssl.keyStore.type", "PKCS12");
        server.put("ssl.trustStore.location", certs.trustStore.toString());
        server.put("ssl.trustStore.password", TestCertificates.PASSWORD);
        server.put("ssl.trustStore.type", "PKCS12");
        server.put("ssl.clientAuth", "need");
        server.put("authProvider.x509", "org.apache.zookeeper.server.auth.X509AuthenticationProvider");
        File data = dir.resolve("zookeeper").toFile();
        zooKeeper = new TestingServer(new InstanceSpec(data, -1, -1, -1, true, 1, -1, -1, server), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
        // ZooKeeper's server turns its ssl.* and authProvider.* settings into JVM-wide zookeeper.* system
        // properties; later servers in this JVM (other tests' TestingServers) would take them up.
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("zookeeper.") && !propertiesBefore.contains(name)) {
                System.clearProperty(name);
            }
        }
    }

    private static Map<String, String> brokerProperties(String chroot) {
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", "0");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dir.resolve("logs-" + chroot).toString());
        props.put("zookeeper.connect", "127.0.0.1:" + securePort + "/" + chroot);
        props.put("zookeeper.connection.timeout.ms", "15000");
        props.put("zookeeper.ssl.client.enable", "true");
        props.put("zookeeper.ssl.keystore.location", certs.clientKeyStore.toString());
        props.put("zookeeper.ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("zookeeper.ssl.keystore.type", "PKCS12");
        props.put("zookeeper.ssl.truststore.location", certs.trustStore.toString());
        props.put("zookeeper.ssl.truststore.password", TestCertificates.PASSWORD);
        props.put("zookeeper.ssl.truststore.type", "PKCS12");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        return props;
    }

    /** A Curator client of the ensemble over TLS with the broker's client certificate. */
    private static CuratorFramework tlsClient() throws Exception {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        config.setProperty("zookeeper.ssl.keyStore.location", certs.clientKeyStore.toString());
        config.setProperty("zookeeper.ssl.keyStore.password", TestCertificates.PASSWORD);
        config.setProperty("zookeeper.ssl.trustStore.location", certs.trustStore.toString());
        config.setProperty("zookeeper.ssl.trustStore.password", TestCertificates.PASSWORD);
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString("127.0.0.1:" + securePort)
                .retryPolicy(new RetryOneTime(200)).zkClientConfig(config).build();
        client.start();
        assertTrue(client.blockUntilConnected(15, TimeUnit.SECONDS), "the test's TLS client connects");
        return client;
    }

    @Test
    void aBrokerOverTlsCreatesItsZnodesWithItsIdentityAsTheOnlyWriter() throws Exception {
        Map<String, String> props = brokerProperties("secured");
        props.put("zookeeper.set.acl", "true");
        try (Broker broker = Broker.start(BrokerConfig.parse(props));
             Admin admin = Clients.admin(broker.bootstrapServers());
             CuratorFramework zk = tlsClient()) {
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "secret"))).all()
                    .get(30, TimeUnit.SECONDS);
            List<ACL> topic = zk.getACL().forPath("/secured/brokers/topics/orders");
            assertEquals(List.of(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("x509", IDENTITY)),
                    new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)), topic);
            List<ACL> credentials = zk.getACL().forPath("/secured/config/users/alice");
            assertEquals(List.of(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("x509", IDENTITY))),
                    credentials, "SCRAM credentials: no world read");
        }
    }

    @Test
    void withoutSetAclTheZnodesStayOpen() throws Exception {
        try (Broker broker = Broker.start(BrokerConfig.parse(brokerProperties("open")));
             Admin admin = Clients.admin(broker.bootstrapServers());
             CuratorFramework zk = tlsClient()) {
            admin.createTopics(List.of(new NewTopic("open-topic", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, zk.getACL().forPath("/open/brokers/topics/open-topic"));
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheProperty() {
        Map<String, String> noTrust = brokerProperties("refused");
        noTrust.remove("zookeeper.ssl.truststore.location");
        ConfigException missingTrust = assertThrows(ConfigException.class, () -> BrokerConfig.parse(noTrust));
        assertTrue(missingTrust.getMessage().contains("zookeeper.ssl.truststore.location"),
                missingTrust.getMessage());

        Map<String, String> noIdentity = brokerProperties("refused");
        noIdentity.remove("zookeeper.ssl.keystore.location");
        noIdentity.put("zookeeper.set.acl", "true");
        ConfigException missingIdentity = assertThrows(ConfigException.class, () -> BrokerConfig.parse(noIdentity));
        assertTrue(missingIdentity.getMessage().contains("zookeeper.set.acl"), missingIdentity.getMessage());

        Map<String, String> wrongSocket = brokerProperties("refused");
        wrongSocket.put("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNIO");
        ConfigException nio = assertThrows(ConfigException.class, () -> BrokerConfig.parse(wrongSocket));
        assertTrue(nio.getMessage().contains("zookeeper.clientCnxnSocket"), nio.getMessage());
    }
}
