package io.tributary.ra.outbound;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import javax.transaction.xa.XAResource;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.resource.spi.ManagedConnection;

import io.tributary.jms.TributaryQueue;
import io.tributary.jms.kafka.XaLogRecord.XaXid;

/**
 * The "application server" of {@link XaResourceTest}'s crash test, in a JVM of its own: receives one message from
 * the input queue and sends a reply in XA branch {@code gtrid}, prepares it, prints {@code PREPARED} and waits to be
 * SIGKILLed, as a server that dies between the transaction manager's prepare and commit.
 *
 * <p>Arguments: bootstrap servers, input queue, output queue, the Xid's global transaction id.
 */
public final class XaPrepareMain {

    private XaPrepareMain() {
    }

    public static void main(String[] args) throws Exception {
        TributaryManagedConnectionFactory factory = new TributaryManagedConnectionFactory();
        factory.setBootstrapServers(args[0]);
        factory.setKafkaProperties(OutboundCluster.FAST_CONSUMERS);
        ManagedConnection managed = factory.createManagedConnection(null, null);
        XaXid xid = new XaXid(4242, args[3].getBytes(StandardCharsets.UTF_8), new byte[] {7});
        XAResource xa = managed.getXAResource();
        xa.start(xid, XAResource.TMNOFLAGS);
        Connection connection = (Connection) managed.getConnection(null, null);
        connection.start();
        Session session = connection.createSession();
        Message received = session.createConsumer(TributaryQueue.of(args[1])).receive(30_000);
        if (received == null) {
            System.out.println("NOTHING RECEIVED");
            System.exit(2);
        }
        session.createProducer(TributaryQueue.of(args[2]))
                .send(session.createTextMessage("reply to " + ((TextMessage) received).getText()));
        xa.end(xid, XAResource.TMSUCCESS);
        System.out.println("VOTE " + xa.prepare(xid));
        System.out.println("PREPARED");
        new CountDownLatch(1).await(); // until the test kills this JVM
    }
}
