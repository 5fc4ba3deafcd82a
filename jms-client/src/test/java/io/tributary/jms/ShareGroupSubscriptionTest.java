package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.testsupport.TributaryClusterExtension;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shared topic subscriptions on share groups (issue 22 item 2, issue 24), against a real broker with the provider's
 * default {@code subscriptionMode=share}, on one-partition topics: every consumer of a shared subscription that
 * waits in {@code receive()} gets messages, each message goes to one of them, and an idle consumer holds nothing;
 * a durable one keeps what is sent while it has no consumer until {@code unsubscribe}, a non-durable one ends with
 * its last consumer; a selective consumer releases what it does not select to the others; recover and rollback
 * deliver again with the broker's delivery count.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShareGroupSubscriptionTest {

    private static final long WAIT_MS = 20_000;
    /** How long a test waits to be sure that nothing (more) arrives. */
    private static final long NOTHING_MS = 1_500;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    private String name(String prefix) {
        return prefix + "-" + names.incrementAndGet();
    }

    private Topic topic(Session session) throws Exception {
        String name = name("share-sub");
        cluster.createTopic(name, 1);
        return session.createTopic(name);
    }

    private static void send(Session session, Topic topic, String... texts) throws JMSException {
        MessageProducer producer = session.createProducer(topic);
        for (String text : texts) {
            TextMessage message = session.createTextMessage(text);
            message.setStringProperty("kind", text.substring(0, 1));
            producer.send(message);
        }
        producer.close();
    }

    private static String text(Message message) throws JMSException {
        assertNotNull(message, "no message within the wait");
        return ((TextMessage) message).getText();
    }

    @Test
    void fourConsumersOfASharedSubscriptionEachBlockedInReceiveAllReceiveEveryMessageOnce() throws Exception {
        fourBlockedReceiversAllReceive((session, topic) -> uncheckedConsumer(
                () -> session.createSharedConsumer(topic, "four")));
    }

    @Test
    void fourConsumersOfASharedDurableSubscriptionEachBlockedInReceiveAllReceiveEveryMessageOnce()
            throws Exception {
        fourBlockedReceiversAllReceive((session, topic) -> uncheckedConsumer(
                () -> session.createSharedDurableConsumer(topic, "four-durable")));
    }

    /**
     * Four consumers of one subscription, each in its own session and its own thread blocked in {@code receive()}
     * without a timeout; messages sent one by one, as the test did. One fetch holds one message here, so that
     * every consumer's turn comes within the messages sent.
     */
    private void fourBlockedReceiversAllReceive(BiFunction<Session, Topic, MessageConsumer> create)
            throws Exception {
        TributaryConnectionFactory oneAtATime = TestConnectionFactory.create(cluster.bootstrapServers());
        oneAtATime.setKafkaProperty("consumer.max.poll.records", "1");
        int count = 60;
        Map<String, Integer> receivedBy = new ConcurrentHashMap<>();
        List<String> twice = new CopyOnWriteArrayList<>();
        Map<Integer, AtomicInteger> perConsumer = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        try (Connection connection = oneAtATime.createConnection()) {
            Session sender = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(sender);
            List<MessageConsumer> consumers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                consumers.add(create.apply(connection.createSession(Session.AUTO_ACKNOWLEDGE), topic));
            }
            connection.start();
            for (int c = 0; c < 4; c++) {
                int index = c;
                MessageConsumer consumer = consumers.get(c);
                perConsumer.put(index, new AtomicInteger());
                Thread thread = new Thread(() -> {
                    try {
                        Message message;
                        while ((message = consumer.receive()) != null) {
                            if (receivedBy.putIfAbsent(text(message), index) != null) {
                                twice.add(text(message));
                            }
                            perConsumer.get(index).incrementAndGet();
                        }
                    } catch (JMSException e) {
                        // closed under the receive: the test is over
                    }
                }, "receiver-" + c);
                thread.start();
                threads.add(thread);
            }
            for (int i = 0; i < count; i++) {
                send(sender, topic, "m" + i);
            }
            Waits.await("all " + count + " messages received").untilAsserted(() -> assertEquals(count,
                    receivedBy.size(), () -> receivedBy.size() + " received, per consumer " + perConsumer));
            for (MessageConsumer consumer : consumers) {
                consumer.close();
            }
        }
        for (Thread thread : threads) {
            thread.join(WAIT_MS);
            assertFalse(thread.isAlive(), thread.getName() + " still blocked after close");
        }
        assertEquals(List.of(), twice, "messages delivered twice");
        perConsumer.forEach((consumer, got) -> assertTrue(got.get() > 0, () -> "consumer " + consumer
                + " got none: " + perConsumer));
    }

    @Test
    void anIdleConsumerHoldsNothingThatAWaitingOneWantsOnOnePartition() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            Session idleSession = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer idle = idleSession.createSharedConsumer(topic, "idle");
            MessageConsumer waiting = connection.createSession(Session.AUTO_ACKNOWLEDGE)
                    .createSharedConsumer(topic, "idle");
            connection.start();
            send(session, topic, "x-for-whoever-waits");
            assertEquals("x-for-whoever-waits", text(waiting.receive(WAIT_MS)));
            assertNull(idle.receiveNoWait());
        }
    }

    @Test
    void aSharedDurableSubscriptionKeepsWhatIsSentWhileAllItsConsumersAreClosed() throws Exception {
        String subscription = name("keeps");
        Topic topic;
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            topic = topic(session);
            MessageConsumer first = session.createSharedDurableConsumer(topic, subscription);
            MessageConsumer second = connection.createSession(Session.AUTO_ACKNOWLEDGE)
                    .createSharedDurableConsumer(topic, subscription);
            connection.start();
            send(session, topic, "a-while-active");
            Message received = first.receive(WAIT_MS / 2);
            if (received == null) {
                received = second.receive(WAIT_MS);
            }
            assertEquals("a-while-active", text(received));
            first.close();
            second.close();
            send(session, topic, "b-while-closed-1", "b-while-closed-2");
        }
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer again = session.createSharedDurableConsumer(topic, subscription);
            connection.start();
            List<String> texts = new ArrayList<>();
            texts.add(text(again.receive(WAIT_MS)));
            texts.add(text(again.receive(WAIT_MS)));
            texts.sort(null); // a share group keeps no order
            assertEquals(List.of("b-while-closed-1", "b-while-closed-2"), texts);
            assertNull(again.receive(NOTHING_MS), "nothing else: the first message was accepted");
            again.close();
            session.unsubscribe(subscription);
        }
    }

    @Test
    void unsubscribeDeletesASharedDurableSubscriptionAndCreatingItAgainStartsEmpty() throws Exception {
        String subscription = name("unsubscribed");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            MessageConsumer consumer = session.createSharedDurableConsumer(topic, subscription);
            assertThrows(IllegalStateException.class, () -> session.unsubscribe(subscription));
            consumer.close();
            send(session, topic, "a-kept-for-the-old-subscription");
            session.unsubscribe(subscription);
            assertThrows(InvalidDestinationException.class, () -> session.unsubscribe(subscription));

            MessageConsumer recreated = session.createSharedDurableConsumer(topic, subscription);
            connection.start();
            send(session, topic, "b-for-the-new-subscription");
            assertEquals("b-for-the-new-subscription", text(recreated.receive(WAIT_MS)));
            assertNull(recreated.receive(NOTHING_MS), "the old subscription's message is gone with it");
            recreated.close();
            session.unsubscribe(subscription);
        }
    }

    @Test
    void aSharedDurableSubscriptionCreatedAgainWithAnotherSelectorIsNewUnlessItIsActive() throws Exception {
        String subscription = name("redefined");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            MessageConsumer active = session.createSharedDurableConsumer(topic, subscription);
            assertThrows(IllegalStateException.class,
                    () -> session.createSharedDurableConsumer(topic, subscription, "kind = 'a'"));
            active.close();
            send(session, topic, "b-kept-for-the-old-definition");
            MessageConsumer redefined = session.createSharedDurableConsumer(topic, subscription, "kind = 'a'");
            connection.start();
            send(session, topic, "a-for-the-new-definition");
            assertEquals("a-for-the-new-definition", text(redefined.receive(WAIT_MS)));
            assertNull(redefined.receive(NOTHING_MS));
            redefined.close();
            session.unsubscribe(subscription);
        }
    }

    @Test
    void aSharedSubscriptionEndsWithItsLastConsumerAndWhatIsSentThenIsNotKept() throws Exception {
        String subscription = name("ends");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            MessageConsumer first = session.createSharedConsumer(topic, subscription);
            MessageConsumer second = connection.createSession(Session.AUTO_ACKNOWLEDGE)
                    .createSharedConsumer(topic, subscription);
            connection.start();
            first.close();
            send(session, topic, "a-while-one-consumer-is-left");
            assertEquals("a-while-one-consumer-is-left", text(second.receive(WAIT_MS)));
            second.close();
            String groupId = Subscription.sharedGroupId(null, subscription);
            SubscriptionAdmin admin = new SubscriptionAdmin(admin(connection), Duration.ofSeconds(10));
            assertNull(admin.storedDefinition(groupId), "the subscription is deleted with its last consumer");
            send(session, topic, "b-after-the-last-consumer-closed");

            MessageConsumer later = session.createSharedConsumer(topic, subscription);
            send(session, topic, "c-for-the-new-subscription");
            assertEquals("c-for-the-new-subscription", text(later.receive(WAIT_MS)));
            assertNull(later.receive(NOTHING_MS), "nothing sent before the subscription existed");
        }
    }

    private static Admin admin(Connection connection) throws JMSException {
        return ((TributaryConnection) connection).admin();
    }

    /**
     * A shared subscription's consumers all have its selector (its definition); a message it does not select is
     * consumed for the subscription, not passed around its consumers, so a selective subscription beside a
     * non-selective one on the same topic takes nothing from it and loses nothing of its own.
     */
    @Test
    void aSelectiveSharedSubscriptionBesideANonSelectiveOneLosesNothingAndTakesNothingFromIt() throws Exception {
        int count = 40;
        Map<String, Integer> selective = new ConcurrentHashMap<>();
        List<String> all = new CopyOnWriteArrayList<>();
        List<String> twice = new CopyOnWriteArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            String subscription = name("selective");
            connection.createSession(Session.AUTO_ACKNOWLEDGE).createSharedConsumer(topic, subscription + "-all")
                    .setMessageListener(message -> all.add(unchecked(message)));
            for (int c = 0; c < 2; c++) {
                connection.createSession(Session.AUTO_ACKNOWLEDGE)
                        .createSharedConsumer(topic, subscription + "-a", "kind = 'a'")
                        .setMessageListener(message -> {
                            try {
                                if (selective.put(text(message), message.getIntProperty("JMSXDeliveryCount"))
                                        != null) {
                                    twice.add(text(message));
                                }
                            } catch (JMSException e) {
                                throw new AssertionError(e);
                            }
                        });
            }
            connection.start();
            String[] texts = new String[count];
            for (int i = 0; i < count; i++) {
                texts[i] = (i % 2 == 0 ? "a" : "b") + i;
            }
            send(session, topic, texts);
            Waits.await("every message to the non-selective subscription, the a's to the selective one")
                    .untilAsserted(() -> {
                        assertEquals(count, all.size(), () -> "all: " + all);
                        assertEquals(count / 2, selective.size(), () -> "selective: " + selective);
                    });
        }
        assertEquals(List.of(), twice);
        assertTrue(selective.keySet().stream().allMatch(text -> text.startsWith("a")), selective::toString);
        assertTrue(selective.values().stream().allMatch(n -> n == 1), () -> "no message went round the "
                + "consumers: " + selective);
    }

    @Test
    void recoverAndRollbackDeliverAgainWithDeliveryCountTwo() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            Session client = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer recovering = client.createSharedConsumer(topic, name("recover"));
            Session transacted = connection.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer rollingBack = transacted.createSharedDurableConsumer(topic, name("rollback"));
            connection.start();
            send(session, topic, "m-twice");

            Message first = recovering.receive(WAIT_MS);
            assertEquals("m-twice", text(first));
            assertEquals(1, first.getIntProperty("JMSXDeliveryCount"));
            client.recover();
            Message again = recovering.receive(WAIT_MS);
            assertEquals("m-twice", text(again));
            assertTrue(again.getJMSRedelivered());
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
            again.acknowledge();

            Message inTransaction = rollingBack.receive(WAIT_MS);
            assertEquals("m-twice", text(inTransaction));
            transacted.rollback();
            Message afterRollback = rollingBack.receive(WAIT_MS);
            assertEquals("m-twice", text(afterRollback));
            assertTrue(afterRollback.getJMSRedelivered());
            assertEquals(2, afterRollback.getIntProperty("JMSXDeliveryCount"));
            transacted.commit();
            assertNull(rollingBack.receive(NOTHING_MS), "accepted at commit");
        }
    }

    @Test
    void theSimplifiedApisSharedConsumersAreShareGroupMembersToo() {
        try (JMSContext context = factory.createContext()) {
            String topicName = name("share-sub-context");
            try {
                cluster.createTopic(topicName, 1);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            Topic topic = context.createTopic(topicName);
            JMSContext second = context.createContext(JMSContext.AUTO_ACKNOWLEDGE);
            JMSConsumer idle = context.createSharedDurableConsumer(topic, "ctx");
            JMSConsumer waiting = second.createSharedDurableConsumer(topic, "ctx");
            context.createProducer().send(topic, "to the waiting one");
            assertEquals("to the waiting one", waiting.receiveBody(String.class, WAIT_MS));
            idle.close();
            waiting.close();
            context.unsubscribe("ctx");
        }
    }

    @Test
    void groupModeKeepsSharedSubscriptionsOnConsumerGroups() throws Exception {
        TributaryConnectionFactory groupMode = TestConnectionFactory.create(cluster.bootstrapServers());
        groupMode.setSubscriptionMode("group");
        try (Connection connection = groupMode.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = topic(session);
            String subscription = name("group-mode");
            MessageConsumer consumer = session.createSharedDurableConsumer(topic, subscription);
            connection.start();
            send(session, topic, "m-through-the-consumer-group");
            assertEquals("m-through-the-consumer-group", text(consumer.receive(WAIT_MS)));
            SubscriptionAdmin admin = new SubscriptionAdmin(admin(connection), Duration.ofSeconds(10));
            String groupId = Subscription.sharedDurableGroupId(null, subscription);
            Waits.await("the consumer group committed").until(() -> !admin.committedOffsets(groupId).isEmpty());
            consumer.close();
            session.unsubscribe(subscription);
        }
    }

    private static String unchecked(Message message) {
        try {
            return text(message);
        } catch (JMSException e) {
            throw new AssertionError(e);
        }
    }

    private interface ConsumerCall {
        MessageConsumer create() throws JMSException;
    }

    private static MessageConsumer uncheckedConsumer(ConsumerCall call) {
        try {
            return call.create();
        } catch (JMSException e) {
            throw new AssertionError(e);
        }
    }
}
