package io.tributary.ra.outbound;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.security.auth.Subject;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterAssociation;
import jakarta.resource.spi.TransactionSupport;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.kafka.KafkaPropertiesText;
import io.tributary.jms.kafka.SecuritySetting;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.ra.TributaryAdapterSettings;
import io.tributary.ra.SecurityConfig;
import io.tributary.ra.TributaryResourceAdapter;

/**
 * The outbound connection definition: makes the pooled JMS connection factory that applications look up
 * ({@link TributaryConnectionFactoryHandle}) and the {@link TributaryManagedConnection}s the container pools behind
 * it. A JavaBean whose config properties (ra.xml, ironjacamar.xml, or the server's pool configuration) are:
 * <ul>
 *   <li>{@code bootstrapServers}: the cluster; unset, the resource adapter's {@code bootstrapServers} applies, and
 *       without an adapter, the system property {@code tributary.bootstrap.servers}, else {@code 127.0.0.1:9092};</li>
 *   <li>{@code clientId}: the JMS client id of the pooled connections (needed for unshared durable
 *       subscriptions; every pooled connection shares it, without claiming it across the cluster as a stand-alone
 *       connection does: {@link io.tributary.jms.TributaryConnectionFactory#createPooledConnection});</li>
 *   <li>{@code kafkaProperties}: Kafka client properties as {@code name=value;name=value}
 *       ({@link KafkaPropertiesText}), applied over the resource adapter's of the same name;</li>
 *   <li>{@code trustedObjectPackages}: what an {@code ObjectMessage} may deserialize (comma separated packages or
 *       classes, {@code *} for all);</li>
 *   <li>{@code objectMessageMaxDepth}, {@code objectMessageMaxReferences}, {@code objectMessageMaxArrayLength},
 *       {@code objectMessageMaxBytes}: what deserializing an {@code ObjectMessage} body may cost; unset, the
 *       provider's defaults ({@link ObjectMessageLimits#DEFAULT});</li>
 *   <li>{@code transactionalIdPrefix}: the prefix of the Kafka transactional ids the pooled connections commit
 *       with, one per server and kept across its restarts, so that a restarted server fences its previous
 *       incarnation's producers; unset, each connection picks a random one (the provider's
 *       {@code TributaryConnectionFactory.setTransactionalIdPrefix});</li>
 *   <li>{@code xaLogTopic}: the compacted topic where XA branches record their prepared state; unset,
 *       {@code tributary-xa-log};</li>
 *   <li>{@code metricsEnabled}: whether the pooled connections publish the provider's JMX beans
 *       ({@code io.tributary.jms:type=destination-metrics}); unset, true;</li>
 *   <li>{@code securityProtocol}, {@code saslMechanism}, {@code sslTruststoreLocation}, ... ({@link SecuritySetting}):
 *       the Kafka client properties of the same meaning, applied over {@code kafkaProperties} and the resource
 *       adapter's security settings;</li>
 *   <li>{@code user}, {@code password}: over SASL, the login of connections whose application names no user and
 *       for which the container passes no credential ({@link ConnectionRequest}).</li>
 * </ul>
 * Setters reject malformed values at once, naming the property, so a bad deployment fails when it is configured.
 *
 * <p>Transactions: {@link TransactionSupportLevel#XATransaction} (two-phase commit with recovery, the provider's
 * {@code TributaryXAResource}), local transactions still offered; each commit one Kafka transaction (see
 * {@link TributaryManagedConnection} for what is atomic).
 *
 * <p>Threads: configured by the container before use; afterwards any thread may create connections.
 * {@code equals} and {@code hashCode} cover the config properties, as the connector specification requires.
 */
public class TributaryManagedConnectionFactory implements ManagedConnectionFactory, ResourceAdapterAssociation,
        TransactionSupport {

    private static final long serialVersionUID = 1L;

    private String bootstrapServers;
    private String clientId;
    private String transactionalIdPrefix;
    private String xaLogTopic;
    /** Null: unset, the provider's default (true). */
    private Boolean metricsEnabled;
    private String kafkaProperties;
    private String trustedObjectPackages;
    private Long objectMessageMaxDepth;
    private Long objectMessageMaxReferences;
    private Long objectMessageMaxArrayLength;
    private Long objectMessageMaxBytes;
    private String user;
    private String password;
    private final SecurityConfig security = new SecurityConfig();
    /** Set once by the container; not serialized, as a resource adapter need not be serializable. */
    private transient ResourceAdapter resourceAdapter;
    private transient PrintWriter logWriter;

    public TributaryManagedConnectionFactory() {
    }

    // ---------------------------------------------------------------------------------------------------------
    // Config properties

    public String getBootstrapServers() {
        return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = blankToNull(bootstrapServers);
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = blankToNull(clientId);
    }

    public String getTransactionalIdPrefix() {
        return transactionalIdPrefix;
    }

    /** @throws IllegalArgumentException if it holds characters a Kafka transactional id should not */
    public void setTransactionalIdPrefix(String transactionalIdPrefix) {
        String prefix = blankToNull(transactionalIdPrefix);
        new TributaryConnectionFactory().setTransactionalIdPrefix(prefix); // the provider's check, at configuration
        this.transactionalIdPrefix = prefix;
    }

    public String getXaLogTopic() {
        return xaLogTopic;
    }

    /** @throws IllegalArgumentException if it is not a legal topic name */
    public void setXaLogTopic(String xaLogTopic) {
        String topic = blankToNull(xaLogTopic);
        new TributaryConnectionFactory().setXaLogTopic(topic); // the provider's check, at configuration
        this.xaLogTopic = topic;
    }

    public Boolean getMetricsEnabled() {
        return metricsEnabled;
    }

    public void setMetricsEnabled(Boolean metricsEnabled) {
        this.metricsEnabled = metricsEnabled;
    }

    public String getKafkaProperties() {
        return kafkaProperties;
    }

    /**
     * @throws IllegalArgumentException if the text is malformed, naming the entry, or sets a property that JMS
     *         semantics own
     */
    public void setKafkaProperties(String kafkaProperties) {
        KafkaPropertiesText.checkNotOwned("kafkaProperties",
                KafkaPropertiesText.parse("kafkaProperties", kafkaProperties));
        this.kafkaProperties = blankToNull(kafkaProperties);
    }

    public String getTrustedObjectPackages() {
        return trustedObjectPackages;
    }

    /** @throws IllegalArgumentException if the list is malformed */
    public void setTrustedObjectPackages(String trustedObjectPackages) {
        String value = blankToNull(trustedObjectPackages);
        new TributaryConnectionFactory().setTrustedObjectPackages(value); // validates the list
        this.trustedObjectPackages = value;
    }

    public Long getObjectMessageMaxDepth() {
        return objectMessageMaxDepth;
    }

    /** @throws IllegalArgumentException if below 1; null: the provider's default */
    public void setObjectMessageMaxDepth(Long maxDepth) {
        if (maxDepth != null) {
            ObjectMessageLimits.DEFAULT.withMaxDepth(maxDepth); // validates
        }
        this.objectMessageMaxDepth = maxDepth;
    }

    public Long getObjectMessageMaxReferences() {
        return objectMessageMaxReferences;
    }

    /** @throws IllegalArgumentException if below 1; null: the provider's default */
    public void setObjectMessageMaxReferences(Long maxReferences) {
        if (maxReferences != null) {
            ObjectMessageLimits.DEFAULT.withMaxReferences(maxReferences);
        }
        this.objectMessageMaxReferences = maxReferences;
    }

    public Long getObjectMessageMaxArrayLength() {
        return objectMessageMaxArrayLength;
    }

    /** @throws IllegalArgumentException if below 1; null: the provider's default */
    public void setObjectMessageMaxArrayLength(Long maxArrayLength) {
        if (maxArrayLength != null) {
            ObjectMessageLimits.DEFAULT.withMaxArrayLength(maxArrayLength);
        }
        this.objectMessageMaxArrayLength = maxArrayLength;
    }

    public Long getObjectMessageMaxBytes() {
        return objectMessageMaxBytes;
    }

    /** @throws IllegalArgumentException if below 1; null: the provider's default */
    public void setObjectMessageMaxBytes(Long maxBytes) {
        if (maxBytes != null) {
            ObjectMessageLimits.DEFAULT.withMaxBytes(maxBytes);
        }
        this.objectMessageMaxBytes = maxBytes;
    }

    public String getUser() {
        return user;
    }

    /** The SASL user of connections whose application names none, without a container credential. */
    public void setUser(String user) {
        this.user = blankToNull(user);
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password == null || password.isEmpty() ? null : password;
    }

    public String getSecurityProtocol() {
        return security.get(SecuritySetting.SECURITY_PROTOCOL);
    }

    public void setSecurityProtocol(String value) {
        security.set(SecuritySetting.SECURITY_PROTOCOL, value);
    }

    public String getSaslMechanism() {
        return security.get(SecuritySetting.SASL_MECHANISM);
    }

    public void setSaslMechanism(String value) {
        security.set(SecuritySetting.SASL_MECHANISM, value);
    }

    public String getSslTruststoreLocation() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_LOCATION);
    }

    public void setSslTruststoreLocation(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_LOCATION, value);
    }

    public String getSslTruststorePassword() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_PASSWORD);
    }

    public void setSslTruststorePassword(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_PASSWORD, value);
    }

    public String getSslTruststoreType() {
        return security.get(SecuritySetting.SSL_TRUSTSTORE_TYPE);
    }

    public void setSslTruststoreType(String value) {
        security.set(SecuritySetting.SSL_TRUSTSTORE_TYPE, value);
    }

    public String getSslKeystoreLocation() {
        return security.get(SecuritySetting.SSL_KEYSTORE_LOCATION);
    }

    public void setSslKeystoreLocation(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_LOCATION, value);
    }

    public String getSslKeystorePassword() {
        return security.get(SecuritySetting.SSL_KEYSTORE_PASSWORD);
    }

    public void setSslKeystorePassword(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_PASSWORD, value);
    }

    public String getSslKeystoreType() {
        return security.get(SecuritySetting.SSL_KEYSTORE_TYPE);
    }

    public void setSslKeystoreType(String value) {
        security.set(SecuritySetting.SSL_KEYSTORE_TYPE, value);
    }

    public String getSslKeyPassword() {
        return security.get(SecuritySetting.SSL_KEY_PASSWORD);
    }

    public void setSslKeyPassword(String value) {
        security.set(SecuritySetting.SSL_KEY_PASSWORD, value);
    }

    private ObjectMessageLimits objectMessageLimits() {
        ObjectMessageLimits limits = ObjectMessageLimits.DEFAULT;
        if (objectMessageMaxDepth != null) {
            limits = limits.withMaxDepth(objectMessageMaxDepth);
        }
        if (objectMessageMaxReferences != null) {
            limits = limits.withMaxReferences(objectMessageMaxReferences);
        }
        if (objectMessageMaxArrayLength != null) {
            limits = limits.withMaxArrayLength(objectMessageMaxArrayLength);
        }
        if (objectMessageMaxBytes != null) {
            limits = limits.withMaxBytes(objectMessageMaxBytes);
        }
        return limits;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /**
     * The settings a new managed connection uses, resolved now: the resource adapter's may have been configured
     * after this factory.
     */
    OutboundSettings settings() throws InvalidPropertyException {
        TributaryAdapterSettings adapter = resourceAdapter instanceof TributaryAdapterSettings settings
                ? settings : null;
        String servers = bootstrapServers;
        if (servers == null && adapter != null) {
            servers = blankToNull(adapter.getBootstrapServers());
        }
        if (servers == null) {
            servers = TributaryResourceAdapter.defaultBootstrapServers();
        }
        Map<String, String> kafka = new LinkedHashMap<>();
        try {
            if (adapter != null) {
                Map<String, String> adapterKafka = KafkaPropertiesText.parse("kafkaProperties of the resource"
                        + " adapter", adapter.getKafkaProperties());
                KafkaPropertiesText.checkNotOwned("kafkaProperties of the resource adapter", adapterKafka);
                kafka.putAll(adapterKafka);
            }
            if (adapter != null) {
                kafka.putAll(adapter.getSecurityProperties());
            }
            kafka.putAll(KafkaPropertiesText.parse("kafkaProperties", kafkaProperties));
            kafka.putAll(security.kafkaProperties());
        } catch (IllegalArgumentException e) {
            throw new InvalidPropertyException(e.getMessage(), e);
        }
        return new OutboundSettings(servers, clientId, kafka, trustedObjectPackages, objectMessageLimits(),
                transactionalIdPrefix, xaLogTopic, metricsEnabled == null || metricsEnabled);
    }

    // ---------------------------------------------------------------------------------------------------------
    // ManagedConnectionFactory

    /** The connection factory applications use, allocating through the container's pool. */
    @Override
    public Object createConnectionFactory(ConnectionManager connectionManager) {
        return new TributaryConnectionFactoryHandle(this, connectionManager);
    }

    /**
     * A connection factory outside a container (a non-managed environment): every connection is a new managed
     * connection, destroyed when its handle closes. No pooling and no transaction enlistment.
     */
    @Override
    public Object createConnectionFactory() {
        return new TributaryConnectionFactoryHandle(this, new UnpooledConnectionManager());
    }

    /**
     * A new managed connection: one physical JMS connection to the cluster, logged in (over SASL) as the container's
     * credential for this factory in {@code subject} (container-managed sign-on), else as the application asked
     * ({@code createConnection(user, password)}), else as this factory's {@code user}. Kafka clients connect on first
     * use, so this does not fail when the cluster is down.
     */
    @Override
    public ManagedConnection createManagedConnection(Subject subject, ConnectionRequestInfo info)
            throws ResourceException {
        return new TributaryManagedConnection(this, settings(), login(subject, info), logWriter);
    }

    private ConnectionRequest login(Subject subject, ConnectionRequestInfo info) {
        return ConnectionRequest.resolve(subject, info, this, user == null ? ConnectionRequest.DEFAULT
                : new ConnectionRequest(user, password));
    }

    /**
     * The first connection in {@code connections} that this factory made for the same user and that is still
     * open; null if there is none. Pooled connections of one factory differ only by user.
     */
    @Override
    @SuppressWarnings("rawtypes")
    public ManagedConnection matchManagedConnections(Set connections, Subject subject, ConnectionRequestInfo info) {
        ConnectionRequest request = login(subject, info);
        for (Object candidate : connections) {
            if (candidate instanceof TributaryManagedConnection connection && equals(connection.factory())
                    && connection.request().equals(request) && connection.isOpen()) {
                return connection;
            }
        }
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter logWriter) {
        this.logWriter = logWriter;
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    // ---------------------------------------------------------------------------------------------------------
    // ResourceAdapterAssociation, TransactionSupport

    @Override
    public ResourceAdapter getResourceAdapter() {
        return resourceAdapter;
    }

    /** The adapter whose settings apply where this factory has none (when it implements TributaryAdapterSettings). */
    @Override
    public void setResourceAdapter(ResourceAdapter resourceAdapter) {
        this.resourceAdapter = resourceAdapter;
    }

    /**
     * XA, which includes local transactions: a container enlists the connection through its XAResource (two-phase
     * commit, recovery through the XA log) or, where its pool is configured so, through its LocalTransaction as a
     * one-phase last resource. Either way sends are held in the managed connection's session until the container
     * commits, so a rolled-back transaction publishes nothing.
     */
    @Override
    public TransactionSupportLevel getTransactionSupport() {
        return TransactionSupportLevel.XATransaction;
    }

    // ---------------------------------------------------------------------------------------------------------

    @Override
    public boolean equals(Object o) {
        return o instanceof TributaryManagedConnectionFactory other
                && Objects.equals(bootstrapServers, other.bootstrapServers)
                && Objects.equals(clientId, other.clientId)
                && Objects.equals(transactionalIdPrefix, other.transactionalIdPrefix)
                && Objects.equals(xaLogTopic, other.xaLogTopic)
                && Objects.equals(metricsEnabled, other.metricsEnabled)
                && Objects.equals(kafkaProperties, other.kafkaProperties)
                && Objects.equals(trustedObjectPackages, other.trustedObjectPackages)
                && Objects.equals(objectMessageMaxDepth, other.objectMessageMaxDepth)
                && Objects.equals(objectMessageMaxReferences, other.objectMessageMaxReferences)
                && Objects.equals(objectMessageMaxArrayLength, other.objectMessageMaxArrayLength)
                && Objects.equals(objectMessageMaxBytes, other.objectMessageMaxBytes)
                && Objects.equals(user, other.user) && Objects.equals(password, other.password)
                && security.equals(other.security);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, clientId, transactionalIdPrefix, xaLogTopic, metricsEnabled,
                kafkaProperties, trustedObjectPackages, objectMessageMaxDepth,
                objectMessageMaxReferences, objectMessageMaxArrayLength, objectMessageMaxBytes);
    }

    @Override
    public String toString() {
        return "TributaryManagedConnectionFactory[bootstrapServers=" + bootstrapServers + ", clientId=" + clientId
                + "]";
    }
}
