package io.tributary.itests.jmsresources;

import io.tributary.itests.Deployments;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConnectionFactoryDefinition;
import jakarta.jms.JMSContext;

/**
 * Sends through a connection factory that the application itself defines on the adapter
 * ({@code @JMSConnectionFactoryDefinition} with {@code resourceAdapter}): the server creates the pool when the
 * application deploys, with no server configuration. Inside a container-managed transaction that either commits or
 * is marked for rollback after the send.
 */
@JMSConnectionFactoryDefinition(
        name = DefinedFactorySender.FACTORY,
        resourceAdapter = Deployments.RAR_MODULE,
        interfaceName = "jakarta.jms.ConnectionFactory",
        transactional = true,
        // Payara makes a transactional definition an XATransaction pool, which the adapter (LocalTransaction) is
        // refused (RAR7092); this Payara property sets the pool's level instead. Other servers ignore it.
        properties = "org.glassfish.connector-connection-pool.transaction-support=LocalTransaction",
        minPoolSize = 0,
        maxPoolSize = 5)
@Stateless
public class DefinedFactorySender {

    public static final String FACTORY = "java:app/jms/DefinedTributaryFactory";

    @Resource(lookup = FACTORY)
    private ConnectionFactory connectionFactory;

    @Resource
    private SessionContext session;

    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public void send(String queue, String text, boolean rollback) {
        try (JMSContext context = connectionFactory.createContext()) {
            context.createProducer().send(context.createQueue(queue), text);
        }
        if (rollback) {
            session.setRollbackOnly();
        }
    }
}
