package io.tributary.itests.xacrash;

import java.nio.file.Path;

import io.tributary.itests.Deployments;
import io.tributary.itests.seen.SeenTopic;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.jboss.ejb3.annotation.ResourceAdapter;

/**
 * An XA MDB (container-managed, REQUIRED: the adapter's delivery is transacted) that handles a request in one
 * transaction of three resources: the consumed offset (the adapter's delivery branch), a row written with JPA to an
 * XA datasource, and a reply sent through the adapter's pooled factory ({@link SeenTopic#forward}, to
 * {@value #REPLIES}).
 *
 * <p>A request's text is {@code id|phase|marker}: with phase {@code COMMIT} a {@link CrashPoint} enlisted before the
 * row and the reply stops the commit after the delivery's branch committed and before theirs; with {@code PREPARE}
 * one enlisted after them stops it after the three prepared, before the decision. Once per marker file.
 *
 * <p>Queue mode {@code group}: exactly-once XA delivery, the consumed offset a branch of the transaction; a share
 * group's acknowledgement cannot join it.
 */
@MessageDriven(activationConfig = {
        // Payara: the adapter module this MDB is bound to (WildFly reads @ResourceAdapter below instead).
        @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = Deployments.RAR_MODULE),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = ReplyingListener.REQUESTS),
        @ActivationConfigProperty(propertyName = "queueMode", propertyValue = "group")
})
@ResourceAdapter(Deployments.RAR)
public class ReplyingListener implements MessageListener {

    public static final String REQUESTS = "itests.xa.requests";
    public static final String REPLIES = "itests.xa.replies";
    static final String PERSISTENCE_UNIT = "xacrash";

    @PersistenceContext(unitName = PERSISTENCE_UNIT)
    private EntityManager entities;

    @Override
    public void onMessage(Message message) {
        String[] request;
        try {
            request = ((TextMessage) message).getText().split("\\|", 3);
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read the request", e);
        }
        CrashPoint.Phase phase = CrashPoint.Phase.valueOf(request[1]);
        Path marker = Path.of(request[2]);
        if (phase == CrashPoint.Phase.COMMIT) {
            CrashPoint.enlist(phase, marker);
        }
        entities.persist(new HandledRequest(request[0]));
        entities.flush(); // the datasource's branch joins now, before the reply's
        SeenTopic.forward(REPLIES, message);
        if (phase == CrashPoint.Phase.PREPARE) {
            CrashPoint.enlist(phase, marker);
        }
    }
}
