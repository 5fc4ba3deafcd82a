package io.tributary.jms;

import java.util.List;
import java.util.Map;

import io.tributary.jms.kafka.ClientIdAssignor;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.QueueShareGroup;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka clients of a connection: the provider's defaults and client ids over the connection's
 * {@link KafkaClientConfig}, which applies the pass-through properties (a prefixed one beats the same one without
 * a prefix) and the properties JMS semantics own.
 *
 * <p>Immutable; any thread.
 */
final class KafkaClients {

    private static final Map<String, Object> PRODUCER_DEFAULTS = Map.of(
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
    /**
     * A transaction lives only through one {@code Session.commit()} (the sends are held until then), whose steps
     * each give up after 15 s; a transaction that a crashed client left open, and no successor with its id aborted,
     * holds back read_committed consumers of its partitions until this timeout. Kafka's default is 60 s.
     */
    private static final Map<String, Object> TRANSACTIONAL_PRODUCER_DEFAULTS = Map.of(
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
    /**
     * An XA branch's transaction stays open from {@code prepare} until the transaction manager decides, which after
     * a crash of the application server is after its restart and recovery: Kafka's default upper bound,
     * {@code transaction.max.timeout.ms} (15 min), which the broker aborts the transaction after. Overridden by a
     * pass-through {@code producer.transaction.timeout.ms}.
     */
    static final int XA_TRANSACTION_TIMEOUT_MS = 900_000;
    private static final Map<String, Object> XA_PRODUCER_DEFAULTS = Map.of(
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, XA_TRANSACTION_TIMEOUT_MS);
    private static final Map<String, Object> CONSUMER_DEFAULTS = Map.of(
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    /**
     * A claim learns of a new claimant at its next heartbeat and must join again within the rebalance timeout
     * ({@link ClientIdClaim#REBALANCE_TIMEOUT_MS}); a pass-through {@code consumer.heartbeat.interval.ms} still
     * overrides it.
     */
    private static final Map<String, Object> CLIENT_ID_CLAIM_DEFAULTS = Map.of(
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    /** A share-group queue receiver's fetch waits briefly ({@link QueueShareGroup#FETCH_MAX_WAIT_MS}). */
    private static final Map<String, Object> SHARE_CONSUMER_DEFAULTS = Map.of(
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, QueueShareGroup.FETCH_MAX_WAIT_MS);
    private static final Map<String, Object> ADMIN_DEFAULTS = Map.of(
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);

    private final KafkaClientConfig config;
    private final String clientIdBase;

    KafkaClients(ConnectionSettings settings, String clientIdBase) {
        this.config = settings.kafka();
        this.clientIdBase = clientIdBase;
    }

    /** The prefix of every {@code client.id} of these clients: {@code <prefix>-producer}, ... */
    String clientIdBase() {
        return clientIdBase;
    }

    /** One producer per connection, shared by its sessions: idempotent, acks=all, sends at once (linger 0). */
    Map<String, Object> producer() {
        return config.producer(clientIdBase + "-producer", PRODUCER_DEFAULTS);
    }

    /** A transacted session's producer ({@link TransactionalProducers}), with the given transactional id. */
    Map<String, Object> transactionalProducer(String transactionalId) {
        return config.transactionalProducer(clientIdBase + "-" + transactionalId, transactionalId,
                TRANSACTIONAL_PRODUCER_DEFAULTS);
    }

    /**
     * A consumer; with a group it commits offsets only when the session acknowledges, without one it is assigned
     * partitions directly.
     *
     * @param groupId      the consumer group, or null
     * @param resetPolicy  where a group without committed offsets starts ({@code earliest} or {@code latest})
     */
    Map<String, Object> consumer(String groupId, String resetPolicy, String suffix) {
        return config.consumer(clientIdBase + "-" + suffix, groupId, resetPolicy, CONSUMER_DEFAULTS);
    }

    /**
     * The consumer of a client id's claim ({@link ClientIdClaim}): a member of the claim's group through
     * {@link ClientIdAssignor} and the classic protocol (its leader decides), with the claim's rebalance timeout. A
     * pass-through {@code consumer.partition.assignment.strategy}, {@code group.protocol} or
     * {@code max.poll.interval.ms} does not apply to it.
     */
    Map<String, Object> clientIdClaimConsumer(String groupId, ClientIdAssignor.Claimant claimant) {
        Map<String, Object> props = config.consumer(clientIdBase + "-client-id", groupId, "latest",
                CLIENT_ID_CLAIM_DEFAULTS);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(ClientIdAssignor.class));
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, ClientIdClaim.REBALANCE_TIMEOUT_MS);
        props.put(ClientIdAssignor.CLAIMANT_CONFIG, claimant);
        return props;
    }

    Map<String, Object> admin() {
        return config.admin(clientIdBase + "-admin", ADMIN_DEFAULTS);
    }

    KafkaProducer<byte[], byte[]> newProducer() {
        return KafkaClientConfig.newProducer(producer());
    }

    KafkaProducer<byte[], byte[]> newTransactionalProducer(String transactionalId) {
        return KafkaClientConfig.newProducer(transactionalProducer(transactionalId));
    }

    /** An XA branch's producer: a transactional one whose transactions may stay prepared for 15 minutes. */
    KafkaProducer<byte[], byte[]> newXaProducer(String transactionalId) {
        return KafkaClientConfig.newProducer(config.transactionalProducer(clientIdBase + "-" + transactionalId,
                transactionalId, XA_PRODUCER_DEFAULTS));
    }

    /** The XA log's writer: idempotent, {@code acks=all}. */
    KafkaProducer<byte[], byte[]> newXaLogProducer() {
        return KafkaClientConfig.newProducer(config.producer(clientIdBase + "-xa-log", PRODUCER_DEFAULTS));
    }

    /** The XA log's reader: no group, read_committed. */
    Map<String, Object> xaLogConsumer() {
        return consumer(null, "earliest", "xa-log");
    }

    KafkaConsumer<byte[], byte[]> newConsumer(String groupId, String resetPolicy, String suffix) {
        return KafkaClientConfig.newConsumer(consumer(groupId, resetPolicy, suffix));
    }

    KafkaConsumer<byte[], byte[]> newClientIdClaimConsumer(String groupId, ClientIdAssignor.Claimant claimant) {
        return KafkaClientConfig.newConsumer(clientIdClaimConsumer(groupId, claimant));
    }

    /**
     * A member of share group {@code groupId}, explicit acknowledgement, taking the records {@code selector} selects
     * ({@link QueueShareGroup#memberClientId}: a queue receiver's selector; a shared subscription's members take
     * every record).
     */
    KafkaShareConsumer<byte[], byte[]> newShareConsumer(String groupId, MessageSelector selector) {
        return KafkaClientConfig.newShareConsumer(config.shareConsumer(
                QueueShareGroup.memberClientId(clientIdBase + "-share", selector), groupId, SHARE_CONSUMER_DEFAULTS));
    }

    Admin newAdmin() {
        return KafkaClientConfig.newAdmin(admin());
    }
}
