package io.tributary.ra.outbound;

import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;

import io.tributary.jms.AbstractJMSContext;
import io.tributary.jms.UncheckedJms;

/**
 * The simplified API on a pooled connection: a {@link TributaryConnectionHandle} and its one session, with the
 * container's rules (Jakarta Messaging 3.1 §12): the session mode is ignored (transacted inside a container
 * transaction, {@code AUTO_ACKNOWLEDGE} outside), and {@code createContext}, {@code setClientID},
 * {@code setExceptionListener}, {@code stop} and asynchronous sends throw {@link IllegalStateRuntimeException}.
 * Closing the context closes the connection handle, which gives the managed connection back to the pool. What goes to
 * the session is {@link AbstractJMSContext}'s.
 *
 * <p>Threads: one at a time, like a session; {@link #close()} from any.
 */
final class ContextHandle extends AbstractJMSContext {

    private final TributaryConnectionHandle connection;
    private SessionHandle session;
    private ProducerHandle producer;

    /** @throws JMSRuntimeException if {@code sessionMode} is none of the four JMS session modes */
    ContextHandle(TributaryConnectionHandle connection, int sessionMode) {
        if (sessionMode != SESSION_TRANSACTED && sessionMode != AUTO_ACKNOWLEDGE && sessionMode != CLIENT_ACKNOWLEDGE
                && sessionMode != DUPS_OK_ACKNOWLEDGE) {
            throw new JMSRuntimeException("Unknown session mode " + sessionMode + ": expected SESSION_TRANSACTED "
                    + "(0), AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
        this.connection = connection;
    }

    /** The context's session, opened on first use. */
    @Override
    protected synchronized SessionHandle session() {
        checkOpen();
        if (session == null) {
            session = (SessionHandle) UncheckedJms.call(connection::createSession);
        }
        return session;
    }

    /** The session's producer without a destination, for {@link ContextProducer}; made on first use. */
    synchronized ProducerHandle producer() {
        if (producer == null) {
            producer = (ProducerHandle) UncheckedJms.call(() -> session().createProducer(null));
        }
        return producer;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection

    @Override
    public JMSContext createContext(int sessionMode) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.createContext");
    }

    @Override
    public JMSProducer createProducer() {
        checkOpen();
        return new ContextProducer(this);
    }

    @Override
    public String getClientID() {
        return call(connection::getClientID);
    }

    @Override
    public void setClientID(String clientID) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.setClientID");
    }

    @Override
    public ConnectionMetaData getMetaData() {
        return call(connection::getMetaData);
    }

    @Override
    public ExceptionListener getExceptionListener() {
        checkOpen();
        return null;
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.setExceptionListener");
    }

    @Override
    public void start() {
        run(connection::start);
    }

    @Override
    public void stop() {
        checkOpen();
        throw ContainerRestrictions.forbiddenRuntime("JMSContext.stop");
    }

    /** Closes the session and the connection handle (back to the pool). Idempotent. */
    @Override
    public void close() {
        if (markClosed()) {
            UncheckedJms.run(connection::close);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transactions: the container's

    @Override
    public boolean getTransacted() {
        return UncheckedJms.call(() -> session().getTransacted());
    }

    @Override
    public int getSessionMode() {
        return UncheckedJms.call(() -> session().getAcknowledgeMode());
    }

    /** A no-op: outside a transaction every message is acknowledged when received, inside one at commit. */
    @Override
    public void acknowledge() {
        checkOpen();
    }

    @Override
    protected JMSConsumer consumerOf(MessageConsumer consumer) {
        return new ContextConsumer((ConsumerHandle) consumer);
    }

    /** Sends of {@link ContextProducer}, checked exceptions converted. */
    void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive) {
        run(() -> producer().send(destination, message, deliveryMode, priority, timeToLive));
    }
}
