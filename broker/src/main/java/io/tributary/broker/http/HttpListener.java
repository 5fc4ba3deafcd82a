package io.tributary.broker.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tributary.broker.metrics.BrokerMetrics;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's HTTP listener ({@code metrics.http.listener}), for Prometheus and process managers:
 *
 * <ul>
 *   <li>{@code GET /metrics}: the Prometheus text exposition format 0.0.4 ({@code text/plain; version=0.0.4}): the
 *       broker's metrics under the JMX exporter's Kafka names ({@link MetricsCollector}), consumer and share-group
 *       lag ({@link ConsumerLag}) and the JVM's basics ({@link JvmCollector});</li>
 *   <li>{@code GET /health/live}: 200 {@code live} while the process serves (before the network starts, while logs
 *       load, too: a slow recovery is not a reason to restart); 503 once the network's event loops have stopped or
 *       do not run a task within a second;</li>
 *   <li>{@code GET /health/ready}: 200 {@code ready}, or 503 with the reason ({@link Readiness}).</li>
 * </ul>
 *
 * Anything else is 404, a method other than GET or HEAD 405. Responses are {@code text/plain; charset=utf-8}.
 *
 * <p>Threads: the JDK's {@link HttpServer} on one thread of its own ({@code tributary-http}); a scrape reads the
 * metrics there and never waits for the request path (the values are read from concurrent registries and volatile
 * fields). The JDK server is enough for a handful of scrapes and probes a minute and costs no dependency. The broker
 * starts the listener first and hands over the parts (lag sources, liveness) as it starts them; {@link #close} is
 * idempotent.
 */
public final class HttpListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HttpListener.class);

    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String PLAIN = "text/plain; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;
    private final MetricsCollector metrics;
    private final JvmCollector jvm = new JvmCollector();
    private final Readiness readiness;
    /** Null until the group coordinator and replica manager are up. Set by the starting thread. */
    private volatile ConsumerLag consumerLag;
    /** Null until the share-partition manager is up. Set by the starting thread. */
    private volatile ConsumerLag shareGroupLag;
    /** Null until the network is started: alive. Set by the starting thread. */
    private volatile BooleanSupplier eventLoopsAlive;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HttpListener(HttpServer server, ExecutorService thread, BrokerMetrics metrics, Readiness readiness) {
        this.server = server;
        this.thread = thread;
        this.metrics = new MetricsCollector(metrics);
        this.readiness = readiness;
    }

    /**
     * Binds {@code address} (port 0 for any) and starts serving.
     *
     * @throws IOException naming the setting and the address if it cannot be bound
     */
    public static HttpListener start(InetSocketAddress address, BrokerMetrics metrics, Readiness readiness)
            throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            throw new IOException("cannot bind the HTTP listener (metrics.http.listener) to " + address + ": " + e,
                    e);
        }
        ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "tributary-http");
            t.setDaemon(true);
            return t;
        });
        HttpListener listener = new HttpListener(server, thread, metrics, readiness);
        server.createContext("/", listener::handle);
        server.setExecutor(thread);
        server.start();
        log.info("HTTP listener on {}: /metrics, /health/live, /health/ready", listener.server.getAddress());
        return listener;
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * Consumer lag from now on: committed offsets of the groups this broker coordinates, and partitions' high
     * watermarks where known locally (see {@link ConsumerLag}).
     */
    public void consumerLag(Supplier<Map<String, Map<TopicPartition, Long>>> committedOffsets,
                            Function<TopicPartition, OptionalLong> endOffsets) {
        this.consumerLag = new ConsumerLag(ConsumerLag.Kind.CONSUMER, committedOffsets, endOffsets);
    }

    /** Share-group lag from now on: start offsets of the share-partitions led here, and their high watermarks. */
    public void shareGroupLag(Supplier<Map<String, Map<TopicPartition, Long>>> startOffsets,
                              Function<TopicPartition, OptionalLong> endOffsets) {
        this.shareGroupLag = new ConsumerLag(ConsumerLag.Kind.SHARE, startOffsets, endOffsets);
    }

    /** Liveness from now on: whether the network's event loops run. */
    public void eventLoopsAlive(BooleanSupplier alive) {
        this.eventLoopsAlive = alive;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                respond(exchange, 405, PLAIN, "method not allowed\n");
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/metrics" -> respond(exchange, 200, TEXT_FORMAT, scrape());
                case "/health/live" -> {
                    BooleanSupplier alive = eventLoopsAlive;
                    boolean live = alive == null || alive.getAsBoolean();
                    respond(exchange, live ? 200 : 503, PLAIN, live ? "live\n" : "network event loops stopped\n");
                }
                case "/health/ready" -> {
                    Readiness.Status status = readiness.check();
                    respond(exchange, status.ready() ? 200 : 503, PLAIN, status.reason() + "\n");
                }
                default -> respond(exchange, 404, PLAIN, "not found: try /metrics, /health/live or /health/ready\n");
            }
        } catch (RuntimeException e) {
            log.warn("The HTTP listener failed to answer {} {}", exchange.getRequestMethod(),
                    exchange.getRequestURI(), e);
        }
    }

    private String scrape() {
        PrometheusText text = new PrometheusText();
        metrics.collect(text);
        for (ConsumerLag lag : new ConsumerLag[] {consumerLag, shareGroupLag}) {
            if (lag != null) {
                try {
                    lag.collect(text);
                } catch (RuntimeException e) {
                    // A partition closing under the scrape: the rest of the scrape still counts.
                    log.debug("Lag left out of a scrape", e);
                }
            }
        }
        jvm.collect(text);
        return text.write();
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops answering at once (a scrape in progress is cut) and releases the port; idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(0);
            thread.shutdownNow();
        }
    }
}
