package io.tributary.broker.security;

import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.SaslServer;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.plain.PlainLoginModule;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainServerCallbackHandler;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCredentialCallback;

/**
 * The SASL mechanisms of one listener and a fresh {@link SaslServer} per authentication, built from kafka-clients'
 * own server implementations: {@link PlainSaslServer} with {@link PlainServerCallbackHandler}, which checks the
 * password against the {@code user_<name>="<password>"} options of the listener's {@code PlainLoginModule} JAAS entry
 * (parsed by {@link JaasContext}, as a Kafka broker parses it), and {@link ScramSaslServer} (SCRAM-SHA-256 and
 * SCRAM-SHA-512), which verifies the client's proof against the credential {@link ScramCredentials} holds.
 *
 * <p>Mechanisms checked at start-up: one this broker does not implement (GSSAPI, Kafka's default, or OAUTHBEARER), or
 * PLAIN without a JAAS entry of {@code PlainLoginModule}, is refused with a {@link ConfigException} naming the
 * property. Thread-safe: {@link #newServer} is called on the event loops.
 */
public final class SaslServers {

    public static final String PLAIN = PlainSaslServer.PLAIN_MECHANISM;

    private final ListenerSecurity listener;
    private final ScramCredentials scram;
    /** The PLAIN callback handler, configured once from the JAAS entry; null if PLAIN is not enabled. */
    private final PlainServerCallbackHandler plain;

    private SaslServers(ListenerSecurity listener, ScramCredentials scram, PlainServerCallbackHandler plain) {
        this.listener = listener;
        this.scram = scram;
        this.plain = plain;
    }

    /**
     * @throws ConfigException if a mechanism is not available or PLAIN has no usable JAAS configuration
     */
    public static SaslServers create(ListenerSecurity listener, ScramCredentials scram) {
        String prefix = listener.kafkaListenerName().configPrefix();
        PlainServerCallbackHandler plain = null;
        for (String mechanism : listener.saslMechanisms()) {
            if (mechanism.equals(PLAIN)) {
                plain = plainHandler(listener, prefix);
            } else if (!ScramMechanism.isScram(mechanism)) {
                throw new ConfigException(prefix + SecurityConfig.SASL_ENABLED_MECHANISMS, listener.saslMechanisms(),
                        "mechanism " + mechanism + " of listener " + listener.listenerName() + " is not available; "
                        + "this broker implements PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (set "
                        + SecurityConfig.SASL_ENABLED_MECHANISMS + ", GSSAPI by default, to those you use)");
            }
        }
        return new SaslServers(listener, scram, plain);
    }

    private static PlainServerCallbackHandler plainHandler(ListenerSecurity listener, String prefix) {
        String property = prefix + "plain." + SecurityConfig.SASL_JAAS_CONFIG;
        if (!listener.jaasConfigs().containsKey(PLAIN)) {
            throw new ConfigException(property, null, "PLAIN on listener " + listener.listenerName()
                    + " needs a JAAS configuration with its users: " + PlainLoginModule.class.getName()
                    + " required user_<name>=\"<password>\"; (or set " + SecurityConfig.SASL_JAAS_CONFIG + ")");
        }
        // JaasContext reads the listener's settings with the listener prefix already removed, as Kafka hands them.
        Map<String, Object> configs = new HashMap<>();
        configs.put("plain." + SecurityConfig.SASL_JAAS_CONFIG, listener.jaasConfigs().get(PLAIN));
        List<AppConfigurationEntry> entries;
        try {
            entries = JaasContext.loadServerContext(listener.kafkaListenerName(), PLAIN, configs)
                    .configurationEntries();
        } catch (RuntimeException e) {
            throw new ConfigException(property, "[hidden]", "not a usable JAAS configuration: " + e.getMessage());
        }
        boolean hasPlainModule = entries.stream()
                .anyMatch(entry -> entry.getLoginModuleName().equals(PlainLoginModule.class.getName()));
        if (!hasPlainModule) {
            throw new ConfigException(property, "[hidden]", "names no " + PlainLoginModule.class.getName());
        }
        PlainServerCallbackHandler handler = new PlainServerCallbackHandler();
        handler.configure(configs, PLAIN, entries);
        return handler;
    }

    /** Whether clients of this listener may use {@code mechanism} (as named on the wire, any case). */
    public boolean isEnabled(String mechanism) {
        return listener.saslMechanisms().contains(mechanism.toUpperCase(Locale.ROOT));
    }

    /** The enabled mechanisms, for a SaslHandshake answer. */
    public List<String> enabledMechanisms() {
        return listener.saslMechanisms();
    }

    /**
     * A server for one authentication with {@code mechanism}.
     *
     * @throws IllegalArgumentException if the mechanism is not enabled
     */
    public SaslServer newServer(String mechanism) {
        String upper = mechanism.toUpperCase(Locale.ROOT);
        if (!isEnabled(upper)) {
            throw new IllegalArgumentException(mechanism + " is not enabled on listener " + listener.listenerName());
        }
        if (upper.equals(PLAIN)) {
            return new PlainSaslServer(plain);
        }
        ScramMechanism scramMechanism = ScramMechanism.forMechanismName(upper);
        try {
            return new ScramSaslServer(scramMechanism, Map.of(), new ScramCallbacks(scram, scramMechanism));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + scramMechanism.hashAlgorithm(), e);
        }
    }

    /** Answers ScramSaslServer's questions from {@link ScramCredentials}; delegation tokens are not supported. */
    private static final class ScramCallbacks implements CallbackHandler {

        private final ScramCredentials credentials;
        private final ScramMechanism mechanism;
        private String user;

        ScramCallbacks(ScramCredentials credentials, ScramMechanism mechanism) {
            this.credentials = credentials;
            this.mechanism = mechanism;
        }

        @Override
        public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    user = name.getDefaultName();
                } else if (callback instanceof DelegationTokenCredentialCallback) {
                    // No delegation tokens: leaving the credential unset fails the authentication.
                    continue;
                } else if (callback instanceof ScramCredentialCallback credential) {
                    credential.scramCredential(user == null ? null : credentials.lookup(user, mechanism));
                } else {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        }
    }
}
