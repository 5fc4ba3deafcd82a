package io.tributary.ra.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tributary.ra.BootstrapServersProperty;
import io.tributary.ra.TributaryResourceAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Where a connection definition's cluster comes from when it names none: the adapter's, which is the server JVM's
 * system property {@code tributary.bootstrap.servers} when the adapter is not configured, else 127.0.0.1:9092; a
 * definition without an adapter takes the property or the default directly.
 */
@ExtendWith(BootstrapServersProperty.class)
class FactoryBootstrapServersTest {

    @Test
    void withoutConfigurationOrPropertyTheDefaultApplies() throws Exception {
        assertEquals("127.0.0.1:9092", new TributaryManagedConnectionFactory().settings().bootstrapServers());
    }

    @Test
    void anUnconfiguredAdapterTakesTheSystemProperty() throws Exception {
        System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, " kafka-a:9092,kafka-b:9092 ");
        TributaryResourceAdapter ra = new TributaryResourceAdapter();
        ra.setBootstrapServers("  "); // a blank config-property value is "not configured"
        TributaryManagedConnectionFactory viaAdapter = new TributaryManagedConnectionFactory();
        viaAdapter.setResourceAdapter(ra);

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

        assertEquals("configured:9092", viaAdapter.settings().bootstrapServers());
        assertEquals("factory:9092", ownServers.settings().bootstrapServers());
    }
}
