package io.tributary.ra.outbound;

import java.util.Map;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.message.ObjectMessageLimits;

/**
 * The configuration of a managed connection factory, resolved once when a managed connection is made: its own
 * config properties over the resource adapter's ({@link io.tributary.ra.TributaryAdapterSettings}) over the defaults.
 *
 * @param bootstrapServers      the cluster's {@code host:port} list
 * @param clientId              the JMS client id of every pooled connection, or null
 * @param kafkaProperties       pass-through Kafka client properties (the adapter's, overridden per name by the
 *                              factory's)
 * @param trustedObjectPackages what an {@code ObjectMessage} may deserialize, or null for the provider's default
 * @param objectMessageLimits   what deserializing an {@code ObjectMessage} body may cost
 * @param transactionalIdPrefix the prefix of the pooled connections' transactional ids, or null for random ones
 * @param xaLogTopic            the XA log's topic, or null for the default
 * @param metricsEnabled        whether the pooled connections publish the provider's JMX metrics
 */
record OutboundSettings(String bootstrapServers, String clientId, Map<String, String> kafkaProperties,
                        String trustedObjectPackages, ObjectMessageLimits objectMessageLimits,
                        String transactionalIdPrefix, String xaLogTopic, boolean metricsEnabled) {

    OutboundSettings {
        kafkaProperties = Map.copyOf(kafkaProperties);
    }

    /** A JMS provider connection factory configured with these settings; physical connections come from it. */
    TributaryConnectionFactory connectionFactory() {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers);
        factory.setClientId(clientId);
        kafkaProperties.forEach(factory::setKafkaProperty);
        factory.setTrustedObjectPackages(trustedObjectPackages);
        factory.setObjectMessageMaxDepth(objectMessageLimits.maxDepth());
        factory.setObjectMessageMaxReferences(objectMessageLimits.maxReferences());
        factory.setObjectMessageMaxArrayLength(objectMessageLimits.maxArrayLength());
        factory.setObjectMessageMaxBytes(objectMessageLimits.maxBytes());
        factory.setTransactionalIdPrefix(transactionalIdPrefix);
        factory.setXaLogTopic(xaLogTopic);
        factory.setMetricsEnabled(metricsEnabled);
        // The container makes pooled connections when it likes (at deployment, to fill the pool), possibly while the
        // cluster is down, and keeps them across outages while the Kafka clients reconnect: making one must not
        // wait for the cluster or fail without it.
        factory.setConnectTimeout(0);
        // A pooled connection's session is transacted, its receives part of a container (XA) transaction that
        // commits them with the sends in one Kafka transaction; a share group's acknowledgements cannot join one,
        // and the adapter's MDBs read a queue through its consumer group: its queues stay in group mode.
        factory.setQueueMode(QueueMode.GROUP.text());
        // Likewise shared topic subscriptions: the MDBs of a shared subscription consume its consumer group.
        factory.setSubscriptionMode(QueueMode.GROUP.text());
        return factory;
    }
}
