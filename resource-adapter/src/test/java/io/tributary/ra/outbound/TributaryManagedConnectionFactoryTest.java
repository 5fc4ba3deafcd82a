package io.tributary.ra.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import javax.transaction.xa.XAResource;

import io.tributary.ra.TributaryAdapterSettings;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.TopicConnectionFactory;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.TransactionSupport.TransactionSupportLevel;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;

import org.junit.jupiter.api.Test;

/**
 * Configuration and pooling decisions of the connection definition, without a cluster: managed connections connect
 * on first use, so making them needs none.
 */
class TributaryManagedConnectionFactoryTest {

    /** Stands for the inbound side's resource adapter: only its settings matter here. */
    private static final class AdapterWithSettings implements ResourceAdapter, TributaryAdapterSettings {
        private final String bootstrapServers;
        private final String kafkaProperties;

        AdapterWithSettings(String bootstrapServers, String kafkaProperties) {
            this.bootstrapServers = bootstrapServers;
            this.kafkaProperties = kafkaProperties;
        }

        @Override
        public String getBootstrapServers() {
            return bootstrapServers;
        }

        @Override
        public String getKafkaProperties() {
            return kafkaProperties;
        }

        @Override
        public void start(BootstrapContext context) {
        }

        @Override
        public void stop() {
        }

        @Override
        public void endpointActivation(MessageEndpointFactory factory, ActivationSpec spec) {
        }

        @Override
        public void endpointDeactivation(MessageEndpointFactory factory, ActivationSpec spec) {
        }

        @Override
        public XAResource[] getXAResources(ActivationSpec[] specs) {
            return new XAResource[0];
        }
    }

    @Test
    void bootstrapServersComeFromTheFactoryElseTheResourceAdapterElseTheDefault() throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        assertEquals("127.0.0.1:9092", factory.settings().bootstrapServers());
        factory.setResourceAdapter(new AdapterWithSettings("adapter:9092", null));
        assertEquals("adapter:9092", factory.settings().bootstrapServers());
        factory.setBootstrapServers(" factory:9092 ");
        assertEquals("factory:9092", factory.settings().bootstrapServers());
        factory.setBootstrapServers("");
        assertEquals("adapter:9092", factory.settings().bootstrapServers(), "blank means unset");
    }

    @Test
    void kafkaPropertiesOfTheFactoryOverrideTheResourceAdaptersByName() throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setResourceAdapter(new AdapterWithSettings(null, "acks=all;client.rack=a"));
        factory.setKafkaProperties("client.rack=b;producer.linger.ms=5");
        assertEquals(Map.of("acks", "all", "client.rack", "b", "producer.linger.ms", "5"),
                factory.settings().kafkaProperties());
    }

    @Test
    void kafkaPropertiesThatJmsSemanticsOwnAreRefused() {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        IllegalArgumentException own = assertThrows(IllegalArgumentException.class,
                () -> factory.setKafkaProperties("client.rack=a;consumer.group.id=mine"));
        assertTrue(own.getMessage().startsWith("kafkaProperties sets 'consumer.group.id': "), own.getMessage());
        assertNull(factory.getKafkaProperties());

        factory.setResourceAdapter(new AdapterWithSettings(null, "enable.auto.commit=true"));
        InvalidPropertyException fromAdapter = assertThrows(InvalidPropertyException.class, factory::settings);
        assertTrue(fromAdapter.getMessage().startsWith("kafkaProperties of the resource adapter sets"
                + " 'enable.auto.commit': "), fromAdapter.getMessage());
    }

    @Test
    void malformedConfigPropertiesAreRefusedWhenSet() {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        IllegalArgumentException kafka = assertThrows(IllegalArgumentException.class,
                () -> factory.setKafkaProperties("acks"));
        assertTrue(kafka.getMessage().startsWith("kafkaProperties"), kafka.getMessage());
        assertThrows(IllegalArgumentException.class, () -> factory.setTrustedObjectPackages("com..example"));
        IllegalArgumentException depth = assertThrows(IllegalArgumentException.class,
                () -> factory.setObjectMessageMaxDepth(0L));
        assertTrue(depth.getMessage().startsWith("objectMessageMaxDepth"), depth.getMessage());
        IllegalArgumentException prefix = assertThrows(IllegalArgumentException.class,
                () -> factory.setTransactionalIdPrefix("app 1"));
        assertTrue(prefix.getMessage().startsWith("transactionalIdPrefix"), prefix.getMessage());
        assertNull(factory.getKafkaProperties());
        assertNull(factory.getTransactionalIdPrefix());
    }

    @Test
    void aMalformedResourceAdapterSettingFailsTheConnectionNamingIt() {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setResourceAdapter(new AdapterWithSettings(null, "acks"));
        InvalidPropertyException e = assertThrows(InvalidPropertyException.class,
                () -> factory.createManagedConnection(null, null));
        assertTrue(e.getMessage().contains("kafkaProperties of the resource adapter"), e.getMessage());
    }

    @Test
    void equalityCoversTheConfigProperties() throws Exception {
        TributaryManagedConnectionFactory a = new TributaryManagedConnectionFactory();
        TributaryManagedConnectionFactory b = new TributaryManagedConnectionFactory();
        a.setBootstrapServers("h:1");
        b.setBootstrapServers("h:1");
        a.setClientId("c");
        b.setClientId("c");
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        b.setKafkaProperties("acks=1");
        assertNotEquals(a, b);
        b.setKafkaProperties(null);
        b.setTransactionalIdPrefix("server-1");
        assertNotEquals(a, b, "the transactional id prefix is a config property");
        assertEquals("server-1", b.settings().transactionalIdPrefix());
    }

    @Test
    void metricsAreOnUnlessTheConnectionDefinitionTurnsThemOff() throws Exception {
        TributaryManagedConnectionFactory a = new TributaryManagedConnectionFactory();
        TributaryManagedConnectionFactory b = new TributaryManagedConnectionFactory();
        assertTrue(a.settings().connectionFactory().isMetricsEnabled());
        b.setMetricsEnabled(false);
        assertNotEquals(a, b, "metricsEnabled is a config property");
        assertFalse(b.settings().connectionFactory().isMetricsEnabled());
    }

    @Test
    void theConnectionFactoryIsAJmsFactoryOfEveryKindAndTransactionsAreLocalOnly() throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        Object connectionFactory = factory.createConnectionFactory(new TestConnectionManager());
        assertInstanceOf(ConnectionFactory.class, connectionFactory);
        assertInstanceOf(QueueConnectionFactory.class, connectionFactory);
        assertInstanceOf(TopicConnectionFactory.class, connectionFactory);
        assertInstanceOf(jakarta.resource.Referenceable.class, connectionFactory);
        assertEquals(TransactionSupportLevel.XATransaction, factory.getTransactionSupport());
        ManagedConnection connection = factory.createManagedConnection(null, null);
        try {
            assertNotNull(connection.getXAResource());
            assertNotNull(connection.getLocalTransaction(), "local transactions still offered");
            assertEquals("Tributary", connection.getMetaData().getEISProductName());
        } finally {
            connection.destroy();
        }
    }

    @Test
    void pooledConnectionsMatchOnlyTheSameUserAndOnlyWhileOpen() throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        ManagedConnection anonymous = factory.createManagedConnection(null, null);
        ManagedConnection alice = factory.createManagedConnection(null, new ConnectionRequest("alice", "secret"));
        try {
            Set<ManagedConnection> pool = Set.of(anonymous, alice);
            assertSame(alice, factory.matchManagedConnections(pool, null, new ConnectionRequest("alice", "secret")));
            assertSame(anonymous, factory.matchManagedConnections(pool, null, null));
            assertNull(factory.matchManagedConnections(pool, null, new ConnectionRequest("bob", "secret")));
            TributaryManagedConnectionFactory other = new TributaryManagedConnectionFactory();
            other.setBootstrapServers("elsewhere:9092");
            assertNull(other.matchManagedConnections(pool, null, null), "another factory's connections");
            alice.destroy();
            assertNull(factory.matchManagedConnections(pool, null, new ConnectionRequest("alice", "secret")));
        } finally {
            anonymous.destroy();
            alice.destroy();
        }
    }

    @Test
    void aContainerCredentialBeatsTheApplicationsAndTheFactorysLoginAndPasswordsTellConnectionsApart()
            throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setUser("default-user");
        factory.setPassword("default-secret");
        javax.security.auth.Subject subject = new javax.security.auth.Subject();
        jakarta.resource.spi.security.PasswordCredential credential =
                new jakarta.resource.spi.security.PasswordCredential("container-user", "pw".toCharArray());
        credential.setManagedConnectionFactory(factory);
        subject.getPrivateCredentials().add(credential);
        ManagedConnection byContainer = factory.createManagedConnection(subject,
                new ConnectionRequest("app-user", "app-pw"));
        ManagedConnection byDefault = factory.createManagedConnection(null, null);
        ManagedConnection byApplication = factory.createManagedConnection(null,
                new ConnectionRequest("app-user", "app-pw"));
        try {
            assertEquals("container-user", byContainer.getMetaData().getUserName());
            assertEquals("default-user", byDefault.getMetaData().getUserName());
            assertEquals("app-user", byApplication.getMetaData().getUserName());
            Set<ManagedConnection> pool = Set.of(byContainer, byDefault, byApplication);
            assertSame(byApplication, factory.matchManagedConnections(pool, null,
                    new ConnectionRequest("app-user", "app-pw")));
            assertNull(factory.matchManagedConnections(pool, null, new ConnectionRequest("app-user", "other")),
                    "the same user with another password is another login");
            assertSame(byContainer, factory.matchManagedConnections(pool, subject, null));
            assertEquals("ConnectionRequest[user=app-user]", new ConnectionRequest("app-user", "app-pw").toString(),
                    "no password shown");
        } finally {
            byContainer.destroy();
            byDefault.destroy();
            byApplication.destroy();
        }
    }

    @Test
    void securitySettingsBecomeKafkaPropertiesOverTheAdaptersAndABadProtocolIsRefusedNamingTheProperty()
            throws Exception {
        io.tributary.ra.TributaryResourceAdapter adapter = new io.tributary.ra.TributaryResourceAdapter();
        adapter.setKafkaProperties("security.protocol=SSL;ssl.truststore.type=PKCS12");
        adapter.setSslTruststoreLocation("/etc/adapter-trust.p12");
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setResourceAdapter(adapter);
        factory.setSecurityProtocol("sasl_ssl");
        factory.setSaslMechanism("scram-sha-256");
        factory.setSslTruststorePassword("changeit");
        java.util.Map<String, String> kafka = factory.settings().kafkaProperties();
        assertEquals("SASL_SSL", kafka.get("security.protocol"));
        assertEquals("SCRAM-SHA-256", kafka.get("sasl.mechanism"));
        assertEquals("/etc/adapter-trust.p12", kafka.get("ssl.truststore.location"));
        assertEquals("PKCS12", kafka.get("ssl.truststore.type"));
        assertEquals("changeit", kafka.get("ssl.truststore.password"));
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> factory.setSecurityProtocol("TLS"));
        org.junit.jupiter.api.Assertions.assertTrue(refused.getMessage().startsWith("securityProtocol must be one of"),
                refused.getMessage());
    }
}
