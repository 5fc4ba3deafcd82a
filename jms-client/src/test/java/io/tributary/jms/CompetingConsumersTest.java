package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.tributary.jms.kafka.Subscription;
import io.tributary.testsupport.TributaryClusterExtension;
import io.tributary.testsupport.Waits;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consumers that compete for the messages of one destination on a topic of four partitions: receivers of a queue
 * (one consumer group named after the queue) and the consumers of a shared durable subscription. Every message goes
 * to exactly one consumer, none is lost, the work is spread over more than one consumer, and the messages of one
 * {@code JMSXGroupID} (one record key, so one partition) arrive in the order they were sent.
 *
 * <p>Each test waits until the group has settled (stable, every member assigned a partition) before sending, so that
 * the split is decided by the partition assignment rather than by which consumer happened to join first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompetingConsumersTest {

    private static final long WAIT_MS = 30_000;
    private static final int PARTITIONS = 4;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
    }

    @Test
    void threeReceiversOfAQueueShareTwoHundredMessagesEachReceivedExactlyOnce()
            throws Exception {
        String queueName = "work";
        cluster.createTopic(queueName, PARTITIONS);
        Deliveries deliveries = new Deliveries(200);
        List<Connection> receivers = new ArrayList<>();
        try {
            for (int receiver = 0; receiver < 3; receiver++) {
                Connection connection = factory.createConnection();
                receivers.add(connection);
                Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
                deliveries.listenOn(session.createConsumer(session.createQueue(queueName)), receiver);
                connection.start();
            }
            awaitSettledGroup(Subscription.queue(queueName).groupId(), 3);

            List<Sent> sent = send(TributaryQueue.of(queueName), 200, "customer-", 20);
            deliveries.awaitAll();
            closeAll(receivers);
            deliveries.assertEachReceivedOnce(sent);
            assertTrue(deliveries.receivers().size() > 1, "the work was spread: " + deliveries.countsByReceiver());
        } finally {
            closeAll(receivers);
        }

        // Everything was acknowledged: a new receiver of the queue finds nothing.
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer late = session.createConsumer(session.createQueue(queueName));
            connection.start();
            assertNull(late.receive(1_000), "nothing was left unacknowledged");
        }
    }

    @Test
    void twoConsumersOfASharedDurableSubscriptionSplitAHundredMessagesWithNoneLostOrDuplicated() throws Exception {
        String topicName = "events";
        String subscription = "workers";
        cluster.createTopic(topicName, PARTITIONS);
        Topic topic = TributaryTopic.of(topicName);
        Deliveries deliveries = new Deliveries(100);
        List<Connection> consumers = new ArrayList<>();
        try {
            for (int consumer = 0; consumer < 2; consumer++) {
                Connection connection = factory.createConnection();
                consumers.add(connection);
                Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
                deliveries.listenOn(session.createSharedDurableConsumer(topic, subscription), consumer);
                // Started before the next consumer is created: see
                // aSecondSharedDurableConsumerIsCreatedPromptlyWhileTheFirstOnesConnectionIsStopped.
                connection.start();
            }
            awaitSettledGroup(Subscription.sharedDurableGroupId(null, subscription), 2);

            List<Sent> sent = send(topic, 100, "sensor-", 10);
            deliveries.awaitAll();
            closeAll(consumers);
            deliveries.assertEachReceivedOnce(sent);
            assertEquals(Set.of(0, 1), deliveries.receivers(), "both consumers got messages: "
                    + deliveries.countsByReceiver());
        } finally {
            closeAll(consumers);
        }

        // The subscription acknowledged everything: a consumer that rejoins it finds nothing; then it is removed.
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer rejoined = session.createSharedDurableConsumer(topic, subscription);
            connection.start();
            assertNull(rejoined.receive(1_000), "nothing was left unacknowledged");
            rejoined.close();
            session.unsubscribe(subscription);
        }
    }

    /**
     * The usual order (create the consumers, then start the connection) must not make the second consumer of a shared
     * subscription wait for the first one to poll: the first cannot poll before its connection starts.
     */
    @Test
    void aSecondSharedDurableConsumerIsCreatedPromptlyWhileTheFirstOnesConnectionIsStopped() throws Exception {
        String topicName = "stopped-first";
        cluster.createTopic(topicName, 2);
        TributaryConnectionFactory patient = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        // The bug costs one request timeout; a long one makes it unmistakable.
        patient.setKafkaProperty("consumer.request.timeout.ms", "60000");
        try (Connection first = patient.createConnection();
             Connection second = patient.createConnection()) {
            Topic topic = TributaryTopic.of(topicName);
            first.createSession(Session.AUTO_ACKNOWLEDGE).createSharedDurableConsumer(topic, "pair");
            Session session = second.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = assertTimeoutPreemptively(Duration.ofMillis(WAIT_MS),
                    () -> session.createSharedDurableConsumer(topic, "pair"),
                    "creating the second consumer waits for the first, stopped one to rejoin the group");
            consumer.close();
        }
        try (Connection connection = factory.createConnection()) {
            connection.createSession(Session.AUTO_ACKNOWLEDGE).unsubscribe("pair");
        }
    }

    /** A message as sent: its text and group. */
    private record Sent(String text, String group) {
    }

    /** A message as one of the competing consumers received it. */
    private record Delivery(int receiver, String text, String group, int partition) {
    }

    /**
     * Sends {@code count} messages {@code <prefix>-<i>} whose JMSXGroupID cycles through {@code groups} values, so
     * the record keys spread them over the partitions.
     */
    private List<Sent> send(Destination destination, int count, String groupPrefix, int groups) throws JMSException {
        List<Sent> sent = new ArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(destination);
            for (int i = 0; i < count; i++) {
                String group = groupPrefix + (i % groups);
                TextMessage message = session.createTextMessage("message-" + i);
                message.setStringProperty("JMSXGroupID", group);
                producer.send(message);
                sent.add(new Sent(message.getText(), group));
            }
        }
        return sent;
    }

    /**
     * Waits until {@code groupId} is stable with {@code members} members, each assigned at least one partition; a
     * group that does not exist yet (its first member still joining) is not settled.
     */
    private void awaitSettledGroup(String groupId, int members) throws Exception {
        try (Admin admin = cluster.admin()) {
            Waits.await("group " + groupId + " settled with " + members + " assigned members")
                    .atMost(Duration.ofMillis(WAIT_MS)).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsMatching(e -> e.getCause() instanceof GroupIdNotFoundException)
                    .until(() -> {
                        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId))
                                .describedGroups().get(groupId).get(WAIT_MS, TimeUnit.MILLISECONDS);
                        return group.groupState() == GroupState.STABLE && group.members().size() == members
                                && group.members().stream()
                                        .noneMatch(m -> m.assignment().topicPartitions().isEmpty());
                    });
        }
    }

    private static void closeAll(List<Connection> connections) throws JMSException {
        for (Connection connection : connections) {
            connection.close(); // idempotent
        }
    }

    /** What the competing listeners received, in arrival order. */
    private static final class Deliveries {
        private final List<Delivery> received = new CopyOnWriteArrayList<>();
        private final CountDownLatch expected;

        Deliveries(int expected) {
            this.expected = new CountDownLatch(expected);
        }

        void listenOn(MessageConsumer consumer, int receiver) throws JMSException {
            consumer.setMessageListener(message -> {
                try {
                    received.add(new Delivery(receiver, ((TextMessage) message).getText(),
                            message.getStringProperty("JMSXGroupID"),
                            message.getIntProperty("JMS_Tributary_Partition")));
                } catch (JMSException e) {
                    throw new AssertionError(e);
                }
                expected.countDown();
            });
        }

        void awaitAll() throws InterruptedException {
            assertTrue(expected.await(WAIT_MS, TimeUnit.MILLISECONDS), "only " + received.size()
                    + " deliveries arrived: " + countsByReceiver());
        }

        /** Exactly the messages sent, each once, and each group's messages in the order they were sent. */
        void assertEachReceivedOnce(List<Sent> sent) {
            assertEquals(sent.stream().map(Sent::text).sorted().toList(),
                    received.stream().map(Delivery::text).sorted().toList(), "each message exactly once");
            Map<String, List<String>> sentByGroup = new LinkedHashMap<>();
            for (Sent message : sent) {
                sentByGroup.computeIfAbsent(message.group(), g -> new ArrayList<>()).add(message.text());
            }
            Map<String, List<String>> receivedByGroup = new LinkedHashMap<>();
            for (Delivery delivery : received) {
                receivedByGroup.computeIfAbsent(delivery.group(), g -> new ArrayList<>()).add(delivery.text());
            }
            assertEquals(sentByGroup, receivedByGroup, "each group in send order");
            Map<String, Set<Integer>> partitionsByGroup = received.stream().collect(Collectors.groupingBy(
                    Delivery::group, Collectors.mapping(Delivery::partition, Collectors.toCollection(TreeSet::new))));
            for (Map.Entry<String, Set<Integer>> group : partitionsByGroup.entrySet()) {
                assertEquals(1, group.getValue().size(), "group " + group.getKey() + " stays in one partition");
            }
        }

        Set<Integer> receivers() {
            return received.stream().map(Delivery::receiver).collect(Collectors.toCollection(TreeSet::new));
        }

        Map<Integer, Long> countsByReceiver() {
            return received.stream().collect(Collectors.groupingBy(Delivery::receiver, java.util.TreeMap::new,
                    Collectors.counting()));
        }
    }
}
