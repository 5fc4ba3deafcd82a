package io.tributary.jms.kafka;

import java.util.Locale;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * A SASL login made from a user name and password, as {@code createConnection(user, password)} and the resource
 * adapter's {@code user}/{@code password} make it: the mechanism the Kafka client properties name
 * ({@code sasl.mechanism}), {@value #DEFAULT_MECHANISM} when they name none, and Kafka's login module for it with the
 * credentials ({@code sasl.jaas.config}).
 *
 * <p>Stateless; any thread. The JAAS text holds the password: never log it.
 */
public final class SaslLogin {

    /** The mechanism of a login when the configuration names none: the strongest Kafka ships without Kerberos. */
    public static final String DEFAULT_MECHANISM = "SCRAM-SHA-512";

    private SaslLogin() {
    }

    /** Whether {@code kafka} (pass-through properties, prefixes included) makes clients authenticate with SASL. */
    public static boolean isSasl(Map<String, String> kafka) {
        return protocol(kafka).startsWith("SASL_");
    }

    /** The security protocol that {@code kafka} sets for every client, upper case; Kafka's default PLAINTEXT. */
    public static String protocol(Map<String, String> kafka) {
        String protocol = kafka.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        return protocol == null ? "PLAINTEXT" : protocol.trim().toUpperCase(Locale.ROOT);
    }

    /** The SASL mechanism that {@code kafka} names, else {@value #DEFAULT_MECHANISM}. */
    public static String mechanism(Map<String, String> kafka) {
        String mechanism = kafka.get(SaslConfigs.SASL_MECHANISM);
        return mechanism == null || mechanism.isBlank() ? DEFAULT_MECHANISM
                : mechanism.trim().toUpperCase(Locale.ROOT);
    }

    /**
     * The {@code sasl.jaas.config} of {@code user} with {@code password} for {@code mechanism}.
     *
     * @throws IllegalArgumentException if the mechanism is not PLAIN or SCRAM (GSSAPI, OAUTHBEARER: their login
     *                                  is not a password; configure {@code sasl.jaas.config} instead), or the
     *                                  password is null
     */
    public static String jaasConfig(String mechanism, String user, String password) {
        String module = switch (mechanism.toUpperCase(Locale.ROOT)) {
            case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
            case "SCRAM-SHA-256", "SCRAM-SHA-512" -> "org.apache.kafka.common.security.scram.ScramLoginModule";
            default -> throw new IllegalArgumentException("a user name and password cannot log in with SASL mechanism "
                    + mechanism + " (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 can); configure sasl.jaas.config instead");
        };
        if (password == null) {
            throw new IllegalArgumentException("user " + user + " has no password");
        }
        return module + " required username=\"" + quote(user) + "\" password=\"" + quote(password) + "\";";
    }

    private static String quote(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
