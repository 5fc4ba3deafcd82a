package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;

import io.tributary.jms.message.TributaryTextMessage;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import org.junit.jupiter.api.Test;

/**
 * One delivery to one endpoint: beforeDelivery, onMessage and afterDelivery in that order, and which outcomes count
 * as delivered: a bean that throws, a failed afterDelivery and a transaction that rolls back without any exception
 * (the bean called setRollbackOnly) all mean the message must come again.
 */
class EndpointInvokerTest {

    private final TestBootstrapContext.Transactions transactions = new TestBootstrapContext.Transactions();
    private final ActivationStatistics statistics = new ActivationStatistics("recording-mdb", "queue q",
            "127.0.0.1:9092", () -> Double.NaN, java.time.Clock.systemUTC());

    private static TributaryTextMessage message(String text) throws Exception {
        TributaryTextMessage message = new TributaryTextMessage(text);
        message.setDeliveryCount(1);
        return message;
    }

    private EndpointInvoker.Outcome deliver(RecordingEndpointFactory factory, String text) throws Exception {
        EndpointInvoker invoker = new EndpointInvoker(factory.isDeliveryTransacted(EndpointInvoker.ON_MESSAGE),
                transactions, statistics);
        MessageEndpoint endpoint = factory.createEndpoint(null);
        try {
            return invoker.deliver(endpoint, message(text));
        } finally {
            endpoint.release();
        }
    }

    @Test
    void aBeanThatReturnsHasItsMessageDelivered() throws Exception {
        RecordingEndpointFactory factory = new RecordingEndpointFactory(true, transactions);
        assertEquals(EndpointInvoker.Outcome.Kind.DELIVERED, deliver(factory, "a").kind());
        assertEquals(List.of("a"), factory.delivered());
        assertEquals(1, transactions.committed());
        assertEquals(List.of(), factory.violations());
        assertEquals(1, statistics.getDeliveries());
        assertEquals(0, statistics.getInFlight());
    }

    @Test
    void aBeanThatThrowsFailsTheDeliveryAndAfterDeliveryIsStillCalled() throws Exception {
        RecordingEndpointFactory factory = new RecordingEndpointFactory(true, transactions);
        factory.bean((message, tx) -> {
            throw new IllegalStateException("no stock");
        });
        EndpointInvoker.Outcome outcome = deliver(factory, "a");
        assertEquals(EndpointInvoker.Outcome.Kind.FAILED, outcome.kind());
        assertTrue(outcome.reason().contains("no stock"), outcome.reason());
        assertEquals(1, transactions.rolledBack());
        assertEquals(List.of(), factory.violations());
        assertEquals(1, statistics.getFailures());
        assertEquals(0, statistics.getDeliveries());
        assertTrue(statistics.getLastFailure().contains("no stock"), statistics.getLastFailure());
    }

    @Test
    void aTransactionMarkedRollbackOnlyFailsTheDeliveryWithoutAnyException() throws Exception {
        RecordingEndpointFactory factory = new RecordingEndpointFactory(true, transactions);
        factory.bean((message, tx) -> tx.setRollbackOnly());
        EndpointInvoker.Outcome outcome = deliver(factory, "a");
        assertEquals(EndpointInvoker.Outcome.Kind.FAILED, outcome.kind());
        assertTrue(outcome.reason().contains("rolled back"), outcome.reason());
    }

    @Test
    void aFailedAfterDeliveryFailsTheDelivery() throws Exception {
        RecordingEndpointFactory factory = new RecordingEndpointFactory(true, transactions);
        factory.failAfterDelivery("a"::equals);
        EndpointInvoker.Outcome outcome = deliver(factory, "a");
        assertEquals(EndpointInvoker.Outcome.Kind.FAILED, outcome.kind());
        assertTrue(outcome.reason().startsWith("afterDelivery failed"), outcome.reason());
    }

    @Test
    void withoutTransactionsOnlyTheBeansOutcomeCounts() throws Exception {
        RecordingEndpointFactory factory = new RecordingEndpointFactory(false, transactions);
        assertEquals(EndpointInvoker.Outcome.Kind.DELIVERED, deliver(factory, "a").kind());
        assertEquals(0, transactions.committed() + transactions.rolledBack());
    }

    @Test
    void aFailedBeforeDeliveryIsNotADeliveryAttempt() {
        EndpointInvoker invoker = new EndpointInvoker(false, null, statistics);
        MessageEndpoint broken = new BrokenEndpoint();
        EndpointInvoker.Outcome outcome = invoker.deliver(broken, new TributaryTextMessage("a"));
        assertEquals(EndpointInvoker.Outcome.Kind.NOT_DELIVERED, outcome.kind());
        assertFalse(((BrokenEndpoint) broken).afterDeliveryCalled);
        assertEquals(0, statistics.getDeliveries() + statistics.getFailures(), "not counted");
        assertEquals(0, statistics.getInFlight());
    }

    private static final class BrokenEndpoint implements MessageEndpoint, jakarta.jms.MessageListener {
        boolean afterDeliveryCalled;

        @Override
        public void beforeDelivery(Method method) throws ResourceException {
            throw new ResourceException("cannot begin a transaction");
        }

        @Override
        public void afterDelivery() {
            afterDeliveryCalled = true;
        }

        @Override
        public void release() {
        }

        @Override
        public void onMessage(jakarta.jms.Message message) {
            throw new AssertionError("not to be called");
        }
    }
}
