package io.tributary.ra.outbound;

import jakarta.jms.CompletionListener;
import jakarta.jms.Destination;
import jakarta.jms.JMSProducer;
import jakarta.jms.Message;

import io.tributary.jms.AbstractJMSProducer;
import io.tributary.jms.UncheckedJms;

/**
 * The simplified API's producer of a {@link ContextHandle}: the provider's settings, headers and properties (from
 * {@link AbstractJMSProducer}), sent through the context's session (and so committed at once outside a container
 * transaction). {@link #setAsync} with a listener throws: asynchronous sends are not permitted in a container
 * (Jakarta Messaging 3.1 §7.3.5).
 *
 * <p>Threads: the context's.
 */
final class ContextProducer extends AbstractJMSProducer {

    private final ContextHandle context;

    ContextProducer(ContextHandle context) {
        super(context);
        this.context = context;
    }

    @Override
    protected void deliver(Destination destination, Message message) {
        UncheckedJms.run(() -> {
            ProducerHandle producer = context.producer();
            producer.setDeliveryDelay(getDeliveryDelay());
            producer.setDisableMessageID(getDisableMessageID());
            producer.setDisableMessageTimestamp(getDisableMessageTimestamp());
        });
        context.send(destination, message, getDeliveryMode(), getPriority(), getTimeToLive());
    }

    @Override
    public JMSProducer setAsync(CompletionListener completionListener) {
        if (completionListener != null) {
            throw ContainerRestrictions.forbiddenRuntime("JMSProducer.setAsync");
        }
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return null;
    }
}
