package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.tributary.itests.seen.SeenTopic;
import io.tributary.itests.share.ConcurrencyGate;
import io.tributary.itests.share.ShareListener;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A queue MDB in queue mode {@code share} (the default): {@code maxSession} {@value ConcurrencyGate#MEMBERS} members of
 * the queue's share group deliver a one-partition queue {@value ConcurrencyGate#MEMBERS} messages at once, which the
 * {@link ConcurrencyGate} shows without depending on timing; every message is accepted once, and one whose first
 * delivery failed comes back with the broker's delivery count ({@code JMSXDeliveryCount} 2, {@code JMSRedelivered}).
 * What the MDB saw is forwarded to a seen topic ({@link SeenTopic}) in its delivery's transaction.
 *
 * <p>The WAR is deployed by the test, after it created the queue's topic with one partition and sent the messages.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ShareQueueIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(180);
    private static final int MESSAGES = 24;

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "share", order = 2, managed = false, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("share.war", ShareListener.class).addClass(SeenTopic.class);
    }

    @ArquillianResource
    private Deployer deployer;

    @Test
    void maxSessionEightDeliversEightMessagesOfOnePartitionAtOnceEachAcceptedOnce() {
        Clients.createTopic(ShareListener.QUEUE, 1, Map.of());
        List<String> texts = new ArrayList<>(IntStream.rangeClosed(1, MESSAGES).mapToObj(i -> "m-" + i).toList());
        String failOnce = ShareListener.FAIL_ONCE + "-1";
        texts.add(failOnce);
        Clients.sendToQueue(ShareListener.QUEUE, texts);

        deployer.deploy("share");
        List<SeenTopic.Line> seen;
        try {
            seen = Clients.texts(Clients.readTopic(ShareListener.SEEN, records -> records.size() >= texts.size(),
                    TIMEOUT)).stream().map(SeenTopic::parse).toList();
            assertEquals(texts.size(), Clients.readTopic(ShareListener.SEEN, records -> false,
                    Duration.ofSeconds(3)).size(), "nothing delivered again later");
        } finally {
            deployer.undeploy("share");
        }

        Map<String, Integer> outcomes = new TreeMap<>();
        Map<String, String> deliveries = new TreeMap<>();
        for (SeenTopic.Line line : seen) {
            outcomes.merge(line.extra().get(0), 1, Integer::sum);
            deliveries.merge(line.text(), line.redelivered() + "|" + line.deliveryCount(), (a, b) -> a + "," + b);
        }
        assertEquals(Map.of(ConcurrencyGate.OPENED, ConcurrencyGate.MEMBERS, ConcurrencyGate.NOT_FIRST,
                texts.size() - ConcurrencyGate.MEMBERS), outcomes, "eight deliveries were in onMessage at once");
        Map<String, String> expected = new TreeMap<>();
        for (String text : texts) {
            expected.put(text, text.equals(failOnce) ? "true|2" : "false|1");
        }
        assertEquals(expected, deliveries, "each message accepted once; the failed one redelivered with count 2");
    }
}
