package io.tributary.jms.jndi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.SecuritySetting;
import io.tributary.jms.message.ObjectMessageLimits;

/**
 * The names under which a {@link TributaryConnectionFactory}'s settings are stored in JNDI: the same vocabulary for
 * the {@code StringRefAddr}s of its {@link javax.naming.Reference} and for the
 * {@code connectionFactory.<name>.<property>} entries of {@code jndi.properties}, so that one parser serves both.
 * <pre>
 *   bootstrapServers       host:port list                  setBootstrapServers
 *   clientId               JMS client id                   setClientId
 *   connectTimeout         milliseconds, 0: do not check   setConnectTimeout
 *   trustedObjectPackages  comma-separated allow-list      setTrustedObjectPackages
 *   objectMessageMaxDepth, objectMessageMaxReferences,     setObjectMessageMaxDepth, ...
 *   objectMessageMaxArrayLength, objectMessageMaxBytes
 *   plainRecordsAsText     true | false                    setPlainRecordsAsText
 *   startAt                committed | earliest | ...      setStartAt
 *   transactionalIdPrefix  prefix of transactional ids     setTransactionalIdPrefix
 *   queueMode              share | group                   setQueueMode
 *   subscriptionMode       share | group                   setSubscriptionMode
 *   deadLetterQueue        topic name                      setDeadLetterQueue
 *   maxDeliveries          1 or more                       setMaxDeliveries
 *   metricsEnabled         true (default) | false          setMetricsEnabled
 *   securityProtocol, saslMechanism, sslTruststoreLocation, ...  the security settings (SecuritySetting), stored
 *                          as the Kafka properties they are        setSecurityProtocol, ...
 *   kafka.&lt;property&gt;       any Kafka client property       setKafkaProperty(&lt;property&gt;, value)
 * </pre>
 *
 * <p>Stateless; any thread (the factory passed in is the caller's to guard).
 */
final class ConnectionFactoryProperties {

    static final String BOOTSTRAP_SERVERS = "bootstrapServers";
    static final String CLIENT_ID = "clientId";
    static final String CONNECT_TIMEOUT = "connectTimeout";
    static final String TRUSTED_OBJECT_PACKAGES = "trustedObjectPackages";
    // The names ObjectMessageLimits.Limit.property() gives in errors; constants here so that a switch can use them.
    static final String OBJECT_MESSAGE_MAX_DEPTH = "objectMessageMaxDepth";
    static final String OBJECT_MESSAGE_MAX_REFERENCES = "objectMessageMaxReferences";
    static final String OBJECT_MESSAGE_MAX_ARRAY_LENGTH = "objectMessageMaxArrayLength";
    static final String OBJECT_MESSAGE_MAX_BYTES = "objectMessageMaxBytes";
    static final String PLAIN_RECORDS_AS_TEXT = "plainRecordsAsText";
    static final String START_AT = "startAt";
    static final String TRANSACTIONAL_ID_PREFIX = "transactionalIdPrefix";
    static final String QUEUE_MODE = "queueMode";
    static final String SUBSCRIPTION_MODE = "subscriptionMode";
    static final String DEAD_LETTER_QUEUE = "deadLetterQueue";
    static final String MAX_DELIVERIES = "maxDeliveries";
    static final String METRICS_ENABLED = "metricsEnabled";
    static final String KAFKA_PREFIX = "kafka.";

    private ConnectionFactoryProperties() {
    }

    /**
     * The factory's settings by property name, in the order above (Kafka properties sorted); unset optional settings
     * (a null client id or allow-list) and a connect timeout or {@code ObjectMessage} limit at its default are left
     * out, so that reading them back leaves the factory's defaults.
     */
    static Map<String, String> of(TributaryConnectionFactory factory) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(BOOTSTRAP_SERVERS, factory.getBootstrapServers());
        if (factory.getClientId() != null) {
            properties.put(CLIENT_ID, factory.getClientId());
        }
        if (factory.getConnectTimeout() != TributaryConnectionFactory.DEFAULT_CONNECT_TIMEOUT_MS) {
            properties.put(CONNECT_TIMEOUT, Long.toString(factory.getConnectTimeout()));
        }
        if (factory.getTrustedObjectPackages() != null) {
            properties.put(TRUSTED_OBJECT_PACKAGES, factory.getTrustedObjectPackages());
        }
        ObjectMessageLimits limits = factory.getObjectMessageLimits();
        for (ObjectMessageLimits.Limit limit : ObjectMessageLimits.Limit.values()) {
            if (limits.of(limit) != ObjectMessageLimits.DEFAULT.of(limit)) {
                properties.put(limit.property(), Long.toString(limits.of(limit)));
            }
        }
        properties.put(PLAIN_RECORDS_AS_TEXT, Boolean.toString(factory.isPlainRecordsAsText()));
        properties.put(START_AT, factory.getStartAt());
        if (factory.getTransactionalIdPrefix() != null) {
            properties.put(TRANSACTIONAL_ID_PREFIX, factory.getTransactionalIdPrefix());
        }
        if (!factory.getQueueMode().equals(QueueMode.SHARE.text())) {
            properties.put(QUEUE_MODE, factory.getQueueMode());
        }
        if (!factory.getSubscriptionMode().equals(QueueMode.SHARE.text())) {
            properties.put(SUBSCRIPTION_MODE, factory.getSubscriptionMode());
        }
        if (factory.getDeadLetterQueue() != null) {
            properties.put(DEAD_LETTER_QUEUE, factory.getDeadLetterQueue());
        }
        if (factory.getMaxDeliveries() != DeadLetterPolicy.DEFAULT_MAX_DELIVERIES) {
            properties.put(MAX_DELIVERIES, Integer.toString(factory.getMaxDeliveries()));
        }
        if (!factory.isMetricsEnabled()) {
            properties.put(METRICS_ENABLED, "false");
        }
        Properties kafka = factory.getKafkaProperties();
        for (String name : new TreeSet<>(kafka.stringPropertyNames())) {
            properties.put(KAFKA_PREFIX + name, kafka.getProperty(name));
        }
        return properties;
    }

    /**
     * Sets the factory's setting named {@code property} to {@code value}.
     *
     * @throws IllegalArgumentException if the property is unknown or the value illegal; the message names the
     *         property but not where it came from, which the caller adds
     */
    static void apply(TributaryConnectionFactory factory, String property, String value) {
        if (value == null) {
            throw new IllegalArgumentException(property + " has no value");
        }
        switch (property) {
            case BOOTSTRAP_SERVERS -> factory.setBootstrapServers(value);
            case CLIENT_ID -> factory.setClientId(value);
            case CONNECT_TIMEOUT -> factory.setConnectTimeout(parseLong(property, value));
            case TRUSTED_OBJECT_PACKAGES -> factory.setTrustedObjectPackages(value);
            case OBJECT_MESSAGE_MAX_DEPTH -> factory.setObjectMessageMaxDepth(parseLong(property, value));
            case OBJECT_MESSAGE_MAX_REFERENCES -> factory.setObjectMessageMaxReferences(parseLong(property, value));
            case OBJECT_MESSAGE_MAX_ARRAY_LENGTH -> factory.setObjectMessageMaxArrayLength(parseLong(property, value));
            case OBJECT_MESSAGE_MAX_BYTES -> factory.setObjectMessageMaxBytes(parseLong(property, value));
            case PLAIN_RECORDS_AS_TEXT -> factory.setPlainRecordsAsText(parseBoolean(property, value));
            case START_AT -> factory.setStartAt(value);
            case TRANSACTIONAL_ID_PREFIX -> factory.setTransactionalIdPrefix(value);
            case QUEUE_MODE -> factory.setQueueMode(value);
            case SUBSCRIPTION_MODE -> factory.setSubscriptionMode(value);
            case DEAD_LETTER_QUEUE -> factory.setDeadLetterQueue(value);
            case MAX_DELIVERIES -> factory.setMaxDeliveries(Math.toIntExact(parseLong(property, value)));
            case METRICS_ENABLED -> factory.setMetricsEnabled(parseBoolean(property, value));
            default -> {
                for (SecuritySetting setting : SecuritySetting.values()) {
                    if (setting.beanName().equals(property)) {
                        String normalized = setting.normalize(value);
                        if (normalized != null) {
                            factory.setKafkaProperty(setting.kafkaName(), normalized);
                        }
                        return;
                    }
                }
                if (!property.startsWith(KAFKA_PREFIX) || property.length() == KAFKA_PREFIX.length()) {
                    throw new IllegalArgumentException("unknown connection factory property '" + property
                            + "'; known: " + BOOTSTRAP_SERVERS + ", " + CLIENT_ID + ", " + CONNECT_TIMEOUT + ", "
                            + TRUSTED_OBJECT_PACKAGES + ", " + OBJECT_MESSAGE_MAX_DEPTH + ", "
                            + OBJECT_MESSAGE_MAX_REFERENCES + ", " + OBJECT_MESSAGE_MAX_ARRAY_LENGTH + ", "
                            + OBJECT_MESSAGE_MAX_BYTES + ", " + PLAIN_RECORDS_AS_TEXT + ", " + START_AT + ", "
                            + TRANSACTIONAL_ID_PREFIX + ", " + QUEUE_MODE + ", " + SUBSCRIPTION_MODE + ", "
                            + DEAD_LETTER_QUEUE + ", " + MAX_DELIVERIES + ", " + METRICS_ENABLED + ", "
                            + java.util.Arrays.stream(SecuritySetting.values()).map(SecuritySetting::beanName)
                                    .collect(java.util.stream.Collectors.joining(", ")) + ", "
                            + KAFKA_PREFIX + "<Kafka client property>");
                }
                factory.setKafkaProperty(property.substring(KAFKA_PREFIX.length()), value);
            }
        }
    }

    private static long parseLong(String property, String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a whole number, not '" + value + "'", e);
        }
    }

    // Boolean.parseBoolean reads every typo ("ture", "yes") as false: a silently ignored setting.
    private static boolean parseBoolean(String property, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(property + " must be true or false, not '" + value + "'");
    }
}
