package io.tributary.itests.jmsresources;

import io.tributary.itests.Deployments;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.jms.JMSConnectionFactory;
import jakarta.jms.JMSContext;

/**
 * Sends with a container-injected {@code JMSContext} over the adapter's pooled factory, inside a container-managed
 * transaction that either commits or is marked for rollback after the send.
 *
 * <p>The container owns the context (transaction-scoped here): the bean neither creates nor closes it.
 */
@Stateless
public class InjectedContextSender {

    @Inject
    @JMSConnectionFactory(Deployments.PAYARA_CONNECTION_FACTORY)
    private JMSContext context;

    @Resource
    private SessionContext session;

    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public void send(String queue, String text, boolean rollback) {
        context.createProducer().send(context.createQueue(queue), text);
        if (rollback) {
            session.setRollbackOnly();
        }
    }
}
