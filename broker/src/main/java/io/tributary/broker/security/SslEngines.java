package io.tributary.broker.security;

import java.util.Map;

import javax.net.ssl.SSLEngine;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;

/**
 * The TLS side of one listener: kafka-clients' {@link DefaultSslEngineFactory}, which reads the {@code ssl.*}
 * settings exactly as a Kafka broker does (key store and trust store in JKS, PKCS12 or PEM, {@code ssl.client.auth},
 * {@code ssl.enabled.protocols}, {@code ssl.cipher.suites}) and builds the JDK's {@code SSLContext}; this class makes
 * one server {@link SSLEngine} per connection from it. The engines are the JDK provider's (see the network section of
 * docs/architecture.md: netty-tcnative is excluded from the build).
 *
 * <p>Built at start-up, so that a missing key store or a wrong password stops the broker with a
 * {@link ConfigException} naming the property. Thread-safe: {@link #newServerEngine} is called on the event loops.
 * {@link #close()} is idempotent.
 */
public final class SslEngines implements AutoCloseable {

    private final String listenerName;
    private final DefaultSslEngineFactory factory;

    private SslEngines(String listenerName, DefaultSslEngineFactory factory) {
        this.listenerName = listenerName;
        this.factory = factory;
    }

    /**
     * Loads the listener's key store and trust store.
     *
     * @throws ConfigException naming the property if a store is missing, unreadable or its password is wrong
     */
    public static SslEngines create(ListenerSecurity listener) {
        if (!listener.usesTls()) {
            throw new IllegalArgumentException(listener.listenerName() + " is a " + listener.protocol()
                    + " listener, not a TLS one");
        }
        String prefix = listener.kafkaListenerName().configPrefix();
        Map<String, Object> ssl = listener.sslConfigs();
        if (ssl.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG) == null
                && ssl.get(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG) == null) {
            throw new ConfigException(prefix + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, null, "the "
                    + listener.protocol() + " listener " + listener.listenerName() + " needs a key store (set "
                    + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG + " or " + prefix
                    + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG + ")");
        }
        if (ssl.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG) != null) {
            // Kafka's own engine factory is what reads the settings here; another one would be silently ignored.
            throw new ConfigException(prefix + SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG,
                    ssl.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG), "custom SSL engine factories are not "
                    + "supported; the listener's ssl.* settings configure Kafka's DefaultSslEngineFactory");
        }
        DefaultSslEngineFactory factory = new DefaultSslEngineFactory();
        try {
            factory.configure(ssl);
            // A context that builds is not yet an engine that works: unknown protocols or cipher suites fail here.
            factory.createServerSslEngine("localhost", 0).closeOutbound();
        } catch (KafkaException | IllegalArgumentException e) {
            factory.close();
            throw new ConfigException(prefix + "ssl.*", null, "cannot set up TLS for listener "
                    + listener.listenerName() + " (" + describe(ssl) + "): " + rootMessage(e));
        }
        return new SslEngines(listener.listenerName(), factory);
    }

    private static String describe(Map<String, Object> ssl) {
        return SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG + "=" + ssl.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG)
                + ", " + SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG + ", " + SslConfigs.SSL_KEY_PASSWORD_CONFIG
                + ", " + SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG + "="
                + ssl.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG) + ", " + SslConfigs.SSL_PROTOCOL_CONFIG + "="
                + ssl.get(SslConfigs.SSL_PROTOCOL_CONFIG) + ", " + SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG + "="
                + ssl.get(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG);
    }

    private static String rootMessage(Throwable e) {
        StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            message.append(": ").append(cause.getMessage());
        }
        return message.toString();
    }

    /** A server engine for a new connection from {@code peerHost:peerPort}, with client authentication set. */
    public SSLEngine newServerEngine(String peerHost, int peerPort) {
        return factory.createServerSslEngine(peerHost, peerPort);
    }

    public String listenerName() {
        return listenerName;
    }

    @Override
    public void close() {
        factory.close();
    }
}
