package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * [NOT] IN and [NOT] LIKE select only messages whose property is a String: on a number or a boolean the operation is
 * invalid and UNKNOWN (Jakarta Messaging 3.1 section 3.8.1.1), so {@code myProp NOT IN ('a', 'b')} does not select a
 * message whose myProp is the int 7. On one-partition queues and topics, classic and simplified API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NonStringSelectorTest {

    private static final long WAIT_MS = 20_000;
    /** How long a consumer is watched for a message it must not get, after the one it must get has come. */
    private static final long NOTHING_MORE_MS = 500;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    @ParameterizedTest(name = "{0} on a {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "myProp NOT IN ('a', 'b') | queue", "myProp NOT IN ('a', 'b') | topic",
            "myProp IN ('7', 'c')     | queue", "myProp IN ('7', 'c')     | topic",
            "myProp NOT LIKE 'a%'     | queue", "myProp NOT LIKE 'a%'     | topic",
            "myProp LIKE '%'          | queue", "myProp LIKE '%'          | topic"})
    void classicApiSelectsOnlyTheStringProperty(String selector, String kind) throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            String name = "non-string-" + names.incrementAndGet();
            Destination destination = kind.equals("queue") ? session.createQueue(name) : session.createTopic(name);
            MessageConsumer consumer = session.createConsumer(destination, selector);
            connection.start();
            MessageProducer producer = session.createProducer(destination);
            producer.send(withProperty(session.createTextMessage("int 7"), 7));
            producer.send(withProperty(session.createTextMessage("long 7"), 7L));
            producer.send(withProperty(session.createTextMessage("boolean"), true));
            producer.send(withProperty(session.createTextMessage("double"), 7.5d));
            TextMessage string = session.createTextMessage("string c");
            string.setStringProperty("myProp", "c");
            producer.send(string);

            Message received = consumer.receive(WAIT_MS);
            assertNotNull(received, selector);
            assertEquals("string c", ((TextMessage) received).getText(), selector);
            assertNull(consumer.receive(NOTHING_MORE_MS), selector);
        }
    }

    @ParameterizedTest(name = "{0} on a {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "myProp NOT IN ('a', 'b') | queue", "myProp NOT IN ('a', 'b') | topic",
            "myProp NOT LIKE 'a%'     | queue", "myProp NOT LIKE 'a%'     | topic"})
    void simplifiedApiSelectsOnlyTheStringProperty(String selector, String kind) {
        try (JMSContext context = factory.createContext()) {
            String name = "non-string-ctx-" + names.incrementAndGet();
            Destination destination = kind.equals("queue") ? context.createQueue(name) : context.createTopic(name);
            JMSConsumer consumer = context.createConsumer(destination, selector);
            JMSProducer producer = context.createProducer();
            producer.setProperty("myProp", 7).send(destination, "int 7");
            producer.setProperty("myProp", false).send(destination, "boolean");
            producer.setProperty("myProp", "c").send(destination, "string c");

            assertEquals("string c", consumer.receiveBody(String.class, WAIT_MS), selector);
            assertNull(consumer.receiveBody(String.class, NOTHING_MORE_MS), selector);
        }
    }

    private static Message withProperty(Message message, Object value) throws JMSException {
        message.setObjectProperty("myProp", value);
        return message;
    }
}
