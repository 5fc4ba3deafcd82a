package io.tributary.jms.kafka;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The configuration of the Kafka clients of one JMS connection or one resource adapter activation: the cluster,
 * the pass-through properties the application configured ({@code kafkaProperties}), and the properties that JMS
 * semantics own. Every producer, consumer and admin client of the provider and of the adapter is configured here.
 *
 * <p>Precedence, lowest first; the outcome never depends on the order in which the properties were given:
 * <ol>
 *   <li>the caller's defaults (Tributary's timeouts), with {@code bootstrap.servers} and {@code client.id};</li>
 *   <li>pass-through properties without a prefix: they apply to every kind of client;</li>
 *   <li>pass-through properties prefixed {@code producer.}, {@code consumer.} or {@code admin.}, with the prefix
 *       removed, for that kind of client only: a prefixed property beats the same property without a prefix;</li>
 *   <li>what JMS semantics own: the consumer group, commits only on acknowledgement ({@code enable.auto.commit}
 *       false), where a new group starts ({@code auto.offset.reset}), reading committed records only
 *       ({@code isolation.level=read_committed}), byte-array (de)serializers for the message codec, and the
 *       {@code transactional.id} of a transacted session's producer. Configuring one of these, with or without a
 *       prefix, is refused ({@link OwnedPropertyException}) when this object is made;</li>
 *   <li>the SASL login made from a user name and password ({@link #withSaslLogin}), when there is one.</li>
 * </ol>
 *
 * <p>Immutable; any thread.
 */
public final class KafkaClientConfig {

    /** The kinds of Kafka client, each addressed by its prefix. */
    public enum Kind {
        PRODUCER("producer."), CONSUMER("consumer."), ADMIN("admin.");

        private final String prefix;

        Kind(String prefix) {
            this.prefix = prefix;
        }

        public String prefix() {
            return prefix;
        }
    }

    private static final String RECORDS_AS_BYTES = "Tributary reads and writes records as bytes (the message codec)";
    private static final Map<String, String> CONSUMER_OWNED = Map.of(
            ConsumerConfig.GROUP_ID_CONFIG, "Tributary decides the consumer group: the queue's, or the subscription's",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "Tributary commits offsets when messages are acknowledged"
                    + " (the resource adapter: when they are delivered)",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "Tributary decides where a new group starts: a queue at the"
                    + " earliest offset, a subscription at the end of the log; replay with startAt",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "Tributary's JMS consumers read committed records only: a message sent"
                    + " in a transaction is delivered once the transaction commits, never when it aborts",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, RECORDS_AS_BYTES,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, RECORDS_AS_BYTES,
            ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "Tributary acknowledges each message of a share-group"
                    + " queue as the session's acknowledgement mode says (explicit acknowledgement)");
    private static final Map<String, String> PRODUCER_OWNED = Map.of(
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, RECORDS_AS_BYTES,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, RECORDS_AS_BYTES,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "Tributary chooses the transactional ids of transacted sessions"
                    + " from the connection factory's transactionalIdPrefix");

    private final String bootstrapServers;
    /** Sorted by name: the same configuration prints, and is applied, the same way in every JVM. */
    private final Map<String, String> passThrough;
    /** The SASL login's mechanism and {@code sasl.jaas.config} ({@link SaslLogin}), or null. */
    private final String saslMechanism;
    private final String saslJaasConfig;

    private KafkaClientConfig(String bootstrapServers, Map<String, String> passThrough, String saslMechanism,
                              String saslJaasConfig) {
        this.bootstrapServers = bootstrapServers;
        this.passThrough = passThrough;
        this.saslMechanism = saslMechanism;
        this.saslJaasConfig = saslJaasConfig;
    }

    /**
     * The configuration of clients of the cluster at {@code bootstrapServers} with {@code passThrough} properties.
     *
     * @throws OwnedPropertyException naming the first property (in name order) that JMS semantics own
     */
    public static KafkaClientConfig of(String bootstrapServers, Map<String, String> passThrough) {
        Map<String, String> sorted = new TreeMap<>(passThrough);
        sorted.keySet().forEach(KafkaClientConfig::checkNotOwned);
        return new KafkaClientConfig(bootstrapServers, Collections.unmodifiableMap(sorted), null, null);
    }

    /**
     * Refuses a pass-through property that JMS semantics own: one of the consumer's for a name without a prefix or
     * prefixed {@code consumer.}, one of the producer's without a prefix or prefixed {@code producer.}.
     *
     * @throws OwnedPropertyException naming the property and why Tributary decides it
     */
    public static void checkNotOwned(String name) {
        Kind kind = kindOf(name);
        String bare = kind == null ? name : name.substring(kind.prefix().length());
        String reason = null;
        if (kind == null || kind == Kind.CONSUMER) {
            reason = CONSUMER_OWNED.get(bare);
        }
        if (reason == null && (kind == null || kind == Kind.PRODUCER)) {
            reason = PRODUCER_OWNED.get(bare);
        }
        if (reason != null) {
            throw new OwnedPropertyException(name, reason);
        }
    }

    /**
     * This configuration with a SASL login ({@code sasl.mechanism} and {@code sasl.jaas.config}, {@link SaslLogin})
     * that beats any pass-through property.
     */
    public KafkaClientConfig withSaslLogin(String mechanism, String jaasConfig) {
        return new KafkaClientConfig(bootstrapServers, passThrough, mechanism, jaasConfig);
    }

    /** Whether this configuration has a SASL login ({@link #withSaslLogin}) or a pass-through {@code sasl.jaas.config}. */
    public boolean hasSaslLogin() {
        return saslJaasConfig != null || passThrough.keySet().stream()
                .anyMatch(name -> name.endsWith(SaslConfigs.SASL_JAAS_CONFIG));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The pass-through properties as configured (prefixes included), sorted by name. */
    public Map<String, String> passThrough() {
        return passThrough;
    }

    /**
     * A producer's configuration: idempotent, {@code acks=all}, sending at once ({@code linger.ms} 0: a synchronous
     * JMS send waits for its record, and under concurrent sends records still batch while a request is in flight),
     * then {@code defaults}, then the pass-through properties.
     */
    public Map<String, Object> producer(String clientId, Map<String, Object> defaults) {
        Map<String, Object> props = base(clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.putAll(defaults);
        passThrough(props, Kind.PRODUCER);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        login(props);
        return props;
    }

    /**
     * A transactional producer's configuration: a {@link #producer} (idempotent, {@code acks=all}) with
     * {@code transactional.id} set to {@code transactionalId}. The pass-through properties apply as to any producer;
     * {@code transaction.timeout.ms} among them bounds how long a transaction left open by a crashed client holds back
     * read_committed consumers of its partitions, unless a producer with the same id starts before.
     */
    public Map<String, Object> transactionalProducer(String clientId, String transactionalId,
                                                     Map<String, Object> defaults) {
        Map<String, Object> props = producer(clientId, defaults);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return props;
    }

    /**
     * A consumer's configuration: Tributary's timeouts (a member without heartbeat for 10 s is gone; Kafka's 45 s
     * would hold a dead client's partitions that long), then {@code defaults}, then the pass-through properties,
     * then the group, no automatic commits, the reset policy and {@code read_committed}: records of open or aborted
     * transactions are never delivered.
     *
     * @param groupId     the consumer group, or null for a consumer that is assigned its partitions
     * @param resetPolicy where a group without committed offsets starts: {@code earliest} or {@code latest}
     */
    public Map<String, Object> consumer(String clientId, String groupId, String resetPolicy,
                                        Map<String, Object> defaults) {
        Map<String, Object> props = base(clientId);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.putAll(defaults);
        passThrough(props, Kind.CONSUMER);
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, resetPolicy);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        login(props);
        return props;
    }

    /**
     * A share consumer's configuration (a receiver of a share-group queue, {@link ShareReceiver}): a
     * {@link #consumer}'s without the properties a share consumer refuses ({@link #NOT_FOR_SHARE_CONSUMERS}: among
     * them a classic consumer's session and heartbeat settings, which the share group's configuration decides
     * instead), with explicit acknowledgement. Where a new share group starts and whether it reads committed records
     * only are the group's configuration ({@link SubscriptionAdmin#prepareShareGroup}), not the client's.
     */
    public Map<String, Object> shareConsumer(String clientId, String groupId, Map<String, Object> defaults) {
        Map<String, Object> props = consumer(clientId, groupId, "earliest", defaults);
        props.keySet().removeAll(NOT_FOR_SHARE_CONSUMERS);
        props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        return props;
    }

    /**
     * Consumer properties that {@code KafkaShareConsumer} refuses (kafka-clients 4.4, {@code ShareConsumerConfig}):
     * passed through to classic consumers only.
     */
    static final Set<String> NOT_FOR_SHARE_CONSUMERS = Set.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

    /** An admin client's configuration: {@code defaults}, then the pass-through properties. */
    public Map<String, Object> admin(String clientId, Map<String, Object> defaults) {
        Map<String, Object> props = base(clientId);
        props.putAll(defaults);
        passThrough(props, Kind.ADMIN);
        login(props);
        return props;
    }

    private Map<String, Object> base(String clientId) {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    private void passThrough(Map<String, Object> props, Kind kind) {
        for (Map.Entry<String, String> property : passThrough.entrySet()) {
            if (kindOf(property.getKey()) == null) {
                props.put(property.getKey(), property.getValue());
            }
        }
        // Second, so that a prefixed property wins over the same one without a prefix.
        for (Map.Entry<String, String> property : passThrough.entrySet()) {
            if (property.getKey().startsWith(kind.prefix())) {
                props.put(property.getKey().substring(kind.prefix().length()), property.getValue());
            }
        }
    }

    private void login(Map<String, Object> props) {
        if (saslJaasConfig != null) {
            props.put(SaslConfigs.SASL_MECHANISM, saslMechanism);
            props.put(SaslConfigs.SASL_JAAS_CONFIG, saslJaasConfig);
        }
    }

    /** The kind of client a property is prefixed for, or null for a property of every client. */
    private static Kind kindOf(String name) {
        for (Kind kind : Kind.values()) {
            if (name.startsWith(kind.prefix())) {
                return kind;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Creating clients

    public static KafkaProducer<byte[], byte[]> newProducer(Map<String, Object> config) {
        return withProviderClassLoader(() -> new KafkaProducer<>(config));
    }

    public static KafkaConsumer<byte[], byte[]> newConsumer(Map<String, Object> config) {
        return withProviderClassLoader(() -> new KafkaConsumer<>(config));
    }

    public static KafkaShareConsumer<byte[], byte[]> newShareConsumer(Map<String, Object> config) {
        return withProviderClassLoader(() -> new KafkaShareConsumer<>(config));
    }

    public static Admin newAdmin(Map<String, Object> config) {
        return withProviderClassLoader(() -> Admin.create(config));
    }

    /**
     * Creates a Kafka client with the provider's class loader as the thread's context class loader, then restores
     * the caller's. Kafka loads the classes its configuration names (its own defaults included, when a client
     * class is first initialised; assignors, SASL login modules) through the context class loader, and an
     * application server calls the provider and the adapter on threads whose context loader need not see Kafka:
     * the application's, or, in Payara, the thread that completes a transaction of an injected JMSContext (a
     * resource adapter's pooled connection then creates its producer at commit). In a RAR the provider, the adapter
     * and Kafka share one class loader. Classes named in pass-through properties must be visible to it.
     */
    static <T> T withProviderClassLoader(Supplier<T> create) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(KafkaClientConfig.class.getClassLoader());
        try {
            return create.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Override
    public String toString() {
        return "KafkaClientConfig[" + bootstrapServers + ", " + passThrough.keySet() + "]";
    }
}
