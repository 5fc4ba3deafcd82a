package io.tributary.broker.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's {@code kafka.network:type=RequestMetrics} beans, per request name as Kafka spells it ({@code Produce},
 * {@code Fetch}, {@code Metadata}, ... the codec's {@link ApiKeys#name}): the meter {@code RequestsPerSec} (with a
 * {@code version} tag) and the histograms, in milliseconds, of a request's phases:
 *
 * <ul>
 *   <li>{@code RequestQueueTimeMs}: read from the socket until a request-handler thread takes it;</li>
 *   <li>{@code LocalTimeMs}: in the handler until it returns;</li>
 *   <li>{@code RemoteTimeMs}: after that until the response is ready (an {@code acks=all} produce waiting for its
 *       followers, a long-poll fetch waiting for data);</li>
 *   <li>{@code ResponseQueueTimeMs}: ready until the connection's event loop takes it;</li>
 *   <li>{@code ResponseSendTimeMs}: taken until written to the socket (behind earlier responses of the connection);</li>
 *   <li>{@code TotalTimeMs}: read until written.</li>
 * </ul>
 *
 * and the meter {@code ErrorsPerSec} with an {@code error} tag (Kafka's error names, {@code NONE} included), marked
 * with the error counts of each response. As in Kafka, a fetch also counts under {@code FetchConsumer} or
 * {@code FetchFollower} (a replica's fetch).
 *
 * <p>Thread-safe; recording is lock-free (a map lookup on a request name, histogram and meter updates).
 */
public final class RequestMetrics {

    /** Kafka's name for the fetches of consumers. */
    public static final String FETCH_CONSUMER = "FetchConsumer";
    /** Kafka's name for the fetches of follower replicas. */
    public static final String FETCH_FOLLOWER = "FetchFollower";

    private static final String TYPE = "RequestMetrics";

    private final BrokerMetrics metrics;
    private final Map<String, ForRequest> byName = new ConcurrentHashMap<>();

    public RequestMetrics(BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    /** The metrics of an API; for Fetch, {@link #forName} also gives {@link #FETCH_CONSUMER}/{@link #FETCH_FOLLOWER}. */
    public ForRequest forApi(ApiKeys api) {
        return forName(api.name);
    }

    public ForRequest forName(String request) {
        ForRequest found = byName.get(request);
        return found != null ? found : byName.computeIfAbsent(request, key -> new ForRequest(metrics, key));
    }

    /** The metrics of one request name. */
    public static final class ForRequest {
        private final BrokerMetrics metrics;
        private final String request;
        /** {@code RequestsPerSec} by version, created at a version's first request (the highest today is 18). */
        private final AtomicReferenceArray<Meter> requestsPerVersion = new AtomicReferenceArray<>(64);
        private final Histogram requestQueueTime;
        private final Histogram localTime;
        private final Histogram remoteTime;
        private final Histogram responseQueueTime;
        private final Histogram responseSendTime;
        private final Histogram totalTime;
        /** {@code ErrorsPerSec} by error, created at an error's first response. */
        private final Map<Errors, Meter> errors = new ConcurrentHashMap<>();

        private ForRequest(BrokerMetrics metrics, String request) {
            this.metrics = metrics;
            this.request = request;
            this.requestQueueTime = histogram("RequestQueueTimeMs");
            this.localTime = histogram("LocalTimeMs");
            this.remoteTime = histogram("RemoteTimeMs");
            this.responseQueueTime = histogram("ResponseQueueTimeMs");
            this.responseSendTime = histogram("ResponseSendTimeMs");
            this.totalTime = histogram("TotalTimeMs");
        }

        private Histogram histogram(String name) {
            return metrics.histogram(BrokerMetrics.name("kafka.network", TYPE, name, "request", request));
        }

        /** A request of this name at {@code version} arrived. */
        public void arrived(short version) {
            boolean cached = version >= 0 && version < requestsPerVersion.length();
            Meter meter = cached ? requestsPerVersion.get(version) : null;
            if (meter == null) {
                meter = metrics.meter(BrokerMetrics.name("kafka.network", TYPE, "RequestsPerSec",
                        "request", request, "version", Short.toString(version)));
                if (cached) {
                    requestsPerVersion.set(version, meter);
                }
            }
            meter.mark();
        }

        /**
         * A request was answered; the arguments are {@link System#nanoTime()} readings of its phases' ends (see the
         * class comment), each at least the one before.
         */
        public void completed(long receivedNanos, long dequeuedNanos, long handledNanos, long respondedNanos,
                              long responseDequeuedNanos, long sentNanos) {
            requestQueueTime.update(millis(dequeuedNanos - receivedNanos));
            localTime.update(millis(handledNanos - dequeuedNanos));
            remoteTime.update(millis(respondedNanos - handledNanos));
            responseQueueTime.update(millis(responseDequeuedNanos - respondedNanos));
            responseSendTime.update(millis(sentNanos - responseDequeuedNanos));
            totalTime.update(millis(sentNanos - receivedNanos));
        }

        /** A response went out with these error counts ({@code AbstractResponse.errorCounts()}). */
        public void errors(Map<Errors, Integer> counts) {
            for (Map.Entry<Errors, Integer> count : counts.entrySet()) {
                Meter meter = errors.get(count.getKey());
                if (meter == null) {
                    meter = errors.computeIfAbsent(count.getKey(), error -> metrics.meter(BrokerMetrics.name(
                            "kafka.network", TYPE, "ErrorsPerSec", "request", request, "error", error.name())));
                }
                meter.mark(count.getValue());
            }
        }

        /** Rounded to the nearest millisecond, as Kafka records them. */
        private static long millis(long nanos) {
            return Math.max(0, (nanos + 500_000) / 1_000_000);
        }
    }
}
