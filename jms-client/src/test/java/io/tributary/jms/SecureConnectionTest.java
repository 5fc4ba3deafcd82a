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
import jakarta.jms.JMSContext;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import io.tributary.testsupport.TestCertificates;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections to a secured broker through the factory's security settings: {@code createConnection(user, password)}
 * and {@code createContext(user, password)} log in with SCRAM-SHA-512 (the default mechanism) or PLAIN, over SASL
 * with and without TLS; a wrong password, a missing login and an untrusted broker certificate fail the connection
 * at once with a {@link JMSSecurityException} ({@link JMSSecurityRuntimeException} in the simplified API) that says
 * why; the settings arrive through JNDI as well.
 */
class SecureConnectionTest {

    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-plain\";";

    @TempDir
    static Path dir;

    private static TestingServer zooKeeper;
    private static TestCertificates certs;
    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        certs = TestCertificates.create(dir);
        zooKeeper = new TestingServer(true);
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", "0");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,"
                + "SSL://127.0.0.1:0,UNTRUSTED://127.0.0.1:0");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                + "SASL_SSL:SASL_SSL,SSL:SSL,UNTRUSTED:SSL");
        props.put("ssl.keystore.location", certs.brokerKeyStore.toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("ssl.key.password", TestCertificates.PASSWORD);
        props.put("listener.name.untrusted.ssl.keystore.location", certs.selfSignedKeyStore.toString());
        props.put("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256");
        props.put("listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN");
        props.put("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_JAAS);
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/secure");
        props.putAll(SingleBrokerSettings.of(1));
        broker = Broker.start(BrokerConfig.parse(props));
        try (Admin admin = Clients.admin(bootstrap("PLAINTEXT"))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-scram"))).all()
                    .get(30, TimeUnit.SECONDS);
            admin.createTopics(List.of(new NewTopic("secure-orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
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

    private static String bootstrap(String listener) {
        return "127.0.0.1:" + broker.boundPort(listener);
    }

    private static TributaryConnectionFactory factory(String listener, String protocol) {
        TributaryConnectionFactory factory = TestConnectionFactory.create(bootstrap(listener));
        factory.setSecurityProtocol(protocol);
        if (protocol.endsWith("SSL")) {
            factory.setSslTruststoreLocation(certs.trustStore.toString());
            factory.setSslTruststorePassword(TestCertificates.PASSWORD);
            factory.setSslTruststoreType("PKCS12");
        }
        return factory;
    }

    /** Sends a message to queue secure-orders and receives it back on {@code connection}. */
    private static void roundTrip(Connection connection, String text) throws Exception {
        Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue("secure-orders");
        MessageConsumer consumer = session.createConsumer(queue, "text = '" + text + "'");
        connection.start();
        TextMessage sent = session.createTextMessage(text);
        sent.setStringProperty("text", text);
        session.createProducer(queue).send(sent);
        TextMessage received = (TextMessage) consumer.receive(30_000);
        assertNotNull(received, "the message sent over the secured connection comes back");
        assertEquals(text, received.getText());
    }

    @Test
    void aScramUserSendsAndReceivesWithTheDefaultMechanism() throws Exception {
        TributaryConnectionFactory factory = factory("SASL_PLAINTEXT", "sasl_plaintext");
        assertEquals("SASL_PLAINTEXT", factory.getSecurityProtocol());
        try (Connection connection = factory.createConnection("alice", "alice-scram")) {
            roundTrip(connection, "scram");
        }
    }

    @Test
    void aPlainUserOverTlsSendsAndReceives() throws Exception {
        TributaryConnectionFactory factory = factory("SASL_SSL", "SASL_SSL");
        factory.setSaslMechanism("plain");
        try (Connection connection = factory.createConnection("alice", "alice-plain")) {
            roundTrip(connection, "plain-tls");
        }
    }

    @Test
    void aWrongPasswordFailsTheConnectionWithTheBrokersReasonInBothApis() {
        TributaryConnectionFactory factory = factory("SASL_PLAINTEXT", "SASL_PLAINTEXT");
        JMSSecurityException classic = assertThrows(JMSSecurityException.class,
                () -> factory.createConnection("alice", "wrong").close());
        assertTrue(classic.getMessage().startsWith("User alice could not log in to the cluster at "),
                classic.getMessage());
        assertTrue(classic.getMessage().contains("Authentication failed"), classic.getMessage());
        JMSSecurityRuntimeException simplified = assertThrows(JMSSecurityRuntimeException.class,
                () -> factory.createContext("alice", "wrong").close());
        assertTrue(simplified.getMessage().startsWith("User alice could not log in"), simplified.getMessage());
        assertThrows(JMSSecurityException.class, () -> factory.createConnection("nobody", "x").close(),
                "an unknown user");
    }

    @Test
    void saslWithoutALoginFailsSayingWhatIsMissing() {
        TributaryConnectionFactory factory = factory("SASL_PLAINTEXT", "SASL_PLAINTEXT");
        JMSSecurityException e = assertThrows(JMSSecurityException.class, () -> factory.createConnection().close());
        assertTrue(e.getMessage().contains("needs a login"), e.getMessage());
    }

    @Test
    void aContextOverTlsWorksAndAnUntrustedBrokerCertificateFailsTheConnection() throws Exception {
        try (JMSContext context = factory("SSL", "SSL").createContext()) {
            Queue queue = context.createQueue("secure-orders");
            var consumer = context.createConsumer(queue, "text = 'tls'");
            context.createProducer().setProperty("text", "tls").send(queue, "tls");
            assertEquals("tls", consumer.receiveBody(String.class, 30_000));
        }
        TributaryConnectionFactory untrusted = factory("UNTRUSTED", "SSL");
        JMSSecurityException e = assertThrows(JMSSecurityException.class,
                () -> untrusted.createConnection().close());
        assertTrue(e.getMessage().startsWith("The TLS handshake with the cluster at "), e.getMessage());
    }

    @Test
    void jndiTakesTheSecuritySettingsByTheirBeanNames() throws Exception {
        java.util.Hashtable<String, String> env = new java.util.Hashtable<>();
        env.put(javax.naming.Context.INITIAL_CONTEXT_FACTORY,
                "io.tributary.jms.jndi.TributaryInitialContextFactory");
        env.put("connectionFactory.secured", bootstrap("SASL_SSL"));
        env.put("connectionFactory.secured.securityProtocol", "SASL_SSL");
        env.put("connectionFactory.secured.saslMechanism", "PLAIN");
        env.put("connectionFactory.secured.sslTruststoreLocation", certs.trustStore.toString());
        env.put("connectionFactory.secured.sslTruststorePassword", TestCertificates.PASSWORD);
        env.put("connectionFactory.secured.sslTruststoreType", "PKCS12");
        javax.naming.Context context = new javax.naming.InitialContext(env);
        try {
            TributaryConnectionFactory factory = (TributaryConnectionFactory) context.lookup("secured");
            assertEquals("SASL_SSL", factory.getKafkaProperties().getProperty("security.protocol"));
            try (Connection connection = factory.createConnection("alice", "alice-plain")) {
                roundTrip(connection, "jndi");
            }
        } finally {
            context.close();
        }
    }
}
