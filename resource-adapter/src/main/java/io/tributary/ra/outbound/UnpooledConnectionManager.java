package io.tributary.ra.outbound;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection manager of a non-managed environment (connector specification: {@code createConnectionFactory()}
 * without a container): every allocation makes a managed connection and destroys it when its handle closes. No
 * pooling, no transactions; sessions are therefore AUTO_ACKNOWLEDGE. Outside an application server the JMS
 * provider's own {@code io.tributary.jms.TributaryConnectionFactory} is the better choice.
 *
 * <p>Stateless: any thread.
 */
final class UnpooledConnectionManager implements ConnectionManager {

    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(UnpooledConnectionManager.class);

    @Override
    public Object allocateConnection(ManagedConnectionFactory factory, ConnectionRequestInfo info)
            throws ResourceException {
        ManagedConnection connection = factory.createManagedConnection(null, info);
        connection.addConnectionEventListener(new DestroyWhenClosed());
        return connection.getConnection(null, info);
    }

    private static final class DestroyWhenClosed implements ConnectionEventListener {

        @Override
        public void connectionClosed(ConnectionEvent event) {
            destroy(event);
        }

        @Override
        public void connectionErrorOccurred(ConnectionEvent event) {
            destroy(event);
        }

        private static void destroy(ConnectionEvent event) {
            try {
                ((ManagedConnection) event.getSource()).destroy();
            } catch (ResourceException e) {
                log.warn("Destroying {} failed: {}", event.getSource(), e.getMessage());
            }
        }

        @Override
        public void localTransactionStarted(ConnectionEvent event) {
        }

        @Override
        public void localTransactionCommitted(ConnectionEvent event) {
        }

        @Override
        public void localTransactionRolledback(ConnectionEvent event) {
        }
    }
}
