package io.tributary.itests.concurrent;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * Consumes the {@value StartGate#PARTITIONS}-partition queue {@value #QUEUE} with {@code maxSession} as many: the
 * first delivery of each partition waits at the {@link StartGate} for the others; every delivery is forwarded to
 * {@value #SEEN} ({@link SeenTopic}) with the gate's outcome as the extra field. The records come from a plain Kafka
 * producer, hence {@code plainRecordsAsText}.
 *
 * <p>Queue mode {@code group}: one delivery thread per partition, in offset order, is what the test checks.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = ConcurrentListener.QUEUE),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "" + StartGate.PARTITIONS),
        @ActivationConfigProperty(propertyName = "plainRecordsAsText", propertyValue = "true")
})
@ResourceAdapter("tributary-ra.rar")
public class ConcurrentListener implements MessageListener {

    public static final String QUEUE = "itests.concurrent";
    public static final String SEEN = "itests.concurrent.seen";

    @EJB
    private StartGate gate;

    @Override
    public void onMessage(Message message) {
        String outcome;
        try {
            outcome = gate.pass(message.getIntProperty("JMS_Tributary_Partition"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
        SeenTopic.forward(SEEN, message, outcome);
    }
}
