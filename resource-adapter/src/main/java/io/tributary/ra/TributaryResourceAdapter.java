package io.tributary.ra;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import javax.transaction.xa.XAResource;

import io.tributary.jms.kafka.KafkaPropertiesText;
import io.tributary.jms.kafka.SecuritySetting;
import io.tributary.ra.inbound.InboundActivation;
import io.tributary.ra.inbound.TributaryActivationSpec;
import io.tributary.ra.inbound.XaDelivery;
import jakarta.resource.NotSupportedException;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.ConfigProperty;
import jakarta.resource.spi.IllegalStateException;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterInternalException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tributary's resource adapter JavaBean (declared in {@code ra.xml}): the RA-wide settings and the inbound lifecycle. {@link #endpointActivation} starts delivery of a topic to a
 * message-driven bean ({@link InboundActivation}); {@link #endpointDeactivation} and {@link #stop()} end it.
 *
 * <p>Settings (JavaBean properties, {@code config-property} in {@code ra.xml}): {@code bootstrapServers}, the
 * cluster that activations use unless their activation spec names another (not configured, it is the server JVM's
 * system property {@value #BOOTSTRAP_SERVERS_PROPERTY}, else {@value #DEFAULT_BOOTSTRAP_SERVERS}: one setting of the
 * server reaches every copy of the adapter, stand-alone or inside EARs, on any server); {@code kafkaProperties}, Kafka client
 * properties passed through to every client the adapter creates, as {@code name=value} pairs separated by {@code ;}
 * ({@link KafkaPropertiesText}).
 *
 * <p>Threads: the container calls {@code start}, {@code stop}, {@code endpointActivation} and
 * {@code endpointDeactivation} from its own threads, possibly concurrently for different endpoints; the activations
 * are kept in a concurrent map and the lifecycle changes by compare-and-set.
 */
public class TributaryResourceAdapter implements ResourceAdapter, TributaryAdapterSettings {

    private static final Logger log = LoggerFactory.getLogger(TributaryResourceAdapter.class);

    /** The cluster when neither the configuration nor {@value #BOOTSTRAP_SERVERS_PROPERTY} names one. */
    static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

    /**
     * The server's system property that names the cluster for every adapter whose {@code bootstrapServers} is not
     * configured (and for connection definitions and activations that name none either).
     */
    public static final String BOOTSTRAP_SERVERS_PROPERTY = "tributary.bootstrap.servers";

    /**
     * How long {@code endpointDeactivation} and {@code stop} wait for an activation: its in-flight messages finish,
     * what was delivered is committed and the clients close. An MDB still inside {@code onMessage} after this is left
     * to finish on its own, and its message is delivered again later.
     */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private enum State { NEW, STARTED, STOPPED }

    /** As configured; null when not, and then {@link #defaultBootstrapServers()} applies. */
    private String bootstrapServers;
    private String kafkaProperties;
    private final SecurityConfig security = new SecurityConfig();

    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private volatile BootstrapContext bootstrapContext;
    private final Map<ActivationKey, InboundActivation> activations = new ConcurrentHashMap<>();
    /** Connections behind {@link #getXAResources}, by cluster; closed at stop. */
    private final Map<String, XaDelivery> recoveryConnections = new ConcurrentHashMap<>();

    /** The configured cluster, else {@link #defaultBootstrapServers()} as it is now. */
    public String getBootstrapServers() {
        return bootstrapServers != null ? bootstrapServers : defaultBootstrapServers();
    }

    /** A blank or null value means "not configured": the system property, then the fixed default, apply. */
    @ConfigProperty(description = "The Tributary (or Kafka) cluster: host:port[,host:port...]. Unset, the server's"
            + " system property " + BOOTSTRAP_SERVERS_PROPERTY + ", else " + DEFAULT_BOOTSTRAP_SERVERS
            + ". An activation spec's bootstrapServers overrides it.")
    public void setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank() ? null
                : bootstrapServers.trim();
    }

    /**
     * The cluster of an adapter (or connection definition, or activation) that is not configured with one: the
     * system property {@value #BOOTSTRAP_SERVERS_PROPERTY} if set and not blank, else
     * {@value #DEFAULT_BOOTSTRAP_SERVERS}. Read at each call, so a property set after deployment applies to the
     * clients created afterwards.
     */
    public static String defaultBootstrapServers() {
        String fromServer = System.getProperty(BOOTSTRAP_SERVERS_PROPERTY);
        return fromServer == null || fromServer.isBlank() ? DEFAULT_BOOTSTRAP_SERVERS : fromServer.trim();
    }

    public String getKafkaProperties() {
        return kafkaProperties;
    }

    /**
     * Kafka client properties for every client of the adapter, {@code name=value;name=value}; prefix a name with
     * {@code consumer.} or {@code producer.} for one kind of client. An activation spec's own kafkaProperties
     * override these.
     *
     * @throws IllegalArgumentException if the text is not a list of {@code name=value} pairs
     */
    @ConfigProperty(description = "Kafka client properties passed through, as name=value pairs separated by ';'"
            + " (\\; for a literal semicolon); prefix consumer. or producer. for one kind of client.")
    public void setKafkaProperties(String kafkaProperties) {
        KafkaPropertiesText.parse("kafkaProperties", kafkaProperties);
        this.kafkaProperties = kafkaProperties;
    }

    // Security config properties (SecuritySetting): the Kafka client properties of the same meaning, for every
    // client of the adapter, applied over kafkaProperties.

    public String getSecurityProtocol() {
        return security.get(SecuritySetting.SECURITY_PROTOCOL);
    }

    @ConfigProperty(description = "The Kafka clients' security.protocol: PLAINTEXT (default), SSL, SASL_PLAINTEXT or SASL_SSL; applied over kafkaProperties.")
    public void setSecurityProtocol(String value) {
        security.set(SecuritySetting.SECURITY_PROTOCOL, value);
    }

    public String getSaslMechanism() {
        return security.get(SecuritySetting.SASL_MECHANISM);
    }

    @ConfigProperty(description = "The Kafka clients' sasl.mechanism; a user and password log in with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (the default); applied over kafkaProperties.")
    public void setSaslMechanism(String value) {
        security.set(SecuritySetting.SASL_MECHANISM, value);
    }

    public String getSslTruststoreLocation() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_LOCATION);
    }

    @ConfigProperty(description = "ssl.truststore.location: the certificates that the brokers' certificates must be signed by; applied over kafkaProperties.")
    public void setSslTruststoreLocation(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_LOCATION, value);
    }

    public String getSslTruststorePassword() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_PASSWORD);
    }

    @ConfigProperty(confidential = true, description = "ssl.truststore.password; applied over kafkaProperties.")
    public void setSslTruststorePassword(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_PASSWORD, value);
    }

    public String getSslTruststoreType() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_TYPE);
    }

    @ConfigProperty(description = "ssl.truststore.type: JKS or PKCS12 (Kafka's default JKS); applied over kafkaProperties.")
    public void setSslTruststoreType(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_TYPE, value);
    }

    public String getSslKeystoreLocation() {
        return security.get(SecuritySetting.SSL_KEYSTORE_LOCATION);
    }

    @ConfigProperty(description = "ssl.keystore.location: this client's certificate and key, for brokers that require client certificates; applied over kafkaProperties.")
    public void setSslKeystoreLocation(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_LOCATION, value);
    }

    public String getSslKeystorePassword() {
        return security.get(SecuritySetting.SSL_KEYSTORE_PASSWORD);
    }

    @ConfigProperty(confidential = true, description = "ssl.keystore.password; applied over kafkaProperties.")
    public void setSslKeystorePassword(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_PASSWORD, value);
    }

    public String getSslKeystoreType() {
        return security.get(SecuritySetting.SSL_KEYSTORE_TYPE);
    }

    @ConfigProperty(description = "ssl.keystore.type; applied over kafkaProperties.")
    public void setSslKeystoreType(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_TYPE, value);
    }

    public String getSslKeyPassword() {
        return security.get(SecuritySetting.SSL_KEY_PASSWORD);
    }

    @ConfigProperty(confidential = true, description = "ssl.key.password; applied over kafkaProperties.")
    public void setSslKeyPassword(String value) {
        security.set(SecuritySetting.SSL_KEY_PASSWORD, value);
    }

    @Override
    public Map<String, String> getSecurityProperties() {
        return security.kafkaProperties();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Lifecycle

    @Override
    public void start(BootstrapContext context) throws ResourceAdapterInternalException {
        if (context == null) {
            throw new ResourceAdapterInternalException("start needs the container's BootstrapContext");
        }
        if (!state.compareAndSet(State.NEW, State.STARTED)) {
            throw new ResourceAdapterInternalException("The resource adapter was already started (" + state.get()
                    + "); the container creates a new instance for each start");
        }
        bootstrapContext = context;
        log.info("Tributary resource adapter started: bootstrap servers {}{}", getBootstrapServers(),
                bootstrapServers == null ? " (not configured: system property " + BOOTSTRAP_SERVERS_PROPERTY
                        + " or the default)" : "");
    }

    /** Stops every activation: in-flight messages finish, what was delivered is committed. Idempotent. */
    @Override
    public void stop() {
        if (state.getAndSet(State.STOPPED) != State.STARTED) {
            return;
        }
        List<InboundActivation> stopping = new ArrayList<>(activations.values());
        activations.clear();
        // Ask all to stop first, then wait: the activations wind down in parallel.
        for (InboundActivation activation : stopping) {
            activation.requestStop();
        }
        for (InboundActivation activation : stopping) {
            activation.awaitStopped(STOP_TIMEOUT);
        }
        recoveryConnections.values().forEach(XaDelivery::close);
        recoveryConnections.clear();
        log.info("Tributary resource adapter stopped ({} activations ended)", stopping.size());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Inbound

    /**
     * Starts delivery to the endpoint, all or nothing: when this throws, nothing of the activation is left running.
     * A cluster that cannot be reached does not fail the activation: delivery starts when it can be reached
     * (a server's applications deploy in whatever order the server and the cluster come up).
     *
     * @throws jakarta.resource.spi.InvalidPropertyException naming the activation spec property that is wrong, or a
     *         destinationLookup or connectionFactoryLookup that cannot be resolved
     * @throws ResourceException if the adapter is not started, or the container's WorkManager does not start the
     *         activation's work
     */
    @Override
    public void endpointActivation(MessageEndpointFactory endpointFactory, ActivationSpec spec)
            throws ResourceException {
        BootstrapContext context = bootstrapContext;
        if (state.get() != State.STARTED || context == null) {
            throw new IllegalStateException("The Tributary resource adapter is " + state.get()
                    + "; endpoints are activated only while it is started");
        }
        if (!(spec instanceof TributaryActivationSpec tributarySpec)) {
            throw new NotSupportedException("Expected a " + TributaryActivationSpec.class.getName() + ", got "
                    + (spec == null ? "null" : spec.getClass().getName()));
        }
        ActivationKey key = new ActivationKey(endpointFactory, spec);
        if (activations.containsKey(key)) {
            throw new IllegalStateException("This endpoint is already active with this activation spec: " + spec);
        }
        InboundActivation activation = InboundActivation.start(context, endpointFactory, tributarySpec, this);
        if (activations.putIfAbsent(key, activation) != null || state.get() != State.STARTED) {
            activations.remove(key, activation);
            activation.requestStop();
            activation.awaitStopped(STOP_TIMEOUT);
            throw new IllegalStateException("The endpoint was activated concurrently, or the resource adapter"
                    + " stopped during activation: " + activation.describe());
        }
        log.info("Activated {} for {}", activation.describe(), InboundActivation.endpointName(endpointFactory));
    }

    /** Stops delivery to the endpoint: the in-flight messages finish, what was delivered is committed. */
    @Override
    public void endpointDeactivation(MessageEndpointFactory endpointFactory, ActivationSpec spec) {
        InboundActivation activation = activations.remove(new ActivationKey(endpointFactory, spec));
        if (activation == null) {
            log.warn("endpointDeactivation for {}, which is not active",
                    InboundActivation.endpointName(endpointFactory));
            return;
        }
        activation.requestStop();
        activation.awaitStopped(STOP_TIMEOUT);
        log.info("Deactivated {} for {}", activation.describe(),
                InboundActivation.endpointName(endpointFactory));
    }

    /**
     * For the transaction manager's recovery scan: one XAResource per cluster the specs name, each of which lists
     * and decides every in-doubt branch of that cluster's XA log (transacted deliveries commit their offsets in XA
     * branches). The connections behind them are kept until {@link #stop()}.
     *
     * @throws ResourceException if a spec is invalid or a connection cannot be made
     */
    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) throws ResourceException {
        if (specs == null) {
            return new XAResource[0];
        }
        Map<String, XAResource> byCluster = new LinkedHashMap<>();
        for (ActivationSpec spec : specs) {
            if (!(spec instanceof TributaryActivationSpec tributarySpec)) {
                continue;
            }
            XaDelivery opened = XaDelivery.forRecovery(tributarySpec, this);
            XaDelivery recovery = recoveryConnections.putIfAbsent(opened.bootstrapServers(), opened);
            if (recovery == null) {
                recovery = opened;
            } else {
                opened.close(); // one per cluster is enough
            }
            try {
                byCluster.putIfAbsent(recovery.bootstrapServers(), recovery.newResource());
            } catch (jakarta.jms.JMSException e) {
                throw new ResourceException("No XAResource for " + recovery.bootstrapServers() + ": "
                        + e.getMessage(), e);
            }
        }
        return byCluster.values().toArray(new XAResource[0]);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Identity

    /**
     * Equal when the settings are: the Connectors specification (and IronJacamar's archive validation, which fails
     * a deployment without them) requires a resource adapter JavaBean to define equals and hashCode.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof TributaryResourceAdapter other && Objects.equals(bootstrapServers, other.bootstrapServers)
                && Objects.equals(kafkaProperties, other.kafkaProperties) && security.equals(other.security);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, kafkaProperties);
    }

    @Override
    public String toString() {
        return "TributaryResourceAdapter[" + getBootstrapServers() + ", " + state.get() + "]";
    }

    /** The container passes the same factory and spec instances to activation and deactivation: identity. */
    private record ActivationKey(MessageEndpointFactory factory, ActivationSpec spec) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ActivationKey other && factory == other.factory && spec == other.spec;
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(factory) + System.identityHashCode(spec);
        }
    }
}
