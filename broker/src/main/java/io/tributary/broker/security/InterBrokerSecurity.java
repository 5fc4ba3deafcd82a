package io.tributary.broker.security;

import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * How this broker's own clients (replica fetchers, the transaction marker sender, the share-state channel) connect to
 * the other brokers: over the inter-broker listener's protocol, with kafka-clients' channel builders, exactly as a
 * Kafka broker's inter-broker clients do. For TLS the listener's {@code ssl.*} settings apply (its trust store checks
 * the other brokers' certificates); for SASL the mechanism is {@code sasl.mechanism.inter.broker.protocol} and the
 * credentials are the {@code username} and {@code password} options of the listener's JAAS entry for it
 * ({@code listener.name.<listener>.<mechanism>.sasl.jaas.config}), the entry that also lists the users the listener
 * accepts. Immutable; {@link #newChannelBuilder} may be called from any thread, and each caller closes what it gets
 * (a {@code Selector} closes its builder).
 */
public final class InterBrokerSecurity {

    /** Plaintext, for brokers (and tests) without secured inter-broker listeners. */
    public static final InterBrokerSecurity PLAINTEXT = new InterBrokerSecurity(SecurityProtocol.PLAINTEXT,
            ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT), null, Map.of());

    /** kafka-clients' definitions of the client TLS and SASL settings its channel builders read. */
    private static final ConfigDef CLIENT_DEFINITION = clientDefinition();

    private final SecurityProtocol protocol;
    private final ListenerName listenerName;
    private final String saslMechanism;
    /** The security properties, JAAS configurations as Password, listener prefixes kept. */
    private final Map<String, Object> properties;

    InterBrokerSecurity(SecurityProtocol protocol, ListenerName listenerName, String saslMechanism,
                        Map<String, Object> properties) {
        this.protocol = protocol;
        this.listenerName = listenerName;
        this.saslMechanism = saslMechanism;
        this.properties = Map.copyOf(properties);
    }

    private static ConfigDef clientDefinition() {
        ConfigDef definition = new ConfigDef();
        SslConfigs.addClientSslSupport(definition);
        SaslConfigs.addClientSaslSupport(definition);
        return definition;
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /**
     * A channel builder for one inter-broker client: plaintext, TLS, or SASL (over TLS), by the listener's protocol.
     *
     * @throws org.apache.kafka.common.KafkaException if the TLS stores or the JAAS login cannot be loaded
     */
    public ChannelBuilder newChannelBuilder(Time time, LogContext logContext) {
        AbstractConfig config = new AbstractConfig(CLIENT_DEFINITION, properties, false);
        // Type SERVER: the credentials come from the listener's server JAAS entry (its username and password
        // options), as for a Kafka broker's inter-broker clients.
        return ChannelBuilders.clientChannelBuilder(protocol, JaasContext.Type.SERVER, config, listenerName,
                saslMechanism, time, logContext);
    }
}
