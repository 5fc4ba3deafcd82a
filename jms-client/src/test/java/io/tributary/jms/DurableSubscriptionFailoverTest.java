package io.tributary.jms;

import static io.tributary.jms.DurableSubscriptionClients.publish;
import static io.tributary.jms.DurableSubscriptionClients.subscriberConnection;
import static io.tributary.jms.DurableSubscriptionClients.texts;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionDefinition;
import io.tributary.testsupport.ProcessCluster;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable subscription outlives the broker that coordinates it (Jakarta Messaging 3.1 §6.11.1, on a replicated
 * cluster): three brokers, each a process of its own ({@link ProcessCluster}), the offsets topic and the subscribed topic
 * replicated three times with {@code min.insync.replicas=2}. A durable subscriber acknowledges part of what was
 * published and goes away; the test SIGKILLs the coordinator of the subscription's consumer group
 * ({@code jms.durable.<client id>.<name>}, {@link Subscription#durableGroupId}), publishes more, and a new connection
 * with the same client id resumes the subscription. It receives exactly the messages it had not received, each once,
 * in order, and none that it had acknowledged.
 *
 * <p>What must survive the kill, on the new coordinator's copy of {@code __consumer_offsets}, is the committed offset
 * and its metadata, the subscription's {@link SubscriptionDefinition}: the provider reads that metadata when the
 * subscription is created again, and deletes the subscription's group if it shows another definition. The test
 * checks the metadata itself, because metadata that came back empty would pass unnoticed by the provider
 * ({@link SubscriptionDefinition#differs} keeps a subscription whose metadata tells nothing).
 */
class DurableSubscriptionFailoverTest {

    private static final String TOPIC = "ledger";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final String CLIENT_ID = "failover-client";
    private static final String SUBSCRIPTION = "audit";
    private static final String GROUP = Subscription.durableGroupId(CLIENT_ID, SUBSCRIPTION);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";
    /** offsets.topic.num.partitions of ProcessCluster's brokers. */
    private static final int OFFSETS_PARTITIONS = 3;
    /** Published before the kill: the subscriber receives and acknowledges the first {@link #ACKNOWLEDGED}. */
    private static final int PUBLISHED_BEFORE = 20;
    private static final int ACKNOWLEDGED = 12;
    private static final int PUBLISHED_AFTER = 10;
    /** Bounds each wait: a leader election after a kill waits for the 6 s ZooKeeper session to expire. */
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /** How long a receive waits for a message that must come: the consumer may have to find the new coordinator. */
    private static final long RECEIVE_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aResumedDurableSubscriberGetsExactlyWhatItHadNotReceivedAfterItsGroupCoordinatorIsKilled() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, "offsets.topic.replication.factor", "3",
                "offsets.topic.num.partitions", Integer.toString(OFFSETS_PARTITIONS))) {
            cluster.startAll();
            cluster.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
            List<String> before = numbered("before-kill-", PUBLISHED_BEFORE);
            List<String> after = numbered("after-kill-", PUBLISHED_AFTER);

            TributaryConnectionFactory factory = connectionFactory(cluster.bootstrapServers());
            try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
                Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
                MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
                connection.start();
                // Creating the subscription created the offsets topic: its commits must reach all three copies.
                cluster.awaitFullIsr(OFFSETS_TOPIC, OFFSETS_PARTITIONS, 3, LIMIT);
                publish(factory, TOPIC, before.toArray(String[]::new));
                List<Message> received = receive(subscriber, ACKNOWLEDGED);
                assertEquals(before.subList(0, ACKNOWLEDGED), texts(received), "before the kill");
                received.get(ACKNOWLEDGED - 1).acknowledge(); // CLIENT_ACKNOWLEDGE: all the session received
            }
            String definition = SubscriptionDefinition.of(TOPIC, null, false);
            Map<TopicPartition, String> acknowledged = Map.of(PARTITION, ACKNOWLEDGED + " " + definition);
            assertEquals(acknowledged, committed(cluster), "the subscription's committed offset and metadata");

            int coordinator = cluster.coordinatorOf(GROUP);
            cluster.kill(coordinator);
            Set<Integer> survivors = new TreeSet<>(cluster.ids());
            survivors.remove(coordinator);
            // The topic has a leader among the survivors, and the group a new coordinator that loaded its offsets.
            cluster.awaitIsr(PARTITION, survivors, LIMIT);
            Map<TopicPartition, String> afterKill = new HashMap<>();
            await(LIMIT).untilAsserted(() -> assertTrue(() -> {
                afterKill.clear();
                afterKill.putAll(committed(cluster));
                return !afterKill.isEmpty();
            }, () -> "the offsets of group " + GROUP + " from a new coordinator after broker " + coordinator
                    + " was killed"));
            assertEquals(acknowledged, afterKill, "the committed offset and its metadata after broker "
                    + coordinator + ", the group's coordinator, was killed");

            factory = connectionFactory(cluster.bootstrapServers());
            publish(factory, TOPIC, after.toArray(String[]::new));
            try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
                Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
                MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
                connection.start();
                List<String> missed = new ArrayList<>(before.subList(ACKNOWLEDGED, PUBLISHED_BEFORE));
                missed.addAll(after);
                List<Message> resumed = receive(subscriber, missed.size());
                assertEquals(missed, texts(resumed), "the resumed subscription: what was not received before the"
                        + " kill and what was published after it, in order, nothing acknowledged again");
                for (Message message : resumed) {
                    assertFalse(message.getJMSRedelivered(), "delivered for the first time: " + text(message));
                }
                resumed.get(resumed.size() - 1).acknowledge();
                assertNull(subscriber.receive(1_000), "each message once");
            }
        }
    }

    /**
     * The subscription group's committed offsets as {@code "<offset> <metadata>"} by partition, as the cluster's
     * coordinator of the group answers now; empty when it has none or does not answer.
     */
    private static Map<TopicPartition, String> committed(ProcessCluster cluster) {
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, String> committed = new HashMap<>();
            admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                    .forEach((tp, offset) -> committed.put(tp, describe(offset)));
            return committed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return Map.of();
        }
    }

    /** Offset and metadata, without the leader epoch, which the test does not predict. */
    private static String describe(OffsetAndMetadata offset) {
        return offset == null ? "none" : offset.offset() + " " + offset.metadata();
    }

    /** A connection factory whose consumers notice a lost coordinator within seconds. */
    private static TributaryConnectionFactory connectionFactory(String bootstrapServers) {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers);
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "200");
        factory.setKafkaProperty("consumer.session.timeout.ms", "6000");
        return factory;
    }

    /**
     * Receives until {@code count} messages came or one did not come within {@link #RECEIVE_MS}; the caller asserts
     * on what came, so that a failure shows it.
     */
    private static List<Message> receive(MessageConsumer consumer, int count) throws JMSException {
        List<Message> messages = new ArrayList<>();
        while (messages.size() < count) {
            Message message = consumer.receive(RECEIVE_MS);
            if (message == null) {
                break;
            }
            messages.add(message);
        }
        return messages;
    }

    private static List<String> numbered(String prefix, int count) {
        return IntStream.rangeClosed(1, count).mapToObj(i -> prefix + i).toList();
    }

    private static String text(Message message) throws JMSException {
        return ((TextMessage) message).getText();
    }
}
