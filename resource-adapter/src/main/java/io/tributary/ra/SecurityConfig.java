package io.tributary.ra;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

import io.tributary.jms.kafka.SecuritySetting;

/**
 * The security config properties of the resource adapter or of a connection definition ({@link SecuritySetting}:
 * {@code securityProtocol}, {@code saslMechanism}, {@code sslTruststoreLocation}, ...), held for the JavaBean that
 * declares them, and turned into the Kafka client properties they stand for. Values are normalized when set, so a
 * bad security protocol fails the deployment naming the property.
 *
 * <p>Not thread-safe: set by the container before use, read afterwards.
 */
public final class SecurityConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The settings that are set, under their Kafka client names. */
    private final Map<String, String> values = new LinkedHashMap<>();

    /** @throws IllegalArgumentException naming the property, for a security protocol Kafka does not have */
    public void set(SecuritySetting setting, String value) {
        setting.put(values, value);
    }

    public String get(SecuritySetting setting) {
        return values.get(setting.kafkaName());
    }

    /** The Kafka client properties of the settings that are set. */
    public Map<String, String> kafkaProperties() {
        return new LinkedHashMap<>(values);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecurityConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** The settings that are set, passwords masked. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("SecurityConfig[");
        for (SecuritySetting setting : SecuritySetting.values()) {
            String value = values.get(setting.kafkaName());
            if (value != null) {
                text.append(setting.beanName()).append('=').append(setting.confidential() ? "****" : value).append(' ');
            }
        }
        return text.append(']').toString();
    }
}
