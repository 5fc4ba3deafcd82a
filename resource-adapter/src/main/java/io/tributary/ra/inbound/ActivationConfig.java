package io.tributary.ra.inbound;

import java.time.Clock;
import java.util.Map;

import io.tributary.jms.StartPosition;
import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.QueueMode;
import io.tributary.jms.kafka.QueueShareGroup;
import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.Destination;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * An activation's settings, checked and typed once by {@link ActivationSpecResolver} from a
 * {@link TributaryActivationSpec}, the resource adapter's defaults and, when the spec names them, a connection factory
 * and a destination in JNDI. Nothing after that reads the spec's strings. Here: the typed settings and the Kafka
 * client configurations they make.
 *
 * <p>Precedence (applied by the resolver): a property set on the activation spec wins; then the looked-up connection
 * factory's setting ({@code connectionFactoryLookup}: bootstrap servers, client id, Kafka properties,
 * {@code plainRecordsAsText}, {@code trustedObjectPackages}, the {@code objectMessageMax...} limits); then the resource
 * adapter's ({@code bootstrapServers}, {@code kafkaProperties}); then the default. Kafka properties merge in that
 * order, name by name. {@code destinationLookup} wins over {@code destination}.
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
     * A share-group member's, over the provider's: one record per fetch (Kafka: 500), because a member delivers one
     * message at a time and every record it has acquired is locked to it until it gets to it. With more, one member's
     * fetch could take all there is while the others have nothing, and a 1-partition queue with 8 messages would be
     * delivered one at a time; with one, {@code maxSession} members hold {@code maxSession} messages. A pass-through
     * {@code consumer.max.poll.records} trades that for fewer fetches.
     */
    private static final Map<String, Object> SHARE_CONSUMER_DEFAULTS = Map.of(
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, QueueShareGroup.FETCH_MAX_WAIT_MS,
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

    private final Subscription subscription;
    private final Destination destination;
    private final MessageSelector selector;
    private final AcknowledgeMode acknowledgeMode;
    private final StartPosition startAt;
    private final int maxSession;
    private final QueueMode queueMode;
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
        this.queueMode = b.queueMode;
        this.maxRedeliveries = b.maxRedeliveries;
        this.redeliveryDelayMs = b.redeliveryDelayMs;
        this.deadLetterTopic = b.deadLetterTopic;
        this.kafka = b.kafka;
        this.plainRecordsAsText = b.plainRecordsAsText;
        this.allowList = b.allowList;
        this.objectLimits = b.objectLimits;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Kafka client configurations

    /** The consumer: commits only when the adapter says (after delivery), reconnects with back-off. */
    Map<String, Object> consumerProperties(String clientId) {
        return kafka.consumer(clientId, subscription.groupId(), subscription.resetPolicy(), CONSUMER_DEFAULTS);
    }

    /**
     * A share-group member's consumer (queue mode share): explicit acknowledgement, one record per fetch, a short
     * fetch wait ({@link QueueShareGroup#FETCH_MAX_WAIT_MS}), reconnection back-off; the client id carries the
     * selector ({@link QueueShareGroup#memberClientId}).
     */
    Map<String, Object> shareConsumerProperties(String clientId) {
        return kafka.shareConsumer(QueueShareGroup.memberClientId(clientId, selector), subscription.groupId(),
                SHARE_CONSUMER_DEFAULTS);
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

    KafkaShareConsumer<byte[], byte[]> newShareConsumer(String clientId) {
        return KafkaClientConfig.newShareConsumer(shareConsumerProperties(clientId));
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

    QueueMode queueMode() {
        return queueMode;
    }

    /** Whether the activation consumes a queue through its share group ({@link ShareDelivery}). */
    boolean sharesQueue() {
        return subscription.kind() == Subscription.Kind.QUEUE && queueMode == QueueMode.SHARE;
    }

    /**
     * What share-group members do with a message that keeps failing: {@code maxRedeliveries + 1} deliveries, then the
     * dead-letter topic (or rejected), but at most {@code brokerLimit} ({@code share.delivery.count.limit}), past
     * which the broker archives the record before a member could dead-letter it.
     */
    DeadLetterPolicy deadLetterPolicy(int brokerLimit) {
        return new DeadLetterPolicy(Math.max(1, Math.min(maxRedeliveries + 1, brokerLimit)), deadLetterTopic);
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

    /** The pass-through Kafka properties (the adapter's and the spec's), for the activation's XA connection. */
    java.util.Map<String, String> kafkaPassThrough() {
        return kafka.passThrough();
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
        if (sharesQueue()) {
            text.append(", share group");
        } else if (subscription.kind() == Subscription.Kind.QUEUE) {
            text.append(", consumer group");
        }
        return text.append(", maxSession ").append(maxSession).append(", maxRedeliveries ").append(maxRedeliveries)
                .append(redeliveryDelayMs == DEFAULT_REDELIVERY_DELAY_MS ? ""
                        : ", redeliveryDelay " + redeliveryDelayMs + " ms")
                .append(deadLetterTopic == null ? "" : ", dead letters to " + deadLetterTopic).toString();
    }

    /** The fields {@link ActivationSpecResolver} fills in before the configuration is frozen. */
    static final class Builder {
        Subscription subscription;
        Destination destination;
        MessageSelector selector;
        AcknowledgeMode acknowledgeMode;
        StartPosition startAt;
        int maxSession;
        QueueMode queueMode = QueueMode.SHARE;
        int maxRedeliveries;
        long redeliveryDelayMs;
        String deadLetterTopic;
        KafkaClientConfig kafka;
        boolean plainRecordsAsText;
        ObjectMessageAllowList allowList;
        ObjectMessageLimits objectLimits;

        ActivationConfig build() {
            return new ActivationConfig(this);
        }
    }
}
