package io.tributary.itests.outbound;

import io.tributary.itests.Deployments;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;

/**
 * Sends through the adapter's pooled connection factory inside a container-managed transaction, which either commits
 * or is marked for rollback after the send.
 */
@Stateless
public class TransactionalSender {

    /** A resource reference each server maps to the adapter's pooled factory (Deployments). */
    @Resource(name = Deployments.CONNECTION_FACTORY_REF)
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
