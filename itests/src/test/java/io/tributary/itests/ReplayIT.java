package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.tributary.itests.replay.EarliestReplayListener;
import io.tributary.itests.replay.TimestampReplayListener;
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
 * Replay by activation configuration: records produced before the MDBs exist, with explicit record timestamps from
 * the Kafka producer (2020-01-01 and 2021-01-01, which the broker's default {@code message.timestamp.before.max.ms},
 * unlimited, accepts), then a WAR deployed whose non-durable topic MDBs start at {@code startAt=earliest} and at
 * {@code startAt=2020-06-01T00:00:00Z}. A non-durable subscription otherwise starts at the end of the log, so without
 * the replay neither would receive anything. What the MDBs received comes back through seen topics
 * ({@link SeenTopic}).
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ReplayIT {

    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(60);
    private static final long BATCH_A_TIME = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
    private static final long BATCH_B_TIME = Instant.parse("2021-01-01T00:00:00Z").toEpochMilli();
    /**
     * Retention is by record timestamp: with the default 7 days, a retention check could delete these old records
     * during the test. Kept for ever instead.
     */
    private static final Map<String, String> KEEP_FOREVER = Map.of("retention.ms", "-1");

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    /** Deployed by the test, once the records are there. */
    @Deployment(name = "replay", order = 2, managed = false, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("replay.war", EarliestReplayListener.class)
                .addClass(SeenTopic.class);
    }

    @ArquillianResource
    private Deployer deployer;

    @Test
    void earliestAndTimestampReplaysDeliverExactlyTheRecordsFromTheirStartingPoint() {
        List<String> batchA = texts("a", 5);
        List<String> batchB = texts("b", 5);
        for (String topic : List.of(EarliestReplayListener.TOPIC, TimestampReplayListener.TOPIC)) {
            Clients.createTopic(topic, 1, KEEP_FOREVER);
            Clients.produce(topic, 0, BATCH_A_TIME, batchA);
            Clients.produce(topic, 0, BATCH_B_TIME, batchB);
        }

        deployer.deploy("replay");
        try {
            List<String> all = new ArrayList<>(batchA);
            all.addAll(batchB);
            // Offsets 0-4 hold batch A, 5-9 batch B: the timestamp replay starts at offset 5.
            List<String> fromEarliest = expectedLines(all, 0);
            List<String> fromTimestamp = expectedLines(batchB, batchA.size());

            List<String> earliest = seen(EarliestReplayListener.SEEN, fromEarliest.size());
            List<String> timestamp = seen(TimestampReplayListener.SEEN, fromTimestamp.size());
            assertAll(
                    () -> assertEquals(fromEarliest, earliest, "startAt=earliest"),
                    () -> assertEquals(fromTimestamp, timestamp,
                            "startAt=" + TimestampReplayListener.START_AT));
            // Nothing else follows (a second pass over the log, or batch A late).
            assertAll(
                    () -> assertEquals(fromEarliest, seen(EarliestReplayListener.SEEN, Integer.MAX_VALUE,
                            Duration.ofSeconds(2)), "startAt=earliest, later"),
                    () -> assertEquals(fromTimestamp, seen(TimestampReplayListener.SEEN, Integer.MAX_VALUE,
                            Duration.ofSeconds(2)), "startAt=" + TimestampReplayListener.START_AT + ", later"));
        } finally {
            deployer.undeploy("replay");
        }
    }

    private static List<String> texts(String prefix, int count) {
        return IntStream.rangeClosed(1, count).mapToObj(i -> prefix + "-" + i).toList();
    }

    /** The seen lines of first deliveries of {@code texts} from partition 0, starting at {@code firstOffset}. */
    private static List<String> expectedLines(List<String> texts, long firstOffset) {
        return IntStream.range(0, texts.size())
                .mapToObj(i -> texts.get(i) + "|0|" + (firstOffset + i) + "|false|1").toList();
    }

    private static List<String> seen(String topic, int atLeast) {
        return seen(topic, atLeast, DELIVERY_TIMEOUT);
    }

    private static List<String> seen(String topic, int atLeast, Duration timeout) {
        return Clients.texts(Clients.readTopic(topic, records -> records.size() >= atLeast, timeout));
    }
}
