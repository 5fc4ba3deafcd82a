package io.tributary.itests.inbound;

import io.tributary.itests.Deployments;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * Records every message of its queue: the test checks that all arrive, once each, in the order sent. Queue mode
 * {@code group}: a share group keeps no order.
 */
@MessageDriven(activationConfig = {
        // Payara: the adapter module this MDB is bound to (WildFly reads @ResourceAdapter below instead).
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = OrderedListener.QUEUE),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group")
})
@ResourceAdapter(Deployments.RAR)
public class OrderedListener implements MessageListener {

    public static final String QUEUE = "itests.ordered";

    @EJB
    private Deliveries deliveries;

    @Override
    public void onMessage(Message message) {
        try {
            deliveries.add(QUEUE, ((TextMessage) message).getText(), message.getJMSRedelivered(),
                    message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
