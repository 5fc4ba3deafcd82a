package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TributaryClusterExtension;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Close and stop from inside a callback: from a MessageListener, close or stop of its own connection, close of its
 * own session, close or stop of its own JMSContext throw IllegalStateException (IllegalStateRuntimeException), while
 * MessageConsumer.close on its own consumer succeeds (JMS 2.0 errata A.1.19, §6.2.5, §8.8); from a
 * CompletionListener, close of its own producer, session, connection or context and stop of its connection or
 * context throw (§7.3.8). Nothing deadlocks: every callback returns, and the objects close normally afterwards.
 * One-partition queues and topics, classic and simplified API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CloseFromCallbackTest {

    private static final long WAIT_MS = 20_000;

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    /** What each call made from the callback threw, by call; "returned" when it did not throw. */
    private interface Call {
        void run() throws Exception;
    }

    private static void attempt(Map<String, String> outcomes, String name, Call call) {
        try {
            call.run();
            outcomes.put(name, "returned");
        } catch (Exception e) {
            outcomes.put(name, e.getClass().getName());
        }
    }

    private Destination destination(Session session, String kind) throws Exception {
        String name = "callback-close-" + names.incrementAndGet();
        return kind.equals("queue") ? session.createQueue(name) : session.createTopic(name);
    }

    private Destination destination(JMSContext context, String kind) {
        String name = "callback-close-ctx-" + names.incrementAndGet();
        return kind.equals("queue") ? context.createQueue(name) : context.createTopic(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aMessageListenerMayCloseItsConsumerButNotItsSessionOrConnectionInTheClassicApi(String kind)
            throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Destination destination = destination(session, kind);
            MessageConsumer consumer = session.createConsumer(destination);
            CompletableFuture<Map<String, String>> fromListener = new CompletableFuture<>();
            consumer.setMessageListener(message -> {
                Map<String, String> outcomes = new LinkedHashMap<>();
                attempt(outcomes, "Session.close", session::close);
                attempt(outcomes, "Connection.close", connection::close);
                attempt(outcomes, "Connection.stop", connection::stop);
                attempt(outcomes, "MessageConsumer.close", consumer::close);
                fromListener.complete(outcomes);
            });
            connection.start();
            session.createProducer(destination).send(session.createTextMessage("close me"));

            Map<String, String> outcomes = fromListener.get(WAIT_MS, TimeUnit.MILLISECONDS);
            assertEquals(Map.of("Session.close", IllegalStateException.class.getName(),
                    "Connection.close", IllegalStateException.class.getName(),
                    "Connection.stop", IllegalStateException.class.getName(),
                    "MessageConsumer.close", "returned"), outcomes);
            assertThrows(IllegalStateException.class, consumer::getMessageListener, "the consumer is closed");
            session.createProducer(destination).send(session.createTextMessage("the session is open"));
            session.close(); // from this thread: returns, the listener having returned
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aCompletionListenerMayNotCloseOrStopWhatSentItsMessageInTheClassicApi(String kind) throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Destination destination = destination(session, kind);
            MessageConsumer consumer = session.createConsumer(destination);
            MessageProducer producer = session.createProducer(destination);
            CompletableFuture<Map<String, String>> fromCallback = new CompletableFuture<>();
            producer.send(session.createTextMessage("sent"), new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                    Map<String, String> outcomes = new LinkedHashMap<>();
                    attempt(outcomes, "MessageProducer.close", producer::close);
                    attempt(outcomes, "Session.close", session::close);
                    attempt(outcomes, "Connection.stop", connection::stop);
                    attempt(outcomes, "Connection.close", connection::close);
                    fromCallback.complete(outcomes);
                }

                @Override
                public void onException(Message message, Exception exception) {
                    fromCallback.completeExceptionally(exception);
                }
            });

            Map<String, String> outcomes = fromCallback.get(WAIT_MS, TimeUnit.MILLISECONDS);
            String refused = IllegalStateException.class.getName();
            assertEquals(Map.of("MessageProducer.close", refused, "Session.close", refused,
                    "Connection.stop", refused, "Connection.close", refused), outcomes);
            connection.start();
            Message received = consumer.receive(WAIT_MS);
            assertEquals("sent", ((TextMessage) received).getText(), "the connection is open and started");
            producer.close(); // from this thread: returns, the callback having returned
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aMessageListenerMayCloseItsConsumerButNotStopOrCloseItsContextInTheSimplifiedApi(String kind)
            throws Exception {
        try (JMSContext context = factory.createContext()) {
            Destination destination = destination(context, kind);
            JMSConsumer consumer = context.createConsumer(destination);
            CompletableFuture<Map<String, String>> fromListener = new CompletableFuture<>();
            consumer.setMessageListener(message -> {
                Map<String, String> outcomes = new LinkedHashMap<>();
                attempt(outcomes, "JMSContext.close", context::close);
                attempt(outcomes, "JMSContext.stop", context::stop);
                attempt(outcomes, "JMSConsumer.close", consumer::close);
                fromListener.complete(outcomes);
            });
            context.createProducer().send(destination, "close me");

            Map<String, String> outcomes = fromListener.get(WAIT_MS, TimeUnit.MILLISECONDS);
            String refused = IllegalStateRuntimeException.class.getName();
            assertEquals(Map.of("JMSContext.close", refused, "JMSContext.stop", refused,
                    "JMSConsumer.close", "returned"), outcomes);
            context.createProducer().send(destination, "the context is open");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"queue", "topic"})
    void aCompletionListenerMayNotStopOrCloseItsContextInTheSimplifiedApi(String kind) throws Exception {
        try (JMSContext context = factory.createContext()) {
            Destination destination = destination(context, kind);
            JMSConsumer consumer = context.createConsumer(destination);
            CompletableFuture<Map<String, String>> fromCallback = new CompletableFuture<>();
            context.createProducer().setAsync(new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                    Map<String, String> outcomes = new LinkedHashMap<>();
                    attempt(outcomes, "JMSContext.stop", context::stop);
                    attempt(outcomes, "JMSContext.close", context::close);
                    fromCallback.complete(outcomes);
                }

                @Override
                public void onException(Message message, Exception exception) {
                    fromCallback.completeExceptionally(exception);
                }
            }).send(destination, "sent");

            Map<String, String> outcomes = fromCallback.get(WAIT_MS, TimeUnit.MILLISECONDS);
            String refused = IllegalStateRuntimeException.class.getName();
            assertEquals(Map.of("JMSContext.stop", refused, "JMSContext.close", refused), outcomes);
            assertEquals("sent", consumer.receiveBody(String.class, WAIT_MS), "the context is open and started");
        }
    }

    @Test
    void aCompletionListenerMayNotCommitOrRollBackItsTransactedSessionInTheClassicApi() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            Destination destination = destination(session, "queue");
            MessageProducer producer = session.createProducer(destination);
            CompletableFuture<Map<String, String>> fromCallback = new CompletableFuture<>();
            producer.send(session.createTextMessage("sent"), new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                    Map<String, String> outcomes = new LinkedHashMap<>();
                    attempt(outcomes, "Session.commit", session::commit);
                    attempt(outcomes, "Session.rollback", session::rollback);
                    fromCallback.complete(outcomes);
                }

                @Override
                public void onException(Message message, Exception exception) {
                    fromCallback.completeExceptionally(exception);
                }
            });
            session.commit();

            Map<String, String> outcomes = fromCallback.get(WAIT_MS, TimeUnit.MILLISECONDS);
            String refused = IllegalStateException.class.getName();
            assertEquals(Map.of("Session.commit", refused, "Session.rollback", refused), outcomes);
            Session reader = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            connection.start();
            Message received = reader.createConsumer(destination).receive(WAIT_MS);
            assertEquals("sent", ((TextMessage) received).getText(), "the committed send is delivered");
        }
    }

    @Test
    void aCompletionListenerMayNotCommitOrRollBackItsTransactedContextInTheSimplifiedApi() throws Exception {
        try (JMSContext context = factory.createContext(JMSContext.SESSION_TRANSACTED);
             JMSContext reader = context.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
            Destination destination = destination(context, "queue");
            CompletableFuture<Map<String, String>> fromCallback = new CompletableFuture<>();
            context.createProducer().setAsync(new CompletionListener() {
                @Override
                public void onCompletion(Message message) {
                    Map<String, String> outcomes = new LinkedHashMap<>();
                    attempt(outcomes, "JMSContext.commit", context::commit);
                    attempt(outcomes, "JMSContext.rollback", context::rollback);
                    fromCallback.complete(outcomes);
                }

                @Override
                public void onException(Message message, Exception exception) {
                    fromCallback.completeExceptionally(exception);
                }
            }).send(destination, "sent");
            context.commit();

            Map<String, String> outcomes = fromCallback.get(WAIT_MS, TimeUnit.MILLISECONDS);
            String refused = IllegalStateRuntimeException.class.getName();
            assertEquals(Map.of("JMSContext.commit", refused, "JMSContext.rollback", refused), outcomes);
            assertEquals("sent", reader.createConsumer(destination).receiveBody(String.class, WAIT_MS),
                    "the committed send is delivered");
        }
    }
}
