package io.tributary.itests.share;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * Consumes the one-partition queue {@value #QUEUE} in the default queue mode, {@code share}, with
 * {@code maxSession} {@value ConcurrencyGate#MEMBERS}: each delivery passes the {@link ConcurrencyGate}, where the first
 * {@value ConcurrencyGate#MEMBERS} wait until all of them are in {@code onMessage} at once, and is forwarded to
 * {@value #SEEN} ({@link SeenTopic}) with the gate's outcome. A message whose text starts with {@value #FAIL_ONCE}
 * throws on its first delivery (nothing forwarded: the transaction rolls back), so it comes back redelivered.
 */
@MessageDriven(activationConfig = {
        // Payara: the adapter module this MDB is bound to (WildFly reads @ResourceAdapter below instead).
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = ShareListener.QUEUE),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "" + ConcurrencyGate.MEMBERS),
        @ActivationConfigProperty(propertyName = "redeliveryDelay", propertyValue = "0")
})
@ResourceAdapter(Deployments.RAR)
public class ShareListener implements MessageListener {

    public static final String QUEUE = "itests.share";
    public static final String SEEN = "itests.share.seen";
    public static final String FAIL_ONCE = "fail-once";

    @EJB
    private ConcurrencyGate gate;

    @Override
    public void onMessage(Message message) {
        String text;
        boolean redelivered;
        try {
            text = ((TextMessage) message).getText();
            redelivered = message.getJMSRedelivered();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
        if (text.startsWith(FAIL_ONCE) && !redelivered) {
            throw new IllegalStateException("failing the first delivery of " + text);
        }
        SeenTopic.forward(SEEN, message, gate.pass(text));
    }
}
