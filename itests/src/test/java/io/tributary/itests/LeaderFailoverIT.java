package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.tributary.itests.cluster.TributaryCluster;
import io.tributary.itests.failover.FailoverListener;
import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.testsupport.ProcessCluster;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Queue;
import org.apache.kafka.common.TopicPartition;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The JMS provider and the resource adapter across the SIGKILL of a partition's leader, in a three-broker cluster
 * ({@link TributaryCluster}: brokers as processes, replication factor 3, {@code min.insync.replicas=2}): a JMS
 * producer in the test JVM whose bootstrap list names the three brokers sends to a queue all along, one synchronous
 * send at a time, and an MDB ({@link FailoverListener}) bound to the same three brokers receives. The test kills the
 * queue partition's leader mid-stream, lets both sides carry on with two brokers, starts the killed broker again, and
 * checks what the MDB received against what the producer was told.
 *
 * <p>The killed broker is also the MDB's group coordinator: the test puts the queue's only partition on the broker
 * that leads the group's partition of the offsets topic, so the kill takes away the consumer's fetch leader and its
 * offset commits at once.
 *
 * <p>The guarantee checked is exactly once, not merely at least once: the adapter is at-least-once only across a
 * crash of the server (docs/deploy-wildfly.md, limits: a crash between a delivery and its offset commit). Here the
 * server stays up, and the adapter remembers how far it delivered on a partition whose offset commit failed, or that
 * a rebalance took away without a commit, and resumes there, not at the older committed offset (RecordFetcher). A
 * send that threw may or may not be in the log (its acknowledgement was lost, or it never got there); it may be
 * received, but not twice.
 *
 * <p>The deployment is deployed by the test, after the queue's topic exists with its chosen leader (an MDB deployed
 * first would have the cluster create the topic with a leader of its choosing); its address is therefore the server's
 * HTTP port ({@code tributary.itests.http.port}), not an injected URL.
 */
@ExtendWith({TributaryCluster.class, ArquillianExtension.class})
class LeaderFailoverIT {

    private static final String APP = "failover";
    private static final TopicPartition QUEUE = new TopicPartition(FailoverListener.QUEUE, 0);
    /** The queue's consumer group: a queue's group is named after its topic (io.tributary.jms.kafka.Subscription). */
    private static final String GROUP = FailoverListener.QUEUE;
    /** Bounds each wait; covers the adapter's reconnection back-off (at most 30 s) on a loaded 2-core machine. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** Acknowledged sends in each phase (before the kill, with two brokers, after the restart), at least. */
    private static final int PER_PHASE = 100;
    /** Messages sent after the kill that the MDB must have received while the killed broker is still down. */
    private static final int RECEIVED_WHILE_DOWN = 50;

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = APP, order = 2, managed = false, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter(APP + ".war", FailoverListener.class)
                .addAsWebInfResource(new StringAsset(bootstrapServersDescriptor()), "ejb-jar.xml");
    }

    /** Gives the MDB the three brokers' addresses, which the build chose, as its {@code bootstrapServers}. */
    private static String bootstrapServersDescriptor() {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <ejb-jar xmlns="https://jakarta.ee/xml/ns/jakartaee" version="4.0">
                  <enterprise-beans>
                    <message-driven>
                      <ejb-name>%s</ejb-name>
                      <activation-config>
                        <activation-config-property>
                          <activation-config-property-name>bootstrapServers</activation-config-property-name>
                          <activation-config-property-value>%s</activation-config-property-value>
                        </activation-config-property>
                      </activation-config>
                    </message-driven>
                  </enterprise-beans>
                </ejb-jar>
                """.formatted(FailoverListener.class.getSimpleName(), TributaryCluster.bootstrapServers());
    }

    @ArquillianResource
    private Deployer deployer;

    private final URL app = url("http://127.0.0.1:" + TributaryBroker.requiredProperty("tributary.itests.http.port")
            + "/" + APP + "/");

    @Test
    void producerAndMdbCarryOnAcrossALeaderKillAndEveryAcknowledgedMessageIsReceivedOnce() throws Exception {
        ProcessCluster cluster = TributaryCluster.cluster();
        int victim = TributaryCluster.coordinatorOf(GROUP);
        List<Integer> replicas = new ArrayList<>(List.of(victim));
        TributaryCluster.brokerIds().stream().filter(id -> id != victim).forEach(replicas::add);
        cluster.createTopic(QUEUE.topic(), Map.of(QUEUE.partition(), replicas), Map.of("min.insync.replicas", "2"));

        deployer.deploy(APP);
        Sender sender = new Sender(TributaryCluster.bootstrapServers(), QUEUE.topic());
        try {
            sender.start();
            // Both sides work before the kill, and the partition's leader is the group's coordinator.
            sender.awaitAcknowledged(1, PER_PHASE);
            List<String> early = sender.acknowledged(1);
            Set<String> seen = Clients.await(this::receivedTexts, texts -> texts.containsAll(early), TIMEOUT);
            assertTrue(seen.containsAll(early), "before the kill, the MDB received " + seen.size() + " of the "
                    + early.size() + " acknowledged messages");
            assertEquals(victim, cluster.leaderOf(QUEUE), "the queue's leader");
            assertEquals(victim, cluster.coordinatorOf(GROUP), "the MDB's group coordinator");

            long killedAt = System.nanoTime();
            cluster.kill(victim);
            // Every send begun from here on was written by another leader.
            int firstAfterKill = sender.begun() + 1;
            int newLeader = Clients.await(() -> cluster.leaderOf(QUEUE), id -> id > 0 && id != victim, TIMEOUT);
            long electedAt = System.nanoTime();
            assertNotEquals(victim, newLeader, "a leader other than the killed broker " + victim);
            assertTrue(newLeader > 0, "a leader after the kill of broker " + victim);
            sender.awaitAcknowledged(firstAfterKill, PER_PHASE);
            List<String> whileDown = sender.acknowledged(firstAfterKill).subList(0, RECEIVED_WHILE_DOWN);
            Set<String> seenWhileDown = Clients.await(this::receivedTexts, texts -> texts.containsAll(whileDown),
                    TIMEOUT);
            long receivedAt = System.nanoTime();
            assertTrue(seenWhileDown.containsAll(whileDown), "with broker " + victim + " down, the MDB did not"
                    + " receive the first " + RECEIVED_WHILE_DOWN + " messages acknowledged after the kill; it has "
                    + seenWhileDown.size() + " in all");

            TributaryCluster.start(victim);
            int firstAfterRestart = sender.begun() + 1;
            Set<Integer> all = TributaryCluster.brokerIds();
            assertEquals(all, ProcessCluster.ids(cluster.awaitIsr(QUEUE, all, TIMEOUT).isr()),
                    "the restarted broker " + victim + " back in the ISR of " + QUEUE);
            sender.awaitAcknowledged(firstAfterRestart, PER_PHASE);
            sender.stop();

            List<String> acknowledged = sender.acknowledged(1);
            List<String> expected = acknowledged.stream().map(text -> text + "|false|1").toList();
            List<String> received = Clients.await(this::received, lines -> firstDeliveries(lines, acknowledged)
                    .size() >= expected.size(), TIMEOUT);
            List<String> settled = Clients.await(this::received, lines -> false, Duration.ofSeconds(2));
            System.out.printf("LeaderFailoverIT: killed broker %d (leader and coordinator); broker %d led after"
                            + " %d ms; the first %d messages sent after the kill were received %d ms after it;"
                            + " %d sends acknowledged, %d failed %s; %d deliveries%n", victim, newLeader,
                    TimeUnit.NANOSECONDS.toMillis(electedAt - killedAt), RECEIVED_WHILE_DOWN,
                    TimeUnit.NANOSECONDS.toMillis(receivedAt - killedAt), acknowledged.size(),
                    sender.failures().size(), sender.failures(), settled.size());

            assertEquals(List.of(), repeated(settled), "messages received more than once");
            List<String> unexpected = new ArrayList<>(texts(settled));
            unexpected.removeAll(acknowledged);
            unexpected.removeAll(sender.failures().keySet());
            assertEquals(List.of(), unexpected, "received, but never sent");
            assertEquals(expected, firstDeliveries(received, acknowledged),
                    "every acknowledged message received, in the order sent, as a first delivery");
            assertEquals(received.size(), settled.size(), "nothing received later: " + settled);
            long end = TributaryCluster.endOffset(QUEUE);
            assertEquals(end, Clients.await(() -> TributaryCluster.committedOffset(GROUP, QUEUE), offset -> offset
                    == end, TIMEOUT), "the MDB's group committed up to the end of " + QUEUE);
        } finally {
            sender.halt();
            deployer.undeploy(APP);
        }
    }

    private List<String> received() {
        return Clients.lines(Clients.get(app, "received"));
    }

    private Set<String> receivedTexts() {
        return new LinkedHashSet<>(texts(received()));
    }

    /** The texts of {@code text|offset|redelivered|count} lines, in order. */
    private static List<String> texts(List<String> lines) {
        return lines.stream().map(line -> line.substring(0, line.indexOf('|'))).toList();
    }

    /**
     * The lines of the acknowledged messages, as {@code text|redelivered|count} (without the offset, which the test
     * cannot predict), in delivery order: the lines of sends that failed are left out, whether they came or not.
     */
    private static List<String> firstDeliveries(List<String> lines, List<String> acknowledged) {
        Set<String> wanted = Set.copyOf(acknowledged);
        List<String> result = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.split("\\|");
            if (wanted.contains(fields[0])) {
                result.add(fields[0] + "|" + fields[2] + "|" + fields[3]);
            }
        }
        return result;
    }

    /** The lines whose text came before, with the line it repeats: for a message delivered twice. */
    private static List<String> repeated(List<String> lines) {
        Map<String, String> first = new HashMap<>();
        List<String> repeats = new ArrayList<>();
        for (String line : lines) {
            String text = line.substring(0, line.indexOf('|'));
            String earlier = first.putIfAbsent(text, line);
            if (earlier != null) {
                repeats.add(line + " (first: " + earlier + ")");
            }
        }
        return repeats;
    }

    private static URL url(String address) {
        try {
            return URI.create(address).toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(address, e);
        }
    }

    /**
     * Sends {@code m-1}, {@code m-2}, ... as TextMessages to a queue from its own thread with Tributary's JMS provider
     * (one JMSContext, synchronous sends: each returns once the cluster acknowledged it with acks=all), about 50 a
     * second, until stopped. Records each send's outcome: acknowledged, or the exception it threw (then it carries on
     * with the next, as an application that logs a failed send would).
     *
     * <p>Its thread sends; the test thread starts, waits, reads and stops.
     */
    private static final class Sender {

        private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

        private final String bootstrapServers;
        private final String queue;
        /** Sequence numbers handed to send(): message {@code m-n} is the n-th. */
        private final AtomicInteger begun = new AtomicInteger();
        /** The sequence numbers acknowledged, in order. */
        private final List<Integer> acknowledged = new CopyOnWriteArrayList<>();
        /** The failed sends' texts and exceptions, in order. */
        private final Map<String, String> failures = new ConcurrentSkipListMap<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        /** A failure outside a send (the context could not be created): the test fails on it. */
        private final AtomicReference<Throwable> broken = new AtomicReference<>();
        private Thread thread;

        Sender(String bootstrapServers, String queue) {
            this.bootstrapServers = bootstrapServers;
            this.queue = queue;
        }

        void start() {
            thread = new Thread(this::run, "leader-failover-it-sender");
            thread.start();
        }

        private void run() {
            TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers);
            try (JMSContext context = factory.createContext()) {
                JMSProducer producer = context.createProducer();
                Queue destination = context.createQueue(queue);
                while (!stopping.get()) {
                    int sequence = begun.incrementAndGet();
                    try {
                        producer.send(destination, "m-" + sequence);
                        acknowledged.add(sequence);
                    } catch (JMSRuntimeException e) {
                        failures.put("m-" + sequence, e.toString());
                    }
                    LockSupport.parkNanos(PAUSE_NANOS);
                }
            } catch (Throwable t) {
                broken.set(t);
            }
        }

        /** The sequence number of the latest send begun (0 before the first). */
        int begun() {
            return begun.get();
        }

        /** Waits until {@code count} sends numbered {@code from} or above have been acknowledged. */
        void awaitAcknowledged(int from, int count) {
            int done = Clients.await(() -> acknowledged(from).size(), n -> n >= count || broken.get() != null,
                    TIMEOUT);
            check();
            assertTrue(done >= count, "only " + done + " of " + count + " sends from m-" + from
                    + " acknowledged within " + TIMEOUT + "; failures: " + failures);
        }

        /** The acknowledged texts numbered {@code from} or above, in the order sent. */
        List<String> acknowledged(int from) {
            return acknowledged.stream().filter(sequence -> sequence >= from).map(sequence -> "m-" + sequence)
                    .toList();
        }

        /** The failed sends so far: text to exception. */
        Map<String, String> failures() {
            return new TreeMap<>(failures);
        }

        /** Stops sending and waits for the send in progress; fails if the sender broke down. */
        void stop() {
            halt();
            check();
        }

        /** Stops sending; idempotent. */
        void halt() {
            stopping.set(true);
            if (thread != null) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(90));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void check() {
            Throwable t = broken.get();
            if (t != null) {
                throw new AssertionError("the sender broke down after " + begun() + " sends", t);
            }
        }
    }
}
