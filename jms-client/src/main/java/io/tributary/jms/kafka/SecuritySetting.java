package io.tributary.jms.kafka;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The security settings that the connection factory, the resource adapter and its connection definitions accept as
 * JavaBean properties, each the Kafka client property of the same meaning: {@code securityProtocol} is
 * {@code security.protocol}, {@code sslTruststoreLocation} is {@code ssl.truststore.location}, and so on. They are
 * stored as those Kafka properties, so setting one either way is the same.
 */
public enum SecuritySetting {
    SECURITY_PROTOCOL("securityProtocol", "security.protocol", false),
    SASL_MECHANISM("saslMechanism", "sasl.mechanism", false),
    SSL_TRUSTSTORE_LOCATION("sslTruststoreLocation", "ssl.truststore.location", false),
    SSL_TRUSTSTORE_PASSWORD("sslTruststorePassword", "ssl.truststore.password", true),
    SSL_TRUSTSTORE_TYPE("sslTruststoreType", "ssl.truststore.type", false),
    SSL_KEYSTORE_LOCATION("sslKeystoreLocation", "ssl.keystore.location", false),
    SSL_KEYSTORE_PASSWORD("sslKeystorePassword", "ssl.keystore.password", true),
    SSL_KEYSTORE_TYPE("sslKeystoreType", "ssl.keystore.type", false),
    SSL_KEY_PASSWORD("sslKeyPassword", "ssl.key.password", true);

    /** The security protocols a Kafka client speaks. */
    public static final List<String> PROTOCOLS = List.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");

    private final String beanName;
    private final String kafkaName;
    private final boolean confidential;

    SecuritySetting(String beanName, String kafkaName, boolean confidential) {
        this.beanName = beanName;
        this.kafkaName = kafkaName;
        this.confidential = confidential;
    }

    public String beanName() {
        return beanName;
    }

    public String kafkaName() {
        return kafkaName;
    }

    /** Whether the value is a secret, never to be logged or shown. */
    public boolean confidential() {
        return confidential;
    }

    /**
     * The value as stored: null for null or blank, the protocol and mechanism upper case, others trimmed.
     *
     * @throws IllegalArgumentException naming the property, for a security protocol Kafka does not have
     */
    public String normalize(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        if (this == SECURITY_PROTOCOL || this == SASL_MECHANISM) {
            String upper = value.trim().toUpperCase(Locale.ROOT);
            if (this == SECURITY_PROTOCOL && !PROTOCOLS.contains(upper)) {
                throw new IllegalArgumentException(beanName + " must be one of " + PROTOCOLS + ", not '" + value
                        + "'");
            }
            return upper;
        }
        return confidential ? value : value.trim();
    }

    /** Stores {@code value} ({@link #normalize}d) in {@code kafka} under its Kafka name, or removes it when null. */
    public void put(Map<? super String, ? super String> kafka, String value) {
        String normalized = normalize(value);
        if (normalized == null) {
            kafka.remove(kafkaName);
        } else {
            kafka.put(kafkaName, normalized);
        }
    }
}
