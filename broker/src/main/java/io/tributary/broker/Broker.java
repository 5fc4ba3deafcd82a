package io.tributary.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.codahale.metrics.Timer;
import io.tributary.broker.api.ApiDispatcher;
import io.tributary.broker.api.ClusterView;
import io.tributary.broker.api.InternalTopics;
import io.tributary.broker.api.ShareServices;
import io.tributary.broker.cluster.BrokerConfigAdmin;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterManager;
import io.tributary.broker.cluster.GroupConfigs;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.OfflineReplicas;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.ProducerIdManager;
import io.tributary.broker.cluster.AclStore;
import io.tributary.broker.cluster.ScramCredentialStore;
import io.tributary.broker.cluster.ClientQuotaStore;
import io.tributary.broker.quota.ByteRateQuotas;
import io.tributary.broker.security.AclAuthorizer;
import io.tributary.broker.cluster.TopicAdmin;
import io.tributary.broker.cluster.TopicConfigs;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.group.ShareGroupContext;
import io.tributary.broker.http.HttpListener;
import io.tributary.broker.http.Readiness;
import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.network.SocketServer;
import io.tributary.broker.replication.InterBrokerChannel;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.ReplicaRegistry;
import io.tributary.broker.replication.ZkIsrChangeWriter;
import io.tributary.broker.share.ShareCoordinator;
import io.tributary.broker.share.ShareCoordinatorConfig;
import io.tributary.broker.share.ShareCoordinatorPersister;
import io.tributary.broker.share.ShareGroupSettings;
import io.tributary.broker.share.SharePartitionManager;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.txn.TransactionCoordinator;
import io.tributary.broker.txn.TransactionMarkerSender;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Tributary broker: wires and starts the layers, and stops them in the reverse order.
 *
 * <p>Start: with {@code metrics.http.listener}, the HTTP listener first ({@code http.HttpListener}: Prometheus
 * scrapes and health probes, not ready until the steps below are done); the cluster layer connects to ZooKeeper (or
 * starts the embedded one) and loads the metadata; the log manager loads every log with its topic's configuration; the
 * replica manager takes the controller's partition states; the group coordinator follows the leadership of
 * {@code __consumer_offsets}, the transaction coordinator (with its marker sender) that of {@code __transaction_state}
 * and the share coordinator that of {@code __share_group_state} (the share-partition leaders reach it through the
 * share state persister); the network binds its listeners; then the broker registers in ZooKeeper (with the real
 * bound ports), becomes live
 * and may become controller. Stop (SIGTERM, Ctrl-C, {@link #close()}): stop accepting and finish in-flight requests,
 * stop the replica manager, flush and close every log (writing the clean-shutdown markers), deregister.
 *
 * <p>A failed log directory ({@link LogManager}) is reported to the controller, which moves the leaderships of the
 * partitions it held ({@code cluster.OfflineReplicaReporter}); once every log directory is offline the broker has
 * nothing left to serve and closes itself (controlled shutdown first, as for SIGTERM), as Kafka stops a broker whose
 * last log directory failed; {@link #stopped()} then completes with {@code true} and {@link BrokerMain} exits with
 * status 1.
 *
 * <p>Threads: {@link #start} and {@link #close} on the caller's thread; {@code close} is idempotent.
 */
public final class Broker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    /** How long each network event loop has to run a no-op task for the liveness probe. */
    private static final Duration LIVENESS_TIMEOUT = Duration.ofSeconds(1);

    private enum State { RUNNING, CLOSED }

    /** A started part of the broker and how to stop it; stopped in the reverse order of starting. */
    private record Part(String name, Runnable stop) {
    }

    private final BrokerConfig config;
    private final ClusterManager cluster;
    private final ReplicaManager replicaManager;
    private final List<Part> parts;
    private final Map<String, Integer> boundPorts;
    /** Null without {@code metrics.http.listener}. */
    private final HttpListener httpListener;
    private final Readiness readiness;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    /** Completed when the broker has stopped: true if it stopped itself because every log directory failed. */
    private final CompletableFuture<Boolean> stopped = new CompletableFuture<>();

    private Broker(BrokerConfig config, ClusterManager cluster, ReplicaManager replicaManager, List<Part> parts,
                   Map<String, Integer> boundPorts, HttpListener httpListener, Readiness readiness) {
        this.httpListener = httpListener;
        this.readiness = readiness;
        this.config = config;
        this.cluster = cluster;
        this.replicaManager = replicaManager;
        this.parts = parts;
        this.boundPorts = boundPorts;
    }

    /** Starts a broker; on any failure everything started so far is stopped again and the error is thrown. */
    public static Broker start(BrokerConfig config) {
        List<Part> parts = new ArrayList<>();
        try {
            // First, so that it is closed last: every bean is unregistered once the parts that update it stopped.
            BrokerMetrics metrics = BrokerMetrics.jmx();
            parts.add(new Part("metrics", metrics::close));
            // Next, so that probes see the start-up (not ready while the logs load) and scrapes see the shutdown.
            Readiness readiness = new Readiness();
            HttpListener http = null;
            if (config.metricsHttpListener.isPresent()) {
                InetSocketAddress address = config.metricsHttpListener.get();
                http = HttpListener.start(address.isUnresolved()
                        ? new InetSocketAddress(address.getHostString(), address.getPort()) : address,
                        metrics, readiness);
                parts.add(new Part("HTTP listener", http::close));
            }
            ClusterManager cluster = ClusterManager.open(config);
            parts.add(new Part("cluster membership", cluster::close));
            MetadataSnapshot initial = cluster.metadataCache().snapshot();
            cluster.registerMetrics(metrics);
            Timer flushes = metrics.timer("kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs");
            LogManager logManager = new LogManager(config.logManagerConfig(), Time.SYSTEM,
                    nanos -> flushes.update(nanos, TimeUnit.NANOSECONDS));
            parts.add(new Part("log manager", logManager::close));
            LogConfig defaults = TopicConfigs.brokerDefaults(config, initial);
            logManager.startup(topic -> TopicConfigs.topicConfig(defaults, initial.topic(topic)));
            readiness.logsLoaded();
            ZkIsrChangeWriter isrWriter = new ZkIsrChangeWriter(config.brokerId, cluster.partitionStateStore());
            parts.add(new Part("ISR change writer", isrWriter::close));
            ReplicaManager replicaManager = new ReplicaManager(config.brokerId, logManager,
                    config.replicationConfig(), registry(cluster), isrWriter, Time.SYSTEM, metrics);
            parts.add(new Part("replica manager", replicaManager::close));
            cluster.metadataCache().addListener(new PartitionStateApplier(config, replicaManager, logManager));
            GroupCoordinator groupCoordinator = new GroupCoordinator(config.groupConfig,
                    shareGroupContext(config, cluster), replicaManager, Time.SYSTEM);
            parts.add(new Part("group coordinator", groupCoordinator::close));
            groupCoordinator.registerMetrics(metrics);
            if (http != null) {
                http.consumerLag(groupCoordinator::committedOffsets, tp -> highWatermark(replicaManager, tp));
            }
            TransactionMarkerSender markerSender = new TransactionMarkerSender(config.brokerId,
                    TransactionMarkerSender.fromMetadata(() -> cluster.metadataCache().snapshot()),
                    config.security.interBroker(), Time.SYSTEM);
            parts.add(new Part("transaction marker sender", markerSender::close));
            TransactionCoordinator transactionCoordinator = TransactionCoordinator.create(config.transactionConfig,
                    replicaManager, markerSender, () -> cluster.producerIdManager().nextProducerId(), Time.SYSTEM);
            parts.add(new Part("transaction coordinator", transactionCoordinator::close));
            ShareCoordinator shareCoordinator = ShareCoordinator.create(config.shareCoordinatorConfig,
                    replicaManager, Time.SYSTEM);
            parts.add(new Part("share coordinator", shareCoordinator::close));
            // After the partition states: the coordinators load partitions the replica manager already leads.
            CoordinatorElections coordinatorElections = new CoordinatorElections(config.brokerId, replicaManager,
                    groupCoordinator, transactionCoordinator, shareCoordinator);
            cluster.metadataCache().addListener(coordinatorElections);
            ClusterView clusterView = clusterView(cluster);
            // The share state persister's requests, and the ListOffsets of DescribeShareGroupOffsets' lag.
            InterBrokerChannel shareStateChannel = new InterBrokerChannel(config.brokerId, "share-state-channel",
                    config.security.interBroker(), Time.SYSTEM);
            parts.add(new Part("share state channel", shareStateChannel::close));
            // Before the share-partition manager, which writes through it, so that it is stopped after it.
            ShareCoordinatorPersister sharePersister = new ShareCoordinatorPersister(config.brokerId,
                    ShareCoordinatorPersister.fromMetadata(() -> cluster.metadataCache().snapshot(),
                            () -> InternalTopics.create(clusterView, config, ShareCoordinatorConfig.STATE_TOPIC)),
                    shareCoordinator, shareStateChannel, Time.SYSTEM);
            parts.add(new Part("share state persister", sharePersister::close));
            ShareGroupSettings.Source shareSettings = cluster.groupConfigs();
            SharePartitionManager sharePartitions = new SharePartitionManager(replicaManager, shareSettings,
                    config.shareConfig, sharePersister, Time.SYSTEM);
            parts.add(new Part("share-partition manager", sharePartitions::close));
            if (http != null) {
                http.shareGroupLag(sharePartitions::startOffsets, tp -> highWatermark(replicaManager, tp));
            }
            ByteRateQuotas quotas = new ByteRateQuotas(config.quotaConfig, cluster.clientQuotas()::quotas,
                    Time.SYSTEM, metrics);
            parts.add(new Part("client quotas", quotas::close));
            SocketServer socketServer = new SocketServer(config, new ApiDispatcher(config, clusterView,
                    logManager, replicaManager, groupCoordinator, transactionCoordinator, new ShareServices(
                            sharePartitions, shareSettings, shareCoordinator, sharePersister, shareStateChannel),
                    quotas),
                    cluster.scramCredentials(), metrics);
            Map<String, Integer> ports = socketServer.start();
            parts.add(new Part("network", socketServer::close));
            if (http != null) {
                http.eventLoopsAlive(() -> socketServer.eventLoopsAlive(LIVENESS_TIMEOUT));
            }
            cluster.reportOfflineReplicas(() -> new OfflineReplicas(
                    logManager.offlineDirs().stream().map(Object::toString).sorted().toList(),
                    logManager.lostPartitions()));
            cluster.register(advertised(config, ports), epoch -> {
                replicaManager.onBrokerEpoch(epoch);
                coordinatorElections.refresh(cluster.metadataCache().snapshot());
                cluster.refreshOfflineReplicas();
            });
            readiness.registration(() -> cluster.brokerEpoch() >= 0);
            readiness.offlineLedPartitions(() -> offlineLedPartitions(config.brokerId,
                    cluster.metadataCache().snapshot(), replicaManager));
            Broker broker = new Broker(config, cluster, replicaManager, List.copyOf(parts), ports, http, readiness);
            logManager.addOfflineDirListener((dir, lost) -> {
                cluster.refreshOfflineReplicas();
                if (logManager.allDirsOffline()) {
                    broker.stopAfterLosingEveryLogDir();
                }
            });
            if (logManager.allDirsOffline()) {
                broker.stopAfterLosingEveryLogDir(); // the last one failed while the broker was starting
            }
            log.info("Broker {} started: listening on {}, advertised as {}, log dirs {}, ZooKeeper {}",
                    config.brokerId, ports, advertised(config, ports), config.logDirs, cluster.zookeeperConnect());
            return broker;
        } catch (IOException e) {
            stopAll(parts);
            throw new UncheckedIOException("cannot start broker " + config.brokerId + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            stopAll(parts);
            throw e;
        }
    }

    /** A hosted partition's high watermark (a follower's as last learnt from its leader); empty if not hosted. */
    private static OptionalLong highWatermark(ReplicaManager replicaManager, TopicPartition tp) {
        return replicaManager.partition(tp).map(partition -> OptionalLong.of(partition.log().highWatermark()))
                .orElse(OptionalLong.empty());
    }

    /**
     * The partitions the metadata has this broker lead that it cannot serve: offline here (a failed log directory)
     * or not taken up by the replica manager yet. For the readiness probe.
     */
    static List<TopicPartition> offlineLedPartitions(int brokerId, MetadataSnapshot snapshot,
                                                     ReplicaManager replicaManager) {
        List<TopicPartition> offline = new ArrayList<>();
        for (TopicMetadata topic : snapshot.topics().values()) {
            for (PartitionMetadata partition : topic.partitions().values()) {
                TopicPartition tp = partition.topicPartition();
                if (partition.leader() == brokerId
                        && (replicaManager.isOffline(tp) || replicaManager.partition(tp).isEmpty())) {
                    offline.add(tp);
                }
            }
        }
        return offline;
    }

    /** What replication reads of the other brokers: the metadata cache's current snapshot. */
    private static ReplicaRegistry registry(ClusterManager cluster) {
        return new ReplicaRegistry() {
            @Override
            public Optional<BrokerInfo> broker(int brokerId) {
                return cluster.metadataCache().snapshot().broker(brokerId);
            }

            @Override
            public boolean isEligible(int brokerId) {
                return cluster.metadataCache().snapshot().isEligible(brokerId);
            }
        };
    }

    /**
     * The advertised listeners, with port 0 replaced by the port the listener really bound, the inter-broker
     * listener first: the registration's legacy {@code host} and {@code port}, which the other brokers' replica
     * fetchers and inter-broker clients connect to, are taken from the first.
     */
    private static List<BrokerConfig.Endpoint> advertised(BrokerConfig config, Map<String, Integer> ports) {
        List<BrokerConfig.Endpoint> endpoints = new ArrayList<>();
        String interBroker = config.security.interBrokerListenerName();
        for (BrokerConfig.Endpoint endpoint : config.advertisedListeners) {
            int port = endpoint.port() == 0 ? ports.getOrDefault(endpoint.listenerName(), 0) : endpoint.port();
            String host = endpoint.host().isEmpty() || endpoint.host().equals("0.0.0.0") ? "127.0.0.1"
                    : endpoint.host();
            BrokerConfig.Endpoint resolved = new BrokerConfig.Endpoint(endpoint.listenerName(), host, port);
            if (endpoint.listenerName().equalsIgnoreCase(interBroker)) {
                endpoints.add(0, resolved);
            } else {
                endpoints.add(resolved);
            }
        }
        return endpoints;
    }

    /** The share-group coordinator's view of topics (the metadata cache) and of group configurations. */
    private static ShareGroupContext shareGroupContext(BrokerConfig config, ClusterManager cluster) {
        GroupConfigs groupConfigs = cluster.groupConfigs();
        return new ShareGroupContext(config.shareConfig,
                name -> cluster.metadataCache().snapshot().topic(name)
                        .map(topic -> new ShareGroupContext.TopicShape(topic.topicId(), topic.partitions().size())),
                new ShareGroupContext.Timeouts() {
                    @Override
                    public int sessionTimeoutMs(String groupId) {
                        return groupConfigs.effective(groupId).shareSessionTimeoutMs();
                    }

                    @Override
                    public int heartbeatIntervalMs(String groupId) {
                        return groupConfigs.effective(groupId).shareHeartbeatIntervalMs();
                    }
                });
    }

    private static ClusterView clusterView(ClusterManager cluster) {
        return new ClusterView() {
            @Override
            public MetadataSnapshot snapshot() {
                return cluster.metadataCache().snapshot();
            }

            @Override
            public CompletableFuture<Map<TopicPartition, ApiError>> electLeaders(boolean unclean,
                    Optional<Set<TopicPartition>> partitions) {
                return cluster.electLeaders(unclean, partitions);
            }

            @Override
            public CompletableFuture<Map<TopicPartition, ApiError>> alterPartitionReassignments(
                    Map<TopicPartition, Optional<List<Integer>>> targets) {
                return cluster.alterPartitionReassignments(targets);
            }

            @Override
            public <T> CompletableFuture<T> adminWork(String what, java.util.function.Supplier<T> work) {
                return cluster.adminWork().submit(what, work);
            }

            @Override
            public int localBrokerId() {
                return cluster.brokerId();
            }

            @Override
            public boolean isRegistered() {
                return cluster.brokerEpoch() >= 0;
            }

            @Override
            public TopicAdmin topicAdmin() {
                return cluster.topicAdmin();
            }

            @Override
            public ProducerIdManager producerIds() {
                return cluster.producerIdManager();
            }

            @Override
            public String clusterId() {
                return cluster.clusterId();
            }

            @Override
            public BrokerConfigAdmin brokerConfigs() {
                return cluster.brokerConfigAdmin();
            }

            @Override
            public ScramCredentialStore scramCredentials() {
                return cluster.scramCredentials();
            }

            @Override
            public ClientQuotaStore clientQuotas() {
                return cluster.clientQuotas();
            }

            @Override
            public GroupConfigs groupConfigs() {
                return cluster.groupConfigs();
            }

            @Override
            public Optional<AclAuthorizer> authorizer() {
                return cluster.authorizer();
            }

            @Override
            public Optional<AclStore> aclStore() {
                return cluster.aclStore();
            }
        };
    }

    /** The port a listener bound (useful with port 0). */
    public int boundPort(String listenerName) {
        Integer port = boundPorts.get(listenerName);
        if (port == null) {
            throw new IllegalArgumentException("no listener named " + listenerName + "; listeners: "
                    + boundPorts.keySet());
        }
        return port;
    }

    /** The port the HTTP listener bound ({@code metrics.http.listener}), if there is one. */
    public OptionalInt httpPort() {
        return httpListener == null ? OptionalInt.empty() : OptionalInt.of(httpListener.port());
    }

    /** {@code host:port} of the first listener, for clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        BrokerConfig.Endpoint first = config.listeners.get(0);
        String host = first.host().isEmpty() || first.host().equals("0.0.0.0") ? "127.0.0.1" : first.host();
        return host + ":" + boundPort(first.listenerName());
    }

    public BrokerConfig config() {
        return config;
    }

    /**
     * The effective share settings of each share group (its group configuration over the broker's
     * {@code group.share.*} defaults), for share-partition leaders; a map lookup, safe on request-handler threads.
     */
    public ShareGroupSettings.Source shareGroupSettings() {
        return cluster.groupConfigs();
    }

    /**
     * Every log directory is offline: closes the broker on a thread of its own (the caller may be an I/O thread
     * holding a log's lock, which the shutdown must not wait behind).
     */
    private void stopAfterLosingEveryLogDir() {
        if (state.get() != State.RUNNING) {
            return;
        }
        Thread stopper = new Thread(() -> {
            log.error("Broker {}: every log directory ({}) is offline; shutting down", config.brokerId,
                    config.logDirs);
            close(true);
        }, "tributary-log-dirs-offline");
        stopper.start();
    }

    /**
     * Completes once the broker has stopped: {@code true} if it stopped itself because every log directory failed
     * (the process should exit with an error then), {@code false} after {@link #close()}.
     */
    public CompletableFuture<Boolean> stopped() {
        return stopped;
    }

    /**
     * Clean shutdown; idempotent. With {@code controlled.shutdown.enable} (the default) the broker first asks the
     * controller to move its leaderships to other in-sync replicas and waits for that, so that clients switch to
     * the new leaders (told by the leader hints of their next request) instead of waiting for this broker to vanish.
     */
    @Override
    public void close() {
        close(false);
    }

    private void close(boolean everyLogDirFailed) {
        if (!state.compareAndSet(State.RUNNING, State.CLOSED)) {
            return;
        }
        log.info("Broker {} shutting down", config.brokerId);
        readiness.stopping();
        cluster.leave();
        if (config.controlledShutdownEnable) {
            try {
                new ControlledShutdown(config, cluster).run();
            } catch (RuntimeException e) {
                log.error("Controlled shutdown of broker {} failed; stopping anyway", config.brokerId, e);
            }
        }
        stopAll(new ArrayList<>(parts));
        log.info("Broker {} shut down", config.brokerId);
        stopped.complete(everyLogDirFailed);
    }

    private static void stopAll(List<Part> started) {
        for (int i = started.size() - 1; i >= 0; i--) {
            Part part = started.get(i);
            try {
                part.stop().run();
            } catch (RuntimeException e) {
                log.error("Stopping the {} failed", part.name(), e);
            }
        }
    }
}
