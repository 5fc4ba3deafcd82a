package io.tributary.broker.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.BrokerConfig.Endpoint;
import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.security.AclAuthorizer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.utils.Time;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's part in the cluster, as the {@code Broker} starts and stops it: the ZooKeeper connection (or, without
 * {@code zookeeper.connect}, an embedded ZooKeeper), the metadata cache, this broker's registration, the controller
 * election, and the services request handlers use ({@link TopicAdmin}, {@link ProducerIdManager},
 * {@link PartitionStateStore}).
 *
 * <p>Lifecycle: {@link #open} connects and loads the metadata, so that a restarted broker knows every topic before it
 * serves; {@link #register} (once the network has bound its ports and the advertised addresses are known) makes the
 * broker live and lets it run for controller; {@link #close()} resigns as controller, deregisters and disconnects,
 * in that order. Accessors may be called from any thread; open, register and close by the broker's lifecycle thread.
 */
public final class ClusterManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterManager.class);

    /** Where the embedded ZooKeeper of the development default listens: ZooKeeper's well-known port. */
    public static final InetSocketAddress EMBEDDED_ZOOKEEPER_ADDRESS = new InetSocketAddress("127.0.0.1", 2181);

    private enum State { OPEN, REGISTERED, CLOSED }

    private final BrokerConfig config;
    /** The cluster's id, created by the first broker of the cluster under {@code /cluster/id}. */
    private final String clusterId;
    private final Time time;
    private final EmbeddedZooKeeper embedded;
    private final ZkConnection connection;
    private final MetadataCache metadata;
    private final TopicStore topicStore;
    private final PartitionStateStore stateStore;
    private final TopicAdmin topicAdmin;
    private final ProducerIdManager producerIds;
    private final BrokerConfigAdmin brokerConfigAdmin;
    private final GroupConfigs groupConfigs;
    private final ScramCredentialStore scramCredentials;
    private final ClientQuotaStore clientQuotas;
    /** Null when {@code authorizer.class.name} is not set. */
    private final AclAuthorizer authorizer;
    private final AclStore aclStore;
    private final AdminWork adminWork;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    /** Set by {@link #register} on the lifecycle thread; read by any. */
    private volatile BrokerRegistration registration;
    private volatile ControllerElection election;
    private volatile PeerFailureDetector failureDetector;
    private volatile OfflineReplicaReporter offlineReplicaReporter;

    private ClusterManager(BrokerConfig config, Time time, EmbeddedZooKeeper embedded, ZkConnection connection,
                           String clusterId) {
        this.config = config;
        this.clusterId = clusterId;
        this.time = time;
        this.embedded = embedded;
        this.connection = connection;
        this.metadata = new MetadataCache(connection, config.brokerId);
        this.topicStore = new TopicStore(connection);
        this.stateStore = new PartitionStateStore(connection);
        this.topicAdmin = new TopicAdmin(config, topicStore, metadata, new ReplicaAssigner(new SecureRandom()));
        this.producerIds = new ProducerIdManager(connection, config.brokerId);
        this.brokerConfigAdmin = new BrokerConfigAdmin(topicStore);
        this.groupConfigs = new GroupConfigs(connection.curator(), topicStore, config.shareConfig);
        this.scramCredentials = new ScramCredentialStore(connection.curator(), topicStore);
        this.clientQuotas = new ClientQuotaStore(connection.curator(), topicStore);
        this.authorizer = config.authorizer.enabled() ? new AclAuthorizer(config.authorizer, time) : null;
        this.aclStore = authorizer == null ? null : new AclStore(connection.curator(), authorizer);
        this.adminWork = new AdminWork(connection, config.brokerId);
    }

    /** Where administrative requests do their ZooKeeper work: off the request-handler threads. */
    public AdminWork adminWork() {
        return adminWork;
    }

    /**
     * Connects to {@code zookeeper.connect}, or starts the embedded ZooKeeper on 127.0.0.1:2181 when it
     * is not set, and loads the cluster metadata.
     *
     * @throws ClusterException if ZooKeeper cannot be reached or started
     */
    public static ClusterManager open(BrokerConfig config) {
        return open(config, Time.SYSTEM, EMBEDDED_ZOOKEEPER_ADDRESS);
    }

    /** As {@link #open(BrokerConfig)}, with the embedded ZooKeeper (if one is needed) on {@code embeddedAddress}. */
    static ClusterManager open(BrokerConfig config, Time time, InetSocketAddress embeddedAddress) {
        EmbeddedZooKeeper embedded = null;
        ZkConnection connection = null;
        ClusterManager manager = null;
        try {
            String connect = config.zookeeperConnect;
            if (connect == null || connect.isBlank()) {
                Path dataDir = embeddedDataDir(config);
                embedded = EmbeddedZooKeeper.start(dataDir, embeddedAddress);
                connect = embedded.connectString();
                log.warn("zookeeper.connect is not set: started an embedded ZooKeeper on {} with its data in {} "
                        + "-- a development default; point zookeeper.connect at a ZooKeeper ensemble in production",
                        connect, dataDir);
            }
            connection = ZkConnection.open(connect, config.zookeeperSessionTimeoutMs,
                    config.zookeeperConnectionTimeoutMs,
                    embedded != null ? ZkClientSecurity.NONE : config.zookeeperSecurity);
            createPersistentPaths(connection.curator());
            String clusterId = ensureClusterId(connection.curator());
            manager = new ClusterManager(config, time, embedded, connection, clusterId);
            manager.metadata.start(config.zookeeperConnectionTimeoutMs);
            manager.groupConfigs.start(config.zookeeperConnectionTimeoutMs);
            manager.scramCredentials.start(config.zookeeperConnectionTimeoutMs);
            manager.clientQuotas.start(config.zookeeperConnectionTimeoutMs);
            if (manager.aclStore != null) {
                manager.aclStore.start(config.zookeeperConnectionTimeoutMs);
            }
            return manager;
        } catch (IOException e) {
            closeQuietly(manager, connection, embedded);
            throw new ClusterException("cannot start the embedded ZooKeeper: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(manager, connection, embedded);
            throw e;
        }
    }

    /** {@code <parent of the first log dir>/zookeeper}: beside the logs, inside the broker's data directory. */
    static Path embeddedDataDir(BrokerConfig config) {
        Path firstLogDir = config.logDirs.get(0);
        Path parent = firstLogDir.getParent();
        return (parent != null ? parent : firstLogDir).resolve("zookeeper");
    }

    /** Reads {@code /cluster/id}, or creates it with a new random id if this is the cluster's first broker. */
    private static String ensureClusterId(CuratorFramework zk) {
        try {
            try {
                zk.create().creatingParentsIfNeeded().forPath(ZkPaths.CLUSTER_ID,
                        ZkJson.clusterId(org.apache.kafka.common.Uuid.randomUuid().toString()));
            } catch (KeeperException.NodeExistsException e) {
                // Another broker, or an earlier run, created it: use that one.
            }
            return ZkJson.parseClusterId(ZkPaths.CLUSTER_ID, zk.getData().forPath(ZkPaths.CLUSTER_ID));
        } catch (ClusterException e) {
            throw e;
        } catch (Exception e) {
            throw new ClusterException("cannot read or create " + ZkPaths.CLUSTER_ID + ": " + e.getMessage(), e);
        }
    }

    /** Group configurations ({@code /config/groups}), and the share settings of each group. */
    public GroupConfigs groupConfigs() {
        return groupConfigs;
    }

    /** SCRAM credentials ({@code /config/users}). */
    public ScramCredentialStore scramCredentials() {
        return scramCredentials;
    }

    /** Client quotas ({@code /config/users}, {@code /config/clients}). */
    public ClientQuotaStore clientQuotas() {
        return clientQuotas;
    }

    /** The authorizer, holding every ACL; empty when authorization is off. */
    public Optional<AclAuthorizer> authorizer() {
        return Optional.ofNullable(authorizer);
    }

    /** The ACLs in ZooKeeper; empty when authorization is off. */
    public Optional<AclStore> aclStore() {
        return Optional.ofNullable(aclStore);
    }

    /** Dynamic broker configuration ({@code /config/brokers}). */
    public BrokerConfigAdmin brokerConfigAdmin() {
        return brokerConfigAdmin;
    }

    /** The cluster id (Metadata, DescribeCluster). */
    public String clusterId() {
        return clusterId;
    }

    private static void createPersistentPaths(CuratorFramework zk) {
        for (String path : ZkPaths.PERSISTENT_PATHS) {
            try {
                zk.create().creatingParentsIfNeeded().forPath(path);
            } catch (KeeperException.NodeExistsException e) {
                // created by an earlier start or another broker
            } catch (Exception e) {
                throw ClusterException.wrap("creating " + path, e);
            }
        }
    }

    /**
     * Registers this broker under {@code /brokers/ids/<id>} with the addresses clients should use, joins the
     * controller election, and waits (up to the connection timeout) until the metadata shows the broker live. An
     * empty host (listening on every interface) is advertised as the local host's canonical name, as Kafka does.
     *
     * @throws BrokerIdInUseException if a live broker already has this id
     */
    public void register(List<Endpoint> advertisedEndpoints, BrokerEpochListener epochListener) {
        if (!state.compareAndSet(State.OPEN, State.REGISTERED)) {
            throw new IllegalStateException("broker " + config.brokerId + " cluster membership is " + state.get());
        }
        BrokerInfo broker = BrokerInfo.of(config.brokerId, resolve(advertisedEndpoints), config.rack);
        registration = new BrokerRegistration(connection, broker,
                endpoint -> config.security.protocolOf(endpoint.listenerName()).name, time, epochListener);
        registration.register();
        election = new ControllerElection(connection, config.brokerId, time,
                (fence, resign) -> new Controller(config, connection, metadata, topicStore, stateStore, fence,
                        resign).start());
        election.start();
        if (config.brokerFailureDetectionEnable) {
            try {
                failureDetector = new PeerFailureDetector(config.brokerId, connection, metadata);
                failureDetector.start();
            } catch (IOException e) {
                log.warn("Broker {} cannot watch its peers ({}); dead brokers are found by their ZooKeeper session "
                        + "expiry only", config.brokerId, e.toString());
            }
        }
        try {
            metadata.when(snapshot -> snapshot.isLive(config.brokerId))
                    .get(config.zookeeperConnectionTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Broker {} registered but its metadata does not show it yet: {}", config.brokerId, e.toString());
        }
    }

    private static List<Endpoint> resolve(List<Endpoint> endpoints) {
        List<Endpoint> resolved = new ArrayList<>(endpoints.size());
        for (Endpoint e : endpoints) {
            if (e.host() == null || e.host().isEmpty()) {
                try {
                    resolved.add(new Endpoint(e.listenerName(), InetAddress.getLocalHost().getCanonicalHostName(),
                            e.port()));
                } catch (UnknownHostException unknown) {
                    throw new ClusterException("cannot resolve the local host name to advertise for " + e, unknown);
                }
            } else {
                resolved.add(e);
            }
        }
        return resolved;
    }

    public int brokerId() {
        return config.brokerId;
    }

    public MetadataCache metadataCache() {
        return metadata;
    }

    public TopicAdmin topicAdmin() {
        return topicAdmin;
    }

    public ProducerIdManager producerIdManager() {
        return producerIds;
    }

    public PartitionStateStore partitionStateStore() {
        return stateStore;
    }

    /** This broker's epoch (its registration's creation zxid), or {@link BrokerInfo#NO_EPOCH} while unregistered. */
    public long brokerEpoch() {
        BrokerRegistration current = registration;
        return current == null ? BrokerInfo.NO_EPOCH : current.epoch();
    }

    /**
     * Publishes Kafka's controller gauges ({@code kafka.controller:type=KafkaController}: {@code ActiveControllerCount},
     * 1 on the active controller; on the controller, {@code OfflinePartitionsCount}, the partitions without a leader,
     * and {@code GlobalTopicCount}, {@code GlobalPartitionCount}; 0 elsewhere)
     * and, as Kafka's ZooKeeper mode, the ZooKeeper client's {@code kafka.server:type=SessionExpireListener,
     * name=SessionState} and {@code kafka.server:type=ZooKeeperClientMetrics,name=ZooKeeperRequestLatencyMs}.
     */
    public void registerMetrics(BrokerMetrics metrics) {
        metrics.gauge("kafka.controller:type=KafkaController,name=ActiveControllerCount",
                () -> isController() ? 1 : 0);
        metrics.gauge("kafka.controller:type=KafkaController,name=OfflinePartitionsCount", () -> {
            if (!isController()) {
                return 0;
            }
            int offline = 0;
            for (TopicMetadata topic : metadata.snapshot().topics().values()) {
                for (PartitionMetadata partition : topic.partitions().values()) {
                    if (!partition.hasLeader()) {
                        offline++;
                    }
                }
            }
            return offline;
        });
        metrics.gauge("kafka.controller:type=KafkaController,name=GlobalTopicCount",
                () -> isController() ? metadata.snapshot().topics().size() : 0);
        metrics.gauge("kafka.controller:type=KafkaController,name=GlobalPartitionCount", () -> {
            if (!isController()) {
                return 0;
            }
            int partitions = 0;
            for (TopicMetadata topic : metadata.snapshot().topics().values()) {
                partitions += topic.partitions().size();
            }
            return partitions;
        });
        connection.registerMetrics(metrics);
    }

    /** Whether this broker is the controller now. */
    public boolean isController() {
        ControllerElection current = election;
        return current != null && current.isController();
    }

    /** The epoch of this broker's term as controller, or -1 when it is not the controller. */
    public int controllerEpoch() {
        ControllerElection current = election;
        return current == null ? -1 : current.controllerEpoch();
    }

    /**
     * ElectLeaders, carried out by this broker's controller (see {@link Controller#electLeaders}).
     *
     * @throws NotControllerException if this broker is not the controller
     */
    public CompletableFuture<Map<TopicPartition, ApiError>> electLeaders(boolean unclean,
                                                                       Optional<Set<TopicPartition>> partitions) {
        return activeController().electLeaders(unclean, partitions);
    }

    /**
     * AlterPartitionReassignments, carried out by this broker's controller (see {@link Controller#alterReassignments}).
     *
     * @throws NotControllerException if this broker is not the controller
     */
    public CompletableFuture<Map<TopicPartition, ApiError>> alterPartitionReassignments(
            Map<TopicPartition, Optional<List<Integer>>> targets) {
        return activeController().alterReassignments(targets);
    }

    private Controller activeController() {
        ControllerElection current = election;
        return (current == null ? Optional.<Controller>empty() : current.activeController())
                .orElseThrow(() -> new NotControllerException("Broker " + config.brokerId + " is not the controller "
                        + "(the controller is " + metadata.snapshot().controllerId() + ")"));
    }

    /**
     * Starts reporting this broker's replicas lost with failed log directories to the controller
     * ({@code /brokers/offline_replicas/<id>}, see {@link OfflineReplicaReporter}); {@code source} gives the current
     * set. Call {@link #refreshOfflineReplicas()} whenever it or the broker epoch changes. Once, before or after
     * {@link #register}.
     */
    public void reportOfflineReplicas(Supplier<OfflineReplicas> source) {
        if (offlineReplicaReporter != null) {
            throw new IllegalStateException("broker " + config.brokerId + " already reports its offline replicas");
        }
        offlineReplicaReporter = new OfflineReplicaReporter(connection, config.brokerId, source, this::brokerEpoch)
                .start();
    }

    /** The lost replicas or the broker epoch changed: the report is written again soon. */
    public void refreshOfflineReplicas() {
        OfflineReplicaReporter reporter = offlineReplicaReporter;
        if (reporter != null) {
            reporter.refresh();
        }
    }

    /** The ZooKeeper connect string in use: {@code zookeeper.connect}, or the embedded ZooKeeper's. */
    public String zookeeperConnect() {
        return connection.connectString();
    }

    /**
     * The broker is shutting down: a registration lost from now on (the peers delete it as soon as this broker's
     * listener closes) is not made again.
     */
    public void leave() {
        BrokerRegistration current = registration;
        if (current != null) {
            current.leave();
        }
    }

    /**
     * Starts a controlled shutdown: from now on a lost registration is not made again, and the ephemeral marker
     * {@code /brokers/shutting_down/<id>} tells the controller to move this broker's leaderships to other in-sync
     * replicas and take it out of every ISR.
     *
     * @return false if the broker is not registered (nothing to move) or the marker could not be written
     */
    public boolean announceShutdown() {
        BrokerRegistration current = registration;
        if (current == null) {
            return false;
        }
        leave();
        long epoch = current.epoch();
        if (epoch < 0) {
            return false;
        }
        String path = ZkPaths.shuttingDown(config.brokerId);
        CuratorFramework zk = connection.curator();
        try {
            try {
                zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(path, ZkJson.shutdownMarker(epoch));
            } catch (KeeperException.NodeExistsException e) {
                // A marker of an earlier run whose session has not expired yet: replace it.
                zk.delete().forPath(path);
                zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(path, ZkJson.shutdownMarker(epoch));
            }
            return true;
        } catch (Exception e) {
            log.warn("Broker {} could not announce its controlled shutdown at {}: {}", config.brokerId, path,
                    e.toString());
            return false;
        }
    }

    /** Resigns as controller, deregisters, disconnects and stops the embedded ZooKeeper; idempotent. */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.CLOSED) {
            return;
        }
        if (failureDetector != null) {
            failureDetector.close();
        }
        if (offlineReplicaReporter != null) {
            offlineReplicaReporter.close();
        }
        if (registration != null) {
            registration.leave();
        }
        if (election != null) {
            election.close();
        }
        if (registration != null) {
            registration.close();
        }
        closeQuietly(this, connection, embedded);
        log.info("Broker {} left the cluster", config.brokerId);
    }

    private static void closeQuietly(ClusterManager manager, ZkConnection connection, EmbeddedZooKeeper embedded) {
        if (manager != null) {
            manager.adminWork.close();
            manager.metadata.close();
            manager.groupConfigs.close();
            manager.scramCredentials.close();
            manager.clientQuotas.close();
            if (manager.aclStore != null) {
                manager.aclStore.close();
            }
        }
        if (connection != null) {
            connection.close();
        }
        if (embedded != null) {
            embedded.close();
        }
    }

    /** The connection every part of this manager uses. */
    ZkConnection connection() {
        return connection;
    }
}
