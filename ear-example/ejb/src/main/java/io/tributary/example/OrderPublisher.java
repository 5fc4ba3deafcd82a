package io.tributary.example;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;

/**
 * Publishes orders to the {@value #ORDERS} queue (a Kafka topic) through the resource adapter's pooled connection
 * factory.
 *
 * <p>Each call runs in a container-managed transaction: the adapter enlists the pooled connection as the
 * transaction's one-phase resource, so the order is published when the transaction commits, and not at all when it
 * rolls back.
 *
 * <p>A note on {@code @Inject @JMSConnectionFactory(...) JMSContext}: WildFly provides injected JMSContexts through
 * its messaging subsystem, which {@code standalone.xml} does not have; {@code @Resource} on the factory works on every
 * profile.
 */
@Stateless
public class OrderPublisher {

    /** The queue orders travel through: the Kafka topic {@code orders}. */
    public static final String ORDERS = "orders";

    /**
     * The adapter's pooled factory, through a resource reference each server maps: on WildFly to the factory that
     * the adapter's META-INF/ironjacamar.xml binds (META-INF/jboss-ejb3.xml), on Payara to the one the EAR's
     * META-INF/glassfish-resources.xml defines (META-INF/glassfish-ejb-jar.xml).
     */
    @Resource(name = "jms/TributaryConnectionFactory")
    private ConnectionFactory connectionFactory;

    /** Publishes {@code order} as a MapMessage ({@link OrderLine} has the format), when the transaction commits. */
    public void publish(OrderLine order) {
        try (JMSContext context = connectionFactory.createContext()) {
            context.createProducer().send(context.createQueue(ORDERS), order.toMessage(context));
        }
    }
}
