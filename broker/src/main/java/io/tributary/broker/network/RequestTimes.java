package io.tributary.broker.network;

import io.tributary.broker.metrics.RequestMetrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When one request passed each phase of its way through the server, as {@link System#nanoTime()} readings, for
 * Kafka's {@code RequestMetrics} histograms (see {@link RequestMetrics}): read, taken by a handler thread, handled,
 * responded, taken by the event loop, written.
 *
 * <p>Threads: each reading is written once, by the thread of its phase (event loop, handler thread, the thread that
 * completes the response, event loop again); each handover (a task queued to an executor, a future completed) orders
 * it before the next phase's reads.
 *
 * <p>With DEBUG on the logger {@code kafka.request.logger} (Kafka's name), each request is logged once written, with
 * its header, principal, connection and phase times.
 */
final class RequestTimes {

    /**
     * Kafka's request logger: at DEBUG, one line per request when its response is written (or none is sent). Whether
     * it is on is asked once per request, when it is read; off, a request costs that one check.
     */
    private static final Logger REQUEST_LOG = LoggerFactory.getLogger("kafka.request.logger");

    private final RequestMetrics.ForRequest api;
    /** For a fetch, FetchConsumer or FetchFollower; else null. */
    private final RequestMetrics.ForRequest fetchKind;
    private final long receivedNanos;
    /** The request's context when the request logger was on as it was read; else null. */
    private final RequestContext logged;
    private long dequeuedNanos;
    private long handledNanos;
    private long respondedNanos;
    private long responseDequeuedNanos;

    private RequestTimes(RequestMetrics.ForRequest api, RequestMetrics.ForRequest fetchKind, long receivedNanos,
                         RequestContext logged) {
        this.api = api;
        this.logged = logged;
        this.fetchKind = fetchKind;
        this.receivedNanos = receivedNanos;
    }

    /** A request has been read: counts it in {@code RequestsPerSec} and starts its clock. Event loop. */
    static RequestTimes received(RequestMetrics metrics, Request request) {
        ApiKeys key = request.context().header().apiKey();
        short version = request.context().header().apiVersion();
        RequestMetrics.ForRequest api = metrics.forApi(key);
        api.arrived(version);
        RequestMetrics.ForRequest fetchKind = null;
        if (key == ApiKeys.FETCH && request.body() instanceof FetchRequest fetch) {
            fetchKind = metrics.forName(fetch.replicaId() >= 0 ? RequestMetrics.FETCH_FOLLOWER
                    : RequestMetrics.FETCH_CONSUMER);
            fetchKind.arrived(version);
        }
        return new RequestTimes(api, fetchKind, System.nanoTime(),
                REQUEST_LOG.isDebugEnabled() ? request.context() : null);
    }

    /** A handler thread (or the event loop, for requests handled there) takes the request. */
    void dequeued() {
        dequeuedNanos = System.nanoTime();
    }

    /** The handler returned. */
    void handled() {
        handledNanos = System.nanoTime();
    }

    /** The response is ready (or there is none). */
    void responded() {
        respondedNanos = System.nanoTime();
    }

    /** The response's errors, for {@code ErrorsPerSec} (not of Fetch's FetchConsumer/FetchFollower, as in Kafka). */
    void errors(AbstractResponse response) {
        api.errors(response.errorCounts());
    }

    /** The event loop took the response. */
    void responseDequeued() {
        responseDequeuedNanos = System.nanoTime();
    }

    /**
     * The response is written (or none is sent): records every phase. A request answered without reaching a handler
     * (unsupported version) has its handler phases empty.
     */
    void sent() {
        long sentNanos = System.nanoTime();
        long dequeued = dequeuedNanos == 0 ? receivedNanos : dequeuedNanos;
        long handled = handledNanos == 0 ? dequeued : handledNanos;
        long responded = respondedNanos == 0 ? handled : respondedNanos;
        long responseDequeued = responseDequeuedNanos == 0 ? responded : responseDequeuedNanos;
        api.completed(receivedNanos, dequeued, handled, responded, responseDequeued, sentNanos);
        if (fetchKind != null) {
            fetchKind.completed(receivedNanos, dequeued, handled, responded, responseDequeued, sentNanos);
        }
        if (logged != null) {
            logCompleted(dequeued, handled, responded, responseDequeued, sentNanos);
        }
    }

    /**
     * {@code Completed request api=Produce version=11 correlationId=7 clientId=producer-1 principal=User:ANONYMOUS
     * listener=PLAINTEXT connection=... totalTimeMs=1.204 requestQueueTimeMs=0.051 localTimeMs=0.870
     * remoteTimeMs=0.000 responseQueueTimeMs=0.140 sendTimeMs=0.143}, the times in milliseconds.
     */
    private void logCompleted(long dequeued, long handled, long responded, long responseDequeued, long sent) {
        RequestHeader header = logged.header();
        REQUEST_LOG.debug("Completed request api={} version={} correlationId={} clientId={} principal={} listener={} "
                        + "connection={} totalTimeMs={} requestQueueTimeMs={} localTimeMs={} remoteTimeMs={} "
                        + "responseQueueTimeMs={} sendTimeMs={}", header.apiKey().name, header.apiVersion(),
                header.correlationId(), header.clientId(), logged.principal(), logged.listenerName(),
                logged.connectionId(), ms(sent - receivedNanos), ms(dequeued - receivedNanos), ms(handled - dequeued),
                ms(responded - handled), ms(responseDequeued - responded), ms(sent - responseDequeued));
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6);
    }
}
