package io.tributary.jms;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import javax.naming.Reference;
import javax.naming.Referenceable;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicConnectionFactory;

import io.tributary.jms.jndi.TributaryObjectFactory;
import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.SaslLogin;
import io.tributary.jms.kafka.SecuritySetting;
import io.tributary.jms.kafka.XaLog;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;

/**
 * The entry point of Tributary's Jakarta Messaging provider: creates connections to a Tributary (or any Kafka)
 * cluster. Configured with JavaBean properties, so that JNDI, CDI and application servers can set it up:
 * <ul>
 *   <li>{@code bootstrapServers}: the cluster's {@code host:port} list (default {@code 127.0.0.1:9092});</li>
 *   <li>{@code clientId}: the JMS client id of connections made by this factory (durable subscriptions need one),
 *       claimed across the cluster when a connection is created: one live connection holds it at a time;</li>
 *   <li>{@code kafkaProperties}: Kafka client properties passed through to every producer, consumer and admin
 *       client (for example {@code security.protocol}, {@code request.timeout.ms}), or, prefixed
 *       {@code producer.}, {@code consumer.} or {@code admin.}, to one kind of client; a prefixed property beats
 *       the same one without a prefix. The properties JMS semantics own ({@code group.id},
 *       {@code enable.auto.commit}, {@code auto.offset.reset}, the (de)serializers, {@code transactional.id}) are
 *       refused ({@link KafkaClientConfig});</li>
 *   <li>{@code connectTimeout}: milliseconds {@code createConnection} and {@code createContext} wait for the
 *       cluster to answer before failing with a {@link JMSException} that says it is unreachable (default
 *       10,000); 0 creates connections without asking, the Kafka clients then connect on first use;</li>
 *   <li>{@code trustedObjectPackages}: packages and classes an {@code ObjectMessage} may deserialize (comma
 *       separated; {@code *} allows all), default {@code java.util,java.math,java.time} besides java.lang's;</li>
 *   <li>{@code objectMessageMaxDepth}, {@code objectMessageMaxReferences}, {@code objectMessageMaxArrayLength},
 *       {@code objectMessageMaxBytes}: how much deserializing an {@code ObjectMessage} body may cost, defaults 20,
 *       1,000,000, 1,048,576 and 16 MiB ({@link ObjectMessageLimits});</li>
 *   <li>{@code plainRecordsAsText}: whether records written by plain Kafka producers arrive as {@code TextMessage}
 *       (UTF-8) rather than {@code BytesMessage};</li>
 *   <li>{@code startAt}: where consumers start (replay): {@code committed}, {@code earliest}, {@code latest}, an
 *       ISO-8601 instant or {@code partition:offset} pairs ({@link StartPosition});</li>
 *   <li>{@code transactionalIdPrefix}: the prefix of the Kafka transactional ids with which transacted sessions
 *       commit ({@code <prefix>-<slot>}); one per application instance, the same after a restart, so that the
 *       restarted instance fences its predecessor; without it each connection picks a random one;</li>
 *   <li>{@code queueMode}: {@code share} (default), the receivers of a queue are members of its Kafka share group
 *       and consume in parallel whatever the partition count, or {@code group}, its classic consumer group (one
 *       receiver per partition, offset order, transactions that consume atomically) ({@link QueueMode});</li>
 *   <li>{@code subscriptionMode}: {@code share} (default), the consumers of a shared topic subscription
 *       ({@code createSharedConsumer}, {@code createSharedDurableConsumer}) are members of the subscription's Kafka
 *       share group, or {@code group}, of its classic consumer group;</li>
 *   <li>{@code deadLetterQueue}, {@code maxDeliveries}: a share-group queue's message that fails again on its
 *       {@code maxDeliveries}-th delivery (default 5, the broker's delivery limit) goes to the dead-letter queue, or
 *       without one is rejected ({@link DeadLetterPolicy});</li>
 *   <li>{@code securityProtocol} ({@code PLAINTEXT}, {@code SSL}, {@code SASL_PLAINTEXT}, {@code SASL_SSL}),
 *       {@code saslMechanism}, {@code sslTruststoreLocation}, {@code sslTruststorePassword},
 *       {@code sslTruststoreType}, {@code sslKeystoreLocation}, {@code sslKeystorePassword}, {@code sslKeystoreType},
 *       {@code sslKeyPassword}: the Kafka client properties of the same meaning ({@code security.protocol},
 *       {@code sasl.mechanism}, {@code ssl.truststore.location}, ...), kept among the {@code kafkaProperties}. Over
 *       SASL, {@code createConnection(user, password)} logs in as that user ({@link SaslLogin}: the
 *       {@code saslMechanism}, SCRAM-SHA-512 by default), and a connection over SSL or SASL authenticates before it
 *       is returned: bad credentials or an untrusted certificate fail it with a {@code JMSSecurityException};</li>
 *   <li>{@code metricsEnabled}: whether connections publish JMX beans {@code io.tributary.jms:type=destination-metrics}
 *       (default true; {@link ConnectionMetrics}).</li>
 * </ul>
 *
 * <p>Serializable, so it can be bound in JNDI. Setters are meant for configuration before use; connections copy the
 * settings they start with.
 */
public class TributaryConnectionFactory implements ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory,
        Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    /**
     * How long creating a connection waits for the cluster by default: Kafka's own default for setting up one
     * socket ({@code socket.connection.setup.timeout.ms}), so a broker that is slow to accept is not taken for
     * an absent one.
     */
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

    private String bootstrapServers = "127.0.0.1:9092";
    private String clientId;
    private Properties kafkaProperties = new Properties();
    private long connectTimeout = DEFAULT_CONNECT_TIMEOUT_MS;
    private String trustedObjectPackages;
    private ObjectMessageLimits objectMessageLimits = ObjectMessageLimits.DEFAULT;
    private boolean plainRecordsAsText;
    private StartPosition startAt = StartPosition.committed();
    private String transactionalIdPrefix;
    private String xaLogTopic = XaLog.DEFAULT_TOPIC;
    /** Null in a factory serialized before it existed, which then uses the default, {@code share}. */
    private QueueMode queueMode = QueueMode.SHARE;
    /** Null in a factory serialized before it existed, which then uses the default, {@code share}. */
    private QueueMode subscriptionMode = QueueMode.SHARE;
    /** Null in a factory serialized before it existed, which then uses the default. */
    private DeadLetterPolicy deadLetters = DeadLetterPolicy.DEFAULT;
    /**
     * The wall clock of this factory's connections; the system's except in tests of time-dependent behaviour. Null
     * in a factory serialized before it existed, which then uses the system's.
     */
    private Clock clock;
    /**
     * Negated so that a factory serialized before the setting existed (false) keeps the default: metrics on, as the
     * Kafka clients' own.
     */
    private boolean metricsDisabled;

    public TributaryConnectionFactory() {
        this.clock = Clock.systemUTC();
    }

    public TributaryConnectionFactory(String bootstrapServers) {
        this(bootstrapServers, Clock.systemUTC());
    }

    /**
     * A factory whose connections read the time from {@code clock}: the JMSTimestamp, JMSExpiration and
     * JMSDeliveryTime of what they send, and whether what they receive has expired or is due.
     */
    TributaryConnectionFactory(String bootstrapServers, Clock clock) {
        setBootstrapServers(bootstrapServers);
        this.clock = clock;
    }

    public String getBootstrapServers() {
        return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrapServers must name at least one host:port");
        }
        this.bootstrapServers = bootstrapServers.trim();
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId == null || clientId.isEmpty() ? null : clientId;
    }

    /** A copy of the Kafka client properties passed through. */
    public Properties getKafkaProperties() {
        Properties copy = new Properties();
        copy.putAll(kafkaProperties);
        return copy;
    }

    /**
     * Replaces the pass-through Kafka client properties.
     *
     * @throws io.tributary.jms.kafka.OwnedPropertyException (an IllegalArgumentException) for a property that JMS
     *         semantics own; the factory then keeps its properties
     */
    public void setKafkaProperties(Properties kafkaProperties) {
        Properties copy = new Properties();
        if (kafkaProperties != null) {
            copy.putAll(kafkaProperties);
        }
        copy.stringPropertyNames().forEach(KafkaClientConfig::checkNotOwned);
        this.kafkaProperties = copy;
    }

    /**
     * Sets one pass-through Kafka client property.
     *
     * @throws io.tributary.jms.kafka.OwnedPropertyException (an IllegalArgumentException) for a property that JMS
     *         semantics own
     */
    public void setKafkaProperty(String name, String value) {
        KafkaClientConfig.checkNotOwned(name);
        kafkaProperties.setProperty(name, value);
    }

    // Security ({@link SecuritySetting}): each setting is the Kafka client property of the same meaning, kept among
    // the kafkaProperties.

    public String getSecurityProtocol() {
        return kafkaProperties.getProperty(SecuritySetting.SECURITY_PROTOCOL.kafkaName());
    }

    /**
     * The Kafka clients' {@code security.protocol}: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
     *
     * @throws IllegalArgumentException if not one of them
     */
    public void setSecurityProtocol(String value) {
        setSecurity(SecuritySetting.SECURITY_PROTOCOL, value);
    }

    public String getSaslMechanism() {
        return kafkaProperties.getProperty(SecuritySetting.SASL_MECHANISM.kafkaName());
    }

    /** The Kafka clients' {@code sasl.mechanism}; a user and password log in with PLAIN or SCRAM-SHA-256/512. */
    public void setSaslMechanism(String value) {
        setSecurity(SecuritySetting.SASL_MECHANISM, value);
    }

    public String getSslTruststoreLocation() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_TRUSTSTORE_LOCATION.kafkaName());
    }

    /** The {@code ssl.truststore.location}. */
    public void setSslTruststoreLocation(String value) {
        setSecurity(SecuritySetting.SSL_TRUSTSTORE_LOCATION, value);
    }

    public String getSslTruststorePassword() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_TRUSTSTORE_PASSWORD.kafkaName());
    }

    /** The {@code ssl.truststore.password}. */
    public void setSslTruststorePassword(String value) {
        setSecurity(SecuritySetting.SSL_TRUSTSTORE_PASSWORD, value);
    }

    public String getSslTruststoreType() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_TRUSTSTORE_TYPE.kafkaName());
    }

    /** The {@code ssl.truststore.type}. */
    public void setSslTruststoreType(String value) {
        setSecurity(SecuritySetting.SSL_TRUSTSTORE_TYPE, value);
    }

    public String getSslKeystoreLocation() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_KEYSTORE_LOCATION.kafkaName());
    }

    /** The {@code ssl.keystore.location}. */
    public void setSslKeystoreLocation(String value) {
        setSecurity(SecuritySetting.SSL_KEYSTORE_LOCATION, value);
    }

    public String getSslKeystorePassword() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_KEYSTORE_PASSWORD.kafkaName());
    }

    /** The {@code ssl.keystore.password}. */
    public void setSslKeystorePassword(String value) {
        setSecurity(SecuritySetting.SSL_KEYSTORE_PASSWORD, value);
    }

    public String getSslKeystoreType() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_KEYSTORE_TYPE.kafkaName());
    }

    /** The {@code ssl.keystore.type}. */
    public void setSslKeystoreType(String value) {
        setSecurity(SecuritySetting.SSL_KEYSTORE_TYPE, value);
    }

    public String getSslKeyPassword() {
        return kafkaProperties.getProperty(SecuritySetting.SSL_KEY_PASSWORD.kafkaName());
    }

    /** The {@code ssl.key.password}. */
    public void setSslKeyPassword(String value) {
        setSecurity(SecuritySetting.SSL_KEY_PASSWORD, value);
    }

    private void setSecurity(SecuritySetting setting, String value) {
        setting.put(kafkaProperties, value);
    }

    /** Whether connections publish their metrics through JMX (default true). */
    public boolean isMetricsEnabled() {
        return !metricsDisabled;
    }

    /**
     * Whether connections publish their metrics as {@code io.tributary.jms:type=destination-metrics} beans
     * ({@link ConnectionMetrics}); true by default, like the Kafka clients' own metrics, which this setting does not
     * affect (they follow the pass-through Kafka property {@code metric.reporters}).
     */
    public void setMetricsEnabled(boolean enabled) {
        this.metricsDisabled = !enabled;
    }

    /** Milliseconds a new connection waits for the cluster to answer; 0: it does not ask. */
    public long getConnectTimeout() {
        return connectTimeout;
    }

    /**
     * How long {@code createConnection} and {@code createContext} wait for a broker of the cluster to answer before
     * they fail; 0 skips the check (the connection is then created at once, and a missing cluster shows only when
     * it is first used).
     *
     * @throws IllegalArgumentException if negative
     */
    public void setConnectTimeout(long connectTimeoutMs) {
        if (connectTimeoutMs < 0) {
            throw new IllegalArgumentException("connectTimeout must be 0 (do not check) or more milliseconds, not "
                    + connectTimeoutMs);
        }
        this.connectTimeout = connectTimeoutMs;
    }

    public String getTrustedObjectPackages() {
        return trustedObjectPackages;
    }

    public void setTrustedObjectPackages(String trustedObjectPackages) {
        if (trustedObjectPackages != null) {
            ObjectMessageAllowList.parse(trustedObjectPackages); // refuses a malformed list now, not at receive
        }
        this.trustedObjectPackages = trustedObjectPackages;
    }

    /** What deserializing an {@code ObjectMessage} body may cost, as the four properties below set it. */
    public ObjectMessageLimits getObjectMessageLimits() {
        return objectMessageLimits;
    }

    public long getObjectMessageMaxDepth() {
        return objectMessageLimits.maxDepth();
    }

    /** @throws IllegalArgumentException if below 1 */
    public void setObjectMessageMaxDepth(long maxDepth) {
        objectMessageLimits = objectMessageLimits.withMaxDepth(maxDepth);
    }

    public long getObjectMessageMaxReferences() {
        return objectMessageLimits.maxReferences();
    }

    /** @throws IllegalArgumentException if below 1 */
    public void setObjectMessageMaxReferences(long maxReferences) {
        objectMessageLimits = objectMessageLimits.withMaxReferences(maxReferences);
    }

    public long getObjectMessageMaxArrayLength() {
        return objectMessageLimits.maxArrayLength();
    }

    /** @throws IllegalArgumentException if below 1 */
    public void setObjectMessageMaxArrayLength(long maxArrayLength) {
        objectMessageLimits = objectMessageLimits.withMaxArrayLength(maxArrayLength);
    }

    public long getObjectMessageMaxBytes() {
        return objectMessageLimits.maxBytes();
    }

    /** @throws IllegalArgumentException if below 1 */
    public void setObjectMessageMaxBytes(long maxBytes) {
        objectMessageLimits = objectMessageLimits.withMaxBytes(maxBytes);
    }

    public boolean isPlainRecordsAsText() {
        return plainRecordsAsText;
    }

    public void setPlainRecordsAsText(boolean plainRecordsAsText) {
        this.plainRecordsAsText = plainRecordsAsText;
    }

    /** Where consumers of this factory's connections start (replay by configuration), as text. */
    public String getStartAt() {
        return startAt.toString();
    }

    /**
     * Where consumers start: {@code committed} (default), {@code earliest}, {@code latest}, an ISO-8601 instant, or
     * {@code partition:offset} pairs; see {@link StartPosition}. Applies to every consumer of this factory's
     * connections that does not name a position through the typed API.
     *
     * @throws IllegalArgumentException naming the value and the accepted forms
     */
    public void setStartAt(String startAt) {
        this.startAt = StartPosition.parse(startAt);
    }

    public String getTransactionalIdPrefix() {
        return transactionalIdPrefix;
    }

    /**
     * The prefix of the transactional ids of transacted sessions ({@code <prefix>-0}, {@code <prefix>-1}, ... as
     * many as commits run at once). Give each application instance its own, and keep it across restarts: a new
     * instance's first commits fence the old instance's producers and abort what it left open. Connections of one
     * JVM with the same prefix share their producers. Null or empty: a random prefix per connection.
     *
     * @throws IllegalArgumentException if it holds characters a Kafka transactional id should not
     */
    public void setTransactionalIdPrefix(String transactionalIdPrefix) {
        if (transactionalIdPrefix == null || transactionalIdPrefix.isEmpty()) {
            this.transactionalIdPrefix = null;
            return;
        }
        if (!transactionalIdPrefix.matches("[a-zA-Z0-9._-]+")) {
            throw new IllegalArgumentException("transactionalIdPrefix may hold only letters, digits, '.', '_' and "
                    + "'-', not '" + transactionalIdPrefix + "'");
        }
        this.transactionalIdPrefix = transactionalIdPrefix;
    }

    public String getXaLogTopic() {
        return xaLogTopic;
    }

    /**
     * The compacted topic where XA branches record their prepared state ({@link XaLog}), created on first use;
     * every application of a cluster that uses XA may share it. Null or empty: {@value XaLog#DEFAULT_TOPIC}.
     *
     * @throws IllegalArgumentException if it is not a legal topic name
     */
    public void setXaLogTopic(String xaLogTopic) {
        if (xaLogTopic == null || xaLogTopic.isEmpty()) {
            this.xaLogTopic = XaLog.DEFAULT_TOPIC;
            return;
        }
        if (!xaLogTopic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new IllegalArgumentException("xaLogTopic must be a topic name (letters, digits, '.', '_', '-'), "
                    + "not '" + xaLogTopic + "'");
        }
        this.xaLogTopic = xaLogTopic;
    }

    /** {@code share} or {@code group}: how the receivers of a queue share it. */
    public String getQueueMode() {
        return queueMode().text();
    }

    /**
     * {@code share} (default): a queue's receivers are members of its Kafka share group; {@code group}: of its
     * classic consumer group ({@link QueueMode}; docs/jms-mapping.md says when to choose which).
     *
     * @throws IllegalArgumentException for another value
     */
    public void setQueueMode(String queueMode) {
        this.queueMode = QueueMode.parse(queueMode);
    }

    private QueueMode queueMode() {
        return queueMode == null ? QueueMode.SHARE : queueMode;
    }

    /** {@code share} or {@code group}: how the consumers of a shared topic subscription share it. */
    public String getSubscriptionMode() {
        return subscriptionMode().text();
    }

    /**
     * {@code share} (default): the consumers of a shared subscription are members of its Kafka share group, each
     * waiting consumer receives whatever the partition count; {@code group}: of its classic consumer group, one
     * consumer per partition (docs/jms-mapping.md, "Shared subscriptions").
     *
     * @throws IllegalArgumentException for another value
     */
    public void setSubscriptionMode(String subscriptionMode) {
        this.subscriptionMode = QueueMode.parse(subscriptionMode, "subscriptionMode");
    }

    private QueueMode subscriptionMode() {
        return subscriptionMode == null ? QueueMode.SHARE : subscriptionMode;
    }

    private DeadLetterPolicy deadLetters() {
        return deadLetters == null ? DeadLetterPolicy.DEFAULT : deadLetters;
    }

    /** The queue (topic) where share-group queue receivers put messages that keep failing, or null. */
    public String getDeadLetterQueue() {
        return deadLetters().topic();
    }

    /**
     * Where a share-group queue's message goes once it failed again on its {@link #getMaxDeliveries()}-th delivery;
     * null or empty: it is rejected (archived by the broker) instead.
     *
     * @throws IllegalArgumentException if it is not a legal topic name
     */
    public void setDeadLetterQueue(String deadLetterQueue) {
        String topic = deadLetterQueue == null || deadLetterQueue.isEmpty() ? null : deadLetterQueue;
        deadLetters = new DeadLetterPolicy(deadLetters().maxDeliveries(), topic);
    }

    public int getMaxDeliveries() {
        return deadLetters().maxDeliveries();
    }

    /**
     * How many deliveries a share-group queue's message gets before a further failure dead-letters (or rejects) it;
     * default 5, the broker's {@code group.share.delivery.count.limit}, which it should not exceed.
     *
     * @throws IllegalArgumentException if below 1
     */
    public void setMaxDeliveries(int maxDeliveries) {
        deadLetters = new DeadLetterPolicy(maxDeliveries, deadLetters().topic());
    }

    /**
     * The settings a new connection of {@code user} starts with: over SASL, logged in as the user with
     * {@code password} ({@link SaslLogin}) when a user is given.
     *
     * @throws JMSSecurityException if the user cannot log in with the configured mechanism (not PLAIN or SCRAM) or
     *                              has no password
     */
    ConnectionSettings settings(String user, String password) throws JMSSecurityException {
        Map<String, String> kafka = new TreeMap<>();
        for (String name : kafkaProperties.stringPropertyNames()) {
            kafka.put(name, kafkaProperties.getProperty(name));
        }
        KafkaClientConfig config = KafkaClientConfig.of(bootstrapServers, kafka);
        if (user != null && SaslLogin.isSasl(kafka)) {
            String mechanism = SaslLogin.mechanism(kafka);
            try {
                config = config.withSaslLogin(mechanism, SaslLogin.jaasConfig(mechanism, user, password));
            } catch (IllegalArgumentException e) {
                throw new JMSSecurityException("User " + user + " cannot log in to the cluster at " + bootstrapServers
                        + ": " + e.getMessage());
            }
        }
        ObjectMessageAllowList allowList = trustedObjectPackages == null ? ObjectMessageAllowList.DEFAULT
                : ObjectMessageAllowList.parse(trustedObjectPackages);
        return new ConnectionSettings(config, clientId, allowList,
                objectMessageLimits, plainRecordsAsText, startAt, user, Duration.ofMillis(connectTimeout),
                clock == null ? Clock.systemUTC() : clock, transactionalIdPrefix, xaLogTopic, queueMode(),
                subscriptionMode(), deadLetters(), !metricsDisabled);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Classic API: each method fails with a JMSException saying the cluster is unreachable when no broker at
    // bootstrapServers answers within connectTimeout.

    @Override
    public Connection createConnection() throws JMSException {
        return TributaryConnection.open(settings(null, null));
    }

    /**
     * A connection as {@code userName}: over SASL ({@code securityProtocol} SASL_PLAINTEXT or SASL_SSL), its Kafka
     * clients log in as that user with {@code password}, and the login is checked before the connection is returned;
     * without SASL the cluster does not authenticate and the password is not used.
     *
     * @throws JMSSecurityException if the cluster refuses the login, saying why
     */
    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return TributaryConnection.open(settings(userName, password));
    }

    /**
     * A connection of an application server's pool, made by Tributary's resource adapter: it uses the factory's
     * {@code clientId} without claiming it, because the pool's connections, handed out one by one to the
     * application's components, are one client together (ActiveMQ Artemis's adapter shares its client id the same
     * way). Applications call {@link #createConnection()}, which claims it; the adapter refuses
     * {@code setClientID} on its handles.
     */
    public Connection createPooledConnection(String userName, String password) throws JMSException {
        return TributaryConnection.openSharingClientId(settings(userName, password));
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return TributaryConnection.open(settings(null, null));
    }

    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return TributaryConnection.open(settings(userName, password));
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return TributaryConnection.open(settings(null, null));
    }

    @Override
    public TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return TributaryConnection.open(settings(userName, password));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Simplified API

    @Override
    public JMSContext createContext() {
        return createContext(null, null, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        return createContext(null, null, sessionMode);
    }

    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        TributaryConnection connection;
        try {
            connection = TributaryConnection.open(settings(userName, password));
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
        try {
            return new TributaryJMSContext(connection, sessionMode);
        } catch (JMSException e) {
            try {
                connection.close();
            } catch (JMSException ignored) {
                // nothing was opened yet
            }
            throw JmsErrors.runtime(e);
        }
    }

    /**
     * A JNDI reference holding every setting as a {@code StringRefAddr} ({@code bootstrapServers}, {@code clientId},
     * {@code connectTimeout}, {@code trustedObjectPackages}, the {@code objectMessageMax...} limits,
     * {@code plainRecordsAsText}, {@code startAt}, {@code transactionalIdPrefix}, {@code kafka.<property>}), which
     * {@link TributaryObjectFactory} turns back into an equally configured factory.
     */
    @Override
    public Reference getReference() {
        return TributaryObjectFactory.referenceTo(this);
    }

    @Override
    public String toString() {
        return "TributaryConnectionFactory[bootstrapServers=" + bootstrapServers + ", clientId=" + clientId + "]";
    }
}
