package io.tributary.ra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import jakarta.resource.spi.InvalidPropertyException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster comes from when nobody configured one: the server JVM's system property
 * {@code tributary.bootstrap.servers}, else 127.0.0.1:9092; a configured value always wins. The property is set and
 * restored around each test (JUnit runs this module's tests one at a time, in one JVM).
 */
class DefaultBootstrapServersTest {

    private String saved;

    @BeforeEach
    void saveProperty() {
        saved = System.getProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
        System.clearProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
    }

    @AfterEach
    void restoreProperty() {
        if (saved == null) {
            System.clearProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
        } else {
            System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, saved);
        }
    }

    @Test
    void withoutConfigurationOrPropertyTheDefaultApplies() throws Exception {
        TributaryResourceAdapter ra = new TributaryResourceAdapter();

        assertEquals("127.0.0.1:9092", ra.getBootstrapServers());
        assertEquals("127.0.0.1:9092", activationServers(ra));
        assertEquals("127.0.0.1:9092", new TributaryManagedConnectionFactory().settings().bootstrapServers());
    }

    @Test
    void anUnconfiguredAdapterTakesTheSystemProperty() throws Exception {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, " kafka-a:9092,kafka-b:9092 ");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("  "); // a blank config-property value is "not configured"
        TributaryManagedConnectionFactory viaAdapter = new TributaryManagedConnectionFactory();
        viaAdapter.setResourceAdapter(ra);

        assertEquals("kafka-a:9092,kafka-b:9092", ra.getBootstrapServers());
        assertEquals("kafka-a:9092,kafka-b:9092", activationServers(ra));
        assertEquals("kafka-a:9092,kafka-b:9092", viaAdapter.settings().bootstrapServers());
        assertEquals("kafka-a:9092,kafka-b:9092", new TributaryManagedConnectionFactory().settings().bootstrapServers(),
                "a connection definition without an adapter");
    }

    @Test
    void configuredValuesWinOverTheSystemProperty() throws Exception {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, "from-property:9092");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("configured:9092");
        TributaryManagedConnectionFactory ownServers = new TributaryManagedConnectionFactory();
        ownServers.setResourceAdapter(ra);
        ownServers.setBootstrapServers("factory:9092");
        TributaryManagedConnectionFactory viaAdapter = new TributaryManagedConnectionFactory();
        viaAdapter.setResourceAdapter(ra);

        assertEquals("configured:9092", ra.getBootstrapServers());
        assertEquals("configured:9092", activationServers(ra));
        assertEquals("configured:9092", viaAdapter.settings().bootstrapServers());
        assertEquals("factory:9092", ownServers.settings().bootstrapServers());
    }

    @Test
    void adaptersDifferingOnlyInWhetherTheyAreConfiguredAreNotEqual() {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, "same:9092");
        TributaryResourceAdapter unconfigured = new TributaryResourceAdapter();
        TributaryResourceAdapter configured = new TributaryResourceAdapter();
        configured.setBootstrapServers("same:9092");

        // Equality is over the configuration, which a later change of the property does not touch.
        assertEquals(new TributaryResourceAdapter(), unconfigured);
        assertNotEquals(configured, unconfigured);
    }

    private static String activationServers(TributaryResourceAdapter ra) throws InvalidPropertyException {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        spec.setDestination("orders");
        return ActivationConfig.resolve(spec, ra, null).bootstrapServers();
    }
}
