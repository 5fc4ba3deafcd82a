package io.tributary.ra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Where the adapter's cluster comes from when nobody configured one: the server JVM's system property
 * {@code tributary.bootstrap.servers}, else 127.0.0.1:9092; a configured value always wins. The activations and the
 * connection definitions fall back the same way: {@code inbound.ActivationBootstrapServersTest} and
 * {@code outbound.FactoryBootstrapServersTest}.
 */
@ExtendWith(BootstrapServersProperty.class)
class DefaultBootstrapServersTest {

    @Test
    void withoutConfigurationOrPropertyTheDefaultApplies() {
        assertEquals("127.0.0.1:9092", new TributaryResourceAdapter().getBootstrapServers());
    }

    @Test
    void anUnconfiguredAdapterTakesTheSystemProperty() {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, " kafka-a:9092,kafka-b:9092 ");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("  "); // a blank config-property value is "not configured"

        assertEquals("kafka-a:9092,kafka-b:9092", ra.getBootstrapServers());
    }

    @Test
    void configuredValuesWinOverTheSystemProperty() {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, "from-property:9092");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("configured:9092");

        assertEquals("configured:9092", ra.getBootstrapServers());
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
}
