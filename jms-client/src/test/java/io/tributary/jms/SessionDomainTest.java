package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.IllegalStateException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicSession;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A QueueSession refuses the topic domain's methods and a TopicSession the queue domain's, with
 * {@link IllegalStateException} (Jakarta Messaging 3.1, QueueSession and TopicSession javadoc); each still works in
 * its own domain, and a session from {@code createSession} works in both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionDomainTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    /** The session object also implements TopicSession: a cast reaches createSubscriber, which is refused. */
    @Test
    void aQueueSessionRefusesTheTopicDomainAndStillWorksOnItsQueue() throws Exception {
        try (QueueConnection connection = factory.createQueueConnection()) {
            QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = TributaryTopic.of("domain.topic");
            assertRefused("createTopic", () -> session.createTopic("domain.topic"));
            assertRefused("createSubscriber", () -> ((TopicSession) session).createSubscriber(topic));
            assertRefused("createSubscriber", () -> ((TopicSession) session).createSubscriber(topic, null, false));
            assertRefused("createDurableSubscriber", () -> session.createDurableSubscriber(topic, "d"));
            assertRefused("createDurableSubscriber", () -> session.createDurableSubscriber(topic, "d", null, false));
            assertRefused("createDurableConsumer", () -> session.createDurableConsumer(topic, "d"));
            assertRefused("createDurableConsumer", () -> session.createDurableConsumer(topic, "d", null, false));
            assertRefused("createSharedConsumer", () -> session.createSharedConsumer(topic, "s"));
            assertRefused("createSharedConsumer", () -> session.createSharedConsumer(topic, "s", null));
            assertRefused("createSharedDurableConsumer", () -> session.createSharedDurableConsumer(topic, "s"));
            assertRefused("createSharedDurableConsumer",
                    () -> session.createSharedDurableConsumer(topic, "s", null));
            assertRefused("createTemporaryTopic", session::createTemporaryTopic);
            assertRefused("unsubscribe", () -> session.unsubscribe("d"));

            Queue queue = session.createQueue("domain.queue");
            session.createSender(queue).send(session.createTextMessage("in its own domain"));
            connection.start();
            MessageConsumer receiver = session.createReceiver(queue);
            Message received = receiver.receive(WAIT_MS);
            assertNotNull(received);
            assertEquals("in its own domain", ((TextMessage) received).getText());
            QueueBrowser browser = session.createBrowser(queue);
            assertNotNull(browser.getEnumeration());
            assertNotNull(session.createTemporaryQueue());
        }
    }

    @Test
    void aTopicSessionRefusesTheQueueDomainAndStillWorksOnItsTopic() throws Exception {
        try (TopicConnection connection = factory.createTopicConnection()) {
            TopicSession session = connection.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = TributaryQueue.of("domain.queue2");
            assertRefused("createQueue", () -> session.createQueue("domain.queue2"));
            assertRefused("createBrowser", () -> session.createBrowser(queue));
            assertRefused("createBrowser", () -> session.createBrowser(queue, "a = 1"));
            assertRefused("createTemporaryQueue", session::createTemporaryQueue);

            Topic topic = session.createTopic("domain.topic2");
            MessageConsumer subscriber = session.createSubscriber(topic);
            connection.start();
            session.createPublisher(topic).send(session.createTextMessage("in its own domain"));
            Message received = subscriber.receive(WAIT_MS);
            assertNotNull(received);
            assertEquals("in its own domain", ((TextMessage) received).getText());
            assertNotNull(session.createTemporaryTopic());
        }
    }

    @Test
    void aGeneralSessionFromAQueueConnectionWorksInBothDomains() throws Exception {
        try (QueueConnection connection = factory.createQueueConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            assertNotNull(session.createTopic("domain.both"));
            assertNotNull(session.createQueue("domain.both"));
            assertNotNull(session.createTemporaryTopic());
            assertNotNull(session.createTemporaryQueue());
        }
    }

    private static void assertRefused(String method, Executable call) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, call, method);
        assertTrue(refused.getMessage().startsWith(method + " must not be called on a"), refused.getMessage());
    }
}
