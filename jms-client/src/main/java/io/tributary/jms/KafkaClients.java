package io.tributary.jms;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka client configurations of a connection. Pass-through properties apply to every client, or to one kind
 * when prefixed {@code producer.}, {@code consumer.} or {@code admin.} (the prefix is removed); they are applied last,
 * so they override Tributary's defaults, except the serializers, which the provider needs.
 */
final class KafkaClients {

    private static final String PRODUCER_PREFIX = "producer.";
    private static final String CONSUMER_PREFIX = "consumer.";
    private static final String ADMIN_PREFIX = "admin.";

    private final ConnectionSettings settings;
    private final String clientIdBase;

    KafkaClients(ConnectionSettings settings, String clientIdBase) {
        this.settings = settings;
        this.clientIdBase = clientIdBase;
    }

    /** One producer per connection, shared by its sessions: idempotent, acks=all, sends at once (linger 0). */
    Map<String, Object> producer() {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientIdBase + "-producer");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // A synchronous JMS send waits for its record: lingering would add to every send. Under concurrent sends
        // records still batch while a request is in flight.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        passThrough(props, PRODUCER_PREFIX);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return props;
    }

    /**
     * A consumer; with a group it commits offsets only when the session acknowledges, without one it is assigned
     * partitions directly.
     *
     * @param groupId      the consumer group, or null
     * @param resetPolicy  where a group without committed offsets starts ({@code earliest} or {@code latest})
     */
    Map<String, Object> consumer(String groupId, String resetPolicy, String suffix) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientIdBase + "-" + suffix);
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, resetPolicy);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        passThrough(props, CONSUMER_PREFIX);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return props;
    }

    Map<String, Object> admin() {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientIdBase + "-admin");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        passThrough(props, ADMIN_PREFIX);
        return props;
    }

    private void passThrough(Map<String, Object> props, String kindPrefix) {
        for (Map.Entry<String, String> property : settings.kafkaProperties().entrySet()) {
            String name = property.getKey();
            if (name.startsWith(kindPrefix)) {
                props.put(name.substring(kindPrefix.length()), property.getValue());
            } else if (!name.startsWith(PRODUCER_PREFIX) && !name.startsWith(CONSUMER_PREFIX)
                    && !name.startsWith(ADMIN_PREFIX)) {
                props.put(name, property.getValue());
            }
        }
    }

    /**
     * Creates a Kafka client with the provider's class loader as the thread's context class loader, then restores
     * the caller's. Kafka loads the classes its configuration names (its own defaults included, when a client
     * class is first initialised) through the context class loader, and an application server calls the provider
     * on threads whose context loader need not see Kafka: Payara, for one, completes a transaction of an injected
     * JMSContext on such a thread (a resource adapter's pooled connection then creates its producer at commit).
     * Classes named in pass-through properties must therefore be visible to the provider's class loader.
     */
    static <T> T withProviderClassLoader(Supplier<T> create) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(KafkaClients.class.getClassLoader());
        try {
            return create.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
