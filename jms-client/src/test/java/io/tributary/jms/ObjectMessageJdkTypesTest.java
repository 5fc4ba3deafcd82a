package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Session;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ObjectMessage bodies of JDK value types under the default allow-list ({@code trustedObjectPackages} unset):
 * {@code StringBuffer} and {@code StringBuilder}, alone and in collections, are read back; {@code java.net.URI} is
 * refused until the application widens the list, which names the defaults too. One-partition queues and topics,
 * classic and simplified API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObjectMessageJdkTypesTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory defaults;
    private TributaryConnectionFactory widened;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        defaults = TestConnectionFactory.create(cluster.bootstrapServers());
        widened = TestConnectionFactory.create(cluster.bootstrapServers());
        widened.setTrustedObjectPackages("java.util,java.math,java.time,java.net.URI");
    }

    private Destination destination(Session session, String kind) throws Exception {
        return destination(session, kind, "jdk-objects-" + names.incrementAndGet());
    }

    private static Destination destination(Session session, String kind, String name) throws Exception {
        return kind.equals("queue") ? session.createQueue(name) : session.createTopic(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void stringBuffersAndBuildersAreReadWithTheDefaultListInTheClassicApi(String kind) throws Exception {
        try (Connection connection = defaults.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Destination destination = destination(session, kind);
            MessageConsumer consumer = session.createConsumer(destination);
            connection.start();
            List<StringBuilder> builders = new ArrayList<>(List.of(new StringBuilder("b1"), new StringBuilder("b2")));
            Map<String, StringBuffer> buffers = new HashMap<>(Map.of("k", new StringBuffer("v")));
            var producer = session.createProducer(destination);
            producer.send(session.createObjectMessage(new StringBuffer("a buffer")));
            producer.send(session.createObjectMessage((Serializable) builders));
            producer.send(session.createObjectMessage((Serializable) buffers));

            Serializable buffer = objectOf(consumer.receive(WAIT_MS));
            assertInstanceOf(StringBuffer.class, buffer);
            assertEquals("a buffer", buffer.toString());
            assertEquals("[b1, b2]", objectOf(consumer.receive(WAIT_MS)).toString());
            Map<?, ?> map = (Map<?, ?>) objectOf(consumer.receive(WAIT_MS));
            assertEquals("v", map.get("k").toString());
            assertInstanceOf(StringBuffer.class, map.get("k"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aUriNeedsTheWidenedListInTheClassicApi(String kind) throws Exception {
        try (Connection sending = defaults.createConnection(); Connection receiving = widened.createConnection()) {
            Session session = sending.createSession(Session.AUTO_ACKNOWLEDGE);
            Session widenedSession = receiving.createSession(Session.AUTO_ACKNOWLEDGE);
            String name = "jdk-objects-" + names.incrementAndGet();
            Destination destination = destination(session, kind, name);
            MessageConsumer byDefault = session.createConsumer(destination);
            MessageConsumer byWidened = widenedSession.createConsumer(destination(widenedSession, kind, name));
            sending.start();
            receiving.start();
            session.createProducer(destination).send(session.createObjectMessage(URI.create("urn:isbn:0451450523")));

            if (kind.equals("topic")) { // a queue's message goes to one of its receivers: the widened one below
                Message refusedByDefault = byDefault.receive(WAIT_MS);
                assertNotNull(refusedByDefault);
                MessageFormatException refused = assertThrows(MessageFormatException.class,
                        ((ObjectMessage) refusedByDefault)::getObject);
                assertTrue(refused.getMessage().contains("java.net.URI"), refused.getMessage());
            }
            byDefault.close();
            assertEquals(URI.create("urn:isbn:0451450523"), objectOf(byWidened.receive(WAIT_MS)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void stringBuffersAreReadAndAUriRefusedWithTheDefaultListInTheSimplifiedApi(String kind) {
        try (JMSContext context = defaults.createContext()) {
            String name = "jdk-objects-ctx-" + names.incrementAndGet();
            Destination destination = kind.equals("queue") ? context.createQueue(name) : context.createTopic(name);
            JMSConsumer consumer = context.createConsumer(destination);
            context.createProducer().send(destination, new StringBuffer("a buffer"));
            context.createProducer().send(destination, URI.create("urn:x"));

            StringBuffer buffer = consumer.receiveBody(StringBuffer.class, WAIT_MS);
            assertEquals("a buffer", buffer.toString());
            MessageFormatRuntimeException refused = assertThrows(MessageFormatRuntimeException.class,
                    () -> consumer.receiveBody(URI.class, WAIT_MS));
            assertTrue(refused.getMessage().contains("java.net.URI"), refused.getMessage());
        }
    }

    private static Serializable objectOf(Message message) throws Exception {
        assertNotNull(message);
        return ((ObjectMessage) message).getObject();
    }
}
