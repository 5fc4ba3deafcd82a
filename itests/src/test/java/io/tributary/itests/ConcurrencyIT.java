package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.tributary.itests.concurrent.ConcurrentListener;
import io.tributary.itests.concurrent.StartGate;
import io.tributary.itests.seen.SeenTopic;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Concurrent delivery: a queue topic with {@value StartGate#PARTITIONS} partitions, consumed by an MDB
 * ({@link ConcurrentListener}) with {@code maxSession} as many. Parallelism is shown by the {@link StartGate}, where
 * the first delivery of every partition waits until all of them are in progress at once; order is checked per
 * partition from each delivery's {@code JMS_Tributary_Partition} and {@code JMS_Tributary_Offset}, as forwarded to a
 * seen topic ({@link SeenTopic}).
 *
 * <p>The WAR is deployed by the test, after it created the topic: an MDB deployed first would have the broker create
 * the topic, with one partition, when it subscribes.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ConcurrencyIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(180);
    private static final int PER_PARTITION = 20;

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "concurrent", order = 2, managed = false, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("concurrent.war", ConcurrentListener.class)
                .addClass(SeenTopic.class);
    }

    @ArquillianResource
    private Deployer deployer;

    @Test
    void partitionsAreDeliveredInParallelAndEachInOrder() {
        Clients.createTopic(ConcurrentListener.QUEUE, StartGate.PARTITIONS, Map.of());
        Map<Integer, List<String>> expected = new TreeMap<>();
        for (int p = 0; p < StartGate.PARTITIONS; p++) {
            int partition = p;
            List<String> texts = IntStream.rangeClosed(1, PER_PARTITION).mapToObj(i -> "p" + partition + "-" + i)
                    .toList();
            Clients.produce(ConcurrentListener.QUEUE, p, System.currentTimeMillis(), texts);
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < texts.size(); i++) {
                // Each first delivery waited for all partitions; none was delivered twice.
                lines.add(texts.get(i) + "|" + p + "|" + i + "|false|1|"
                        + (i == 0 ? StartGate.OPENED : StartGate.NOT_FIRST));
            }
            expected.put(p, lines);
        }
        int total = StartGate.PARTITIONS * PER_PARTITION;

        deployer.deploy("concurrent");
        try {
            List<String> seen = Clients.texts(Clients.readTopic(ConcurrentListener.SEEN,
                    records -> records.size() >= total, TIMEOUT));
            assertEquals(expected, byPartition(seen));
            assertEquals(total, Clients.readTopic(ConcurrentListener.SEEN, records -> false, Duration.ofSeconds(2))
                    .size(), "nothing delivered again later");
        } finally {
            deployer.undeploy("concurrent");
        }
    }

    /** The seen lines of each source partition, in the order they were forwarded. */
    private static Map<Integer, List<String>> byPartition(List<String> seen) {
        Map<Integer, List<String>> lines = new TreeMap<>();
        for (String line : seen) {
            lines.computeIfAbsent(SeenTopic.parse(line).partition(), p -> new ArrayList<>()).add(line);
        }
        return lines;
    }
}
