package io.tributary.ra;

import java.util.Map;

import io.tributary.jms.TributaryConnectionFactory;

/**
 * The configuration of a managed connection factory, resolved once when a managed connection is made: its own
 * config properties over the resource adapter's ({@link TributaryAdapterSettings}) over the defaults.
 *
 * @param bootstrapServers      the cluster's {@code host:port} list
 * @param clientId              the JMS client id of every pooled connection, or null
 * @param kafkaProperties       pass-through Kafka client properties (the adapter's, overridden per name by the
 *                              factory's)
 * @param trustedObjectPackages what an {@code ObjectMessage} may deserialize, or null for the provider's default
 */
record OutboundSettings(String bootstrapServers, String clientId, Map<String, String> kafkaProperties,
                        String trustedObjectPackages) {

    OutboundSettings {
        kafkaProperties = Map.copyOf(kafkaProperties);
    }

    /** A JMS provider connection factory configured with these settings; physical connections come from it. */
    TributaryConnectionFactory connectionFactory() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers);
        factory.setClientId(clientId);
        kafkaProperties.forEach(factory::setKafkaProperty);
        factory.setTrustedObjectPackages(trustedObjectPackages);
        return factory;
    }
}
