package io.tributary.jms;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.ConnectionMetaData;
import jakarta.jms.ExceptionListener;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.MessageConsumer;

/**
 * The simplified API's context: one connection (shared with the contexts made from this one by
 * {@link #createContext(int)}, and closed with the last of them) and one session. Checked exceptions of the classic
 * API come out as their runtime counterparts (§7.3). The connection starts with the first consumer when
 * {@link #getAutoStart() autoStart} is on (the default). What goes to the session is {@link AbstractJMSContext}'s.
 *
 * <p>Threads: like a session, used by one thread at a time; {@link #close()} may come from any thread.
 */
public final class TributaryJMSContext extends AbstractJMSContext {

    private final TributaryConnection connection;
    private final AtomicInteger connectionUsers;
    private final int sessionMode;
    private TributarySession session;
    private TributaryMessageProducer producer;

    /** A context on a new connection, which it owns. */
    TributaryJMSContext(TributaryConnection connection, int sessionMode) throws JMSException {
        this(connection, sessionMode, new AtomicInteger(1));
    }

    private TributaryJMSContext(TributaryConnection connection, int sessionMode, AtomicInteger connectionUsers)
            throws JMSException {
        if (sessionMode != SESSION_TRANSACTED && sessionMode != AUTO_ACKNOWLEDGE && sessionMode != CLIENT_ACKNOWLEDGE
                && sessionMode != DUPS_OK_ACKNOWLEDGE) {
            throw new JMSException("Unknown session mode " + sessionMode + ": expected SESSION_TRANSACTED (0), "
                    + "AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
        this.connection = connection;
        this.sessionMode = sessionMode;
        this.connectionUsers = connectionUsers;
    }

    /** The context's session, created on first use (so that setClientID can come first). */
    @Override
    protected TributarySession session() {
        checkOpen();
        synchronized (this) {
            if (session == null) {
                session = UncheckedJms.call(() -> connection.newSession(sessionMode));
            }
            return session;
        }
    }

    @Override
    protected JMSConsumer consumerOf(MessageConsumer consumer) {
        return new TributaryJMSConsumer((TributaryMessageConsumer) consumer);
    }

    /** The session's unidentified producer, for {@link TributaryJMSProducer}. */
    TributaryMessageProducer producer() {
        synchronized (this) {
            if (producer == null) {
                producer = (TributaryMessageProducer) UncheckedJms.call(() -> session().createProducer(null));
            }
            return producer;
        }
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        checkOpen();
        connectionUsers.incrementAndGet();
        try {
            TributaryJMSContext context = new TributaryJMSContext(connection, sessionMode, connectionUsers);
            context.setAutoStart(getAutoStart());
            return context;
        } catch (JMSException e) {
            connectionUsers.decrementAndGet();
            throw UncheckedJms.of(e);
        }
    }

    @Override
    public JMSProducer createProducer() {
        checkOpen();
        return new TributaryJMSProducer(this);
    }

    @Override
    public String getClientID() {
        return call(connection::getClientID);
    }

    @Override
    public void setClientID(String clientID) {
        run(() -> connection.setClientID(clientID));
    }

    @Override
    public ConnectionMetaData getMetaData() {
        return call(connection::getMetaData);
    }

    @Override
    public ExceptionListener getExceptionListener() {
        return call(connection::getExceptionListener);
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        run(() -> connection.setExceptionListener(listener));
    }

    @Override
    public void start() {
        run(connection::start);
    }

    @Override
    public void stop() {
        run(connection::stop);
    }

    /** Closes the session, and the connection when no other context uses it. Idempotent. */
    @Override
    public void close() {
        if (isClosed()) {
            return;
        }
        try {
            synchronized (this) {
                if (session != null) {
                    session.close();
                }
            }
            markClosed();
            if (connectionUsers.decrementAndGet() == 0) {
                connection.close();
            }
        } catch (JMSException e) {
            throw UncheckedJms.of(e);
        }
    }

    @Override
    public boolean getTransacted() {
        checkOpen();
        return sessionMode == SESSION_TRANSACTED;
    }

    @Override
    public int getSessionMode() {
        checkOpen();
        return sessionMode;
    }

    /** Acknowledges every message the context's session consumed (CLIENT_ACKNOWLEDGE). */
    @Override
    public void acknowledge() {
        checkOpen();
        if (sessionMode == CLIENT_ACKNOWLEDGE) {
            run(() -> session().acknowledgeFromMessage());
        }
    }
}
