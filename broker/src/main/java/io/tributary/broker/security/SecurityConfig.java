package io.tributary.broker.security;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The security part of the broker configuration, under Kafka's names: {@code listener.security.protocol.map},
 * {@code inter.broker.listener.name} / {@code security.inter.broker.protocol}, the {@code ssl.*} settings,
 * {@code sasl.enabled.mechanisms}, {@code sasl.jaas.config} and {@code sasl.mechanism.inter.broker.protocol}; each
 * {@code ssl.*} setting and {@code sasl.enabled.mechanisms} also as {@code listener.name.<listener>.<name>}, and JAAS
 * as {@code listener.name.<listener>.<mechanism>.sasl.jaas.config}, where {@code <listener>} and
 * {@code <mechanism>} are lower case, as in Kafka.
 *
 * <p>Parsed once, at start-up, from the raw properties; a bad value (an unknown protocol in the map, a listener the
 * map does not name, an inter-broker listener that does not exist) is refused with a {@link ConfigException} naming the
 * property. The inter-broker listener may use any protocol; with SASL, {@code sasl.mechanism.inter.broker.protocol}
 * must be one of its mechanisms. Whether the key stores open is checked by {@link SslEngines}, and whether the SASL mechanisms are
 * available by {@link SaslServers}, both when the socket server is built. Immutable.
 */
public final class SecurityConfig {

    public static final String LISTENER_SECURITY_PROTOCOL_MAP = "listener.security.protocol.map";
    public static final String INTER_BROKER_LISTENER_NAME = "inter.broker.listener.name";
    public static final String SECURITY_INTER_BROKER_PROTOCOL = "security.inter.broker.protocol";
    public static final String SASL_ENABLED_MECHANISMS = BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG;
    public static final String SASL_MECHANISM_INTER_BROKER_PROTOCOL =
            BrokerSecurityConfigs.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG;
    public static final String SASL_JAAS_CONFIG = SaslConfigs.SASL_JAAS_CONFIG;
    public static final String SSL_CLIENT_AUTH = BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG;

    /** Kafka's default for {@code listener.security.protocol.map}: each protocol is a listener of its own name. */
    public static final String DEFAULT_PROTOCOL_MAP =
            "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

    private static final String LISTENER_PREFIX = "listener.name.";
    private static final String JAAS_SUFFIX = "." + SASL_JAAS_CONFIG;

    /** The {@code ssl.*} settings: kafka-clients' own definitions (names, types, defaults) plus the server's one. */
    private static final ConfigDef SSL_DEFINITION = sslDefinition();

    /** Everything this class reads. */
    private static final ConfigDef DEFINITION = new ConfigDef(SSL_DEFINITION)
            .define(LISTENER_SECURITY_PROTOCOL_MAP, Type.STRING, DEFAULT_PROTOCOL_MAP, Importance.HIGH,
                    "Security protocol of each listener name: NAME:PROTOCOL, comma-separated.")
            .define(INTER_BROKER_LISTENER_NAME, Type.STRING, null, Importance.MEDIUM,
                    "The listener other brokers connect to.")
            .define(SECURITY_INTER_BROKER_PROTOCOL, Type.STRING, SecurityProtocol.PLAINTEXT.name,
                    ValidString.in(SecurityProtocol.PLAINTEXT.name, SecurityProtocol.SSL.name,
                            SecurityProtocol.SASL_PLAINTEXT.name, SecurityProtocol.SASL_SSL.name),
                    Importance.MEDIUM, "The listener (of this protocol's name) other brokers connect to.")
            .define(SASL_ENABLED_MECHANISMS, Type.LIST, BrokerSecurityConfigs.DEFAULT_SASL_ENABLED_MECHANISMS,
                    Importance.MEDIUM, "SASL mechanisms clients may authenticate with.")
            .define(SASL_MECHANISM_INTER_BROKER_PROTOCOL, Type.STRING, SaslConfigs.DEFAULT_SASL_MECHANISM,
                    Importance.MEDIUM, "SASL mechanism of inter-broker connections.")
            .define(SASL_JAAS_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                    "JAAS configuration of every SASL listener and mechanism without one of its own.");

    /** Settings that may also be given per listener, behind {@code listener.name.<listener>.}. */
    private static final Set<String> PER_LISTENER;

    static {
        Set<String> names = new TreeSet<>(SSL_DEFINITION.names());
        names.add(SASL_ENABLED_MECHANISMS);
        PER_LISTENER = Collections.unmodifiableSet(names);
    }

    private final Map<String, ListenerSecurity> listeners;
    private final String interBrokerListenerName;
    private final InterBrokerSecurity interBroker;
    /** {@code listener.security.protocol.map}, listener names in upper case. */
    private final Map<String, SecurityProtocol> protocols;

    private SecurityConfig(Map<String, ListenerSecurity> listeners, String interBrokerListenerName,
                           InterBrokerSecurity interBroker, Map<String, SecurityProtocol> protocols) {
        this.listeners = Collections.unmodifiableMap(listeners);
        this.protocols = Map.copyOf(protocols);
        this.interBrokerListenerName = interBrokerListenerName;
        this.interBroker = interBroker;
    }

    /**
     * The security properties as kafka-clients' channel builders take them: listener prefixes kept (they resolve
     * them), passwords and JAAS configurations as {@link Password}.
     */
    private static Map<String, Object> clientProperties(Map<String, ?> properties) {
        Map<String, Object> client = new HashMap<>();
        for (Map.Entry<String, ?> entry : properties.entrySet()) {
            String name = entry.getKey();
            Object value = entry.getValue();
            if (!isSecurityProperty(name) || value == null) {
                continue;
            }
            if ((name.endsWith(JAAS_SUFFIX) || name.equals(SASL_JAAS_CONFIG) || name.endsWith(".password"))
                    && value instanceof String text) {
                value = new Password(text);
            }
            client.put(name, value);
        }
        return client;
    }

    private static ConfigDef sslDefinition() {
        ConfigDef ssl = new ConfigDef();
        SslConfigs.addClientSslSupport(ssl);
        ssl.define(SSL_CLIENT_AUTH, Type.STRING, "none", ValidString.in("none", "requested", "required"),
                Importance.MEDIUM, "Whether TLS clients must present a certificate: none, requested or required.");
        return ssl;
    }

    /** Whether this class reads {@code name}: a security property, or one with a listener prefix. */
    public static boolean isSecurityProperty(String name) {
        if (DEFINITION.names().contains(name)) {
            return true;
        }
        if (!name.startsWith(LISTENER_PREFIX)) {
            return false;
        }
        String rest = name.substring(LISTENER_PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
            return false;
        }
        String setting = rest.substring(dot + 1);
        return PER_LISTENER.contains(setting)
                || (setting.endsWith(JAAS_SUFFIX) && setting.length() > JAAS_SUFFIX.length()
                        && setting.indexOf('.') == setting.length() - JAAS_SUFFIX.length());
    }

    /** The names of the unprefixed security properties. */
    public static Set<String> names() {
        return DEFINITION.names();
    }

    /**
     * Resolves the security of every listener.
     *
     * @param properties    the raw broker properties (other names are ignored)
     * @param listenerNames the names in {@code listeners}, in order
     * @param advertised    the names in {@code advertised.listeners}
     * @throws ConfigException naming the property at fault
     */
    public static SecurityConfig parse(Map<String, ?> properties, List<String> listenerNames,
                                       List<String> advertised) {
        Map<String, Object> own = new HashMap<>();
        for (Map.Entry<String, ?> entry : properties.entrySet()) {
            if (DEFINITION.names().contains(entry.getKey())) {
                own.put(entry.getKey(), entry.getValue());
            }
        }
        Map<String, Object> values = DEFINITION.parse(own);
        Map<String, SecurityProtocol> protocols = protocolMap((String) values.get(LISTENER_SECURITY_PROTOCOL_MAP));
        Map<String, ListenerSecurity> listeners = new LinkedHashMap<>();
        for (String name : listenerNames) {
            listeners.put(name, listener(name, protocolOf(name, protocols, "listeners"), values, properties));
        }
        for (String name : advertised) {
            protocolOf(name, protocols, "advertised.listeners");
        }
        String interBroker = interBrokerListener(properties, values, listenerNames);
        ListenerSecurity interBrokerListener = listeners.get(interBroker);
        String mechanism = (String) values.get(SASL_MECHANISM_INTER_BROKER_PROTOCOL);
        if (interBrokerListener.usesSasl()
                && !interBrokerListener.saslMechanisms().contains(mechanism.toUpperCase(Locale.ROOT))) {
            throw new ConfigException(SASL_MECHANISM_INTER_BROKER_PROTOCOL, mechanism, "other brokers authenticate "
                    + "on " + interBroker + " with it, but that listener enables only "
                    + interBrokerListener.saslMechanisms());
        }
        InterBrokerSecurity interBrokerSecurity = new InterBrokerSecurity(interBrokerListener.protocol(),
                interBrokerListener.kafkaListenerName(), mechanism.toUpperCase(Locale.ROOT), clientProperties(properties));
        return new SecurityConfig(listeners, interBroker, interBrokerSecurity, protocols);
    }

    private static Map<String, SecurityProtocol> protocolMap(String value) {
        Map<String, SecurityProtocol> protocols = new HashMap<>();
        for (String entry : value.split(",")) {
            String pair = entry.trim();
            if (pair.isEmpty()) {
                continue;
            }
            int colon = pair.indexOf(':');
            if (colon <= 0 || colon == pair.length() - 1) {
                throw new ConfigException(LISTENER_SECURITY_PROTOCOL_MAP, value,
                        "expected LISTENER_NAME:PROTOCOL, comma-separated; '" + pair + "' is not");
            }
            String listener = pair.substring(0, colon).trim().toUpperCase(Locale.ROOT);
            String protocol = pair.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            if (!SecurityProtocol.names().contains(protocol)) {
                throw new ConfigException(LISTENER_SECURITY_PROTOCOL_MAP, value, "unknown security protocol '"
                        + protocol + "' for listener " + listener + "; one of PLAINTEXT, SSL, SASL_PLAINTEXT, "
                        + "SASL_SSL");
            }
            if (protocols.put(listener, SecurityProtocol.forName(protocol)) != null) {
                throw new ConfigException(LISTENER_SECURITY_PROTOCOL_MAP, value, listener + " is given twice");
            }
        }
        return protocols;
    }

    private static SecurityProtocol protocolOf(String listener, Map<String, SecurityProtocol> protocols,
                                               String property) {
        SecurityProtocol protocol = protocols.get(listener.toUpperCase(Locale.ROOT));
        if (protocol == null) {
            throw new ConfigException(LISTENER_SECURITY_PROTOCOL_MAP, protocols.keySet(), "listener " + listener
                    + " of " + property + " has no security protocol; add " + listener + ":<PROTOCOL> to it");
        }
        return protocol;
    }

    private static ListenerSecurity listener(String name, SecurityProtocol protocol, Map<String, Object> values,
                                             Map<String, ?> properties) {
        String prefix = ListenerName.normalised(name).configPrefix();
        Map<String, Object> ssl = new HashMap<>();
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
            for (String setting : SSL_DEFINITION.names()) {
                ssl.put(setting, resolve(prefix, setting, values, properties));
            }
        }
        List<String> mechanisms = new ArrayList<>();
        Map<String, Password> jaas = new HashMap<>();
        if (protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL) {
            @SuppressWarnings("unchecked")
            List<String> enabled = (List<String>) resolve(prefix, SASL_ENABLED_MECHANISMS, values, properties);
            for (String mechanism : enabled) {
                String upper = mechanism.trim().toUpperCase(Locale.ROOT);
                if (!upper.isEmpty() && !mechanisms.contains(upper)) {
                    mechanisms.add(upper);
                }
            }
            if (mechanisms.isEmpty()) {
                throw new ConfigException(prefix + SASL_ENABLED_MECHANISMS, enabled,
                        "a SASL listener needs at least one mechanism");
            }
            for (String mechanism : mechanisms) {
                String own = prefix + mechanism.toLowerCase(Locale.ROOT) + JAAS_SUFFIX;
                Object value = properties.containsKey(own)
                        ? ConfigDef.parseType(own, properties.get(own), Type.PASSWORD)
                        : values.get(SASL_JAAS_CONFIG);
                if (value != null) {
                    jaas.put(mechanism, (Password) value);
                }
            }
        }
        return new ListenerSecurity(name, protocol, ssl, mechanisms, jaas);
    }

    /** The listener's own value of {@code setting} if given, else the broker-wide one (or its default). */
    private static Object resolve(String prefix, String setting, Map<String, Object> values,
                                  Map<String, ?> properties) {
        String own = prefix + setting;
        if (!properties.containsKey(own)) {
            return values.get(setting);
        }
        ConfigDef.ConfigKey key = DEFINITION.configKeys().get(setting);
        Object value = ConfigDef.parseType(own, properties.get(own), key.type);
        if (key.validator != null) {
            key.validator.ensureValid(own, value);
        }
        return value;
    }

    private static String interBrokerListener(Map<String, ?> properties, Map<String, Object> values,
                                              List<String> listenerNames) {
        String named = (String) values.get(INTER_BROKER_LISTENER_NAME);
        if (named != null && properties.containsKey(SECURITY_INTER_BROKER_PROTOCOL)) {
            throw new ConfigException(INTER_BROKER_LISTENER_NAME, named, "only one of " + INTER_BROKER_LISTENER_NAME
                    + " and " + SECURITY_INTER_BROKER_PROTOCOL + " may be set");
        }
        String property = named != null ? INTER_BROKER_LISTENER_NAME : SECURITY_INTER_BROKER_PROTOCOL;
        String name = named != null ? named.trim() : (String) values.get(SECURITY_INTER_BROKER_PROTOCOL);
        for (String listener : listenerNames) {
            if (listener.equalsIgnoreCase(name)) {
                return listener;
            }
        }
        throw new ConfigException(property, name, "other brokers connect to the listener " + name
                + ", but listeners has none of that name; listeners: " + listenerNames);
    }

    /** The security of the listener of that name (as written in {@code listeners}). */
    public ListenerSecurity listener(String name) {
        ListenerSecurity security = listeners.get(name);
        if (security == null) {
            throw new IllegalArgumentException("no listener named " + name + "; listeners: " + listeners.keySet());
        }
        return security;
    }

    /** The listener other brokers connect to ({@code inter.broker.listener.name}), as written in listeners. */
    public String interBrokerListenerName() {
        return interBrokerListenerName;
    }

    /**
     * The security protocol of a listener or advertised listener, by name (any case).
     *
     * @throws IllegalArgumentException if {@code listener.security.protocol.map} does not name it
     */
    public SecurityProtocol protocolOf(String listenerName) {
        SecurityProtocol protocol = protocols.get(listenerName.toUpperCase(Locale.ROOT));
        if (protocol == null) {
            throw new IllegalArgumentException("no security protocol for listener " + listenerName);
        }
        return protocol;
    }

    /** How this broker's inter-broker clients connect to the other brokers. */
    public InterBrokerSecurity interBroker() {
        return interBroker;
    }
}
