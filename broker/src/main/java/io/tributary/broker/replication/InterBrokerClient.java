package io.tributary.broker.replication;

import java.util.Map;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.metrics.Metrics;
import io.tributary.broker.security.InterBrokerSecurity;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * kafka-clients' {@link NetworkClient} as this broker uses it to talk to other brokers (replica fetchers, the
 * transaction marker sender, the share coordinator persister), with the metrics it reports to, closed together.
 * Configured as Kafka's inter-broker clients: the inter-broker listener's security protocol
 * ({@link InterBrokerSecurity}), the ApiVersions handshake (each request goes out at the
 * highest version both brokers speak, which keeps mixed-version clusters working during a rolling upgrade), Kafka's
 * reconnect backoff and connection setup timeouts, no metadata of its own (the caller names the node).
 *
 * <p>Not thread-safe, as NetworkClient: one thread drives it, apart from {@code network().wakeup()}.
 * {@link #close()} is idempotent.
 */
public record InterBrokerClient(NetworkClient network, Metrics metrics) implements AutoCloseable {

    /** Kafka's {@code reconnect.backoff.ms} and {@code reconnect.backoff.max.ms} defaults. */
    private static final long RECONNECT_BACKOFF_MS = 50;
    private static final long RECONNECT_BACKOFF_MAX_MS = 1_000;
    /** Kafka's {@code socket.connection.setup.timeout.ms} defaults; a dead broker's port refuses at once anyway. */
    private static final long CONNECTION_SETUP_TIMEOUT_MS = 10_000;
    private static final long CONNECTION_SETUP_TIMEOUT_MAX_MS = 30_000;
    /** Kafka's {@code connections.max.idle.ms} default. */
    private static final long CONNECTIONS_MAX_IDLE_MS = 600_000;
    /** Kafka's {@code request.timeout.ms} default, which its inter-broker channels use. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

    /**
     * @param clientId           the client id of its requests (and the prefix of its log lines)
     * @param metricGroup        the prefix of its selector's metric group
     * @param metricTags         the tags of those metrics
     * @param receiveBufferBytes the socket's receive buffer ({@link Selectable#USE_DEFAULT_BUFFER_SIZE}: the OS's)
     * @param requestTimeoutMs   how long an answer may take before the request fails as disconnected
     */
    public static InterBrokerClient create(String clientId, String metricGroup, Map<String, String> metricTags,
                                           int receiveBufferBytes, int requestTimeoutMs, Time time) {
        return create(clientId, metricGroup, metricTags, receiveBufferBytes, requestTimeoutMs,
                InterBrokerSecurity.PLAINTEXT, time);
    }

    /** @param security how to reach the other brokers' inter-broker listener (plaintext, TLS, SASL) */
    public static InterBrokerClient create(String clientId, String metricGroup, Map<String, String> metricTags,
                                           int receiveBufferBytes, int requestTimeoutMs, InterBrokerSecurity security,
                                           Time time) {
        Metrics metrics = new Metrics(time);
        LogContext logContext = new LogContext("[" + clientId + "] ");
        ChannelBuilder channels;
        try {
            channels = security.newChannelBuilder(time, logContext);
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
        Selector selector = new Selector(NetworkReceive.UNLIMITED, CONNECTIONS_MAX_IDLE_MS, metrics, time,
                metricGroup, metricTags, false, channels, logContext);
        NetworkClient client = new NetworkClient(selector, new ManualMetadataUpdater(), clientId, 1,
                RECONNECT_BACKOFF_MS, RECONNECT_BACKOFF_MAX_MS, Selectable.USE_DEFAULT_BUFFER_SIZE,
                receiveBufferBytes, requestTimeoutMs, CONNECTION_SETUP_TIMEOUT_MS, CONNECTION_SETUP_TIMEOUT_MAX_MS,
                time, true, new ApiVersions(), logContext, MetadataRecoveryStrategy.NONE,
                BootstrapConfiguration.DISABLED, false);
        return new InterBrokerClient(client, metrics);
    }

    @Override
    public void close() {
        try {
            network.close();
        } finally {
            metrics.close();
        }
    }
}
