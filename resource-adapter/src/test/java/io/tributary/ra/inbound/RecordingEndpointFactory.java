package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import io.tributary.testsupport.Waits;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A container's MessageEndpointFactory for a message-driven bean that records what it receives. Its endpoints check
 * the delivery protocol (beforeDelivery, onMessage, afterDelivery per message, release last, never two threads at
 * once) and record every violation; when transacted they run each delivery in a {@link TestBootstrapContext.Transactions}
 * transaction, as a container does for a REQUIRED onMessage. The bean's behaviour is a function of the message: it may
 * throw, mark the transaction rollback-only or block.
 *
 * <p>Thread-safe: endpoints are used by delivery threads, the recordings read by the test thread.
 */
final class RecordingEndpointFactory implements MessageEndpointFactory {

    /** What the bean does with a message. */
    @FunctionalInterface
    interface Bean {
        void onMessage(TextMessage message, TestBootstrapContext.Transactions transactions) throws Exception;
    }

    /** One call of onMessage, and whether it counted (returned, and its transaction committed). */
    record Delivery(String text, int partition, long offset, boolean redelivered, int deliveryCount, String thread,
                    boolean succeeded) {
    }

    private final boolean transacted;
    private final TestBootstrapContext.Transactions transactions;
    private volatile Bean bean = (message, tx) -> { };
    private volatile Predicate<String> failAfterDelivery = text -> false;
    private final AtomicInteger unavailable = new AtomicInteger();
    private final List<Delivery> attempts = Collections.synchronizedList(new ArrayList<>());
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();
    private final AtomicInteger inOnMessage = new AtomicInteger();
    private final AtomicInteger maxInOnMessage = new AtomicInteger();
    /** The prepare votes of the endpoints' XA branches (XA_OK, XA_RDONLY), in order. */
    private final List<Integer> votes = Collections.synchronizedList(new ArrayList<>());
    private static final AtomicInteger XIDS = new AtomicInteger();

    RecordingEndpointFactory(boolean transacted, TestBootstrapContext.Transactions transactions) {
        this.transacted = transacted;
        this.transactions = transactions;
    }

    void bean(Bean bean) {
        this.bean = bean;
    }

    /** afterDelivery fails (as a failed commit does) for messages whose text matches. */
    void failAfterDelivery(Predicate<String> texts) {
        this.failAfterDelivery = texts;
    }

    /** The next {@code times} createEndpoint calls throw UnavailableException (early in a deployment). */
    void unavailableFor(int times) {
        unavailable.set(times);
    }

    List<Delivery> attempts() {
        synchronized (attempts) {
            return new ArrayList<>(attempts);
        }
    }

    /** The texts of the successful deliveries, in the order they happened. */
    List<String> delivered() {
        return attempts().stream().filter(Delivery::succeeded).map(Delivery::text).collect(Collectors.toList());
    }

    /** Successful deliveries per partition, in order. */
    Map<Integer, List<String>> deliveredByPartition() {
        Map<Integer, List<String>> byPartition = new TreeMap<>();
        for (Delivery delivery : attempts()) {
            if (delivery.succeeded()) {
                byPartition.computeIfAbsent(delivery.partition(), p -> new ArrayList<>()).add(delivery.text());
            }
        }
        return byPartition;
    }

    List<String> violations() {
        synchronized (violations) {
            return new ArrayList<>(violations);
        }
    }

    List<Integer> votes() {
        synchronized (votes) {
            return new ArrayList<>(votes);
        }
    }

    int created() {
        return created.get();
    }

    int released() {
        return released.get();
    }

    int maxConcurrentDeliveries() {
        return maxInOnMessage.get();
    }

    /** Waits until {@code condition} holds, failing the test after {@code timeout} (test-support's {@link Waits}). */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        Waits.await(what).atMost(timeout).until(condition::getAsBoolean);
    }

    /** Whether {@code condition} holds within {@code timeout}. */
    static boolean within(Duration timeout, BooleanSupplier condition) {
        try {
            Waits.await(timeout).until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    void awaitDelivered(int count, Duration timeout) {
        Waits.await(count + " successful deliveries").atMost(timeout).untilAsserted(
                () -> assertTrue(delivered().size() >= count, () -> "have " + delivered().size()));
    }

    // ---------------------------------------------------------------------------------------------------------
    // MessageEndpointFactory

    @Override
    public MessageEndpoint createEndpoint(XAResource xaResource) throws UnavailableException {
        if (unavailable.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new UnavailableException("the bean is not deployed yet");
        }
        created.incrementAndGet();
        return new Endpoint(xaResource);
    }

    @Override
    public MessageEndpoint createEndpoint(XAResource xaResource, long timeout) throws UnavailableException {
        return createEndpoint(xaResource);
    }

    @Override
    public boolean isDeliveryTransacted(Method method) throws NoSuchMethodException {
        if (!method.equals(MessageListener.class.getMethod("onMessage", Message.class))) {
            throw new NoSuchMethodException(method.toString());
        }
        return transacted;
    }

    @Override
    public String getActivationName() {
        return "recording-mdb";
    }

    @Override
    public Class<?> getEndpointClass() {
        return Endpoint.class;
    }

    /** A container's endpoint proxy: checks the protocol, runs the transaction, calls the bean. */
    final class Endpoint implements MessageEndpoint, MessageListener {

        Endpoint(XAResource xa) {
            this.xa = xa;
        }

        private enum State { IDLE, BEFORE, DELIVERED, RELEASED }

        private State state = State.IDLE;
        /** The resource the adapter created this endpoint with, enlisted in each delivery's transaction; or null. */
        private final XAResource xa;
        private Xid xid;
        private Thread user;
        private TextMessage current;
        private boolean beanFailed;

        private synchronized void enter(String call, State expected) {
            if (state != expected) {
                violations.add(call + " in state " + state + " (expected " + expected + ")");
            }
            if (user != null && user != Thread.currentThread()) {
                violations.add(call + " on " + Thread.currentThread().getName() + " while " + user.getName()
                        + " uses the endpoint");
            }
        }

        @Override
        public void beforeDelivery(Method method) throws NoSuchMethodException, ResourceException {
            enter("beforeDelivery", State.IDLE);
            isDeliveryTransacted(method);
            synchronized (this) {
                user = Thread.currentThread();
                state = State.BEFORE;
            }
            if (transacted) {
                transactions.begin();
                if (xa != null) {
                    xid = new TestXid(XIDS.incrementAndGet());
                    try {
                        xa.start(xid, XAResource.TMNOFLAGS);
                    } catch (XAException e) {
                        throw new ResourceException("enlisting failed: " + e, e);
                    }
                }
            }
        }

        @Override
        public void onMessage(Message message) {
            enter("onMessage", State.BEFORE);
            current = (TextMessage) message;
            beanFailed = true;
            int now = inOnMessage.incrementAndGet();
            maxInOnMessage.accumulateAndGet(now, Math::max);
            try {
                bean.onMessage(current, transactions);
                beanFailed = false;
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                inOnMessage.decrementAndGet();
                synchronized (this) {
                    state = State.DELIVERED;
                }
            }
        }

        @Override
        public void afterDelivery() throws ResourceException {
            enter("afterDelivery", State.DELIVERED);
            boolean committed = true;
            if (transacted) {
                if (beanFailed) {
                    transactions.setRollbackOnly(); // a system exception from the bean rolls back
                }
                if (xa != null) {
                    completeBranch();
                }
                committed = transactions.complete();
            }
            String text = text(current);
            boolean commitFails = failAfterDelivery.test(text);
            try {
                attempts.add(new Delivery(text, intProperty(current, "JMS_Tributary_Partition"),
                        longProperty(current, "JMS_Tributary_Offset"), redelivered(current),
                        intProperty(current, "JMSXDeliveryCount"), Thread.currentThread().getName(),
                        !beanFailed && committed && !commitFails));
            } finally {
                synchronized (this) {
                    state = State.IDLE;
                    user = null;
                    current = null;
                }
            }
            if (commitFails) {
                throw new ResourceException("commit failed for " + text);
            }
        }

        /** The transaction manager's part: end, then prepare and commit, or roll back. */
        private void completeBranch() {
            boolean commit = !transactions.getRollbackOnly();
            try {
                xa.end(xid, commit ? XAResource.TMSUCCESS : XAResource.TMFAIL);
                if (!commit) {
                    xa.rollback(xid);
                    return;
                }
                int vote = xa.prepare(xid);
                votes.add(vote);
                if (vote == XAResource.XA_OK) {
                    xa.commit(xid, false);
                }
            } catch (XAException e) {
                violations.add("XA branch " + xid + " failed: " + e + " (code " + e.errorCode + ")");
                transactions.setRollbackOnly();
            }
        }

        @Override
        public void release() {
            enter("release", State.IDLE);
            synchronized (this) {
                state = State.RELEASED;
            }
            released.incrementAndGet();
        }
    }

    /** A transaction manager's Xid: format, global id and branch qualifier. */
    private record TestXid(int n) implements Xid {
        @Override
        public int getFormatId() {
            return 0x7465;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return ("recording-mdb-" + n + "-" + ProcessHandle.current().pid()).getBytes();
        }

        @Override
        public byte[] getBranchQualifier() {
            return new byte[] {1};
        }
    }

    private static String text(TextMessage message) {
        try {
            return message.getText();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A numeric property, or -1 when the message has none (messages built by unit tests). */
    private static int intProperty(Message message, String name) {
        return (int) longProperty(message, name);
    }

    private static long longProperty(Message message, String name) {
        try {
            Object value = message.getObjectProperty(name);
            return value == null ? -1 : ((Number) value).longValue();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean redelivered(Message message) {
        try {
            return message.getJMSRedelivered();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
