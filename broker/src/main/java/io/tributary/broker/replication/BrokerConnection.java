package io.tributary.broker.replication;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;

import io.tributary.broker.cluster.BrokerInfo;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * A blocking request-response connection from this broker to another one, for a fetcher thread: kafka-clients'
 * {@link NetworkClient}, the client Kafka's own brokers use for replication. It brings what a hand-written client
 * would have to redo: the ApiVersions handshake (so each request goes out at the highest version both brokers
 * speak, which keeps mixed-version clusters working during a rolling upgrade), framing, correlation, request
 * timeouts, and reconnection with backoff. A Netty client would fit the broker's event loops, but a fetcher is a
 * thread that waits for each answer anyway, and NetworkClient's blocking helpers say exactly that.
 *
 * <p>One connection, at most one request in flight. Not thread-safe: its fetcher thread only. {@link #close()} is
 * idempotent.
 */
final class BrokerConnection implements AutoCloseable {

    /** Kafka's {@code reconnect.backoff.ms} and {@code reconnect.backoff.max.ms} defaults. */
    private static final long RECONNECT_BACKOFF_MS = 50;
    private static final long RECONNECT_BACKOFF_MAX_MS = 1_000;
    /** Kafka's {@code socket.connection.setup.timeout.ms} defaults; a dead leader's port refuses at once anyway. */
    private static final long CONNECTION_SETUP_TIMEOUT_MS = 10_000;
    private static final long CONNECTION_SETUP_TIMEOUT_MAX_MS = 30_000;
    /** Kafka's {@code connections.max.idle.ms} default. */
    private static final long CONNECTIONS_MAX_IDLE_MS = 600_000;

    private final BrokerInfo target;
    private final Node node;
    private final Time time;
    private final int requestTimeoutMs;
    private final Metrics metrics;
    private final NetworkClient client;

    /**
     * @param requestTimeoutMs how long an answer may take ({@code replica.socket.timeout.ms} plus the fetch's wait)
     */
    BrokerConnection(int localBrokerId, BrokerInfo target, String purpose, int receiveBufferBytes,
                     int requestTimeoutMs, Time time) {
        this.target = target;
        this.node = new Node(target.id(), target.host(), target.port(), target.rack());
        this.time = time;
        this.requestTimeoutMs = requestTimeoutMs;
        this.metrics = new Metrics(time);
        String clientId = "broker-" + localBrokerId + "-" + purpose + "-" + target.id();
        LogContext logContext = new LogContext("[" + clientId + "] ");
        PlaintextChannelBuilder channels =
                new PlaintextChannelBuilder(ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT));
        channels.configure(Map.of());
        Selector selector = new Selector(NetworkReceive.UNLIMITED, CONNECTIONS_MAX_IDLE_MS, metrics, time, purpose,
                Map.of("broker-id", Integer.toString(target.id())), false, channels, logContext);
        this.client = new NetworkClient(selector, new ManualMetadataUpdater(), clientId, 1, RECONNECT_BACKOFF_MS,
                RECONNECT_BACKOFF_MAX_MS, Selectable.USE_DEFAULT_BUFFER_SIZE, receiveBufferBytes, requestTimeoutMs,
                CONNECTION_SETUP_TIMEOUT_MS, CONNECTION_SETUP_TIMEOUT_MAX_MS, time, true, new ApiVersions(),
                logContext, MetadataRecoveryStrategy.NONE, BootstrapConfiguration.DISABLED, false);
    }

    /** The broker this connection goes to, as it was registered when the connection was made. */
    BrokerInfo target() {
        return target;
    }

    /**
     * Sends a request and waits for its answer.
     *
     * @throws IOException if the connection cannot be made, breaks, or the answer does not come in time; the
     *                     connection is closed then, and the next call reconnects (with backoff)
     */
    ClientResponse send(AbstractRequest.Builder<?> request) throws IOException {
        try {
            if (!NetworkClientUtils.awaitReady(client, node, time, requestTimeoutMs)) {
                throw new SocketTimeoutException("no connection to broker " + target.id() + " at " + target.host()
                        + ":" + target.port() + " within " + requestTimeoutMs + " ms");
            }
            ClientRequest clientRequest = client.newClientRequest(node.idString(), request, time.milliseconds(), true,
                    requestTimeoutMs, null);
            return NetworkClientUtils.sendAndReceive(client, clientRequest, time);
        } catch (IOException e) {
            client.close(node.idString());
            throw e;
        }
    }

    /** Wakes a thread blocked in {@link #send} (it then fails or returns early); any thread. */
    void wakeup() {
        client.wakeup();
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            metrics.close();
        }
    }
}
