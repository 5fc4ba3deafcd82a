package io.tributary.ra.outbound;

import java.io.Serializable;

import javax.naming.Reference;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicConnectionFactory;
import jakarta.resource.Referenceable;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionManager;

import io.tributary.jms.UncheckedJms;

/**
 * The pooled JMS connection factory that applications look up ({@code @Resource}, {@code @Inject JMSContext},
 * JNDI): every connection and context comes from the container's {@link ConnectionManager}, which takes a managed
 * connection from its pool (or makes one with {@link TributaryManagedConnectionFactory}) and enlists it in the
 * current transaction. The connections are {@link TributaryConnectionHandle}s.
 *
 * <p>Serializable and {@link Referenceable}, so that the container can bind it in JNDI. Threads: any.
 */
public final class TributaryConnectionFactoryHandle implements ConnectionFactory, QueueConnectionFactory,
        TopicConnectionFactory, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private final TributaryManagedConnectionFactory factory;
    private final ConnectionManager connectionManager;
    private Reference reference;

    TributaryConnectionFactoryHandle(TributaryManagedConnectionFactory factory,
                                     ConnectionManager connectionManager) {
        this.factory = factory;
        this.connectionManager = connectionManager;
    }

    /**
     * A connection handle from the pool.
     *
     * @throws ResourceAllocationException if the container could not provide one (pool exhausted, the managed
     *         connection factory's configuration is invalid, ...)
     */
    private TributaryConnectionHandle allocate(String user, String password) throws JMSException {
        try {
            return (TributaryConnectionHandle) connectionManager.allocateConnection(factory,
                    user == null ? ConnectionRequest.DEFAULT : new ConnectionRequest(user, password));
        } catch (ResourceException e) {
            ResourceAllocationException failure = new ResourceAllocationException("Allocating a pooled connection "
                    + "to Tributary failed: " + e.getMessage(), e.getErrorCode());
            failure.setLinkedException(e);
            failure.initCause(e);
            throw failure;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Classic API

    @Override
    public Connection createConnection() throws JMSException {
        return allocate(null, null);
    }

    /**
     * A connection as {@code userName} with {@code password} (over SASL, the login; application sign-on), pooled
     * apart from other users' connections.
     */
    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return allocate(userName, password);
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return allocate(null, null);
    }

    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return allocate(userName, password);
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return allocate(null, null);
    }

    @Override
    public TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return allocate(userName, password);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Simplified API: the session mode is validated, then ignored in favour of the container's rules

    @Override
    public JMSContext createContext() {
        return createContext(null, null, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        return createContext(null, null, sessionMode);
    }

    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        TributaryConnectionHandle connection = UncheckedJms.call(() -> allocate(userName, password));
        try {
            return new ContextHandle(connection, sessionMode);
        } catch (RuntimeException e) {
            try {
                connection.close();
            } catch (JMSException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Referenceable: set by the container when it binds this factory

    @Override
    public void setReference(Reference reference) {
        this.reference = reference;
    }

    @Override
    public Reference getReference() {
        return reference;
    }

    @Override
    public String toString() {
        return "TributaryConnectionFactoryHandle[" + factory + "]";
    }
}
