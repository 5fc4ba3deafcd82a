package io.tributary.example;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;

/**
 * Consumes the {@code orders} queue and records each order in the {@link OrderBook}.
 *
 * <p>Which resource adapter delivers to this bean is not in the annotation: WildFly ignores the standard
 * {@code resourceAdapter} activation property, so META-INF/jboss-ejb3.xml binds it to the adapter embedded in this
 * EAR ({@code tributary-example.ear#tributary-ra.rar}). The cluster is the adapter's ({@code bootstrapServers} in
 * its ironjacamar.xml, which reads the system property {@code tributary.bootstrap.servers}); an
 * {@code @ActivationConfigProperty(propertyName = "bootstrapServers", ...)} here would override it for this bean.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = OrderPublisher.ORDERS),
        @ActivationConfigProperty(propertyName = "maxRedeliveries", propertyValue = "3"),
        @ActivationConfigProperty(propertyName = "deadLetterDestination", propertyValue = "orders.dead-letters")
})
public class OrderListener implements MessageListener {

    @EJB
    private OrderBook orderBook;

    @Override
    public void onMessage(Message message) {
        try {
            orderBook.add(((TextMessage) message).getText());
        } catch (JMSException e) {
            // A runtime exception rolls the delivery back: the adapter delivers the order again, then dead-letters it.
            throw new IllegalStateException("cannot read order " + message, e);
        }
    }
}
