package io.tributary.ra;

import java.io.Serializable;
import java.util.EnumMap;
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

    private final EnumMap<SecuritySetting, String> values = new EnumMap<>(SecuritySetting.class);

    /** @throws IllegalArgumentException naming the property, for a security protocol Kafka does not have */
    public void set(SecuritySetting setting, String value) {
        String normalized = setting.normalize(value);
        if (normalized == null) {
            values.remove(setting);
        } else {
            values.put(setting, normalized);
        }
    }

    public String get(SecuritySetting setting) {
        return values.get(setting);
    }

    /** The Kafka client properties of the settings that are set. */
    public Map<String, String> kafkaProperties() {
        Map<String, String> kafka = new LinkedHashMap<>();
        values.forEach((setting, value) -> kafka.put(setting.kafkaName(), value));
        return kafka;
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
        values.forEach((setting, value) -> text.append(setting.beanName()).append('=')
                .append(setting.confidential() ? "****" : value).append(' '));
        return text.append(']').toString();
    }
}
