package io.tributary.broker.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.codahale.metrics.Meter;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, for all topics (no {@code topic} tag) and per topic:
 * {@code MessagesInPerSec}, {@code BytesInPerSec}, {@code BytesOutPerSec}, {@code TotalProduceRequestsPerSec},
 * {@code TotalFetchRequestsPerSec}, {@code FailedProduceRequestsPerSec}, {@code FailedFetchRequestsPerSec}. As in
 * Kafka, the produce and fetch request meters count partitions of requests (a produce request to three partitions
 * counts three), and {@code BytesOutPerSec} counts the record bytes of consumer fetches, not of replication.
 *
 * <p>Each {@link Meters} updates its topic's meter and the all-topics one. A topic's meters are created at its first
 * use ({@link #topic}, a map lookup) and removed by {@link #removeTopic} when the topic is deleted or no longer led
 * here; a request in flight at that moment may create them once more, and the next removal takes them away.
 *
 * <p>Thread-safe; recording is lock-free.
 */
public final class BrokerTopicStats {

    private static final String TYPE = "BrokerTopicMetrics";
    static final String[] NAMES = {"MessagesInPerSec", "BytesInPerSec", "BytesOutPerSec",
            "TotalProduceRequestsPerSec", "TotalFetchRequestsPerSec", "FailedProduceRequestsPerSec",
            "FailedFetchRequestsPerSec"};

    private final BrokerMetrics metrics;
    private final Meters allTopics;
    private final Map<String, Meters> topics = new ConcurrentHashMap<>();

    public BrokerTopicStats(BrokerMetrics metrics) {
        this.metrics = metrics;
        this.allTopics = new Meters(metrics, null, null);
    }

    /** The meters of {@code topic} (which also count for all topics); created at the first call. */
    public Meters topic(String topic) {
        Meters meters = topics.get(topic);
        return meters != null ? meters : topics.computeIfAbsent(topic, key -> new Meters(metrics, key, allTopics));
    }

    /** The all-topics meters, for what belongs to no topic (a request that names none it can serve). */
    public Meters allTopics() {
        return allTopics;
    }

    /** Removes the per-topic beans of {@code topic}; the all-topics counts keep what it contributed. */
    public void removeTopic(String topic) {
        if (topics.remove(topic) != null) {
            for (String name : NAMES) {
                metrics.remove(BrokerMetrics.name("kafka.server", TYPE, name, "topic", topic));
            }
        }
    }

    /** The meters of one topic, or of all topics. */
    public static final class Meters {
        private final Meters parent;
        private final Meter messagesIn;
        private final Meter bytesIn;
        private final Meter bytesOut;
        private final Meter totalProduceRequests;
        private final Meter totalFetchRequests;
        private final Meter failedProduceRequests;
        private final Meter failedFetchRequests;

        private Meters(BrokerMetrics metrics, String topic, Meters parent) {
            this.parent = parent;
            String[] tags = topic == null ? new String[0] : new String[] {"topic", topic};
            this.messagesIn = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[0], tags));
            this.bytesIn = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[1], tags));
            this.bytesOut = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[2], tags));
            this.totalProduceRequests = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[3], tags));
            this.totalFetchRequests = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[4], tags));
            this.failedProduceRequests = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[5], tags));
            this.failedFetchRequests = metrics.meter(BrokerMetrics.name("kafka.server", TYPE, NAMES[6], tags));
        }

        /** A partition of a produce request reached the leader. */
        public void produceRequest() {
            totalProduceRequests.mark();
            if (parent != null) {
                parent.produceRequest();
            }
        }

        /** A partition of a produce request was appended: {@code messages} records in {@code bytes} bytes. */
        public void appended(long messages, long bytes) {
            messagesIn.mark(messages);
            bytesIn.mark(bytes);
            if (parent != null) {
                parent.appended(messages, bytes);
            }
        }

        public void produceFailed() {
            failedProduceRequests.mark();
            if (parent != null) {
                parent.produceFailed();
            }
        }

        /** A partition of a fetch request was read. */
        public void fetchRequest() {
            totalFetchRequests.mark();
            if (parent != null) {
                parent.fetchRequest();
            }
        }

        public void fetchFailed() {
            failedFetchRequests.mark();
            if (parent != null) {
                parent.fetchFailed();
            }
        }

        /** Record bytes sent to a consumer. */
        public void bytesOut(long bytes) {
            bytesOut.mark(bytes);
            if (parent != null) {
                parent.bytesOut(bytes);
            }
        }
    }
}
