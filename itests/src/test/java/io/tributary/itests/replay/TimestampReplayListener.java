package io.tributary.itests.replay;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * A non-durable subscription to {@value #TOPIC} that starts at the first record whose timestamp is at or after
 * {@value #START_AT}: the records produced before the MDB was deployed with older timestamps are not delivered, the
 * later ones are. Forwards what it receives to {@value #SEEN} ({@link SeenTopic}).
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Topic"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = TimestampReplayListener.TOPIC),
        @ActivationConfigProperty(propertyName = "startAt", propertyValue = TimestampReplayListener.START_AT),
        @ActivationConfigProperty(propertyName = "plainRecordsAsText", propertyValue = "true")
})
@ResourceAdapter("tributary-ra.rar")
public class TimestampReplayListener implements MessageListener {

    public static final String TOPIC = "itests.replay.time";
    public static final String SEEN = "itests.replay.time.seen";
    /** Between the test's two batches (2020-01-01 and 2021-01-01). */
    public static final String START_AT = "2020-06-01T00:00:00Z";

    @Override
    public void onMessage(Message message) {
        SeenTopic.forward(SEEN, message);
    }
}
