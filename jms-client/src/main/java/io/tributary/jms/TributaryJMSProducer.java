package io.tributary.jms;

import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;

/** The simplified API's producer: sends through the context's session's unidentified producer. */
final class TributaryJMSProducer extends AbstractJMSProducer {

    private final TributaryJMSContext context;

    TributaryJMSProducer(TributaryJMSContext context) {
        super(context);
        this.context = context;
    }

    @Override
    protected void deliver(Destination destination, Message message) throws JMSException {
        TributaryMessageProducer producer = context.producer();
        producer.setDeliveryDelay(getDeliveryDelay());
        producer.setDisableMessageID(getDisableMessageID());
        producer.setDisableMessageTimestamp(getDisableMessageTimestamp());
        producer.doSend(Destinations.normalize(destination), message, getDeliveryMode(), getPriority(),
                getTimeToLive(), getAsync());
    }
}
