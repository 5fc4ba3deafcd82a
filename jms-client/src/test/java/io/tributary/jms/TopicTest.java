package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Topics on a real broker: non-durable subscriptions see what is published after they exist, every subscriber gets
 * every message, durable subscriptions keep what was published while they were inactive, shared subscriptions split
 * the messages, selectors and noLocal filter, and request/reply works through a temporary queue.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopicTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    private String topicName() {
        return "topic-" + names.incrementAndGet();
    }

    private static void publish(Session session, Topic topic, String... texts) throws JMSException {
        MessageProducer producer = session.createProducer(topic);
        for (String text : texts) {
            TextMessage message = session.createTextMessage(text);
            message.setStringProperty("color", text.startsWith("r") ? "red" : "blue");
            producer.send(message);
        }
        producer.close();
    }

    private static List<String> drain(MessageConsumer consumer, int count) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message message = consumer.receive(WAIT_MS);
            assertNotNull(message, "message " + i + " after " + texts);
            texts.add(((TextMessage) message).getText());
        }
        return texts;
    }

    @Test
    void everyNonDurableSubscriberGetsEveryMessagePublishedAfterItsCreation() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName());
            publish(session, topic, "before");
            MessageConsumer first = session.createConsumer(topic);
            MessageConsumer second = connection.createSession(Session.AUTO_ACKNOWLEDGE).createConsumer(topic);
            connection.start();
            publish(session, topic, "after-1", "after-2");
            assertEquals(List.of("after-1", "after-2"), drain(first, 2));
            assertEquals(List.of("after-1", "after-2"), drain(second, 2));
            assertNull(first.receive(300));
        }
    }

    @Test
    void aDurableSubscriptionKeepsWhatWasPublishedWhileItWasInactive() throws Exception {
        String topicName = topicName();
        try (Connection connection = factory.createConnection()) {
            connection.setClientID("client-a");
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName);
            MessageConsumer durable = session.createDurableConsumer(topic, "audit");
            assertThrows(IllegalStateException.class, () -> connection.createSession(Session.AUTO_ACKNOWLEDGE)
                    .createDurableConsumer(topic, "audit"), "one active consumer per durable subscription");
            connection.start();
            publish(session, topic, "one");
            assertEquals(List.of("one"), drain(durable, 1));
            durable.close();
            publish(session, topic, "two", "three"); // while the subscription is inactive
        }
        try (Connection connection = factory.createConnection()) {
            connection.setClientID("client-a");
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName);
            MessageConsumer durable = session.createDurableConsumer(topic, "audit");
            connection.start();
            assertEquals(List.of("two", "three"), drain(durable, 2));
            assertThrows(IllegalStateException.class, () -> session.unsubscribe("audit"),
                    "an active subscription cannot be removed");
            durable.close();
            session.unsubscribe("audit");
            assertThrows(InvalidDestinationException.class, () -> session.unsubscribe("audit"));
            publish(session, topic, "gone");
            MessageConsumer fresh = session.createDurableConsumer(topic, "audit");
            publish(session, topic, "new");
            assertEquals(List.of("new"), drain(fresh, 1), "a new subscription starts at its creation");
        }
    }

    @Test
    void aDurableSubscriptionCreatedAgainWithAnotherSelectorOrNoLocalIsANewOne() throws Exception {
        String topicName = topicName();
        try (Connection connection = factory.createConnection();
             Connection elsewhere = factory.createConnection()) {
            connection.setClientID("client-redefined");
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Session otherSession = elsewhere.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName);
            connection.start();
            MessageConsumer durable = session.createDurableConsumer(topic, "audit", "color = 'red'", false);
            publish(session, topic, "red-1", "blue-1");
            assertEquals(List.of("red-1"), drain(durable, 1));
            durable.close();
            publish(session, topic, "red-2");
            durable = session.createDurableConsumer(topic, "audit", "color = 'red'", false);
            assertEquals(List.of("red-2"), drain(durable, 1), "the same definition resumes the subscription");
            durable.close();

            publish(session, topic, "red-3", "blue-2"); // kept for the old definition only
            durable = session.createDurableConsumer(topic, "audit", "color = 'blue'", false);
            publish(session, topic, "blue-3");
            assertEquals(List.of("blue-3"), drain(durable, 1), "another selector: a new subscription, from now");
            assertNull(durable.receive(300));
            durable.close();

            publish(session, topic, "blue-4");
            durable = session.createDurableConsumer(topic, "audit", "color = 'blue'", true);
            publish(otherSession, topic, "blue-5");
            assertEquals(List.of("blue-5"), drain(durable, 1), "another noLocal: a new subscription, from now");
            durable.close();

            publish(session, topic, "red-4");
            durable = session.createDurableConsumer(topic, "audit");
            publish(session, topic, "red-5");
            assertEquals(List.of("red-5"), drain(durable, 1), "no selector is another definition too");
            durable.close();
            publish(session, topic, "blue-6");
            durable = session.createDurableConsumer(topic, "audit", " ", false);
            assertEquals(List.of("blue-6"), drain(durable, 1), "a blank selector is no selector");
            durable.close();
            session.unsubscribe("audit");
        }
    }

    @Test
    void aSharedDurableSubscriptionWithAnotherSelectorIsANewOneOnceItsConsumersAreGone() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Session other = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName());
            connection.start();
            MessageConsumer red = session.createSharedDurableConsumer(topic, "shared-audit", "color = 'red'");
            publish(session, topic, "red-1");
            assertEquals(List.of("red-1"), drain(red, 1));
            assertThrows(IllegalStateException.class,
                    () -> other.createSharedDurableConsumer(topic, "shared-audit", "color = 'blue'"),
                    "an active shared subscription cannot change its selector");
            red.close();

            publish(session, topic, "red-2", "blue-1"); // kept for the old definition only
            MessageConsumer blue = other.createSharedDurableConsumer(topic, "shared-audit", "color = 'blue'");
            publish(session, topic, "blue-2");
            assertEquals(List.of("blue-2"), drain(blue, 1), "another selector: a new subscription, from now");
            assertNull(blue.receive(300));
            blue.close();
            session.unsubscribe("shared-audit");
        }
    }

    @Test
    void aSharedAndAnUnsharedDurableSubscriptionMayNotShareANameAndClientId() throws Exception {
        try (Connection connection = factory.createConnection()) {
            connection.setClientID("client-kinds");
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName());
            session.createDurableConsumer(topic, "both").close(); // inactive, it still exists
            JMSException refused = assertThrows(JMSException.class,
                    () -> session.createSharedDurableConsumer(topic, "both"));
            assertTrue(refused.getMessage().contains("'both'"), refused.getMessage());
            session.unsubscribe("both");

            MessageConsumer shared = session.createSharedDurableConsumer(topic, "both");
            assertThrows(JMSException.class, () -> session.createDurableConsumer(topic, "both"), "while active");
            shared.close();
            assertThrows(JMSException.class, () -> session.createDurableConsumer(topic, "both"), "while inactive");
            session.unsubscribe("both");
            session.createDurableConsumer(topic, "both").close();
            session.unsubscribe("both");
        }
    }

    @Test
    void aDurableSubscriptionNeedsAClientId() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            assertThrows(IllegalStateException.class,
                    () -> session.createDurableConsumer(session.createTopic(topicName()), "x"));
            assertThrows(IllegalStateException.class, () -> connection.setClientID("too-late"));
        }
    }

    @Test
    void sharedDurableConsumersSplitTheMessagesOfOneSubscription() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName());
            MessageConsumer a = session.createSharedDurableConsumer(topic, "workers");
            MessageConsumer b = connection.createSession(Session.AUTO_ACKNOWLEDGE)
                    .createSharedDurableConsumer(topic, "workers");
            connection.start();
            publish(session, topic, "w1", "w2", "w3", "w4");
            List<String> all = new ArrayList<>();
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (all.size() < 4 && System.currentTimeMillis() < deadline) {
                for (MessageConsumer consumer : List.of(a, b)) {
                    Message message = consumer.receive(100);
                    if (message != null) {
                        all.add(((TextMessage) message).getText());
                    }
                }
            }
            assertEquals(List.of("w1", "w2", "w3", "w4"), all.stream().sorted().toList(),
                    "each message once across the shared consumers");
            a.close();
            b.close();
            session.unsubscribe("workers");
        }
    }

    @Test
    void selectorsAndNoLocalFilterWhatASubscriberGets() throws Exception {
        try (Connection connection = factory.createConnection();
             Connection other = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(topicName());
            MessageConsumer reds = session.createConsumer(topic, "color = 'red'");
            MessageConsumer notMine = session.createConsumer(topic, null, true);
            assertThrows(InvalidSelectorException.class, () -> session.createConsumer(topic, "color = "));
            connection.start();
            publish(session, topic, "red-1", "blue-1", "red-2");
            publish(other.createSession(Session.AUTO_ACKNOWLEDGE), topic, "blue-other");
            assertEquals(List.of("red-1", "red-2"), drain(reds, 2));
            assertEquals(List.of("blue-other"), drain(notMine, 1), "noLocal skips this connection's messages");
            assertNull(reds.receive(300));
        }
    }

    @Test
    void requestReplyWorksThroughATemporaryQueueThatOnlyItsConnectionMayRead() throws Exception {
        try (Connection requester = factory.createConnection();
             Connection responder = factory.createConnection()) {
            Session requests = requester.createSession(Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = requests.createTemporaryQueue();
            MessageConsumer replyConsumer = requests.createConsumer(replies);
            Session serving = responder.createSession(Session.AUTO_ACKNOWLEDGE);
            jakarta.jms.Queue service = serving.createQueue("service-" + names.incrementAndGet());
            MessageConsumer serviceConsumer = serving.createConsumer(service);
            assertThrows(InvalidDestinationException.class, () -> serving.createConsumer(replies),
                    "a temporary queue is read only by its own connection");
            requester.start();
            responder.start();

            TextMessage request = requests.createTextMessage("ping");
            request.setJMSReplyTo(replies);
            request.setJMSCorrelationID("req-1");
            requests.createProducer(service).send(request);

            Message received = serviceConsumer.receive(WAIT_MS);
            assertNotNull(received);
            TextMessage reply = serving.createTextMessage("pong");
            reply.setJMSCorrelationID(received.getJMSCorrelationID());
            serving.createProducer(received.getJMSReplyTo()).send(reply);

            Message answer = replyConsumer.receive(WAIT_MS);
            assertNotNull(answer);
            assertEquals("pong", ((TextMessage) answer).getText());
            assertEquals("req-1", answer.getJMSCorrelationID());
            assertThrows(IllegalStateException.class, replies::delete, "still read by a consumer");
            replyConsumer.close();
            replies.delete();
        }
    }

    @Test
    void closedObjectsRefuseUse() throws Exception {
        Connection connection = factory.createConnection();
        Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createTopic(topicName()));
        consumer.close();
        assertThrows(IllegalStateException.class, () -> consumer.receive(10));
        session.close();
        assertThrows(IllegalStateException.class, session::createTextMessage);
        connection.close();
        connection.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> connection.createSession(Session.AUTO_ACKNOWLEDGE));
        assertTrue(connection.toString().contains("TributaryConnection"));
    }
}
