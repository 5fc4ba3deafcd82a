package io.tributary.itests.seen;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.tributary.itests.Deployments;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * A record of deliveries that outlives the MDB's deployment: the MDB forwards a line describing each message it
 * receives to a "seen" topic through the adapter's pooled connection factory, inside its delivery's container
 * transaction (so a delivery that rolls back leaves no line, and a committed one leaves its line before the adapter
 * commits the offset), and the test reads that topic with the Kafka consumer.
 *
 * <p>Line format, one TextMessage each: {@code text|partition|offset|redelivered|deliveryCount} followed by any
 * {@code |extra} fields the MDB adds; {@code partition} and {@code offset} are the received message's
 * {@code JMS_Tributary_Partition} and {@code JMS_Tributary_Offset}. The seen topic has one partition (the broker's
 * default), and each forward is published at its transaction's commit, which returns after the broker acknowledged it,
 * so one source partition's lines stand in the order of its deliveries.
 *
 * <p>{@link #forward} on the MDB's delivery thread (in the server); {@link #parse} on the test thread.
 */
public final class SeenTopic {

    private static final long CONTEXT_PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long CONTEXT_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private SeenTopic() {
    }

    /** Sends the line describing {@code message} (a TextMessage) to {@code seenTopic}; an MDB calls it in onMessage. */
    public static void forward(String seenTopic, Message message, Object... extra) {
        StringBuilder line = new StringBuilder();
        try {
            line.append(((TextMessage) message).getText())
                    .append('|').append(message.getIntProperty("JMS_Tributary_Partition"))
                    .append('|').append(message.getLongProperty("JMS_Tributary_Offset"))
                    .append('|').append(message.getJMSRedelivered())
                    .append('|').append(message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read the delivered message", e);
        }
        for (Object field : extra) {
            line.append('|').append(field);
        }
        try (JMSContext context = createContextPatiently()) {
            context.createProducer().send(context.createTopic(seenTopic), line.toString());
        }
    }

    /**
     * A context of the pooled factory, retried for up to 2 s. Payara starts an MDB's deliveries a moment before it
     * has registered the application (allocating a connection of its java:app resource then fails inside Payara:
     * "application is null"), and during undeployment removes the resource while deliveries still run. The adapter
     * redelivers a delivery that failed for that, correctly marked JMSRedelivered, which the tests' expectations of
     * first deliveries do not allow for.
     */
    private static JMSContext createContextPatiently() {
        long deadline = System.nanoTime() + CONTEXT_PATIENCE_NANOS;
        while (true) {
            try {
                return pooledFactory().createContext();
            } catch (RuntimeException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                LockSupport.parkNanos(CONTEXT_RETRY_NANOS);
            }
        }
    }

    /**
     * The adapter's pooled factory where the server has it: WildFly binds it at
     * {@value Deployments#WILDFLY_CONNECTION_FACTORY} (the RAR's ironjacamar.xml), Payara at
     * {@value Deployments#PAYARA_CONNECTION_FACTORY} (the WAR's glassfish-resources.xml). Looked up rather than
     * injected: an MDB's resource reference would need a per-bean mapping in each server's descriptor.
     */
    private static ConnectionFactory pooledFactory() {
        InitialContext naming;
        try {
            naming = new InitialContext();
        } catch (NamingException e) {
            throw new IllegalStateException("no naming context", e);
        }
        try {
            return (ConnectionFactory) naming.lookup(Deployments.WILDFLY_CONNECTION_FACTORY);
        } catch (NamingException onWildFly) {
            try {
                return (ConnectionFactory) naming.lookup(Deployments.PAYARA_CONNECTION_FACTORY);
            } catch (NamingException onPayara) {
                IllegalStateException failure = new IllegalStateException("the adapter's pooled factory is bound"
                        + " neither at " + Deployments.WILDFLY_CONNECTION_FACTORY + " nor at "
                        + Deployments.PAYARA_CONNECTION_FACTORY, onPayara);
                failure.addSuppressed(onWildFly);
                throw failure;
            }
        }
    }

    /** One forwarded line. */
    public record Line(String text, int partition, long offset, boolean redelivered, int deliveryCount,
                       List<String> extra) {
    }

    public static Line parse(String line) {
        String[] fields = line.split("\\|", -1);
        if (fields.length < 5) {
            throw new IllegalArgumentException("not a seen line: " + line);
        }
        return new Line(fields[0], Integer.parseInt(fields[1]), Long.parseLong(fields[2]),
                Boolean.parseBoolean(fields[3]), Integer.parseInt(fields[4]),
                List.of(fields).subList(5, fields.length));
    }
}
