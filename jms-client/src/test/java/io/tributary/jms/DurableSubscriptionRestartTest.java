package io.tributary.jms;

import static io.tributary.jms.DurableSubscriptionClients.publish;
import static io.tributary.jms.DurableSubscriptionClients.subscriberConnection;
import static io.tributary.jms.DurableSubscriptionClients.texts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tributary.testsupport.InProcessBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable subscription outlives its subscriber (Jakarta Messaging 3.1 §6.11.1): what is published while no
 * consumer is active is kept for it, whether the subscribing client stopped (a new connection with the same client
 * id resumes it) or the broker itself restarted (the subscription's committed position is in
 * {@code __consumer_offsets}, on disk). Each time the subscriber comes back it receives exactly the messages it
 * missed: each once, nothing it had already received.
 */
class DurableSubscriptionRestartTest {

    private static final long WAIT_MS = 20_000;
    private static final String CLIENT_ID = "restarting-client";
    private static final String SUBSCRIPTION = "audit";
    private static final String TOPIC = "orders";

    private InProcessBroker cluster;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        cluster = InProcessBroker.builder(dir).start();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aDurableSubscriberGetsWhatWasPublishedWhileItsClientAndThenTheBrokerWereDown() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic(TOPIC);
            MessageConsumer subscriber = session.createDurableConsumer(topic, SUBSCRIPTION);
            connection.start();
            publish(factory, TOPIC, "first");
            assertEquals(List.of("first"), receive(subscriber, 1));
        }

        // The client is gone: a new connection with the same client id resumes the subscription.
        publish(factory, TOPIC, "while-client-down-1", "while-client-down-2");
        try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
            connection.start();
            assertEquals(List.of("while-client-down-1", "while-client-down-2"), receive(subscriber, 2),
                    "what was published while the client was down, and not 'first' again");
            assertNull(subscriber.receive(500), "each message once");
        }

        // Published before the broker restarts and after it, while the subscriber is still gone.
        publish(factory, TOPIC, "before-broker-restart");
        cluster.restart();
        factory = TestConnectionFactory.create(cluster.bootstrapServers()); // the broker listens on a new port
        publish(factory, TOPIC, "after-broker-restart");
        try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
            connection.start();
            List<Message> missed = receiveMessages(subscriber, 2);
            assertEquals(List.of("before-broker-restart", "after-broker-restart"), texts(missed),
                    "what was published while the subscriber was gone, across the broker restart");
            for (Message message : missed) {
                assertFalse(message.getJMSRedelivered(), "delivered for the first time");
                assertEquals(1, message.getIntProperty("JMSXDeliveryCount"));
            }
            assertNull(subscriber.receive(500), "each message once");

            // The subscription still works normally after the restart.
            publish(factory, TOPIC, "live");
            assertEquals(List.of("live"), receive(subscriber, 1));
            subscriber.close();
            session.unsubscribe(SUBSCRIPTION);
        }
    }

    @Test
    void aSubscriptionWithMessagesReceivedButNotAcknowledgedGetsThemAgainAfterTheBrokerRestarts() throws Exception {
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
            connection.start();
            publish(factory, TOPIC, "acknowledged", "unacknowledged");
            List<Message> received = receiveMessages(subscriber, 2);
            received.get(0).acknowledge(); // acknowledges both: CLIENT_ACKNOWLEDGE covers all the session consumed
            publish(factory, TOPIC, "pending");
            assertEquals(List.of("pending"), receive(subscriber, 1), "delivered, never acknowledged");
        }
        cluster.restart();
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
        try (Connection connection = subscriberConnection(factory, CLIENT_ID)) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableConsumer(session.createTopic(TOPIC), SUBSCRIPTION);
            connection.start();
            Message pending = subscriber.receive(WAIT_MS);
            assertNotNull(pending, "the unacknowledged message comes again after the restart");
            assertEquals("pending", ((TextMessage) pending).getText());
            pending.acknowledge();
            assertNull(subscriber.receive(500), "the acknowledged messages do not come again");
        }
    }

    private static List<String> receive(MessageConsumer consumer, int count) throws JMSException {
        return texts(receiveMessages(consumer, count));
    }

    private static List<Message> receiveMessages(MessageConsumer consumer, int count) throws JMSException {
        List<Message> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message message = consumer.receive(WAIT_MS);
            assertNotNull(message, "message " + i + " after " + texts(messages));
            messages.add(message);
        }
        return messages;
    }
}
