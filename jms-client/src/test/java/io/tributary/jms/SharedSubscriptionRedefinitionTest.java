package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shared non-durable subscription created again with the same name and another topic or selector while it has an
 * active consumer is refused with a JMSException (JMSRuntimeException in the simplified API), and the active
 * consumer keeps receiving (Jakarta Messaging 3.1, {@code Session.createSharedConsumer}); once it is closed the
 * subscription may be created with another definition. One-partition topics; in both subscription modes, share
 * groups and consumer groups.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedSubscriptionRedefinitionTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private TributaryConnectionFactory groupMode;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
        groupMode = TestConnectionFactory.create(cluster.bootstrapServers());
        groupMode.setSubscriptionMode("group");
    }

    /** Shared subscriptions on share groups (the default) or on consumer groups. */
    private TributaryConnectionFactory factory(String subscriptionMode) {
        return subscriptionMode.equals("group") ? groupMode : factory;
    }

    private String name(String prefix) {
        return prefix + "-" + names.incrementAndGet();
    }

    @ParameterizedTest(name = "subscriptionMode={0}")
    @ValueSource(strings = {"share", "group"})
    void anotherTopicOrSelectorWhileAConsumerIsActiveIsRefusedInTheClassicApi(String mode) throws Exception {
        try (Connection connection = factory(mode).createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Topic first = session.createTopic(name("shared-first"));
            Topic second = session.createTopic(name("shared-second"));
            String subscription = name("sub");
            MessageConsumer active = session.createSharedConsumer(first, subscription);

            JMSException otherTopic = assertThrows(JMSException.class,
                    () -> session.createSharedConsumer(second, subscription));
            assertTrue(otherTopic.getMessage().contains(subscription), otherTopic.getMessage());
            assertThrows(JMSException.class, () -> session.createSharedConsumer(first, subscription, "color = 'red'"));
            Session other = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            assertThrows(JMSException.class, () -> other.createSharedConsumer(second, subscription));

            MessageConsumer same = session.createSharedConsumer(first, subscription); // same definition: joins
            connection.start();
            session.createProducer(first).send(session.createTextMessage("still the first topic"));
            Message received = active.receive(WAIT_MS);
            if (received == null) {
                received = same.receive(WAIT_MS);
            }
            assertNotNull(received);
            assertEquals("still the first topic", ((TextMessage) received).getText());

            active.close();
            same.close();
            MessageConsumer redefined = session.createSharedConsumer(second, subscription); // no consumer: allowed
            session.createProducer(second).send(session.createTextMessage("on the second topic"));
            Message fromSecond = redefined.receive(WAIT_MS);
            assertNotNull(fromSecond);
            assertEquals("on the second topic", ((TextMessage) fromSecond).getText());
        }
    }

    @ParameterizedTest(name = "subscriptionMode={0}")
    @ValueSource(strings = {"share", "group"})
    void anotherTopicOrSelectorWhileAConsumerIsActiveIsRefusedInTheSimplifiedApi(String mode) {
        try (JMSContext context = factory(mode).createContext()) {
            Topic first = context.createTopic(name("shared-first"));
            Topic second = context.createTopic(name("shared-second"));
            String subscription = name("sub");
            JMSConsumer active = context.createSharedConsumer(first, subscription, "color = 'red'");

            JMSRuntimeException otherTopic = assertThrows(JMSRuntimeException.class,
                    () -> context.createSharedConsumer(second, subscription, "color = 'red'"));
            assertTrue(otherTopic.getMessage().contains(subscription), otherTopic.getMessage());
            assertInstanceOf(JMSException.class, otherTopic.getCause());
            assertThrows(JMSRuntimeException.class, () -> context.createSharedConsumer(first, subscription));

            context.createProducer().setProperty("color", "red").send(first, "red on the first topic");
            assertEquals("red on the first topic", active.receiveBody(String.class, WAIT_MS));
            active.close();

            JMSConsumer redefined = context.createSharedConsumer(first, subscription);
            context.createProducer().setProperty("color", "blue").send(first, "blue, no selector now");
            assertEquals("blue, no selector now", redefined.receiveBody(String.class, WAIT_MS));
        }
    }
}
