package io.tributary.ra.inbound;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import javax.naming.NamingException;

import io.tributary.jms.StartPosition;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;
import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.KafkaPropertiesText;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.jms.selector.MessageSelector;
import io.tributary.ra.TributaryAdapterSettings;
import io.tributary.ra.TributaryResourceAdapter;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import jakarta.resource.spi.InvalidPropertyException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * An activation's settings, checked and typed once: built from a {@link TributaryActivationSpec}, the resource
 * adapter's defaults and, when the spec names them, a connection factory and a destination in JNDI. Nothing after
 * this reads the spec's strings.
 *
 * <p>Precedence: a property set on the activation spec wins; then the looked-up connection factory's setting
 * ({@code connectionFactoryLookup}: bootstrap servers, client id, Kafka properties, {@code plainRecordsAsText},
 * {@code trustedObjectPackages}, the {@code objectMessageMax...} limits); then the resource adapter's
 * ({@code bootstrapServers}, {@code kafkaProperties}); then the default. Kafka properties merge in that order, name by name. {@code destinationLookup} wins over
 * {@code destination}.
 *
 * <p>Kafka clients: the adapter's defaults (below) under the provider's {@link KafkaClientConfig}, which applies the
 * pass-through properties (a prefixed one beats the same one without a prefix) and refuses those that carry the
 * delivery contract ({@code group.id}, {@code enable.auto.commit}, {@code auto.offset.reset}, the (de)serializers,
 * {@code transactional.id}) rather than silently overriding them.
 *
 * <p>Immutable; any thread.
 */
final class ActivationConfig {

    enum AcknowledgeMode { AUTO, DUPS_OK }

    static final int DEFAULT_MAX_SESSION = 15;
    static final int DEFAULT_MAX_REDELIVERIES = 5;
    /**
     * Between a failed delivery and the next: OpenMQ's default interval (Payara's own JMS adapter). Redelivering at
     * once let a failure that lasts a moment use up every redelivery: Payara unbinds an application's resources while
     * its MDB still receives during undeployment, and a message delivered in those 50-100 ms failed six times in 23 ms
     * and was skipped, although the next deployment would have taken it.
     */
    static final long DEFAULT_REDELIVERY_DELAY_MS = 500;

    /**
     * Reconnection back-off of the Kafka clients: 1 s doubling to 30 s (Kafka's defaults are 50 ms to 1 s). While a
     * cluster is away this bounds the reconnection attempts, and the client's warning about each, to one per 30 s per
     * activation instead of one per second; when it is back, delivery resumes within the current step.
     */
    static final int RECONNECT_BACKOFF_MS = 1_000;
    static final int RECONNECT_BACKOFF_MAX_MS = 30_000;

    /** The consumer's, over the provider's: reconnection back-off, for a cluster that is away. */
    private static final Map<String, Object> CONSUMER_DEFAULTS = Map.of(
            ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, RECONNECT_BACKOFF_MS,
            ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, RECONNECT_BACKOFF_MAX_MS);
    /**
     * The dead-letter producer's: a dead letter that cannot be written within 15 s is retried later (DeadLetters
     * waits a little longer than this, so that it sees the producer's verdict rather than giving up on a send that
     * may still succeed).
     */
    private static final Map<String, Object> PRODUCER_DEFAULTS = Map.of(
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000,
            ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, RECONNECT_BACKOFF_MS,
            ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, RECONNECT_BACKOFF_MAX_MS);
    private static final Map<String, Object> ADMIN_DEFAULTS = Map.of(
            CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
            CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    private static final String CONSUMER_PREFIX = KafkaClientConfig.Kind.CONSUMER.prefix();

    /** A JNDI lookup: {@code InitialContext} in a server, a map in tests. */
    @FunctionalInterface
    interface Jndi {
        Object lookup(String name) throws NamingException;
    }

    private final Subscription subscription;
    private final Destination destination;
    private final MessageSelector selector;
    private final AcknowledgeMode acknowledgeMode;
    private final StartPosition startAt;
    private final int maxSession;
    private final int maxRedeliveries;
    private final long redeliveryDelayMs;
    private final String deadLetterTopic;
    private final KafkaClientConfig kafka;
    private final boolean plainRecordsAsText;
    private final ObjectMessageAllowList allowList;
    private final ObjectMessageLimits objectLimits;

    private ActivationConfig(Builder b) {
        this.subscription = b.subscription;
        this.destination = b.destination;
        this.selector = b.selector;
        this.acknowledgeMode = b.acknowledgeMode;
        this.startAt = b.startAt;
        this.maxSession = b.maxSession;
        this.maxRedeliveries = b.maxRedeliveries;
        this.redeliveryDelayMs = b.redeliveryDelayMs;
        this.deadLetterTopic = b.deadLetterTopic;
        this.kafka = b.kafka;
        this.plainRecordsAsText = b.plainRecordsAsText;
        this.allowList = b.allowList;
        this.objectLimits = b.objectLimits;
    }

    /**
     * Checks the spec and builds the configuration.
     *
     * @param ra   the resource adapter whose defaults apply, or null (not yet associated)
     * @param jndi resolves destinationLookup and connectionFactoryLookup; null to check only what needs no JNDI
     *             (then the result is null when the destination is known only by its JNDI name)
     * @throws InvalidPropertyException whose message starts with the name of the first wrong property
     */
    static ActivationConfig resolve(TributaryActivationSpec spec, TributaryAdapterSettings ra, Jndi jndi)
            throws InvalidPropertyException {
        Builder b = new Builder();
        TributaryConnectionFactory factory = connectionFactory(spec, jndi);

        Boolean declaredQueue = destinationType(spec.getDestinationType());
        String topic = null;
        boolean queue;
        String lookupName = blankToNull(spec.getDestinationLookup());
        if (lookupName != null) {
            queue = declaredQueue == null || declaredQueue;
            if (jndi != null) {
                Object found = lookup(jndi, "destinationLookup", lookupName);
                if (!(found instanceof Queue) && !(found instanceof Topic)) {
                    throw invalid("destinationLookup", "'" + lookupName + "' is a "
                            + (found == null ? "null" : found.getClass().getName())
                            + ", not a jakarta.jms.Queue or jakarta.jms.Topic");
                }
                boolean foundQueue = found instanceof Queue;
                if (declaredQueue != null && declaredQueue != foundQueue) {
                    throw invalid("destinationType", "is " + spec.getDestinationType() + " but destinationLookup '"
                            + lookupName + "' is a " + (foundQueue ? "Queue" : "Topic"));
                }
                queue = foundQueue;
                try {
                    topic = foundQueue ? ((Queue) found).getQueueName() : ((Topic) found).getTopicName();
                } catch (JMSException e) {
                    throw invalid("destinationLookup", "cannot read the name of '" + lookupName + "': "
                            + e.getMessage(), e);
                }
                b.destination = destination("destinationLookup", topic, queue);
            }
        } else if (blankToNull(spec.getDestination()) != null) {
            queue = declaredQueue == null || declaredQueue;
            topic = spec.getDestination().trim();
            b.destination = destination("destination", topic, queue);
        } else {
            throw invalid("destination", "is not set: set destination (the queue or topic name) or"
                    + " destinationLookup (a JNDI name)");
        }

        try {
            b.selector = MessageSelector.parse(spec.getMessageSelector());
        } catch (InvalidSelectorException e) {
            throw invalid("messageSelector", e.getMessage(), e);
        }
        b.acknowledgeMode = acknowledgeMode(spec.getAcknowledgeMode());
        boolean durable = durable(spec.getSubscriptionDurability());
        boolean shared = Boolean.TRUE.equals(spec.getShareSubscriptions());
        String clientId = blankToNull(spec.getClientId());
        if (clientId == null && factory != null) {
            clientId = factory.getClientId();
        }
        String name = blankToNull(spec.getSubscriptionName());
        if (!queue) {
            if (durable && name == null) {
                throw invalid("subscriptionName", "is not set: a durable subscription needs a name");
            }
            if (durable && !shared && clientId == null) {
                throw invalid("clientId", "is not set: an unshared durable subscription is identified by client id"
                        + " and name (or set shareSubscriptions=true)");
            }
            if (shared && name == null) {
                throw invalid("subscriptionName", "is not set: a shared subscription needs a name");
            }
        }

        b.maxSession = spec.getMaxSession() == null ? DEFAULT_MAX_SESSION : spec.getMaxSession();
        if (b.maxSession < 1) {
            throw invalid("maxSession", "is " + b.maxSession + "; at least 1 partition must be delivered at a time");
        }
        b.maxRedeliveries = spec.getMaxRedeliveries() == null ? DEFAULT_MAX_REDELIVERIES : spec.getMaxRedeliveries();
        if (b.maxRedeliveries < 0) {
            throw invalid("maxRedeliveries", "is " + b.maxRedeliveries + "; it must be 0 or more");
        }
        b.redeliveryDelayMs = spec.getRedeliveryDelay() == null ? DEFAULT_REDELIVERY_DELAY_MS
                : spec.getRedeliveryDelay();
        if (b.redeliveryDelayMs < 0) {
            throw invalid("redeliveryDelay", "is " + b.redeliveryDelayMs + "; it must be 0 or more (milliseconds)");
        }
        try {
            b.startAt = StartPosition.parse(spec.getStartAt());
        } catch (IllegalArgumentException e) {
            throw invalid("startAt", e.getMessage(), e);
        }
        b.deadLetterTopic = blankToNull(spec.getDeadLetterDestination());
        if (b.deadLetterTopic != null) {
            b.deadLetterTopic = b.deadLetterTopic.trim();
            destination("deadLetterDestination", b.deadLetterTopic, false);
            if (b.deadLetterTopic.equals(topic)) {
                throw invalid("deadLetterDestination", "is the destination itself ('" + topic + "'): a message"
                        + " that cannot be delivered would come back for ever");
            }
        }

        String bootstrapServers = firstNonNull(blankToNull(spec.getBootstrapServers()),
                factory == null ? null : factory.getBootstrapServers(),
                ra == null ? null : ra.getBootstrapServers(), TributaryResourceAdapter.defaultBootstrapServers())
                .trim();
        Map<String, String> kafkaProperties = kafkaProperties(spec, ra, factory);
        String saslJaasConfig = saslJaasConfig(spec, kafkaProperties);
        b.kafka = KafkaClientConfig.of(bootstrapServers, kafkaProperties); // owned properties were refused above
        if (saslJaasConfig != null) {
            b.kafka = b.kafka.withSaslJaasConfig(saslJaasConfig);
        }

        Boolean text = spec.getPlainRecordsAsText();
        b.plainRecordsAsText = text != null ? text : factory != null && factory.isPlainRecordsAsText();
        String trusted = firstNonNull(blankToNull(spec.getTrustedObjectPackages()),
                factory == null ? null : factory.getTrustedObjectPackages());
        try {
            b.allowList = trusted == null ? ObjectMessageAllowList.DEFAULT : ObjectMessageAllowList.parse(trusted);
        } catch (IllegalArgumentException e) {
            throw invalid("trustedObjectPackages", e.getMessage(), e);
        }
        b.objectLimits = objectLimits(spec, factory == null ? ObjectMessageLimits.DEFAULT
                : factory.getObjectMessageLimits());

        if (topic == null) {
            return null; // known only by its JNDI name, which validate() does not resolve
        }
        b.subscription = subscription(queue, topic, durable, shared, clientId, name, spec.getMessageSelector());
        return new ActivationConfig(b);
    }

    /**
     * The subscription the spec describes, named as the provider names it; the caller has checked that a durable
     * or shared subscription has a name and an unshared durable one a client id. An MDB has no {@code noLocal}.
     */
    private static Subscription subscription(boolean queue, String topic, boolean durable, boolean shared,
                                             String clientId, String name, String selector) {
        if (queue) {
            return Subscription.queue(topic);
        }
        if (durable) {
            return shared ? Subscription.sharedDurable(topic, clientId, name, selector)
                    : Subscription.durable(topic, clientId, name, selector, false);
        }
        return shared ? Subscription.shared(topic, clientId, name) : Subscription.nonDurable(topic);
    }

    /** The spec's limits over {@code base} (the looked-up connection factory's, else the defaults). */
    private static ObjectMessageLimits objectLimits(TributaryActivationSpec spec, ObjectMessageLimits base)
            throws InvalidPropertyException {
        ObjectMessageLimits limits = base;
        try {
            if (spec.getObjectMessageMaxDepth() != null) {
                limits = limits.withMaxDepth(spec.getObjectMessageMaxDepth());
            }
            if (spec.getObjectMessageMaxReferences() != null) {
                limits = limits.withMaxReferences(spec.getObjectMessageMaxReferences());
            }
            if (spec.getObjectMessageMaxArrayLength() != null) {
                limits = limits.withMaxArrayLength(spec.getObjectMessageMaxArrayLength());
            }
            if (spec.getObjectMessageMaxBytes() != null) {
                limits = limits.withMaxBytes(spec.getObjectMessageMaxBytes());
            }
        } catch (IllegalArgumentException e) {
            // The message starts with the property's name, as validate() promises.
            throw new InvalidPropertyException(e.getMessage(), e);
        }
        return limits;
    }

    private static TributaryConnectionFactory connectionFactory(TributaryActivationSpec spec, Jndi jndi)
            throws InvalidPropertyException {
        String name = blankToNull(spec.getConnectionFactoryLookup());
        if (name == null || jndi == null) {
            return null;
        }
        Object found = lookup(jndi, "connectionFactoryLookup", name);
        if (found instanceof TributaryConnectionFactory factory) {
            return factory;
        }
        throw invalid("connectionFactoryLookup", "'" + name + "' is a "
                + (found == null ? "null" : found.getClass().getName()) + ", not an "
                + TributaryConnectionFactory.class.getName() + "; set bootstrapServers and kafkaProperties instead");
    }

    private static Object lookup(Jndi jndi, String property, String name) throws InvalidPropertyException {
        try {
            return jndi.lookup(name);
        } catch (NamingException e) {
            throw invalid(property, "'" + name + "' cannot be looked up: " + e, e);
        }
    }

    /** True for a queue, false for a topic, null when not set. */
    private static Boolean destinationType(String text) throws InvalidPropertyException {
        String value = blankToNull(text);
        if (value == null) {
            return null;
        }
        return switch (value.trim()) {
            case "jakarta.jms.Queue" -> Boolean.TRUE;
            case "jakarta.jms.Topic" -> Boolean.FALSE;
            default -> throw invalid("destinationType", "'" + text + "' is neither jakarta.jms.Queue nor"
                    + " jakarta.jms.Topic");
        };
    }

    private static Destination destination(String property, String name, boolean queue)
            throws InvalidPropertyException {
        try {
            return queue ? TributaryQueue.of(name) : TributaryTopic.of(name);
        } catch (InvalidDestinationException e) {
            throw invalid(property, e.getMessage(), e);
        }
    }

    private static AcknowledgeMode acknowledgeMode(String text) throws InvalidPropertyException {
        String value = blankToNull(text);
        if (value == null) {
            return AcknowledgeMode.AUTO;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "auto-acknowledge", "auto_acknowledge" -> AcknowledgeMode.AUTO;
            case "dups-ok-acknowledge", "dups_ok_acknowledge" -> AcknowledgeMode.DUPS_OK;
            default -> throw invalid("acknowledgeMode", "'" + text + "' is neither Auto-acknowledge nor"
                    + " Dups-ok-acknowledge");
        };
    }

    private static boolean durable(String text) throws InvalidPropertyException {
        String value = blankToNull(text);
        if (value == null) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "durable" -> true;
            case "nondurable" -> false;
            default -> throw invalid("subscriptionDurability", "'" + text + "' is neither Durable nor NonDurable");
        };
    }

    private static Map<String, String> kafkaProperties(TributaryActivationSpec spec, TributaryAdapterSettings ra,
                                                       TributaryConnectionFactory factory)
            throws InvalidPropertyException {
        Map<String, String> merged = new LinkedHashMap<>();
        if (ra != null) {
            merged.putAll(KafkaPropertiesText.parse("kafkaProperties of the resource adapter",
                    ra.getKafkaProperties()));
        }
        if (factory != null) {
            Properties fromFactory = factory.getKafkaProperties();
            for (String name : fromFactory.stringPropertyNames()) {
                merged.put(name, fromFactory.getProperty(name));
            }
        }
        try {
            merged.putAll(KafkaPropertiesText.parse("kafkaProperties", spec.getKafkaProperties()));
            KafkaPropertiesText.checkNotOwned("kafkaProperties", merged);
        } catch (IllegalArgumentException e) {
            // "kafkaProperties entry '<entry>' is not name=value ...", "kafkaProperties sets '<name>': <why>"
            throw new InvalidPropertyException(e.getMessage(), e);
        }
        return merged;
    }

    /**
     * The SASL login for {@code user}/{@code password}: PLAIN (the default mechanism) or SCRAM, over a SASL
     * security protocol set in the Kafka properties. Tributary brokers do not authenticate yet; this serves Kafka
     * clusters that do.
     */
    private static String saslJaasConfig(TributaryActivationSpec spec, Map<String, String> kafka)
            throws InvalidPropertyException {
        String user = blankToNull(spec.getUser());
        if (user == null) {
            if (spec.getPassword() != null && !spec.getPassword().isEmpty()) {
                throw invalid("password", "is set without user");
            }
            return null;
        }
        String protocol = firstNonNull(kafka.get(CONSUMER_PREFIX + CommonClientConfigs.SECURITY_PROTOCOL_CONFIG),
                kafka.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG), "PLAINTEXT");
        if (!protocol.toUpperCase(Locale.ROOT).startsWith("SASL_")) {
            throw invalid("user", "is set but security.protocol is " + protocol + ": user and password are a SASL"
                    + " login; set security.protocol=SASL_PLAINTEXT or SASL_SSL in kafkaProperties (Tributary brokers"
                    + " do not authenticate yet)");
        }
        if (kafka.containsKey(SaslConfigs.SASL_JAAS_CONFIG)
                || kafka.containsKey(CONSUMER_PREFIX + SaslConfigs.SASL_JAAS_CONFIG)) {
            throw invalid("user", "is set and kafkaProperties has sasl.jaas.config too: use one of them");
        }
        if (spec.getPassword() == null) {
            throw invalid("password", "is not set; user " + user + " needs one");
        }
        String mechanism = firstNonNull(kafka.get(CONSUMER_PREFIX + SaslConfigs.SASL_MECHANISM),
                kafka.get(SaslConfigs.SASL_MECHANISM), "PLAIN");
        String module = switch (mechanism.toUpperCase(Locale.ROOT)) {
            case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
            case "SCRAM-SHA-256", "SCRAM-SHA-512" -> "org.apache.kafka.common.security.scram.ScramLoginModule";
            default -> throw invalid("user", "cannot be used with sasl.mechanism " + mechanism
                    + "; set sasl.jaas.config in kafkaProperties instead");
        };
        return module + " required username=\"" + jaasQuote(user) + "\" password=\""
                + jaasQuote(spec.getPassword()) + "\";";
    }

    private static String jaasQuote(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Kafka client configurations

    /** The consumer: commits only when the adapter says (after delivery), reconnects with back-off. */
    Map<String, Object> consumerProperties(String clientId) {
        return kafka.consumer(clientId, subscription.groupId(), subscription.resetPolicy(), CONSUMER_DEFAULTS);
    }

    /** The dead-letter producer: idempotent, acks=all; a dead letter is written before its offset is committed. */
    Map<String, Object> producerProperties(String clientId) {
        return kafka.producer(clientId, PRODUCER_DEFAULTS);
    }

    /** An admin client, for deleting a shared non-durable subscription's group when its last consumer leaves. */
    Map<String, Object> adminProperties(String clientId) {
        return kafka.admin(clientId, ADMIN_DEFAULTS);
    }

    /**
     * Whether a record is delivered, as the JMS provider decides it: decoding, the delivery time, expiry (both by
     * {@code clock}), the selector, the {@code ObjectMessage} allow-list and limits.
     */
    DeliveryDecision deliveryDecision(Clock clock) {
        return DeliveryDecision.of(destination, selector, clock).plainRecordsAsText(plainRecordsAsText)
                .objectMessages(allowList, objectLimits);
    }

    KafkaConsumer<byte[], byte[]> newConsumer(String clientId) {
        return KafkaClientConfig.newConsumer(consumerProperties(clientId));
    }

    KafkaProducer<byte[], byte[]> newProducer(String clientId) {
        return KafkaClientConfig.newProducer(producerProperties(clientId));
    }

    Admin newAdmin(String clientId) {
        return KafkaClientConfig.newAdmin(adminProperties(clientId));
    }

    // ---------------------------------------------------------------------------------------------------------

    Subscription subscription() {
        return subscription;
    }

    String topic() {
        return subscription.topic();
    }

    /** The JMSDestination of delivered messages: a TributaryQueue or TributaryTopic named as the topic. */
    Destination destination() {
        return destination;
    }

    MessageSelector selector() {
        return selector;
    }

    AcknowledgeMode acknowledgeMode() {
        return acknowledgeMode;
    }

    StartPosition startAt() {
        return startAt;
    }

    int maxSession() {
        return maxSession;
    }

    int maxRedeliveries() {
        return maxRedeliveries;
    }

    /** Milliseconds between a failed delivery and the next delivery of the same message. */
    long redeliveryDelayMs() {
        return redeliveryDelayMs;
    }

    /** The dead-letter topic, or null: then a message whose deliveries all failed is logged and skipped. */
    String deadLetterTopic() {
        return deadLetterTopic;
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    boolean plainRecordsAsText() {
        return plainRecordsAsText;
    }

    ObjectMessageAllowList allowList() {
        return allowList;
    }

    ObjectMessageLimits objectLimits() {
        return objectLimits;
    }

    /** For logs: the subscription, the cluster and the non-default settings. */
    String describe() {
        StringBuilder text = new StringBuilder(subscription.describe()).append(" on ").append(bootstrapServers());
        if (!selector.matchesAll()) {
            text.append(", selector [").append(selector.text()).append(']');
        }
        if (startAt.kind() != StartPosition.Kind.COMMITTED) {
            text.append(", startAt ").append(startAt);
        }
        return text.append(", maxSession ").append(maxSession).append(", maxRedeliveries ").append(maxRedeliveries)
                .append(redeliveryDelayMs == DEFAULT_REDELIVERY_DELAY_MS ? ""
                        : ", redeliveryDelay " + redeliveryDelayMs + " ms")
                .append(deadLetterTopic == null ? "" : ", dead letters to " + deadLetterTopic).toString();
    }

    // ---------------------------------------------------------------------------------------------------------

    private static InvalidPropertyException invalid(String property, String problem) {
        return new InvalidPropertyException(property + " " + problem);
    }

    private static InvalidPropertyException invalid(String property, String problem, Throwable cause) {
        return new InvalidPropertyException(property + " " + problem, cause);
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }

    @SafeVarargs
    private static <T> T firstNonNull(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** The fields {@link #resolve} fills in before the configuration is frozen. */
    private static final class Builder {
        Subscription subscription;
        Destination destination;
        MessageSelector selector;
        AcknowledgeMode acknowledgeMode;
        StartPosition startAt;
        int maxSession;
        int maxRedeliveries;
        long redeliveryDelayMs;
        String deadLetterTopic;
        KafkaClientConfig kafka;
        boolean plainRecordsAsText;
        ObjectMessageAllowList allowList;
        ObjectMessageLimits objectLimits;
    }
}
