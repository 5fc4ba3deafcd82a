package io.tributary.itests.failover;

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
 * Records every message of {@value #QUEUE} in {@link Received}, and does nothing else: it touches no broker, so a
 * broker's death reaches only the adapter's consumer and its offset commits.
 *
 * <p>The cluster is not named here: its addresses are the ports the build reserved, known only when the test
 * deploys, so the test's WEB-INF/ejb-jar.xml adds the {@code bootstrapServers} activation property (WildFly merges a
 * descriptor's activation properties over the annotation's). The adapter's defaults apply otherwise (auto-acknowledge,
 * one session, reconnection back-off up to 30 s).
 *
 * <p>Queue mode {@code group}: the test checks that nothing is delivered twice across the failover, which the consumer
 * group's committed offsets give and a share group (at least once) does not.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = FailoverListener.QUEUE),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group")
})
@ResourceAdapter(Deployments.RAR)
public class FailoverListener implements MessageListener {

    public static final String QUEUE = "itests.failover";

    @EJB
    private Received received;

    @Override
    public void onMessage(Message message) {
        try {
            received.record(((TextMessage) message).getText(), message.getLongProperty("JMS_Tributary_Offset"),
                    message.getJMSRedelivered(), message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read the delivered message", e);
        }
    }
}
