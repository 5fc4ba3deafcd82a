package io.tributary.itests.restart;

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
 * Records every message of {@value #QUEUE} in the {@link Ledger}, then holds {@value Ledger#HOLD} at its gate. It
 * touches nothing on the broker, so the broker's outage reaches only the adapter's consumer and offset commits. The
 * adapter's defaults apply (reconnection back-off up to 30 s).
 *
 * <p>Queue mode {@code group}: the test checks that nothing is delivered twice across the outage, which the consumer
 * group's committed offsets give and a share group (at least once) does not.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = RestartListener.QUEUE),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group")
})
@ResourceAdapter("tributary-ra.rar")
public class RestartListener implements MessageListener {

    public static final String QUEUE = "itests.restart";

    @EJB
    private Ledger ledger;

    @Override
    public void onMessage(Message message) {
        String text;
        try {
            text = ((TextMessage) message).getText();
            ledger.record(text, message.getJMSRedelivered(), message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
        ledger.holdIfGated(text);
    }
}
