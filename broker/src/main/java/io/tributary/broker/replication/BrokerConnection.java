package io.tributary.broker.replication;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.security.InterBrokerSecurity;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.utils.Time;

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

    private final BrokerInfo target;
    private final Node node;
    private final Time time;
    private final int requestTimeoutMs;
    private final InterBrokerClient connection;
    private final NetworkClient client;

    /**
     * @param requestTimeoutMs how long an answer may take ({@code replica.socket.timeout.ms} plus the fetch's wait)
     */
    BrokerConnection(int localBrokerId, BrokerInfo target, String purpose, int receiveBufferBytes,
                     int requestTimeoutMs, InterBrokerSecurity security, Time time) {
        this.target = target;
        this.node = new Node(target.id(), target.host(), target.port(), target.rack());
        this.time = time;
        this.requestTimeoutMs = requestTimeoutMs;
        this.connection = InterBrokerClient.create("broker-" + localBrokerId + "-" + purpose + "-" + target.id(),
                purpose, Map.of("broker-id", Integer.toString(target.id())), receiveBufferBytes, requestTimeoutMs,
                security, time);
        this.client = connection.network();
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
        connection.close();
    }
}
