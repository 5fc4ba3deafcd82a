package io.tributary.broker.txn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.replication.InterBrokerClient;
import io.tributary.broker.security.InterBrokerSecurity;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest.TxnMarkerEntry;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes transaction markers: sends WriteTxnMarkers to the leader of each partition of a decided transaction (this
 * broker included, over the network like any other), one request per destination broker holding every marker due
 * there, and retries a partition whose leader moved or was unavailable after refreshing its leader from the
 * metadata cache. A partition whose topic was deleted is given up (it counts as done). A job is abandoned once its
 * coordinator no longer leads the {@code __transaction_state} partition at the coordinator epoch it carries, or a
 * partition leader answers that the coordinator or the producer epoch is stale.
 *
 * <p>The client is kafka-clients' {@link NetworkClient}, configured as the replica fetchers' connections
 * ({@link InterBrokerClient}): ApiVersions handshake, Kafka's reconnect backoff and connection setup timeouts,
 * plaintext. Unlike a fetcher it is driven without blocking: one thread polls it for every destination,
 * so a dead broker delays only the markers due there.
 *
 * <p>Threads: {@link #write} from any thread; everything else on the sender's own thread. {@link #close()} is
 * idempotent and abandons the jobs left.
 */
public final class TransactionMarkerSender implements TransactionMarkers, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TransactionMarkerSender.class);

    /** Kafka's {@code request.timeout.ms} default, which its marker channel uses. */
    private static final int REQUEST_TIMEOUT_MS = InterBrokerClient.DEFAULT_REQUEST_TIMEOUT_MS;
    /** Before a partition is tried again after a retriable error or while it has no leader. */
    private static final long RETRY_BACKOFF_MS = 100;
    /** The longest the thread polls without looking at new jobs and due retries. */
    private static final long MAX_POLL_MS = 100;

    private enum State { RUNNING, CLOSED }

    /** A job and the partitions still without their marker. Sender thread only, apart from {@code done}. */
    private static final class Pending {
        final Job job;
        final Set<TopicPartition> remaining;
        final CompletableFuture<Boolean> done = new CompletableFuture<>();

        Pending(Job job) {
            this.job = job;
            this.remaining = new HashSet<>(job.partitions());
        }
    }

    /** One partition's marker waiting to be sent (not in flight). */
    private static final class Marker {
        final Pending pending;
        final TopicPartition tp;
        long notBefore;

        Marker(Pending pending, TopicPartition tp) {
            this.pending = pending;
            this.tp = tp;
        }
    }

    private final Routing routing;
    private final Time time;
    private final InterBrokerClient connections;
    private final NetworkClient client;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Pending> incoming = new ConcurrentLinkedQueue<>();
    private volatile State state = State.RUNNING;

    // Sender thread only.
    private final List<Marker> waiting = new ArrayList<>();
    private final Map<Integer, List<Marker>> inFlight = new HashMap<>();

    /** Where a partition's marker goes: its leader, none now ({@code leader} null), or nowhere (deleted). */
    public record Route(boolean deleted, Node leader) {
        static final Route DELETED = new Route(true, null);
        static final Route NO_LEADER = new Route(false, null);
    }

    /** Looks up routes; the broker's reads the metadata cache ({@link #fromMetadata}), a test gives its own. */
    public interface Routing {
        Route route(TopicPartition tp);
    }

    /** Routes from the cluster metadata: the partition's live leader, as this broker's metadata cache has it. */
    public static Routing fromMetadata(Supplier<MetadataSnapshot> metadata) {
        return tp -> {
            MetadataSnapshot snapshot = metadata.get();
            Optional<TopicMetadata> topic = snapshot.topic(tp.topic());
            if (topic.isEmpty() || !topic.get().partitions().containsKey(tp.partition())) {
                return Route.DELETED;
            }
            Optional<BrokerInfo> leader = snapshot.partition(tp).filter(PartitionMetadata::hasLeader)
                    .flatMap(p -> snapshot.broker(p.leader()));
            return leader.map(b -> new Route(false, new Node(b.id(), b.host(), b.port(), b.rack())))
                    .orElse(Route.NO_LEADER);
        };
    }

    /**
     * @param routing where each partition's marker goes (the broker's: {@link #fromMetadata})
     */
    public TransactionMarkerSender(int localBrokerId, Routing routing, Time time) {
        this(localBrokerId, routing, InterBrokerSecurity.PLAINTEXT, time);
    }

    /** @param security how to reach the other brokers' inter-broker listener */
    public TransactionMarkerSender(int localBrokerId, Routing routing, InterBrokerSecurity security, Time time) {
        this.routing = routing;
        this.time = time;
        this.connections = InterBrokerClient.create("broker-" + localBrokerId + "-txn-marker-sender",
                "txn-marker-sender", Map.of(), Selectable.USE_DEFAULT_BUFFER_SIZE, REQUEST_TIMEOUT_MS, security,
                time);
        this.client = connections.network();
        this.thread = new Thread(this::run, "tributary-txn-marker-sender");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public CompletableFuture<Boolean> write(Job job) {
        Pending pending = new Pending(job);
        if (job.partitions().isEmpty()) {
            pending.done.complete(true);
            return pending.done;
        }
        if (state == State.CLOSED) {
            pending.done.complete(false);
            return pending.done;
        }
        incoming.add(pending);
        client.wakeup();
        return pending.done;
    }

    private void run() {
        while (state == State.RUNNING) {
            try {
                long now = time.milliseconds();
                for (Pending pending; (pending = incoming.poll()) != null; ) {
                    for (TopicPartition tp : pending.remaining) {
                        waiting.add(new Marker(pending, tp));
                    }
                }
                long pollMs = sendDue(now);
                for (ClientResponse response : client.poll(pollMs, now)) {
                    handle(response);
                }
            } catch (RuntimeException e) {
                log.error("Transaction marker sender: unexpected error; continuing", e);
            }
        }
    }

    /** Sends every marker that is due to its leader when the connection is ready; returns how long to poll. */
    private long sendDue(long now) {
        long pollMs = MAX_POLL_MS;
        Map<Integer, List<Marker>> byBroker = new LinkedHashMap<>();
        Map<Integer, Node> nodes = new HashMap<>();
        for (Iterator<Marker> it = waiting.iterator(); it.hasNext(); ) {
            Marker marker = it.next();
            Pending pending = marker.pending;
            if (pending.done.isDone()) {
                it.remove();
                continue;
            }
            if (!pending.job.current().getAsBoolean()) {
                abandon(pending, "this broker no longer coordinates it at epoch " + pending.job.coordinatorEpoch());
                it.remove();
                continue;
            }
            if (marker.notBefore > now) {
                pollMs = Math.min(pollMs, marker.notBefore - now);
                continue;
            }
            Route route = routing.route(marker.tp);
            if (route.deleted()) {
                log.info("Giving up the {} marker of producer {} on {}: the topic was deleted",
                        pending.job.result(), pending.job.producerId(), marker.tp);
                markDone(pending, marker.tp);
                it.remove();
                continue;
            }
            if (route.leader() == null) {
                marker.notBefore = now + RETRY_BACKOFF_MS;
                pollMs = Math.min(pollMs, RETRY_BACKOFF_MS);
                continue;
            }
            Node node = nodes.computeIfAbsent(route.leader().id(), id -> route.leader());
            if (!client.ready(node, now)) {
                pollMs = Math.min(pollMs, Math.max(1, client.connectionDelay(node, now)));
                continue;
            }
            byBroker.computeIfAbsent(node.id(), id -> new ArrayList<>()).add(marker);
            it.remove();
        }
        for (Map.Entry<Integer, List<Marker>> destination : byBroker.entrySet()) {
            send(nodes.get(destination.getKey()), destination.getValue(), now);
        }
        return pollMs;
    }

    private void send(Node node, List<Marker> markers, long now) {
        Map<Pending, List<TopicPartition>> byJob = new LinkedHashMap<>();
        for (Marker marker : markers) {
            byJob.computeIfAbsent(marker.pending, p -> new ArrayList<>()).add(marker.tp);
        }
        List<TxnMarkerEntry> entries = new ArrayList<>();
        for (Map.Entry<Pending, List<TopicPartition>> job : byJob.entrySet()) {
            Job j = job.getKey().job;
            // Transaction version 0: this broker offers no transaction.version feature (KIP-890 part 2 unused).
            entries.add(new TxnMarkerEntry(j.producerId(), j.producerEpoch(), j.coordinatorEpoch(), j.result(),
                    job.getValue(), (short) 0));
        }
        ClientRequest request = client.newClientRequest(node.idString(), new WriteTxnMarkersRequest.Builder(entries),
                now, true, REQUEST_TIMEOUT_MS, null);
        inFlight.put(request.correlationId(), markers);
        client.send(request, now);
    }

    private void handle(ClientResponse response) {
        List<Marker> markers = inFlight.remove(response.requestHeader().correlationId());
        if (markers == null) {
            return;
        }
        long now = time.milliseconds();
        if (response.wasDisconnected() || response.versionMismatch() != null || !response.hasResponse()) {
            log.debug("WriteTxnMarkers to broker {} failed (disconnected: {}, version mismatch: {}); retrying",
                    response.destination(), response.wasDisconnected(), response.versionMismatch());
            retryLater(markers, now);
            return;
        }
        Map<Long, Map<TopicPartition, Errors>> errors =
                ((WriteTxnMarkersResponse) response.responseBody()).errorsByProducerId();
        for (Marker marker : markers) {
            Pending pending = marker.pending;
            if (pending.done.isDone()) {
                continue;
            }
            Errors error = errors.getOrDefault(pending.job.producerId(), Map.of()).get(marker.tp);
            if (error == null) {
                retryLater(List.of(marker), now);
                continue;
            }
            switch (error) {
                case NONE -> markDone(pending, marker.tp);
                case INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED -> abandon(pending, "broker "
                        + response.destination() + " answered " + error + " for " + marker.tp);
                case UNSUPPORTED_FOR_MESSAGE_FORMAT -> markDone(pending, marker.tp);
                default -> {
                    if (error != Errors.NOT_LEADER_OR_FOLLOWER && error != Errors.UNKNOWN_TOPIC_OR_PARTITION
                            && error != Errors.NOT_ENOUGH_REPLICAS && error != Errors.REQUEST_TIMED_OUT) {
                        log.warn("WriteTxnMarkers for producer {} on {} failed with {}; retrying",
                                pending.job.producerId(), marker.tp, error);
                    }
                    retryLater(List.of(marker), now);
                }
            }
        }
    }

    private void retryLater(List<Marker> markers, long now) {
        for (Marker marker : markers) {
            marker.notBefore = now + RETRY_BACKOFF_MS;
            waiting.add(marker);
        }
    }

    private static void markDone(Pending pending, TopicPartition tp) {
        pending.remaining.remove(tp);
        if (pending.remaining.isEmpty()) {
            pending.done.complete(true);
        }
    }

    private static void abandon(Pending pending, String why) {
        if (pending.done.complete(false)) {
            log.info("Abandoning the {} markers of transactional id {} (producer {}, epoch {}): {}",
                    pending.job.result(), pending.job.transactionalId(), pending.job.producerId(),
                    pending.job.producerEpoch(), why);
        }
    }

    /** Stops the thread and the client; jobs left are abandoned. Idempotent. */
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
        for (Marker marker : waiting) {
            marker.pending.done.complete(false);
        }
        for (List<Marker> markers : inFlight.values()) {
            for (Marker marker : markers) {
                marker.pending.done.complete(false);
            }
        }
        for (Pending pending; (pending = incoming.poll()) != null; ) {
            pending.done.complete(false);
        }
        connections.close();
    }
}
