package io.tributary.itests.replay;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * A non-durable subscription to {@value #TOPIC} that starts at the earliest offset instead of the end of the log:
 * every record produced before the MDB was deployed is delivered. Forwards what it receives to {@value #SEEN}
 * ({@link SeenTopic}). The records come from a plain Kafka producer, hence {@code plainRecordsAsText}.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Topic"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = EarliestReplayListener.TOPIC),
        @ActivationConfigProperty(propertyName = "startAt", propertyValue = "earliest"),
        @ActivationConfigProperty(propertyName = "plainRecordsAsText", propertyValue = "true")
})
@ResourceAdapter("tributary-ra.rar")
public class EarliestReplayListener implements MessageListener {

    public static final String TOPIC = "itests.replay.earliest";
    public static final String SEEN = "itests.replay.earliest.seen";

    @Override
    public void onMessage(Message message) {
        SeenTopic.forward(SEEN, message);
    }
}
