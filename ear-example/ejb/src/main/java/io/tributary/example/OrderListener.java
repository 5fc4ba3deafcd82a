package io.tributary.example;

import java.time.Instant;
import java.util.logging.Logger;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/**
 * Consumes the {@code orders} queue and stores each order with JPA ({@link OrderBook#store}) in the container's
 * transaction of the delivery: the order is stored exactly when the adapter counts the message as consumed (it
 * commits the queue's offset only after that transaction committed, and redelivers after a rollback).
 *
 * <p>The message is an {@link OrderLine} (a MapMessage); its place in the log comes from the read-only properties
 * {@code JMS_Tributary_Partition} and {@code JMS_Tributary_Offset}, its send time from {@code JMS_Tributary_Timestamp}
 * (the record's timestamp, which the report's replay also goes by). A message that is not an order, or a failure to
 * store it, throws: the adapter delivers it again, then moves it to {@code orders.dead-letters}.
 *
 * <p>Which resource adapter delivers to this bean is not in the annotation: WildFly ignores the standard
 * {@code resourceAdapter} activation property, so META-INF/jboss-ejb3.xml binds it to the adapter embedded in this
 * EAR ({@code tributary-example.ear#tributary-ra.rar}). The cluster is the adapter's ({@code bootstrapServers} in
 * its ironjacamar.xml, which reads the system property {@code tributary.bootstrap.servers}); an
 * {@code @ActivationConfigProperty(propertyName = "bootstrapServers", ...)} here would override it for this bean.
 *
 * <p>Queue mode {@code group}: the queue's offset commits in the delivery's XA transaction, so an order is stored
 * exactly once, and the report can move the group back to replay; in the default mode, {@code share}, acknowledgement
 * follows the commit (at least once).
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = OrderPublisher.ORDERS),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group"),
        @ActivationConfigProperty(propertyName = "maxRedeliveries", propertyValue = "3"),
        @ActivationConfigProperty(propertyName = "deadLetterDestination", propertyValue = "orders.dead-letters")
})
public class OrderListener implements MessageListener {

    /** Read-only properties of every message Tributary delivers (docs/jms-mapping.md, "How JMS maps onto the log"). */
    static final String PARTITION = "JMS_Tributary_Partition";
    static final String OFFSET = "JMS_Tributary_Offset";
    static final String TIMESTAMP = "JMS_Tributary_Timestamp";

    private static final Logger log = Logger.getLogger(OrderListener.class.getName());

    @EJB
    private OrderBook orderBook;

    @Override
    public void onMessage(Message message) {
        int partition;
        long offset;
        OrderLine line;
        Instant sentAt;
        try {
            partition = message.getIntProperty(PARTITION);
            offset = message.getLongProperty(OFFSET);
            sentAt = Instant.ofEpochMilli(message.getLongProperty(TIMESTAMP));
            line = OrderLine.fromMessage(message);
        } catch (JMSException e) {
            // A runtime exception rolls the delivery back: the adapter delivers the order again, then dead-letters it.
            throw new IllegalStateException("cannot read order " + message, e);
        }
        if (!orderBook.store(line, partition, offset, sentAt)) {
            log.info(() -> "order at " + OrderPublisher.ORDERS + "-" + partition + "@" + offset
                    + " was stored before (a redelivery after the transaction committed): not stored again");
        }
    }
}
