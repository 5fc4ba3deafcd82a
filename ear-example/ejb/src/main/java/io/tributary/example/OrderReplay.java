package io.tributary.example;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.tributary.jms.StartPosition;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributarySession;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.Session;

/**
 * Reads the orders sent in a time range back from the {@value OrderPublisher#ORDERS} topic (Tributary's replay)
 * and sums them up in an {@link OrderReport}: a non-durable topic consumer that starts at the first record at or
 * after {@code from} ({@link StartPosition#at}) and reads until {@link ReplayProgress} says the range is over. A
 * non-durable consumer has no consumer group, so the replay neither reads nor moves the offsets of the MDB's queue
 * group: the MDB goes on as if nothing happened, and nothing is stored.
 *
 * <p>Why its own, unpooled connection and not the adapter's pooled factory: the pooled factory gives standard JMS
 * only. Its sessions are the adapter's handles, so the typed
 * {@code TributarySession.createConsumer(..., StartPosition)} is out of reach, and its connection definition has no
 * {@code startAt} (which would in any case be one position for every consumer, not a time per request); a standard
 * non-durable consumer starts at the end of the log. Nor does a replay need what pooling gives: it sends nothing,
 * takes part in no transaction (a non-durable consumer commits nothing), and would hold a pooled connection, which
 * the publishers share, for as long as the read takes. So each report opens a connection of Tributary's JMS
 * provider ({@code io.tributary.jms}, the classes of the RAR embedded in this EAR, which Jakarta EE makes visible to
 * the EAR's other modules, Platform specification EE.8.3.2) and closes it before returning. The connection runs its
 * own Kafka client threads while it is open, as the adapter's do.
 *
 * <p>The cluster is the server's system property {@value #BOOTSTRAP_SERVERS_PROPERTY}, the one the adapter's
 * ironjacamar.xml reads on WildFly, else the adapter's default {@value #DEFAULT_BOOTSTRAP_SERVERS}.
 *
 * <p>Bounded: a report waits at most {@link #QUIET} after the last record of the range, or {@link #FIRST_WAIT} when
 * there is none (see {@link ReplayProgress}), takes at most {@link #MAX_ORDERS} orders and at most
 * {@link #MAX_DURATION} in all; beyond those it fails with {@link ReplayFailedException}. Stateless, outside any
 * transaction: any thread.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class OrderReplay {

    static final String BOOTSTRAP_SERVERS_PROPERTY = "tributary.bootstrap.servers";
    static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";
    /**
     * The replay is over when no record of a partition still in the range came for this long. The broker answers a
     * fetch in milliseconds and the consumer fetches every partition in each request, so two seconds of silence
     * means there is nothing left rather than a slow fetch; it is also how long a report that reaches the end of
     * the log waits there.
     */
    static final Duration QUIET = Duration.ofSeconds(2);
    /** Before the first record: also how long a report of a range past the end of the log takes. */
    static final Duration FIRST_WAIT = Duration.ofSeconds(5);
    /** A report is a synchronous HTTP answer: past this, narrow the range. */
    static final Duration MAX_DURATION = Duration.ofSeconds(30);
    /** The orders one report holds in memory and returns. */
    static final int MAX_ORDERS = 10_000;

    /**
     * The orders whose record timestamp is in [{@code from}, {@code to}], in the order read.
     *
     * @throws IllegalArgumentException if {@code from} is after {@code to}
     * @throws ReplayFailedException if the range could not be read whole: the cluster is unreachable, or the range
     *         is too large for one report
     */
    public OrderReport report(Instant from, Instant to) throws ReplayFailedException {
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("the range starts (" + from + ") after it ends (" + to + ")");
        }
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers());
        try (Connection connection = factory.createConnection()) {
            TributarySession session = (TributarySession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createTopic(OrderPublisher.ORDERS), null,
                    StartPosition.at(from));
            connection.start();
            // The waits count from here: creating the consumer (metadata, the seek by time) may itself take a while.
            ReplayProgress progress = new ReplayProgress(from, to, QUIET, FIRST_WAIT, System.nanoTime());
            return read(consumer, progress, from, to);
        } catch (JMSException e) {
            throw new ReplayFailedException("Reading topic " + OrderPublisher.ORDERS + " from " + from + " failed: "
                    + e.getMessage(), e);
        }
    }

    private static OrderReport read(MessageConsumer consumer, ReplayProgress progress, Instant from, Instant to)
            throws JMSException, ReplayFailedException {
        List<OrderReport.Line> lines = new ArrayList<>();
        int unreadable = 0;
        long deadline = System.nanoTime() + MAX_DURATION.toNanos();
        while (true) {
            long now = System.nanoTime();
            long wait = progress.waitNanos(now);
            if (wait == 0) {
                return OrderReport.of(from, to, lines, unreadable);
            }
            if (now - deadline >= 0) {
                throw new ReplayFailedException("Reading the orders from " + from + " took longer than "
                        + MAX_DURATION.toSeconds() + " s (" + lines.size() + " read so far): ask for a shorter range");
            }
            // receive(0) would wait for ever: wait at least a millisecond.
            long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(wait, deadline - now)));
            Message message = consumer.receive(waitMillis);
            if (message == null) {
                continue;
            }
            int partition = message.getIntProperty(OrderListener.PARTITION);
            long timestamp = message.getLongProperty(OrderListener.TIMESTAMP);
            if (progress.offer(partition, timestamp, System.nanoTime()) != ReplayProgress.Verdict.IN_RANGE) {
                continue;
            }
            OrderLine order;
            try {
                order = OrderLine.fromMessage(message);
            } catch (MessageFormatException e) {
                // Not an order (another producer's record, or one the MDB dead-lettered): counted, not reported.
                unreadable++;
                continue;
            }
            lines.add(new OrderReport.Line(partition, message.getLongProperty(OrderListener.OFFSET),
                    Instant.ofEpochMilli(timestamp), order.customer(), order.item(), order.quantity()));
            if (lines.size() > MAX_ORDERS) {
                throw new ReplayFailedException("More than " + MAX_ORDERS + " orders were sent from " + from
                        + ": ask for a shorter range");
            }
        }
    }

    private static String bootstrapServers() {
        String servers = System.getProperty(BOOTSTRAP_SERVERS_PROPERTY);
        return servers == null || servers.isBlank() ? DEFAULT_BOOTSTRAP_SERVERS : servers;
    }
}
