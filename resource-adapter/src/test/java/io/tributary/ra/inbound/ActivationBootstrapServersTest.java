package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tributary.ra.BootstrapServersProperty;
import io.tributary.ra.TributaryResourceAdapter;
import jakarta.resource.spi.InvalidPropertyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Where an activation's cluster comes from when its spec names none: the adapter's, which is the server JVM's system
 * property {@code tributary.bootstrap.servers} when the adapter is not configured, else 127.0.0.1:9092.
 */
@ExtendWith(BootstrapServersProperty.class)
class ActivationBootstrapServersTest {

    @Test
    void withoutConfigurationOrPropertyTheDefaultApplies() throws Exception {
        assertEquals("127.0.0.1:9092", activationServers(new TributaryResourceAdapter()));
    }

    @Test
    void anUnconfiguredAdapterTakesTheSystemProperty() throws Exception {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, " kafka-a:9092,kafka-b:9092 ");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("  "); // a blank config-property value is "not configured"

        assertEquals("kafka-a:9092,kafka-b:9092", activationServers(ra));
    }

    @Test
    void configuredValuesWinOverTheSystemProperty() throws Exception {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, "from-property:9092");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("configured:9092");

        assertEquals("configured:9092", activationServers(ra));
    }

    private static String activationServers(TributaryResourceAdapter ra) throws InvalidPropertyException {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        spec.setDestination("orders");
        return ActivationSpecResolver.resolve(spec, ra, null).bootstrapServers();
    }
}
