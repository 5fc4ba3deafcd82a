package io.tributary.broker.replication;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.tributary.broker.security.InterBrokerSecurity;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests from this broker to other brokers without blocking the caller: {@link #send} queues a request for a node
 * and returns the future of its answer; one thread of the channel's own polls an {@link InterBrokerClient} for
 * every destination, so a dead broker delays only the requests due there.
 *
 * <p>A request whose node cannot be connected to (refused, or a connection that failed before and is backing off)
 * fails at once with {@link DisconnectException}, one still waiting for a connection after the request timeout with
 * {@link TimeoutException}: the caller decides whether and where to retry (a coordinator may have moved). Once sent,
 * the future completes with the client's {@link ClientResponse}, which says whether the connection broke or the
 * answer timed out ({@link ClientResponse#wasDisconnected()}) or the node speaks no version of the API
 * ({@link ClientResponse#versionMismatch()}).
 *
 * <p>Threads: {@link #send} from any thread; futures complete on the channel's thread, so their continuations must
 * not block. {@link #close()} is idempotent and fails the requests left with {@link DisconnectException}.
 */
public final class InterBrokerChannel implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InterBrokerChannel.class);

    /** The longest the thread polls without looking at new requests. */
    private static final long MAX_POLL_MS = 100;

    private enum State { RUNNING, CLOSED }

    /** A request waiting for its node's connection. Channel thread only. */
    private record Outgoing(Node node, AbstractRequest.Builder<?> request, long deadlineMs,
                            CompletableFuture<ClientResponse> answer) {
    }

    private final String name;
    private final Time time;
    private final int requestTimeoutMs;
    private final InterBrokerClient connections;
    private final NetworkClient client;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Outgoing> incoming = new ConcurrentLinkedQueue<>();
    private volatile State state = State.RUNNING;

    // Channel thread only (and close(), after the thread ended).
    private final List<Outgoing> waiting = new ArrayList<>();
    private final Set<CompletableFuture<ClientResponse>> inFlight = new HashSet<>();

    /**
     * @param name names the thread ({@code tributary-<name>}), the client id ({@code broker-<id>-<name>}) and the
     *             metrics
     */
    public InterBrokerChannel(int localBrokerId, String name, Time time) {
        this(localBrokerId, name, InterBrokerSecurity.PLAINTEXT, time);
    }

    /** @param security how to reach the other brokers' inter-broker listener */
    public InterBrokerChannel(int localBrokerId, String name, InterBrokerSecurity security, Time time) {
        this(localBrokerId, name, InterBrokerClient.DEFAULT_REQUEST_TIMEOUT_MS, security, time);
    }

    InterBrokerChannel(int localBrokerId, String name, int requestTimeoutMs, Time time) {
        this(localBrokerId, name, requestTimeoutMs, InterBrokerSecurity.PLAINTEXT, time);
    }

    InterBrokerChannel(int localBrokerId, String name, int requestTimeoutMs, InterBrokerSecurity security,
                       Time time) {
        this.name = name;
        this.time = time;
        this.requestTimeoutMs = requestTimeoutMs;
        this.connections = InterBrokerClient.create("broker-" + localBrokerId + "-" + name, name, Map.of(),
                Selectable.USE_DEFAULT_BUFFER_SIZE, requestTimeoutMs, security, time);
        this.client = connections.network();
        this.thread = new Thread(this::run, "tributary-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Sends {@code request} to {@code node}; see the class comment for how the future completes. */
    public CompletableFuture<ClientResponse> send(Node node, AbstractRequest.Builder<?> request) {
        CompletableFuture<ClientResponse> answer = new CompletableFuture<>();
        if (state == State.CLOSED) {
            answer.completeExceptionally(new DisconnectException("The " + name + " channel is closed"));
            return answer;
        }
        Outgoing outgoing = new Outgoing(node, request, time.milliseconds() + requestTimeoutMs, answer);
        incoming.add(outgoing);
        if (state == State.CLOSED && incoming.remove(outgoing)) {
            // close() may have drained the queue before this request arrived in it.
            answer.completeExceptionally(new DisconnectException("The " + name + " channel is closed"));
        }
        client.wakeup();
        return answer;
    }

    private void run() {
        while (state == State.RUNNING) {
            try {
                long now = time.milliseconds();
                for (Outgoing outgoing; (outgoing = incoming.poll()) != null; ) {
                    waiting.add(outgoing);
                }
                long pollMs = sendReady(now);
                client.poll(pollMs, now);
            } catch (RuntimeException e) {
                log.error("Inter-broker channel {}: unexpected error; continuing", name, e);
            }
        }
    }

    /** Sends each waiting request whose connection is ready, fails those that cannot be; returns how long to poll. */
    private long sendReady(long now) {
        long pollMs = MAX_POLL_MS;
        for (Iterator<Outgoing> it = waiting.iterator(); it.hasNext(); ) {
            Outgoing outgoing = it.next();
            Node node = outgoing.node();
            if (client.ready(node, now)) {
                it.remove();
                CompletableFuture<ClientResponse> answer = outgoing.answer();
                ClientRequest request = client.newClientRequest(node.idString(), outgoing.request(), now, true,
                        requestTimeoutMs, response -> {
                            inFlight.remove(answer);
                            answer.complete(response);
                        });
                inFlight.add(answer);
                client.send(request, now);
            } else if (client.connectionFailed(node)) {
                it.remove();
                outgoing.answer().completeExceptionally(new DisconnectException("Cannot connect to broker "
                        + node.id() + " at " + node.host() + ":" + node.port()));
            } else if (now >= outgoing.deadlineMs()) {
                it.remove();
                outgoing.answer().completeExceptionally(new TimeoutException("No connection to broker " + node.id()
                        + " at " + node.host() + ":" + node.port() + " within " + requestTimeoutMs + " ms"));
            } else {
                pollMs = Math.min(pollMs, Math.max(1, client.connectionDelay(node, now)));
            }
        }
        return pollMs;
    }

    /** Stops the thread and the client; requests left fail with {@link DisconnectException}. Idempotent. */
    @Override
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        client.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        DisconnectException closed = new DisconnectException("The " + name + " channel is closed");
        for (Outgoing outgoing : waiting) {
            outgoing.answer().completeExceptionally(closed);
        }
        for (CompletableFuture<ClientResponse> answer : inFlight) {
            answer.completeExceptionally(closed);
        }
        for (Outgoing outgoing; (outgoing = incoming.poll()) != null; ) {
            outgoing.answer().completeExceptionally(closed);
        }
        connections.close();
    }
}
