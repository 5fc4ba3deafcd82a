package io.tributary.testsupport;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The official Kafka Java client, configured for tests: short timeouts everywhere, so that a broker that does not
 * answer fails a test in seconds instead of hanging it for the client's default minutes. Keys and values are strings.
 * Callers close what they get.
 *
 * <p>Stateless; any thread.
 */
public final class Clients {

    private Clients() {
    }

    /** An Admin client; {@code extra} are further {@code name, value} pairs. */
    public static Admin admin(String bootstrap, String... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        put(props, extra);
        return Admin.create(props);
    }

    /** A producer with the client's defaults (idempotent, acks=all) and short timeouts. */
    public static KafkaProducer<String, String> producer(String bootstrap, String... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        put(props, extra);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** A consumer without a group (for assign and seek), reading from the earliest offset when it has none. */
    public static KafkaConsumer<String, String> consumer(String bootstrap, String... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        put(props, extra);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * A consumer in group {@code groupId} on the classic group protocol (JoinGroup, SyncGroup, Heartbeat), committing
     * only when the test commits, reading from the earliest offset where the group has none. Heartbeats every 200 ms
     * so that members learn of a rebalance quickly; the 10 s session is above the broker's default
     * {@code group.min.session.timeout.ms} (6 s) and far above any stall of a loaded machine's heartbeat thread;
     * {@code max.poll.interval.ms} (the rebalance timeout) of 30 s bounds how long a rebalance may wait for a member.
     */
    public static KafkaConsumer<String, String> groupConsumer(String bootstrap, String groupId, String... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 30_000);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        put(props, extra);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static void put(Map<String, Object> props, String... extra) {
        for (int i = 0; i < extra.length; i += 2) {
            props.put(extra[i], extra[i + 1]);
        }
    }
}
