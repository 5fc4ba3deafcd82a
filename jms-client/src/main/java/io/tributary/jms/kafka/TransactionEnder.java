package io.tributary.jms.kafka;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * Decides a prepared Kafka transaction whose producer is gone (the application server crashed after
 * {@code XAResource.prepare}): the standard {@code EndTxn} request with the transaction's transactional id,
 * producer id and epoch, sent to its transaction coordinator, which then writes the markers as for any EndTxn.
 * kafka-clients' producer cannot do this (it would have to {@code initTransactions}, which aborts the transaction),
 * so the request goes out on kafka-clients' {@link NetworkClient}: its ApiVersions handshake, framing and the
 * client's security settings ({@code security.protocol}, SASL, TLS) come with it.
 *
 * <p>The coordinator is the broker that answers {@code DescribeTransactions} for the id; the same call tells
 * whether the transaction is still the prepared one ({@link Outcome}). EndTxn goes out in its pre-KIP-890 form
 * (transactions v1: the epoch is the producer's, not bumped by the coordinator).
 *
 * <p>Threads: one call at a time (callers synchronise); {@link #close()} idempotent.
 */
public final class TransactionEnder implements AutoCloseable {

    /** What became of a prepared transaction. */
    public enum Outcome {
        /** Committed, by this call or before it. */
        COMMITTED,
        /** Aborted, by this call or before it (the coordinator's timeout, a fencing producer). */
        ABORTED
    }

    private static final long CONNECTION_SETUP_TIMEOUT_MS = 10_000;
    private static final long CONNECTION_SETUP_TIMEOUT_MAX_MS = 30_000;

    private final Admin admin;
    private final Map<String, Object> clientConfig;
    private final Duration timeout;
    private final Time time = Time.SYSTEM;
    private Metrics metrics;
    private NetworkClient client;

    /**
     * @param clientConfig an admin client's configuration: bootstrap servers and security settings
     */
    public TransactionEnder(Admin admin, Map<String, Object> clientConfig, Duration timeout) {
        this.admin = admin;
        this.clientConfig = clientConfig;
        this.timeout = timeout;
    }

    /**
     * Commits or aborts the transaction of {@code record} if it is still open with that producer id and epoch, and
     * says what became of it. Retries while the coordinator is busy (markers of a decision in flight) or moving.
     *
     * @throws KafkaException if the cluster gave no answer within the timeout
     */
    public synchronized Outcome end(XaLogRecord record, boolean commit) {
        long deadline = time.milliseconds() + timeout.toMillis();
        while (true) {
            TransactionDescription described = describe(record.transactionalId());
            Outcome settled = settled(record, described);
            if (settled != null) {
                return settled;
            }
            Errors error = sendEndTxn(described.coordinatorId(), record, commit);
            switch (error) {
                case NONE:
                    return commit ? Outcome.COMMITTED : Outcome.ABORTED;
                case PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, INVALID_PRODUCER_ID_MAPPING, INVALID_TXN_STATE:
                    break; // someone else decided: the next describe says what
                case CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE,
                     NOT_COORDINATOR, REQUEST_TIMED_OUT, NETWORK_EXCEPTION:
                    break;
                default:
                    throw new KafkaException("EndTxn(" + (commit ? "commit" : "abort") + ") of transactional id "
                            + record.transactionalId() + " for " + record.xid() + " failed: " + error);
            }
            if (time.milliseconds() > deadline) {
                throw new KafkaException("EndTxn of transactional id " + record.transactionalId() + " for "
                        + record.xid() + " not done within " + timeout + " (last answer " + error + ")");
            }
            time.sleep(100);
        }
    }

    /**
     * Whether the record's transaction is still open, as the coordinator describes it: null if it is (Ongoing with
     * the record's producer id and epoch), else what became of it.
     */
    static Outcome settled(XaLogRecord record, TransactionDescription described) {
        boolean same = described.producerId() == record.producerId()
                && described.producerEpoch() == record.producerEpoch();
        if (!same) {
            // A new epoch or producer: the coordinator aborted ours with a bumped epoch (timeout), or a producer
            // with the id started (initTransactions aborts what is open).
            return Outcome.ABORTED;
        }
        TransactionState state = described.state();
        if (state == TransactionState.ONGOING) {
            return null;
        }
        if (state == TransactionState.PREPARE_COMMIT || state == TransactionState.COMPLETE_COMMIT) {
            return Outcome.COMMITTED;
        }
        return Outcome.ABORTED;
    }

    /** Whether the record's transaction is still open on the coordinator. */
    public boolean inDoubt(XaLogRecord record) {
        return settled(record, describe(record.transactionalId())) == null;
    }

    private TransactionDescription describe(String transactionalId) {
        try {
            return admin.describeTransactions(java.util.List.of(transactionalId)).description(transactionalId)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while describing transactional id " + transactionalId, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new KafkaException("Describing transactional id " + transactionalId + " failed: " + e, e);
        }
    }

    private Errors sendEndTxn(int coordinatorId, XaLogRecord record, boolean commit) {
        Node coordinator;
        try {
            coordinator = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).stream()
                    .filter(node -> node.id() == coordinatorId).findFirst().orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while looking up broker " + coordinatorId, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new KafkaException("Looking up broker " + coordinatorId + " failed: " + e, e);
        }
        if (coordinator == null) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        EndTxnRequest.Builder request = new EndTxnRequest.Builder(new EndTxnRequestData()
                .setTransactionalId(record.transactionalId())
                .setProducerId(record.producerId())
                .setProducerEpoch(record.producerEpoch())
                .setCommitted(commit), false);
        try {
            NetworkClient network = client();
            int requestTimeoutMs = (int) timeout.toMillis();
            if (!NetworkClientUtils.awaitReady(network, coordinator, time, requestTimeoutMs)) {
                throw new SocketTimeoutException("no connection to " + coordinator);
            }
            ClientRequest clientRequest = network.newClientRequest(coordinator.idString(), request,
                    time.milliseconds(), true, requestTimeoutMs, null);
            ClientResponse response = NetworkClientUtils.sendAndReceive(network, clientRequest, time);
            return ((EndTxnResponse) response.responseBody()).error();
        } catch (IOException e) {
            client.close(coordinator.idString());
            return Errors.NETWORK_EXCEPTION;
        }
    }

    private NetworkClient client() {
        if (client == null) {
            LogContext logContext = new LogContext("[tributary-xa-recovery] ");
            AdminClientConfig config = new AdminClientConfig(clientConfig);
            ChannelBuilder channels = ClientUtils.createChannelBuilder(config, time, logContext);
            metrics = new Metrics(time);
            Selector selector = new Selector(NetworkReceive.UNLIMITED, 600_000, metrics, time, "xa-recovery",
                    Map.of(), false, channels, logContext);
            client = new NetworkClient(selector, new ManualMetadataUpdater(), "tributary-xa-recovery", 1, 50, 1_000,
                    Selectable.USE_DEFAULT_BUFFER_SIZE, Selectable.USE_DEFAULT_BUFFER_SIZE,
                    (int) timeout.toMillis(), CONNECTION_SETUP_TIMEOUT_MS, CONNECTION_SETUP_TIMEOUT_MAX_MS, time,
                    true, new ApiVersions(), logContext, MetadataRecoveryStrategy.NONE,
                    BootstrapConfiguration.DISABLED, false);
        }
        return client;
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            metrics.close();
            client = null;
        }
    }
}
