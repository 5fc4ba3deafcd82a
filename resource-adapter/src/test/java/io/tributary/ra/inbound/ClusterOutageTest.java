package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.tributary.ra.TributaryResourceAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster away: at deployment, during delivery, at undeployment. Each test has its own ZooKeeper and broker, which
 * it starts late or stops and starts again at the same address.
 */
class ClusterOutageTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestCluster cluster;
    private TestBootstrapContext context;
    private TributaryResourceAdapter adapter;

    @BeforeEach
    void setUp(@TempDir Path dir) throws Exception {
        cluster = new TestCluster(dir, false);
        context = new TestBootstrapContext();
        adapter = new TributaryResourceAdapter();
        adapter.setBootstrapServers(cluster.bootstrapServers());
        adapter.setKafkaProperties(cluster.clientProperties());
        adapter.start(context);
    }

    @AfterEach
    void tearDown() throws Exception {
        adapter.stop();
        context.close();
        cluster.close();
    }

    /** A queue in queue mode {@code group}, whose committed offsets tell what was delivered. */
    private TributaryActivationSpec queue(String name) throws Exception {
        return queue(name, "group");
    }

    private TributaryActivationSpec queue(String name, String queueMode) throws Exception {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        spec.setDestination(name);
        spec.setQueueMode(queueMode);
        spec.setResourceAdapter(adapter);
        spec.validate();
        return spec;
    }

    private static List<String> texts(String prefix, int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add(prefix + i);
        }
        return texts;
    }

    @Test
    void activationSucceedsWhileTheBrokerIsDownAndDeliveryStartsWhenItComesUp() throws Exception {
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        TributaryActivationSpec spec = queue("late");
        adapter.endpointActivation(endpoints, spec); // the broker is not running

        cluster.startBroker();
        cluster.createTopic("late", 1);
        for (String text : texts("m", 0, 5)) {
            cluster.send("late", 0, text);
        }
        endpoints.awaitDelivered(5, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(texts("m", 0, 5), endpoints.delivered());
        assertEquals(5, endpoints.attempts().size());
        assertEquals(Map.of(0, 5L), cluster.committed("late"));
    }

    @Test
    void aShareGroupActivationStartsWhileTheBrokerIsDownAndItsMembersDeliverWhenItComesUp() throws Exception {
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        TributaryActivationSpec spec = queue("late-share", "share");
        spec.setMaxSession(3);
        adapter.endpointActivation(endpoints, spec); // the broker is not running: the members retry with back-off

        cluster.startBroker();
        cluster.createTopic("late-share", 1);
        for (String text : texts("m", 0, 5)) {
            cluster.send("late-share", 0, text);
        }
        endpoints.awaitDelivered(5, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(Set.copyOf(texts("m", 0, 5)), Set.copyOf(endpoints.delivered()));
        assertEquals(5, endpoints.attempts().size());
    }

    @Test
    void aShareGroupActivationStopsPromptlyWhileTheBrokerIsDown() throws Exception {
        cluster.startBroker();
        cluster.createTopic("away-share", 1);
        cluster.send("away-share", 0, "one");
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        TributaryActivationSpec spec = queue("away-share", "share");
        spec.setMaxSession(3);
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        cluster.stopBroker();

        long start = System.nanoTime();
        adapter.endpointDeactivation(endpoints, spec);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 12_000, "deactivation took " + millis + " ms");
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);
    }

    @Test
    void theActivationsBeanSaysBrokerUnreachableWhileTheBrokerIsDownAndActiveWhenItIsBack() throws Exception {
        assertOutageShownInTheBean("outage-group", "group");
    }

    @Test
    void aShareGroupActivationsBeanSaysBrokerUnreachableWhileTheBrokerIsDownAndActiveWhenItIsBack()
            throws Exception {
        assertOutageShownInTheBean("outage-share", "share");
    }

    private void assertOutageShownInTheBean(String topic, String queueMode) throws Exception {
        cluster.startBroker();
        cluster.createTopic(topic, 1);
        cluster.send(topic, 0, "before");
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        TributaryActivationSpec spec = queue(topic, queueMode);
        spec.setMaxSession(2);
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        javax.management.ObjectName bean = server.queryNames(
                new javax.management.ObjectName("io.tributary.ra:type=activation,*"), null).iterator().next();
        assertEquals("ACTIVE", server.getAttribute(bean, "State"));

        cluster.stopBroker();
        RecordingEndpointFactory.await("the bean to say BROKER_UNREACHABLE", WAIT,
                () -> "BROKER_UNREACHABLE".equals(attribute(server, bean, "State")));
        assertTrue(attribute(server, bean, "FailingSince") != null);

        cluster.startBroker();
        cluster.send(topic, 0, "after");
        endpoints.awaitDelivered(2, WAIT);
        RecordingEndpointFactory.await("the bean to say ACTIVE again", WAIT,
                () -> "ACTIVE".equals(attribute(server, bean, "State")));
        adapter.endpointDeactivation(endpoints, spec);
    }

    private static Object attribute(javax.management.MBeanServer server, javax.management.ObjectName bean,
                                    String name) {
        try {
            return server.getAttribute(bean, name);
        } catch (javax.management.JMException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void deliveryResumesAfterTheBrokerRestartsAndNothingIsLostOrDeliveredTwice() throws Exception {
        cluster.startBroker();
        cluster.createTopic("restart", 2);
        for (int p = 0; p < 2; p++) {
            for (String text : texts("p" + p + "-", 0, 10)) {
                cluster.send("restart", p, text);
            }
        }
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch brokerStopped = new CountDownLatch(1);
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("p0-5")) {
                inside.countDown();
                brokerStopped.await(60, TimeUnit.SECONDS); // the rest of the batch is delivered with the broker away
            }
        });
        TributaryActivationSpec spec = queue("restart");
        adapter.endpointActivation(endpoints, spec);
        assertTrue(inside.await(60, TimeUnit.SECONDS));
        cluster.stopBroker();
        brokerStopped.countDown();
        // What was fetched before the stop is delivered meanwhile, its commits failing.
        RecordingEndpointFactory.within(Duration.ofSeconds(10), () -> endpoints.delivered().size() >= 20);

        cluster.startBroker();
        for (int p = 0; p < 2; p++) {
            for (String text : texts("p" + p + "-", 10, 15)) {
                cluster.send("restart", p, text);
            }
        }
        endpoints.awaitDelivered(30, WAIT);
        RecordingEndpointFactory.await("the last commit", WAIT, () -> {
            try {
                return cluster.committed("restart").equals(Map.of(0, 15L, 1, 15L));
            } catch (Exception e) {
                return false;
            }
        });
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(Map.of(0, texts("p0-", 0, 15), 1, texts("p1-", 0, 15)), endpoints.deliveredByPartition());
        assertEquals(30, endpoints.attempts().size(), "nothing delivered twice");
    }

    @Test
    void deactivationIsPromptWhileTheBrokerIsDown() throws Exception {
        cluster.startBroker();
        cluster.createTopic("away", 1);
        cluster.send("away", 0, "one");
        RecordingEndpointFactory endpoints = new RecordingEndpointFactory(false,
                context.getTransactionSynchronizationRegistry());
        TributaryActivationSpec spec = queue("away");
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        RecordingEndpointFactory.await("the commit", WAIT, () -> {
            try {
                return cluster.committed("away").equals(Map.of(0, 1L));
            } catch (Exception e) {
                return false;
            }
        });
        cluster.stopBroker();

        long start = System.nanoTime();
        adapter.endpointDeactivation(endpoints, spec);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 12_000, "deactivation took " + millis + " ms");
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);
    }
}
