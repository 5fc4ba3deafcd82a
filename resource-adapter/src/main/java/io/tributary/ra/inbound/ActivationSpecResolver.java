package io.tributary.ra.inbound;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import javax.naming.NamingException;

import io.tributary.jms.StartPosition;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.KafkaPropertiesText;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.SaslLogin;
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
import org.apache.kafka.common.config.SaslConfigs;

/**
 * Checks a {@link TributaryActivationSpec} and turns it into an {@link ActivationConfig}: each property's meaning,
 * default and allowed values, the combinations a subscription needs, the precedence of the spec over a looked-up
 * connection factory over the resource adapter, and the SASL login made from {@code user} and {@code password}.
 * Errors are {@link InvalidPropertyException}s whose message starts with the name of the property at fault, as
 * {@code validate()} promises.
 *
 * <p>Stateless: any thread (the container's, in {@code validate()} and {@code endpointActivation}).
 */
final class ActivationSpecResolver {

    private static final String CONSUMER_PREFIX = KafkaClientConfig.Kind.CONSUMER.prefix();

    /** A JNDI lookup: {@code InitialContext} in a server, a map in tests. */
    @FunctionalInterface
    interface Jndi {
        Object lookup(String name) throws NamingException;
    }

    private ActivationSpecResolver() {
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
        ActivationConfig.Builder b = new ActivationConfig.Builder();
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

        b.maxSession = spec.getMaxSession() == null ? ActivationConfig.DEFAULT_MAX_SESSION : spec.getMaxSession();
        if (b.maxSession < 1) {
            throw invalid("maxSession", "is " + b.maxSession + "; at least 1 partition must be delivered at a time");
        }
        b.maxRedeliveries = spec.getMaxRedeliveries() == null ? ActivationConfig.DEFAULT_MAX_REDELIVERIES
                : spec.getMaxRedeliveries();
        if (b.maxRedeliveries < 0) {
            throw invalid("maxRedeliveries", "is " + b.maxRedeliveries + "; it must be 0 or more");
        }
        b.redeliveryDelayMs = spec.getRedeliveryDelay() == null ? ActivationConfig.DEFAULT_REDELIVERY_DELAY_MS
                : spec.getRedeliveryDelay();
        if (b.redeliveryDelayMs < 0) {
            throw invalid("redeliveryDelay", "is " + b.redeliveryDelayMs + "; it must be 0 or more (milliseconds)");
        }
        try {
            b.startAt = StartPosition.parse(spec.getStartAt());
        } catch (IllegalArgumentException e) {
            throw invalid("startAt", e.getMessage(), e);
        }
        b.queueMode = queueMode(spec, factory);
        if (queue && b.queueMode == QueueMode.SHARE && b.startAt.kind() != StartPosition.Kind.COMMITTED) {
            throw invalid("startAt", "is " + spec.getStartAt() + " but queueMode is share: a share group has no"
                    + " position to move; set queueMode=group to replay a queue");
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
        // owned properties were refused above
        b.kafka = withSaslLogin(spec, kafkaProperties, KafkaClientConfig.of(bootstrapServers, kafkaProperties));

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
        return b.build();
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

    /**
     * The spec's {@code queueMode}, else the looked-up connection factory's, else {@code share}; checked whatever the
     * destination, although only a queue uses it.
     */
    private static QueueMode queueMode(TributaryActivationSpec spec, TributaryConnectionFactory factory)
            throws InvalidPropertyException {
        String text = blankToNull(spec.getQueueMode());
        if (text == null) {
            return factory == null ? QueueMode.SHARE : QueueMode.parse(factory.getQueueMode());
        }
        try {
            return QueueMode.parse(text);
        } catch (IllegalArgumentException e) {
            // "queueMode must be 'share' or 'group', not '<value>'": starts with the property's name.
            throw new InvalidPropertyException(e.getMessage(), e);
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

    private static ActivationConfig.AcknowledgeMode acknowledgeMode(String text) throws InvalidPropertyException {
        String value = blankToNull(text);
        if (value == null) {
            return ActivationConfig.AcknowledgeMode.AUTO;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "auto-acknowledge", "auto_acknowledge" -> ActivationConfig.AcknowledgeMode.AUTO;
            case "dups-ok-acknowledge", "dups_ok_acknowledge" -> ActivationConfig.AcknowledgeMode.DUPS_OK;
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
            merged.putAll(ra.getSecurityProperties());
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
     * {@code kafka} with the SASL login of {@code user}/{@code password} ({@link SaslLogin}: the mechanism the Kafka
     * properties name, SCRAM-SHA-512 by default), over a SASL security protocol set in the Kafka properties.
     */
    private static KafkaClientConfig withSaslLogin(TributaryActivationSpec spec, Map<String, String> kafka,
                                                   KafkaClientConfig config) throws InvalidPropertyException {
        String user = blankToNull(spec.getUser());
        if (user == null) {
            if (spec.getPassword() != null && !spec.getPassword().isEmpty()) {
                throw invalid("password", "is set without user");
            }
            return config;
        }
        String protocol = firstNonNull(kafka.get(CONSUMER_PREFIX + CommonClientConfigs.SECURITY_PROTOCOL_CONFIG),
                kafka.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG), "PLAINTEXT");
        if (!protocol.toUpperCase(Locale.ROOT).startsWith("SASL_")) {
            throw invalid("user", "is set but security.protocol is " + protocol + ": user and password are a SASL"
                    + " login; set securityProtocol (or security.protocol in kafkaProperties) to SASL_PLAINTEXT or"
                    + " SASL_SSL");
        }
        if (kafka.containsKey(SaslConfigs.SASL_JAAS_CONFIG)
                || kafka.containsKey(CONSUMER_PREFIX + SaslConfigs.SASL_JAAS_CONFIG)) {
            throw invalid("user", "is set and kafkaProperties has sasl.jaas.config too: use one of them");
        }
        if (spec.getPassword() == null) {
            throw invalid("password", "is not set; user " + user + " needs one");
        }
        String named = firstNonNull(kafka.get(CONSUMER_PREFIX + SaslConfigs.SASL_MECHANISM),
                kafka.get(SaslConfigs.SASL_MECHANISM), SaslLogin.DEFAULT_MECHANISM);
        String mechanism = named.trim().toUpperCase(Locale.ROOT);
        try {
            return config.withSaslLogin(mechanism, SaslLogin.jaasConfig(mechanism, user, spec.getPassword()));
        } catch (IllegalArgumentException e) {
            throw invalid("user", "cannot log in: " + e.getMessage());
        }
    }

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
}
