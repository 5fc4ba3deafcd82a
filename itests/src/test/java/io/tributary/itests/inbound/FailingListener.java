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
 * Records every delivery of its queue, then throws for a message whose text starts with {@value #POISON}: the
 * container rolls the delivery back, the adapter redelivers it {@value #MAX_REDELIVERIES} times, then sends it to
 * {@value #DEAD_LETTERS}.
 *
 * <p>Queue mode {@code group}: the test checks the adapter's redelivery of one partition and the dead letter's origin;
 * share-group redelivery is ShareQueueIT's.
 */
@MessageDriven(activationConfig = {
        // Payara: the adapter module this MDB is bound to (WildFly reads @ResourceAdapter below instead).
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = FailingListener.QUEUE),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group"),
        @ActivationConfigProperty(propertyName = "maxRedeliveries", propertyValue = "" + FailingListener.MAX_REDELIVERIES),
        @ActivationConfigProperty(propertyName = "deadLetterDestination", propertyValue = FailingListener.DEAD_LETTERS)
})
@ResourceAdapter(Deployments.RAR)
public class FailingListener implements MessageListener {

    public static final String QUEUE = "itests.failing";
    public static final String DEAD_LETTERS = "itests.failing.dead-letters";
    public static final int MAX_REDELIVERIES = 2;
    public static final String POISON = "poison";

    @EJB
    private Deliveries deliveries;

    @Override
    public void onMessage(Message message) {
        String text;
        try {
            text = ((TextMessage) message).getText();
            deliveries.add(QUEUE, text, message.getJMSRedelivered(), message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
        if (text.startsWith(POISON)) {
            throw new IllegalArgumentException("refusing " + text);
        }
    }
}
