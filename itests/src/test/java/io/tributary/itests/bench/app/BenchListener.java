package io.tributary.itests.bench.app;

import jakarta.ejb.EJBException;
import jakarta.ejb.MessageDriven;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import org.jboss.ejb3.annotation.DeliveryActive;

/**
 * The MDB benchmark's message-driven bean, the same class on Tributary's adapter and on WildFly's Artemis: trivial
 * work, reading the body and the benchmark's properties and counting the message in {@link Tally}.
 *
 * <p>Everything that differs between the two providers is in the deployment's descriptors, written by
 * {@code MdbBenchmark}: the activation config ({@code destination} or {@code destinationLookup}, {@code maxSession})
 * in {@code ejb-jar.xml}, and for Tributary the adapter binding in {@code jboss-ejb3.xml}. Delivery is stopped when
 * the bean is deployed, so that the benchmark can produce its backlog first and then start delivery through the
 * management API ({@code start-delivery}). Container-managed transactions, {@code REQUIRED}: the default MDB.
 *
 * <p>Threads: the container's delivery threads, up to {@code maxSession} at once.
 */
@MessageDriven(name = BenchListener.NAME)
@DeliveryActive(false)
public class BenchListener implements MessageListener {

    /** The bean's name, which the descriptors and the management operations use. */
    public static final String NAME = "BenchListener";

    @Override
    public void onMessage(Message message) {
        try {
            byte[] body = ((BytesMessage) message).getBody(byte[].class);
            Tally.record(message.getStringProperty(Tally.RUN_PROPERTY), message.getIntProperty(Tally.SEQ_PROPERTY),
                    body == null ? 0 : body.length);
        } catch (JMSException e) {
            throw new EJBException("The benchmark message " + message + " cannot be read", e);
        }
    }
}
