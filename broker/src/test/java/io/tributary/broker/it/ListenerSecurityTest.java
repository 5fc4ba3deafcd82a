package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import io.tributary.testsupport.TestCertificates;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's listener security against one real broker with the official Java client: TLS (SSL), SASL PLAIN over TLS
 * (SASL_SSL), certificates the client must refuse, wrong passwords, garbage on the secured ports, and start-up
 * refusing bad TLS settings with the property's name. The broker has one listener of each kind; the certificates
 * come from keytool ({@link TestCertificates}).
 */
class ListenerSecurityTest {

    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

    @TempDir
    static Path dir;

    private static TestingServer zooKeeper;
    private static TestCertificates certs;
    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        certs = TestCertificates.create(dir);
        zooKeeper = new TestingServer(true);
        broker = Broker.start(BrokerConfig.parse(brokerProperties("security")));
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

    static Map<String, String> brokerProperties(String chroot) {
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", "0");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0,"
                + "SASL_PLAINTEXT://127.0.0.1:0,UNTRUSTED://127.0.0.1:0,EXPIRED://127.0.0.1:0");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL,"
                + "SASL_PLAINTEXT:SASL_PLAINTEXT,UNTRUSTED:SSL,EXPIRED:SSL");
        props.put("ssl.keystore.location", certs.brokerKeyStore.toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("ssl.key.password", TestCertificates.PASSWORD);
        props.put("listener.name.untrusted.ssl.keystore.location", certs.selfSignedKeyStore.toString());
        props.put("listener.name.expired.ssl.keystore.location", certs.expiredKeyStore.toString());
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        props.put("listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
        props.put("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_JAAS);
        props.put("sasl.jaas.config", PLAIN_JAAS);
        props.put("log.dirs", dir.resolve("logs-" + chroot).toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/" + chroot);
        props.put("zookeeper.session.timeout.ms", "6000");
        props.put("num.io.threads", "4");
        props.put("num.network.threads", "2");
        props.putAll(SingleBrokerSettings.of(1));
        return props;
    }

    private static String bootstrap(String listener) {
        return "127.0.0.1:" + broker.boundPort(listener);
    }

    /** Client settings that trust the test CA, as {@code name, value} pairs. */
    private static List<String> tls(String protocol) {
        return List.of("security.protocol", protocol, "ssl.truststore.location", certs.trustStore.toString(),
                "ssl.truststore.password", TestCertificates.PASSWORD, "ssl.truststore.type", "PKCS12");
    }

    private static List<String> plain(String user, String password) {
        return List.of("sasl.mechanism", "PLAIN", "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";");
    }

    @SafeVarargs
    private static String[] settings(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all.toArray(String[]::new);
    }

    /**
     * Produces {@code count} records to a new topic and reads them back, all through {@code bootstrap} with
     * {@code settings}; large values, so that the consumer's fetches carry record files (sent in chunks under TLS).
     */
    static void produceAndConsume(String bootstrap, String topic, int count, String... settings) throws Exception {
        try (Admin admin = Clients.admin(bootstrap, settings)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        String value = "v".repeat(50_000);
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, settings)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "key-" + i, i + ":" + value));
            }
            producer.flush();
        }
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap, settings)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (keys.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    assertEquals(record.key().substring(4) + ":" + value, record.value(), "value of " + record.key());
                    keys.add(record.key());
                }
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            expected.add("key-" + i);
        }
        assertEquals(expected, keys, "every record, in order");
    }

    @Test
    void producerAndConsumerWorkOverTls() throws Exception {
        produceAndConsume(bootstrap("SSL"), "over-tls", 200, settings(tls("SSL")));
    }

    @Test
    void plainOverTlsAuthenticatesWithThePasswordInTheListenersJaasConfig() throws Exception {
        produceAndConsume(bootstrap("SASL_SSL"), "over-sasl-ssl", 50, settings(tls("SASL_SSL"),
                plain("alice", "alice-secret")));
    }

    @Test
    void plainWithAWrongPasswordFailsWithSaslAuthenticationException() {
        try (Admin admin = Clients.admin(bootstrap("SASL_SSL"), settings(tls("SASL_SSL"),
                plain("alice", "wrong")))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().nodes().get(20, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, failure.getCause(), failure.toString());
        }
    }

    private static List<String> scram(String mechanism, String user, String password) {
        return List.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", mechanism, "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";");
    }

    @Test
    void scramUsersCreatedThroughAdminAuthenticateWithSha256AndSha512() throws Exception {
        try (Admin admin = Clients.admin(bootstrap("PLAINTEXT"))) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256,
                            4096), "carol-secret"),
                    new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            8192), "dave-secret"))).all().get(20, TimeUnit.SECONDS);
            Map<String, UserScramCredentialsDescription> described = admin.describeUserScramCredentials(
                    List.of("carol", "dave")).all().get(20, TimeUnit.SECONDS);
            assertEquals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)),
                    described.get("carol").credentialInfos());
            assertEquals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)),
                    described.get("dave").credentialInfos());
            // kafka-configs.sh --describe --entity-type users asks for quotas too: there are none.
            assertTrue(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get(20, TimeUnit.SECONDS)
                    .isEmpty());
        }
        // Stored as Kafka stored them: salt and keys, no password.
        try (CuratorFramework zk = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString() + "/security",
                new RetryOneTime(100))) {
            zk.start();
            String carol = new String(zk.getData().forPath("/config/users/carol"), StandardCharsets.UTF_8);
            assertTrue(carol.matches("\\{\"version\":1,\"config\":\\{\"SCRAM-SHA-256\":\"salt=[^,]+,stored_key=[^,]+,"
                    + "server_key=[^,]+,iterations=4096\"}}"), carol);
        }
        produceAndConsume(bootstrap("SASL_PLAINTEXT"), "over-scram-256", 20,
                settings(scram("SCRAM-SHA-256", "carol", "carol-secret")));
        produceAndConsume(bootstrap("SASL_PLAINTEXT"), "over-scram-512", 20,
                settings(scram("SCRAM-SHA-512", "dave", "dave-secret")));
        // The same login over TLS (SASL_SSL): tls(...) after scram(...), so that its security.protocol wins.
        produceAndConsume(bootstrap("SASL_SSL"), "over-scram-512-tls", 20,
                settings(scram("SCRAM-SHA-512", "dave", "dave-secret"), tls("SASL_SSL")));
        try (Admin wrong = Clients.admin(bootstrap("SASL_PLAINTEXT"),
                settings(scram("SCRAM-SHA-256", "carol", "not-carols")))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> wrong.describeCluster().nodes().get(20, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, failure.getCause(), failure.toString());
        }
        try (Admin unknown = Clients.admin(bootstrap("SASL_PLAINTEXT"),
                settings(scram("SCRAM-SHA-512", "carol", "carol-secret")))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> unknown.describeCluster().nodes().get(20, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, failure.getCause(),
                    "carol has no SCRAM-SHA-512 credential: " + failure);
        }
    }

    @Test
    void aScramUserCreatedThroughOneBrokerAuthenticatesOnAnother() throws Exception {
        Map<String, String> second = brokerProperties("security");
        second.put("broker.id", "1");
        second.put("log.dirs", dir.resolve("logs-second").toString());
        try (Broker other = Broker.start(BrokerConfig.parse(second))) {
            try (Admin admin = Clients.admin(bootstrap("PLAINTEXT"))) {
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("erin",
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "erin-secret")))
                        .all().get(20, TimeUnit.SECONDS);
            }
            // The other broker learns of the user through its watch on /config/users: the bootstrap connection to
            // it has to authenticate before the admin client learns anything.
            String otherSasl = "127.0.0.1:" + other.boundPort("SASL_PLAINTEXT");
            await("broker 1 accepting erin").ignoreExceptions().untilAsserted(() -> {
                try (Admin erin = Clients.admin(otherSasl, settings(scram("SCRAM-SHA-256", "erin", "erin-secret")))) {
                    assertEquals(2, erin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size());
                }
            });
        }
    }

    @Test
    void aCertificateNotSignedByATrustedCaFailsWithSslAuthenticationException() {
        assertTlsRefused("UNTRUSTED");
    }

    @Test
    void anExpiredCertificateFailsWithSslAuthenticationException() {
        assertTlsRefused("EXPIRED");
    }

    private static void assertTlsRefused(String listener) {
        try (Admin admin = Clients.admin(bootstrap(listener), settings(tls("SSL")))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().nodes().get(20, TimeUnit.SECONDS));
            assertInstanceOf(SslAuthenticationException.class, failure.getCause(), failure.toString());
        }
    }

    @Test
    void metadataGivesEachClientTheEndpointOfTheListenerItCameIn() throws Exception {
        try (Admin admin = Clients.admin(bootstrap("SSL"), settings(tls("SSL")))) {
            int port = admin.describeCluster().nodes().get(20, TimeUnit.SECONDS).iterator().next().port();
            assertEquals(broker.boundPort("SSL"), port);
        }
    }

    @Test
    void garbageOnTheTlsAndSaslPortsLosesOnlyItsOwnConnection() throws Exception {
        String[] tls = settings(tls("SASL_SSL"), plain("bob", "bob-secret"));
        try (Admin admin = Clients.admin(bootstrap("SASL_SSL"), tls)) {
            admin.createTopics(List.of(new NewTopic("beside-garbage", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap("SASL_SSL"), tls)) {
            // The producer's authenticated TLS connection is open while the garbage arrives, and stays usable.
            producer.send(new ProducerRecord<>("beside-garbage", "before")).get(20, TimeUnit.SECONDS);
            Random random = new Random(42);
            byte[] garbage = new byte[4096];
            random.nextBytes(garbage);
            // Random bytes where a TLS ClientHello belongs, and after a size prefix where SASL expects a handshake.
            assertClosedAfter(broker.boundPort("SSL"), garbage);
            assertClosedAfter(broker.boundPort("SASL_SSL"), garbage);
            ByteBuffer frame = ByteBuffer.allocate(4 + garbage.length).putInt(garbage.length).put(garbage);
            assertClosedAfter(broker.boundPort("SASL_PLAINTEXT"), frame.array());
            // A Metadata request (key 3) before authentication: refused by closing, as Kafka does.
            ByteBuffer metadata = ByteBuffer.allocate(4 + 12).putInt(12).putShort((short) 3).putShort((short) 12)
                    .putInt(1).putShort((short) -1).put((byte) 0).put((byte) 0);
            assertClosedAfter(broker.boundPort("SASL_PLAINTEXT"), metadata.array());
            // A size prefix of 100 MiB before authentication: above the 512 KiB allowed until then.
            assertClosedAfter(broker.boundPort("SASL_PLAINTEXT"),
                    ByteBuffer.allocate(4).putInt(100 * 1024 * 1024).array());
            producer.send(new ProducerRecord<>("beside-garbage", "after")).get(20, TimeUnit.SECONDS);
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap("SASL_SSL"), tls)) {
            TopicPartition partition = new TopicPartition("beside-garbage", 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (values.size() < 2 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        assertEquals(List.of("before", "after"), values);
        produceAndConsume(bootstrap("SSL"), "after-garbage", 5, settings(tls("SSL")));
    }

    /** Sends {@code bytes} on a raw socket and waits (with a deadline) for the broker to close it. */
    private static void assertClosedAfter(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (SocketException e) {
                return; // closed while we were still writing
            }
            InputStream in = socket.getInputStream();
            try {
                while (in.read() >= 0) {
                    // a TLS alert, perhaps; the end of the stream is what counts
                }
            } catch (SocketException e) {
                // reset by the broker: closed too
            }
        }
    }

    @Test
    void aMissingKeyStoreOrAWrongPasswordFailsStartUpNamingTheProperty() {
        Map<String, String> missing = brokerProperties("bad-1");
        missing.put("listener.name.expired.ssl.keystore.location", dir.resolve("nowhere.p12").toString());
        ConfigException noStore = assertThrows(ConfigException.class,
                () -> Broker.start(BrokerConfig.parse(missing)));
        assertTrue(noStore.getMessage().contains("listener.name.expired."), noStore.getMessage());

        Map<String, String> wrongPassword = brokerProperties("bad-2");
        wrongPassword.put("ssl.keystore.password", "not-it");
        ConfigException badPassword = assertThrows(ConfigException.class,
                () -> Broker.start(BrokerConfig.parse(wrongPassword)));
        assertTrue(badPassword.getMessage().contains("ssl."), badPassword.getMessage());

        Map<String, String> unknownProtocol = brokerProperties("bad-3");
        unknownProtocol.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:TLS");
        ConfigException badMap = assertThrows(ConfigException.class, () -> BrokerConfig.parse(unknownProtocol));
        assertTrue(badMap.getMessage().contains("listener.security.protocol.map"), badMap.getMessage());
    }
}
