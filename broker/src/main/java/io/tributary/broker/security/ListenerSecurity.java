package io.tributary.broker.security;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The security settings of one listener, resolved from the broker properties: a {@code listener.name.<listener>.}
 * prefixed property wins over the unprefixed one, as in Kafka. Immutable.
 *
 * @param listenerName   the listener's name as written in {@code listeners}, such as {@code SASL_SSL} or
 *                       {@code INTERNAL}
 * @param protocol       what {@code listener.security.protocol.map} maps it to
 * @param sslConfigs     the {@code ssl.*} settings with Kafka's defaults filled in, typed as kafka-clients'
 *                       {@code DefaultSslEngineFactory} expects them (passwords as {@link Password}); empty unless
 *                       the protocol uses TLS
 * @param saslMechanisms {@code sasl.enabled.mechanisms}, upper case; empty unless the protocol uses SASL
 * @param jaasConfigs    the JAAS configuration of each enabled mechanism
 *                       ({@code listener.name.<listener>.<mechanism>.sasl.jaas.config}, else {@code sasl.jaas.config});
 *                       a mechanism without one is absent
 */
public record ListenerSecurity(String listenerName, SecurityProtocol protocol, Map<String, Object> sslConfigs,
                               List<String> saslMechanisms, Map<String, Password> jaasConfigs) {

    public ListenerSecurity {
        // Unset settings (no trust store, say) are null, which Map.copyOf refuses.
        sslConfigs = Collections.unmodifiableMap(new HashMap<>(sslConfigs));
        saslMechanisms = List.copyOf(saslMechanisms);
        jaasConfigs = Map.copyOf(jaasConfigs);
    }

    /** A plaintext listener: no TLS, no SASL. */
    public static ListenerSecurity plaintext(String listenerName) {
        return new ListenerSecurity(listenerName, SecurityProtocol.PLAINTEXT, Map.of(), List.of(), Map.of());
    }

    public boolean usesTls() {
        return protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
    }

    public boolean usesSasl() {
        return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
    }

    /** The listener as kafka-clients names it (its {@code configPrefix()} is {@code listener.name.<lower case>.}). */
    public ListenerName kafkaListenerName() {
        return ListenerName.normalised(listenerName);
    }
}
