package io.tributary.ra.inbound;

import java.lang.reflect.Method;

import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import javax.transaction.xa.XAResource;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Delivers one message to one endpoint, the way Connectors 2.1 §13.5.6 (option B) has it: {@code beforeDelivery},
 * {@code onMessage}, {@code afterDelivery}, the last always called once the first succeeded, and tells whether the
 * delivery counts.
 *
 * <p>A delivery succeeds when {@code onMessage} returns, {@code afterDelivery} does not throw, and, when the
 * container runs the delivery in a transaction ({@code isDeliveryTransacted}), that transaction commits. The last is
 * observed through an interposed {@link Synchronization} registered with the container's
 * {@link TransactionSynchronizationRegistry} between {@code beforeDelivery} and {@code onMessage}: a bean that calls
 * {@code setRollbackOnly()} and returns normally makes the container roll back in {@code afterDelivery} without any
 * exception reaching the adapter, and its message must come again all the same. Without a registry (a container that
 * offers none) only exceptions count.
 *
 * <p>Stateless apart from its settings; called by any number of delivery threads, each with its own endpoint.
 */
final class EndpointInvoker {

    static final Method ON_MESSAGE;

    static {
        try {
            ON_MESSAGE = MessageListener.class.getMethod("onMessage", Message.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What became of a delivery. */
    record Outcome(Kind kind, String reason, Throwable cause) {

        enum Kind {
            /** onMessage returned and its transaction, if any, committed: the message is consumed. */
            DELIVERED,
            /** onMessage threw, afterDelivery failed or the transaction rolled back: deliver again or dead-letter. */
            FAILED,
            /** beforeDelivery failed: the message never reached the bean, so this is not a delivery attempt. */
            NOT_DELIVERED
        }

        static final Outcome DELIVERED_OUTCOME = new Outcome(Kind.DELIVERED, null, null);
    }

    private final boolean transacted;
    private final TransactionSynchronizationRegistry transactions;
    /** Counts each delivery: in flight, delivered or failed, redelivered. */
    private final ActivationStatistics statistics;

    /**
     * @param transacted   whether the container runs {@code onMessage} in a transaction
     * @param transactions the container's registry, or null
     * @param statistics   the activation's, told of each delivery
     */
    EndpointInvoker(boolean transacted, TransactionSynchronizationRegistry transactions,
                    ActivationStatistics statistics) {
        this.transacted = transacted;
        this.transactions = transactions;
        this.statistics = statistics;
    }

    boolean transacted() {
        return transacted;
    }

    /** Delivers {@code message}; never throws, but rethrows a VirtualMachineError once afterDelivery is done. */
    Outcome deliver(MessageEndpoint endpoint, Message message) {
        try {
            endpoint.beforeDelivery(ON_MESSAGE);
        } catch (NoSuchMethodException | ResourceException | RuntimeException e) {
            return new Outcome(Outcome.Kind.NOT_DELIVERED, "beforeDelivery failed: " + e, e);
        }
        statistics.deliveryStarted(redelivered(message));
        CompletionWatch watch = transacted ? CompletionWatch.register(transactions) : null;
        Throwable failure = null;
        String reason = null;
        try {
            ((MessageListener) endpoint).onMessage(message);
        } catch (Throwable e) { // whatever a container's proxy lets through is a failed delivery
            failure = e;
            reason = "onMessage threw " + describe(e);
        } finally {
            try {
                endpoint.afterDelivery();
            } catch (ResourceException | RuntimeException e) {
                if (failure == null) {
                    failure = e;
                    reason = "afterDelivery failed (transaction not committed): " + describe(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure == null && watch != null && watch.rolledBack()) {
            reason = "the transaction rolled back (status " + watch.status + ")";
        }
        if (reason == null) {
            statistics.delivered();
        } else {
            statistics.deliveryFailed(reason);
        }
        if (failure instanceof VirtualMachineError error) {
            throw error;
        }
        return reason == null ? Outcome.DELIVERED_OUTCOME : new Outcome(Outcome.Kind.FAILED, reason, failure);
    }

    private static boolean redelivered(Message message) {
        try {
            return message.getJMSRedelivered();
        } catch (jakarta.jms.JMSException e) {
            return false; // Tributary's messages do not throw here
        }
    }

    /**
     * A new endpoint of {@code endpoints} with {@code xa} (or none), checked to be a {@link MessageListener}; null
     * when the container cannot create one now, reported to {@code availability} (logged once per change).
     */
    static MessageEndpoint createEndpoint(MessageEndpointFactory endpoints, XAResource xa,
                                          Availability availability) {
        try {
            MessageEndpoint created = endpoints.createEndpoint(xa);
            if (!(created instanceof MessageListener)) {
                created.release();
                throw new UnavailableException("the endpoint " + created.getClass().getName() + " is not a"
                        + " jakarta.jms.MessageListener: the message-driven bean is bound to the wrong adapter");
            }
            availability.succeeded("creating endpoints");
            return created;
        } catch (UnavailableException | RuntimeException e) {
            availability.failed("creating an endpoint", e, "retrying with back-off");
            return null;
        }
    }

    /** The exception and its root cause, which is what an EJBException wrapping the bean's exception hides. */
    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? e.toString() : e + " caused by " + root;
    }

    /** Learns how the delivery's transaction completed; written by the thread completing it. */
    private static final class CompletionWatch implements Synchronization {

        private static final int UNKNOWN = -1;

        private volatile int status = UNKNOWN;

        /** A watch on the current transaction, or null when there is none active to watch. */
        static CompletionWatch register(TransactionSynchronizationRegistry transactions) {
            if (transactions == null) {
                return null;
            }
            try {
                if (transactions.getTransactionKey() == null) {
                    return null;
                }
                CompletionWatch watch = new CompletionWatch();
                transactions.registerInterposedSynchronization(watch);
                return watch;
            } catch (IllegalStateException e) {
                // Already marked for rollback, or no longer active: afterDelivery will tell by an exception or not
                // at all; count it as rolled back.
                CompletionWatch watch = new CompletionWatch();
                watch.status = Status.STATUS_ROLLEDBACK;
                return watch;
            }
        }

        @Override
        public void beforeCompletion() {
        }

        @Override
        public void afterCompletion(int status) {
            this.status = status;
        }

        /**
         * Whether the transaction ended other than committed. A transaction the container did not complete within
         * afterDelivery (which neither server here does) is judged by exceptions alone.
         */
        boolean rolledBack() {
            int s = status;
            return s != UNKNOWN && s != Status.STATUS_COMMITTED;
        }
    }
}
