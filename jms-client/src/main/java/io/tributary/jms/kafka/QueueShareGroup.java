package io.tributary.jms.kafka;

import io.tributary.jms.format.SelectorClientId;
import io.tributary.jms.selector.MessageSelector;

import java.time.Clock;
import java.util.List;

import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * How a member joins the share group of a queue (KIP-932), for both kinds of member: the JMS provider's queue
 * receivers and the resource adapter's share-mode activations. The group is named as the queue's consumer group
 * ({@link Subscription#queue}); before a member's first fetch the group is configured as a queue
 * ({@link SubscriptionAdmin#prepareShareGroup}); each member is one {@link ShareConsumer} in explicit acknowledgement
 * mode ({@link KafkaClientConfig#shareConsumer}) subscribed to the queue's topic and wrapped in a {@link ShareReceiver}.
 *
 * <p>Stateless; any thread.
 */
public final class QueueShareGroup {

    /**
     * A member's fetch waits at most 100 ms at the broker (Kafka: 500 ms): a fetch parked at the broker waits for new
     * data, so this bounds how long a record released by another member can wait for the next fetch
     * ({@link ShareReceiver#RELEASE_BACKOFF_MS}), and how long a member takes to notice that it is asked to stop.
     */
    public static final int FETCH_MAX_WAIT_MS = 100;

    private QueueShareGroup() {
    }

    /**
     * The client id of a member whose receiver has {@code selector}: {@code clientId} carrying the selector
     * ({@link SelectorClientId}), so that a Tributary broker gives the member only the messages it selects and
     * leaves the others to the group's other members without counting a delivery.
     */
    public static String memberClientId(String clientId, MessageSelector selector) {
        return selector.matchesAll() ? clientId : SelectorClientId.withSelector(clientId, selector.text());
    }

    /**
     * Subscribes {@code consumer} to the queue's topic and makes it a receiver. On failure the caller still owns
     * (and closes) the consumer.
     *
     * @param queue              a queue's subscription ({@link Subscription#queue})
     * @param consumer           a new share consumer of the queue's group, explicit acknowledgement
     * @param deadLetterProducer writes dead letters when {@code policy} names a topic, else null
     */
    public static ShareReceiver join(Subscription queue, ShareConsumer<byte[], byte[]> consumer,
                                     DeliveryDecision decision, DeadLetterPolicy policy,
                                     Producer<byte[], byte[]> deadLetterProducer, boolean plainRecordsAsText,
                                     Clock clock) {
        if (queue.kind() != Subscription.Kind.QUEUE) {
            throw new IllegalArgumentException(queue.describe() + " is not a queue");
        }
        consumer.subscribe(List.of(queue.topic()));
        return new ShareReceiver(consumer, decision, policy, deadLetterProducer, plainRecordsAsText, clock,
                queue.describe());
    }
}
