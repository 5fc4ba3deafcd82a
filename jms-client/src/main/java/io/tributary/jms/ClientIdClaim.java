package io.tributary.jms;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import jakarta.jms.InvalidClientIDException;
import jakarta.jms.JMSException;

import io.tributary.jms.kafka.ClientIdAssignor;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's claim of its JMS client id across the cluster (Jakarta Messaging 3.1 §6.1.2: a client id is in use by
 * one client at a time, and the provider must prevent concurrently executing clients from using it). The claim is
 * membership of the consumer group {@link ClientIdAssignor#groupId jms.client-id:<id>}: a Kafka consumer of its own,
 * subscribed to no topic, joins the group with {@link ClientIdAssignor}, whose leader tells each member whether it
 * holds the id. The first verdict decides {@link #acquire}; the holder then keeps its membership alive by polling on a
 * thread of its own until {@link #close()}, whose LeaveGroup frees the id at once. A holder that dies frees it when
 * the coordinator drops it: after its session timeout (Tributary's 10 s), or sooner, after the
 * {@value #REBALANCE_TIMEOUT_MS} ms rebalance timeout, once another claimant has joined.
 *
 * <p>Lifecycle: {@code CLAIMING} until the first verdict, then {@code HELD} or {@code REFUSED}; a holder that was
 * dropped from the group (it did not answer in time) and is refused at its next join is {@code LOST}, and its owner
 * is told; {@code CLOSED} from any state by {@link #close()}, idempotent. A refused, lost or failed claim leaves the
 * group by itself.
 *
 * <p>Threads: the consumer belongs to the claim's daemon thread ({@code tributary-jms-client-id-<id>}), which
 * creates, polls and closes it; the state is changed by compare-and-set, by that thread (verdicts, failures) and by
 * {@link #close()} from any thread.
 */
final class ClientIdClaim implements ClientIdAssignor.Claimant, AutoCloseable {

    /**
     * How long a claim waits for its verdict. The join waits for the group's current members to join again, at most
     * the rebalance timeout (a holder that stopped answering is dropped then), plus round trips and the cluster's
     * {@code group.initial.rebalance.delay.ms} (3 s by default; bounded by the rebalance timeout) for a new group.
     */
    static final Duration VERDICT_TIMEOUT = Duration.ofSeconds(15);
    /**
     * The claim's {@code max.poll.interval.ms}, which the classic protocol uses as the rebalance timeout: how long a
     * join waits for the members it knows. A live holder learns of a new claimant at its next heartbeat (at most
     * {@code heartbeat.interval.ms}, 500 ms here, later if configured so) and joins again at its next poll (every
     * {@value #POLL_MS} ms): 5 s leaves a loaded machine ten times that. A holder silent that long loses the claim.
     */
    static final int REBALANCE_TIMEOUT_MS = 5_000;
    /**
     * How long one poll waits; the claim's thread does nothing else, so this bounds how fast it joins again and how
     * long {@link #close()} waits for the loop to end. No {@code wakeup()}: one pending when the thread closes the
     * consumer would fail the close's wait for the LeaveGroup request.
     */
    private static final long POLL_MS = 100;
    /** Leaving the group is one request; more than this means the cluster is gone and the member expires anyway. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** Matches no topic: a topic name is never empty. A pattern subscription joins the group with no topics. */
    private static final Pattern NO_TOPIC = Pattern.compile("^$");
    private static final String PROCESS = ManagementFactory.getRuntimeMXBean().getName();
    private static final Logger log = LoggerFactory.getLogger(ClientIdClaim.class);

    enum State { CLAIMING, HELD, REFUSED, LOST, CLOSED }

    /** The first verdict: the holder's description, and whether it is this claim. */
    private record Verdict(boolean holder, String holderDescription) {
    }

    private final String clientId;
    private final String token = UUID.randomUUID().toString();
    private final String description;
    private final KafkaClients clients;
    private final String bootstrapServers;
    private final Consumer<String> onLoss;
    private final AtomicReference<State> state = new AtomicReference<>(State.CLAIMING);
    private final CompletableFuture<Verdict> firstVerdict = new CompletableFuture<>();
    private final Thread thread;
    /** Written by the claim's thread (refused, lost, failed) and {@link #close()}: the thread's loop ends. */
    private volatile boolean stopping;

    private ClientIdClaim(KafkaClients clients, String bootstrapServers, String clientId, String connectionId,
                          Consumer<String> onLoss) {
        this.clients = clients;
        this.bootstrapServers = bootstrapServers;
        this.clientId = clientId;
        this.description = "connection " + connectionId + " in process " + PROCESS;
        this.onLoss = onLoss;
        this.thread = new Thread(this::run, "tributary-jms-client-id-" + clientId);
        thread.setDaemon(true);
    }

    /**
     * Claims {@code clientId} for a connection, waiting at most {@link #VERDICT_TIMEOUT} for the verdict.
     *
     * @param onLoss told, on the claim's thread, the new holder's description if this claim is lost while held
     * @return the held claim; the caller closes it
     * @throws InvalidClientIDException if another live connection holds the client id
     * @throws JMSException             if the cluster gave no verdict in time, or the claim's consumer failed
     */
    static ClientIdClaim acquire(KafkaClients clients, String bootstrapServers, String clientId, String connectionId,
                                 Consumer<String> onLoss) throws JMSException {
        ClientIdClaim claim = new ClientIdClaim(clients, bootstrapServers, clientId, connectionId, onLoss);
        claim.thread.start();
        Verdict verdict;
        try {
            verdict = claim.firstVerdict.get(VERDICT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            claim.close();
            throw new JMSException("Claiming client id '" + clientId + "' (consumer group "
                    + ClientIdAssignor.groupId(clientId) + ") got no answer from the cluster at " + bootstrapServers
                    + " within " + VERDICT_TIMEOUT.toSeconds() + " s: its group coordinator is unreachable");
        } catch (ExecutionException e) {
            claim.close();
            throw JmsErrors.fromKafka("Claiming client id '" + clientId + "' (consumer group "
                    + ClientIdAssignor.groupId(clientId) + ") in the cluster at " + bootstrapServers, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            claim.close();
            throw new JMSException("Interrupted while claiming client id '" + clientId + "'");
        }
        if (!verdict.holder()) {
            claim.close();
            // §6.1.2: a client id in use by another client is refused with InvalidClientIDException.
            throw new InvalidClientIDException("Client id '" + clientId + "' is in use by another live connection ("
                    + verdict.holderDescription() + "); it is free again when that connection closes");
        }
        return claim;
    }

    State state() {
        return state.get();
    }

    // ---------------------------------------------------------------------------------------------------------
    // The claim's thread

    private void run() {
        KafkaConsumer<byte[], byte[]> owned;
        try {
            owned = clients.newClientIdClaimConsumer(ClientIdAssignor.groupId(clientId), this);
        } catch (RuntimeException e) {
            failed(e);
            return;
        }
        try {
            owned.subscribe(NO_TOPIC);
            while (!stopping) {
                owned.poll(Duration.ofMillis(POLL_MS));
            }
        } catch (RuntimeException e) {
            failed(e);
        } finally {
            owned.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        }
    }

    private void failed(RuntimeException e) {
        stopping = true;
        if (state.get() == State.CLAIMING) {
            firstVerdict.completeExceptionally(e);
        } else if (state.compareAndSet(State.HELD, State.LOST)) {
            log.warn("Client id '{}' is no longer held: its claim failed", clientId, e);
            onLoss.accept("unknown: the claim of this connection failed: " + e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // ClientIdAssignor.Claimant: called by the consumer on the claim's thread, holding() also on its heartbeat thread

    @Override
    public String token() {
        return token;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean holding() {
        return state.get() == State.HELD;
    }

    @Override
    public void verdict(boolean holder, String holderDescription) {
        if (holder) {
            if (state.compareAndSet(State.CLAIMING, State.HELD)) {
                firstVerdict.complete(new Verdict(true, holderDescription));
            }
            return;
        }
        if (state.compareAndSet(State.CLAIMING, State.REFUSED)) {
            stopping = true;
            firstVerdict.complete(new Verdict(false, holderDescription));
        } else if (state.compareAndSet(State.HELD, State.LOST)) {
            stopping = true;
            log.warn("Client id '{}' is no longer held by {}: {} holds it now (this claim did not answer its group "
                    + "in time and was dropped from it)", clientId, description, holderDescription);
            onLoss.accept(holderDescription);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Release

    /**
     * Releases the client id: the consumer leaves the group before this returns (unless called from the claim's own
     * thread, which then leaves once the current poll ends). Idempotent; any thread.
     */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.CLOSED) {
            return;
        }
        stopping = true;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(CLOSE_TIMEOUT.plusMillis(POLL_MS + 1_000).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "ClientIdClaim[" + clientId + ", " + state.get() + ", " + bootstrapServers + "]";
    }
}
