package io.tributary.itests.durable;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * The durable subscription {@value #SUBSCRIPTION} of client id {@value #CLIENT_ID} to {@value #TOPIC} (consumer group
 * {@value #GROUP}): what is published while the MDB is undeployed waits for it. Forwards what it receives to
 * {@value #SEEN} ({@link SeenTopic}), which outlives its deployment.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Topic"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = DurableListener.TOPIC),
        @ActivationConfigProperty(propertyName = "subscriptionDurability", propertyValue = "Durable"),
        @ActivationConfigProperty(propertyName = "clientId", propertyValue = DurableListener.CLIENT_ID),
        @ActivationConfigProperty(propertyName = "subscriptionName", propertyValue = DurableListener.SUBSCRIPTION)
})
@ResourceAdapter("tributary-ra.rar")
public class DurableListener implements MessageListener {

    public static final String TOPIC = "itests.durable";
    public static final String SEEN = "itests.durable.seen";
    public static final String CLIENT_ID = "itests";
    public static final String SUBSCRIPTION = "durable-it";
    /** The group of an unshared durable subscription: {@code jms.durable.<client id>.<name>} (docs/jms-mapping.md). */
    public static final String GROUP = "jms.durable." + CLIENT_ID + "." + SUBSCRIPTION;

    @Override
    public void onMessage(Message message) {
        SeenTopic.forward(SEEN, message);
    }
}
