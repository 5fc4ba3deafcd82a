package io.tributary.jms;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

/**
 * The simplified API's context: one connection (shared with the contexts made from this one by
 * {@link #createContext(int)}, and closed with the last of them) and one session. Checked exceptions of the classic
 * API come out as their runtime counterparts (§7.3). The connection starts with the first consumer when
 * {@link #getAutoStart() autoStart} is on (the default).
 *
 * <p>Threads: like a session, used by one thread at a time; {@link #close()} may come from any thread.
 */
public final class TributaryJMSContext implements JMSContext {

    private final TributaryConnection connection;
    private final AtomicInteger connectionUsers;
    private final int sessionMode;
    private TributarySession session;
    private TributaryMessageProducer producer;
    private volatile boolean autoStart = true;
    private volatile boolean closed;

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

    private void checkClosed() {
        if (closed) {
            throw new IllegalStateRuntimeException("The JMSContext is closed");
        }
    }

    /** The context's session, created on first use (so that setClientID can come first). */
    TributarySession session() {
        checkClosed();
        synchronized (this) {
            if (session == null) {
                try {
                    session = connection.newSession(sessionMode);
                } catch (JMSException e) {
                    throw JmsErrors.runtime(e);
                }
            }
            return session;
        }
    }

    /** The session's unidentified producer, for {@link TributaryJMSProducer}. */
    TributaryMessageProducer producer() {
        synchronized (this) {
            if (producer == null) {
                try {
                    producer = (TributaryMessageProducer) session().createProducer(null);
                } catch (JMSException e) {
                    throw JmsErrors.runtime(e);
                }
            }
            return producer;
        }
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        checkClosed();
        connectionUsers.incrementAndGet();
        try {
            TributaryJMSContext context = new TributaryJMSContext(connection, sessionMode, connectionUsers);
            context.autoStart = autoStart;
            return context;
        } catch (JMSException e) {
            connectionUsers.decrementAndGet();
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public JMSProducer createProducer() {
        checkClosed();
        return new TributaryJMSProducer(this);
    }

    @Override
    public String getClientID() {
        checkClosed();
        try {
            return connection.getClientID();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void setClientID(String clientID) {
        checkClosed();
        try {
            connection.setClientID(clientID);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public ConnectionMetaData getMetaData() {
        checkClosed();
        try {
            return connection.getMetaData();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public ExceptionListener getExceptionListener() {
        checkClosed();
        try {
            return connection.getExceptionListener();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        checkClosed();
        try {
            connection.setExceptionListener(listener);
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void start() {
        checkClosed();
        try {
            connection.start();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void stop() {
        checkClosed();
        try {
            connection.stop();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    @Override
    public void setAutoStart(boolean autoStart) {
        checkClosed();
        this.autoStart = autoStart;
    }

    @Override
    public boolean getAutoStart() {
        checkClosed();
        return autoStart;
    }

    /** Closes the session, and the connection when no other context uses it. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            synchronized (this) {
                if (session != null) {
                    session.close();
                }
            }
            closed = true;
            if (connectionUsers.decrementAndGet() == 0) {
                connection.close();
            }
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    @Override
    public BytesMessage createBytesMessage() {
        return call(() -> session().createBytesMessage());
    }

    @Override
    public MapMessage createMapMessage() {
        return call(() -> session().createMapMessage());
    }

    @Override
    public Message createMessage() {
        return call(() -> session().createMessage());
    }

    @Override
    public ObjectMessage createObjectMessage() {
        return call(() -> session().createObjectMessage());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        return call(() -> session().createObjectMessage(object));
    }

    @Override
    public StreamMessage createStreamMessage() {
        return call(() -> session().createStreamMessage());
    }

    @Override
    public TextMessage createTextMessage() {
        return call(() -> session().createTextMessage());
    }

    @Override
    public TextMessage createTextMessage(String text) {
        return call(() -> session().createTextMessage(text));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Session operations

    @Override
    public boolean getTransacted() {
        checkClosed();
        return sessionMode == SESSION_TRANSACTED;
    }

    @Override
    public int getSessionMode() {
        checkClosed();
        return sessionMode;
    }

    @Override
    public void commit() {
        run(() -> session().commit());
    }

    @Override
    public void rollback() {
        run(() -> session().rollback());
    }

    @Override
    public void recover() {
        run(() -> session().recover());
    }

    /** Acknowledges every message the context's session consumed (CLIENT_ACKNOWLEDGE). */
    @Override
    public void acknowledge() {
        checkClosed();
        if (sessionMode == CLIENT_ACKNOWLEDGE) {
            run(() -> session().acknowledgeFromMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Consumers

    @Override
    public JMSConsumer createConsumer(Destination destination) {
        return consumer(() -> session().createConsumer(destination));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector) {
        return consumer(() -> session().createConsumer(destination, messageSelector));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createConsumer(destination, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName, messageSelector));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createDurableConsumer(topic, name, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name, messageSelector));
    }

    private JMSConsumer consumer(JmsCall<MessageConsumer> create) {
        checkClosed();
        TributaryMessageConsumer consumer = (TributaryMessageConsumer) call(create);
        if (autoStart) {
            start();
        }
        return new TributaryJMSConsumer(consumer);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return call(() -> session().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) {
        return call(() -> session().createBrowser(queue, messageSelector));
    }

    @Override
    public Queue createQueue(String queueName) {
        return call(() -> session().createQueue(queueName));
    }

    @Override
    public Topic createTopic(String topicName) {
        return call(() -> session().createTopic(topicName));
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        return call(() -> session().createTemporaryQueue());
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        return call(() -> session().createTemporaryTopic());
    }

    @Override
    public void unsubscribe(String name) {
        run(() -> session().unsubscribe(name));
    }

    // ---------------------------------------------------------------------------------------------------------

    @FunctionalInterface
    interface JmsCall<T> {
        T call() throws JMSException;
    }

    @FunctionalInterface
    interface JmsRun {
        void run() throws JMSException;
    }

    private <T> T call(JmsCall<T> call) {
        checkClosed();
        try {
            return call.call();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }

    private void run(JmsRun run) {
        checkClosed();
        try {
            run.run();
        } catch (JMSException e) {
            throw JmsErrors.runtime(e);
        }
    }
}
