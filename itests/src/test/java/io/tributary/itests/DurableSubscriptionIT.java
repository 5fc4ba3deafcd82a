package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.tributary.itests.durable.DurableListener;
import io.tributary.itests.seen.SeenTopic;
import io.tributary.jms.TributaryConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.Topic;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A durable subscription across its MDB's undeployment: a producer publishes to the topic all along, the test
 * undeploys the WAR with the MDB ({@link DurableListener}) while it does, waits until more has been published, and
 * deploys it again; the MDB then receives every message it missed, none twice. What it received comes back through
 * a seen topic ({@link SeenTopic}), which outlives the deployment.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class DurableSubscriptionIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    /** Published while deployed, while undeployed, and after the redeployment, at least. */
    private static final int PER_PHASE = 20;

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "durable", order = 2, managed = false, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("durable.war", DurableListener.class).addClass(SeenTopic.class);
    }

    @ArquillianResource
    private Deployer deployer;

    @Test
    void undeployedMdbReceivesEveryMessageItMissedOnceRedeployed() throws Exception {
        Clients.createTopic(DurableListener.TOPIC, 1, Map.of());
        deployer.deploy("durable");
        boolean deployed = true;
        Publisher publisher = new Publisher(DurableListener.TOPIC);
        try {
            // A new durable subscription starts at the end of the log, at the moment its group commits that
            // position: what is published before would never reach it.
            Map<Integer, Long> pinned = Clients.await(() -> Clients.committedOffsets(DurableListener.GROUP),
                    offsets -> !offsets.isEmpty(), TIMEOUT);
            assertEquals(Map.of(0, 0L), pinned, "the subscription starts at the (empty) topic's end");

            publisher.start();
            // Delivered while deployed...
            awaitSeen(PER_PHASE);
            deployer.undeploy("durable");
            deployed = false;
            // ...published while undeployed: the undeployment has returned, so the activation has ended...
            int atUndeploy = publisher.sent().size();
            Clients.await(() -> publisher.sent().size(), sent -> sent >= atUndeploy + PER_PHASE, TIMEOUT);
            int seenWhileUndeployed = seen(Integer.MAX_VALUE, Duration.ofSeconds(1)).size();
            deployer.deploy("durable");
            deployed = true;
            // ...and published after the redeployment.
            int atRedeploy = publisher.sent().size();
            Clients.await(() -> publisher.sent().size(), sent -> sent >= atRedeploy + PER_PHASE, TIMEOUT);
            List<String> sent = publisher.stop();

            assertTrue(seenWhileUndeployed <= atUndeploy, "seen " + seenWhileUndeployed + " of " + atUndeploy
                    + " published before the undeployment: nothing published after it can have been received");
            List<String> expected = IntStream.range(0, sent.size())
                    .mapToObj(i -> sent.get(i) + "|0|" + i + "|false|1").toList();
            assertEquals(expected, seen(expected.size(), TIMEOUT), "each message once, in order, not redelivered");
            assertEquals(expected, seen(Integer.MAX_VALUE, Duration.ofSeconds(2)), "nothing delivered again later");
        } finally {
            publisher.halt();
            if (deployed) {
                deployer.undeploy("durable");
            }
        }
    }

    private static List<String> awaitSeen(int count) {
        List<String> seen = seen(count, TIMEOUT);
        assertFalse(seen.size() < count, "only " + seen.size() + " messages reached the MDB: " + seen);
        return seen;
    }

    private static List<String> seen(int atLeast, Duration timeout) {
        return Clients.texts(Clients.readTopic(DurableListener.SEEN, records -> records.size() >= atLeast, timeout));
    }

    /**
     * Publishes {@code m-1}, {@code m-2}, ... to a topic from its own thread with Tributary's JMS provider, about
     * 50 a second (a steady flow the MDB keeps up with, not a flood), until stopped. {@link #sent()} lists what the
     * broker acknowledged, in order.
     */
    private static final class Publisher {

        private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

        private final String topic;
        private final List<String> sent = new CopyOnWriteArrayList<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private Thread thread;

        Publisher(String topic) {
            this.topic = topic;
        }

        void start() {
            thread = new Thread(this::run, "durable-it-publisher");
            thread.start();
        }

        private void run() {
            TributaryConnectionFactory factory = new TributaryConnectionFactory(TributaryBroker.bootstrapServers());
            try (JMSContext context = factory.createContext()) {
                JMSProducer producer = context.createProducer();
                Topic destination = context.createTopic(topic);
                while (!stopping.get()) {
                    String text = "m-" + (sent.size() + 1);
                    producer.send(destination, text);
                    sent.add(text);
                    LockSupport.parkNanos(PAUSE_NANOS);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        List<String> sent() {
            Throwable t = failure.get();
            if (t != null) {
                throw new AssertionError("publishing failed after " + sent.size() + " messages", t);
            }
            return List.copyOf(sent);
        }

        /** Stops publishing, checks that it did not fail, and returns what was published. */
        List<String> stop() throws InterruptedException {
            halt();
            assertNull(failure.get(), "publishing failed");
            return List.copyOf(sent);
        }

        /** Stops publishing; idempotent. */
        void halt() throws InterruptedException {
            stopping.set(true);
            if (thread != null) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }
}
