package io.tributary.broker.network;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.metrics.RequestMetrics;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs requests through the {@link RequestHandler} on a pool of {@code num.io.threads} request-handler threads, off
 * the event loops, and turns every outcome into a response (or the decision to send none). The requests of one
 * connection are handled one after another, in the order they arrived ({@link ConnectionQueue}); different
 * connections' requests run concurrently.
 *
 * <p>Exception: {@link #ON_EVENT_LOOP} requests (OffsetCommit, Heartbeat) that find their connection idle are handled
 * on the event loop that read them. They are short and never wait on another request (a commit appends one small
 * batch to the offsets log; the segment roll's fsync runs on the log's scheduler), and they sit on the path of every
 * message a Jakarta Messaging AUTO_ACKNOWLEDGE consumer receives, which may take the next message only once the
 * previous one's commit is answered. Handling them here saves the two thread wake-ups of the pool (event loop to
 * handler thread, handler thread back to the event loop for the write): measured with the JMS benchmark, AUTO
 * commits took 0.12-0.15 ms instead of 0.17-0.37 ms (median) and a consumer behind its producer received 11-67 %
 * more messages a second (3 alternated pairs). Everything else stays on the pool: a produce or fetch may read or
 * write much more, and an event loop that blocks stalls every connection it serves.
 *
 * <p>Outcomes: a version the handler does not support is answered {@code UNSUPPORTED_VERSION} without calling it; a
 * handler that throws, or whose future fails, gets {@code request.getErrorResponse(0, exception)} and a log line (WARN
 * for a Kafka {@code ApiException}, ERROR for anything else, which is a bug). The returned future completes
 * exceptionally only when not even an error response can be built; the connection is then closed.
 *
 * <p>Queue bound: {@link #queued()} counts requests from {@link #dispatch} until their {@code handle} call returns
 * (waiting for a thread, or running). At {@code queued.max.requests} {@link #hasCapacity()} turns false; every
 * connection checks it before decoding a frame, stops reading while it is false and registers with
 * {@link #whenCapacity} to resume once a request leaves. Requests parked by the handler on an incomplete future
 * (long-poll fetch, acks=all) do not count, as in Kafka, where they wait in purgatory, not in the request queue. The
 * check and the dispatch are not one atomic step, so the event loops may overshoot the bound by one request each.
 *
 * <p>Memory: a request's bytes in {@code queued.max.request.bytes} ({@link RequestMemoryPool}) are released when its
 * {@code handle} call returns, or when it is answered without one, the point where Kafka releases them too. A handler
 * that keeps the request's records (a produce waiting for acks=all) keeps their heap, but not their reservation.
 *
 * <p>Metrics: marks each request's phases in its {@link RequestTimes} (taken by a thread, handled), for Kafka's
 * {@code RequestMetrics} ({@link #metrics()}).
 *
 * <p>Thread-safe: {@link #dispatch} is called from the event loops, completions happen on any thread.
 */
final class RequestDispatcher {

    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);

    /** Requests handled on the event loop when their connection has none waiting or running (see above). */
    static final Set<ApiKeys> ON_EVENT_LOOP = EnumSet.of(ApiKeys.OFFSET_COMMIT, ApiKeys.HEARTBEAT);

    private final RequestHandler handler;
    private final RequestMetrics metrics;
    private final int maxQueued;
    private final ExecutorService threads;
    private final AtomicInteger queued = new AtomicInteger();
    /** Resume actions of connections that stopped reading because the queue was full. */
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    RequestDispatcher(RequestHandler handler, int threadCount, int maxQueued) {
        this(handler, threadCount, maxQueued, new RequestMetrics(BrokerMetrics.detached()));
    }

    RequestDispatcher(RequestHandler handler, int threadCount, int maxQueued, RequestMetrics metrics) {
        this.handler = handler;
        this.metrics = metrics;
        this.maxQueued = maxQueued;
        // The queue itself is unbounded; queued.max.requests is enforced by the connections not reading (above), so
        // an event loop never blocks on a full queue.
        this.threads = new ThreadPoolExecutor(threadCount, threadCount, 0L, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory("tributary-request-handler"));
    }

    RequestMetrics metrics() {
        return metrics;
    }

    /** The request order of a new connection; see {@link ConnectionQueue}. */
    ConnectionQueue newConnectionQueue() {
        return new ConnectionQueue();
    }

    /**
     * Starts handling {@code request}, after the earlier requests of its connection. Called on the connection's event
     * loop; never blocks.
     *
     * @return the response to send, {@code null} for none
     */
    CompletableFuture<AbstractResponse> dispatch(Request request, ConnectionQueue connection) {
        return dispatch(request, connection, RequestTimes.received(metrics, request));
    }

    /** As {@link #dispatch(Request, ConnectionQueue)}, marking the request's phases in {@code times}. */
    CompletableFuture<AbstractResponse> dispatch(Request request, ConnectionQueue connection, RequestTimes times) {
        CompletableFuture<AbstractResponse> result = new CompletableFuture<>();
        if (!request.isApiVersionsFallback()) {
            short version = request.context().header().apiVersion();
            boolean supported;
            try {
                supported = handler.isSupported(request.context().header().apiKey(), version);
            } catch (RuntimeException e) {
                request.memory().release();
                answerFailure(request, e, result);
                return result;
            }
            if (!supported) {
                request.memory().release();
                log.debug("Connection {}: answering {} with UNSUPPORTED_VERSION", request.context().connectionId(),
                        request.describe());
                answerError(request, new UnsupportedVersionException(
                        request.context().header().apiKey() + " version " + version + " is not supported"), result);
                return result;
            }
        }
        queued.incrementAndGet();
        connection.submit(request, result, times);
        return result;
    }

    /**
     * The requests of one connection, handled one at a time in the order they arrived: a request's {@code handle}
     * call starts once the previous one's has returned (its response may still be pending, as a long-poll fetch's or
     * an acks=all produce's is). Kafka handles a connection's requests in order as well, and clients rely on it: an
     * idempotent producer pipelines up to 5 produce requests on one connection, and two of them handled at once on
     * different threads can append one partition's batches out of order. (Seen with the Java producer and 4 handler
     * threads: records of a partition read back in another order than sent, with acknowledged offsets that did not
     * match the log.)
     *
     * <p>A connection with waiting requests holds one handler thread while it works through them, at most
     * {@link ConnectionInitializer#MAX_IN_FLIGHT_PER_CONNECTION} requests; other connections use the other threads.
     *
     * <p>Thread-safe: requests are submitted on the connection's event loop and run on a handler thread.
     */
    final class ConnectionQueue {

        /** Requests dispatched and not yet started; guarded by this. */
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
        /** Whether a handler thread is working through {@link #waiting}; guarded by this. */
        private boolean draining;

        private ConnectionQueue() {
        }

        private void submit(Request request, CompletableFuture<AbstractResponse> result, RequestTimes times) {
            if (ON_EVENT_LOOP.contains(request.context().header().apiKey()) && runHereIfIdle(request, result, times)) {
                return;
            }
            synchronized (this) {
                waiting.add(() -> run(request, result, times));
                if (draining) {
                    return; // the thread working through this connection's requests takes it in turn
                }
                draining = true;
            }
            try {
                threads.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // No thread was working for this connection, so the request just added is the only one waiting.
                synchronized (this) {
                    waiting.clear();
                    draining = false;
                }
                request.memory().release();
                left();
                answerError(request, new BrokerNotAvailableException("the broker is shutting down"), result);
            }
        }

        /**
         * Handles the request on this thread if no request of the connection is waiting or running, so that the order
         * holds; requests submitted meanwhile (none, as they come from this thread) would go to the pool after it.
         */
        private boolean runHereIfIdle(Request request, CompletableFuture<AbstractResponse> result,
                                      RequestTimes times) {
            synchronized (this) {
                if (draining) {
                    return false;
                }
                draining = true;
            }
            try {
                run(request, result, times);
            } finally {
                boolean more;
                synchronized (this) {
                    more = !waiting.isEmpty();
                    draining = more;
                }
                if (more) {
                    threads.execute(this::drain);
                }
            }
            return true;
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = waiting.poll();
                    if (next == null) {
                        draining = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException e) {
                    // run() answers every failure of the handler itself; this is a wake-up of a waiting connection
                    // failing (an event loop shutting down). The requests behind it must still run.
                    log.warn("A request of a connection ended with an unexpected error", e);
                }
            }
        }
    }

    private void run(Request request, CompletableFuture<AbstractResponse> result, RequestTimes times) {
        times.dequeued();
        try {
            CompletableFuture<AbstractResponse> response;
            try {
                response = handler.handle(request.context(), request.body());
            } finally {
                times.handled();
            }
            if (response == null) {
                throw new NullPointerException("the handler returned no future (complete one with null instead)");
            }
            response.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(value);
                } else {
                    answerFailure(request, failure, result);
                }
            });
        } catch (Throwable e) {
            // Throwable, as Kafka's request handlers do: whatever the handler did, the client gets an answer and
            // this thread lives on.
            answerFailure(request, e, result);
        } finally {
            request.memory().release();
            left();
        }
    }

    /** The handler failed: log it, then answer with the error response. */
    private static void answerFailure(Request request, Throwable failure, CompletableFuture<AbstractResponse> result) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ApiException) {
            log.warn("Connection {}: {} failed; answering with its error code: {}",
                    request.context().connectionId(), request.describe(), cause.toString());
        } else {
            log.error("Connection {}: the handler of {} failed; answering UNKNOWN_SERVER_ERROR",
                    request.context().connectionId(), request.describe(), cause);
        }
        answerError(request, cause, result);
    }

    /** Completes {@code result} with the request's error response for {@code cause}; Errors.forException maps it. */
    private static void answerError(Request request, Throwable cause, CompletableFuture<AbstractResponse> result) {
        try {
            result.complete(request.body().getErrorResponse(0, cause));
        } catch (RuntimeException e) {
            e.addSuppressed(cause);
            result.completeExceptionally(e);
        }
    }

    /** A request's handle call returned: wake the connections waiting for room, if there is room now. */
    private void left() {
        if (queued.decrementAndGet() < maxQueued) {
            Runnable resume;
            while ((resume = waiting.poll()) != null) {
                resume.run();
            }
        }
    }

    /** Whether another request may be dispatched without exceeding {@code queued.max.requests}. */
    boolean hasCapacity() {
        return queued.get() < maxQueued;
    }

    /**
     * Runs {@code resume} once there is capacity: at once if there is now, else on the thread whose request leaves
     * the queue. {@code resume} must only hand work to an event loop.
     */
    void whenCapacity(Runnable resume) {
        waiting.add(resume);
        // Re-checked after adding: a request may have left between the caller's check and the add.
        if (hasCapacity() && waiting.remove(resume)) {
            resume.run();
        }
    }

    /** Requests dispatched whose {@code handle} call has not returned. */
    int queued() {
        return queued.get();
    }

    /**
     * Stops the handler threads: requests already queued still run, for up to {@code timeout}; then the threads are
     * interrupted.
     */
    void close(Duration timeout) {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("Request handlers still busy after {} ms; interrupting them", timeout.toMillis());
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
