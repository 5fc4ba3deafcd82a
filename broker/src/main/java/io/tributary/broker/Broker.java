package io.tributary.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.tributary.broker.api.ApiDispatcher;
import io.tributary.broker.api.ClusterView;
import io.tributary.broker.cluster.BrokerConfigAdmin;
import io.tributary.broker.cluster.ClusterManager;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.ProducerIdManager;
import io.tributary.broker.cluster.TopicAdmin;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.network.SocketServer;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Tributary broker: wires and starts the layers, and stops them in the reverse order.
 *
 * <p>Start: the cluster layer connects to ZooKeeper (or starts the embedded one) and loads the metadata; the log
 * manager loads every log with its topic's configuration; the replica manager takes the controller's partition states;
 * the group coordinator follows the leadership of {@code __consumer_offsets}; the network binds its listeners; then the broker registers in ZooKeeper (with the real bound ports), becomes live
 * and may become controller. Stop (SIGTERM, Ctrl-C, {@link #close()}): stop accepting and finish in-flight requests,
 * stop the replica manager, flush and close every log (writing the clean-shutdown markers), deregister.
 *
 * <p>Threads: {@link #start} and {@link #close} on the caller's thread; {@code close} is idempotent.
 */
public final class Broker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private enum State { RUNNING, CLOSED }

    private final BrokerConfig config;
    private final ClusterManager cluster;
    private final LogManager logManager;
    private final ReplicaManager replicaManager;
    private final GroupCoordinator groupCoordinator;
    private final SocketServer socketServer;
    private final Map<String, Integer> boundPorts;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);

    private Broker(BrokerConfig config, ClusterManager cluster, LogManager logManager, ReplicaManager replicaManager,
                   GroupCoordinator groupCoordinator, SocketServer socketServer, Map<String, Integer> boundPorts) {
        this.config = config;
        this.cluster = cluster;
        this.logManager = logManager;
        this.replicaManager = replicaManager;
        this.groupCoordinator = groupCoordinator;
        this.socketServer = socketServer;
        this.boundPorts = boundPorts;
    }

    /** Starts a broker; on any failure everything started so far is stopped again and the error is thrown. */
    public static Broker start(BrokerConfig config) {
        ClusterManager cluster = null;
        LogManager logManager = null;
        ReplicaManager replicaManager = null;
        GroupCoordinator groupCoordinator = null;
        SocketServer socketServer = null;
        try {
            cluster = ClusterManager.open(config);
            MetadataSnapshot initial = cluster.metadataCache().snapshot();
            logManager = new LogManager(config.logManagerConfig(), Time.SYSTEM);
            LogConfig defaults = PartitionStateApplier.brokerDefaults(config, initial);
            logManager.startup(topic -> PartitionStateApplier.topicConfig(defaults, initial.topic(topic)));
            replicaManager = new ReplicaManager(config.brokerId, logManager, Time.SYSTEM);
            cluster.metadataCache().addListener(new PartitionStateApplier(config, replicaManager, logManager));
            groupCoordinator = new GroupCoordinator(config.groupConfig, replicaManager, Time.SYSTEM);
            // After the partition states: the coordinator loads partitions the replica manager already leads.
            cluster.metadataCache().addListener(new CoordinatorElections(config.brokerId, replicaManager,
                    groupCoordinator));
            socketServer = new SocketServer(config, new ApiDispatcher(config, clusterView(cluster), replicaManager,
                    groupCoordinator));
            Map<String, Integer> ports = socketServer.start();
            cluster.register(advertised(config, ports));
            log.info("Broker {} started: listening on {}, advertised as {}, log dirs {}, ZooKeeper {}",
                    config.brokerId, ports, advertised(config, ports), config.logDirs, cluster.zookeeperConnect());
            return new Broker(config, cluster, logManager, replicaManager, groupCoordinator, socketServer, ports);
        } catch (IOException e) {
            stopAll(socketServer, groupCoordinator, replicaManager, logManager, cluster);
            throw new UncheckedIOException("cannot start broker " + config.brokerId + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            stopAll(socketServer, groupCoordinator, replicaManager, logManager, cluster);
            throw e;
        }
    }

    /** The advertised listeners, with port 0 replaced by the port the listener really bound. */
    private static List<BrokerConfig.Endpoint> advertised(BrokerConfig config, Map<String, Integer> ports) {
        List<BrokerConfig.Endpoint> endpoints = new ArrayList<>();
        for (BrokerConfig.Endpoint endpoint : config.advertisedListeners) {
            int port = endpoint.port() == 0 ? ports.getOrDefault(endpoint.listenerName(), 0) : endpoint.port();
            String host = endpoint.host().isEmpty() || endpoint.host().equals("0.0.0.0") ? "127.0.0.1"
                    : endpoint.host();
            endpoints.add(new BrokerConfig.Endpoint(endpoint.listenerName(), host, port));
        }
        return endpoints;
    }

    private static ClusterView clusterView(ClusterManager cluster) {
        return new ClusterView() {
            @Override
            public MetadataSnapshot snapshot() {
                return cluster.metadataCache().snapshot();
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

    /** {@code host:port} of the first listener, for clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        BrokerConfig.Endpoint first = config.listeners.get(0);
        String host = first.host().isEmpty() || first.host().equals("0.0.0.0") ? "127.0.0.1" : first.host();
        return host + ":" + boundPort(first.listenerName());
    }

    public BrokerConfig config() {
        return config;
    }

    /** Clean shutdown; idempotent. */
    @Override
    public void close() {
        if (!state.compareAndSet(State.RUNNING, State.CLOSED)) {
            return;
        }
        log.info("Broker {} shutting down", config.brokerId);
        stopAll(socketServer, groupCoordinator, replicaManager, logManager, cluster);
        log.info("Broker {} shut down", config.brokerId);
    }

    private static void stopAll(SocketServer socketServer, GroupCoordinator groupCoordinator,
                                ReplicaManager replicaManager, LogManager logManager, ClusterManager cluster) {
        if (socketServer != null) {
            closeQuietly("network", socketServer::close);
        }
        if (groupCoordinator != null) {
            closeQuietly("group coordinator", groupCoordinator::close);
        }
        if (replicaManager != null) {
            closeQuietly("replica manager", replicaManager::close);
        }
        if (logManager != null) {
            closeQuietly("log manager", logManager::close);
        }
        if (cluster != null) {
            closeQuietly("cluster membership", cluster::close);
        }
    }

    private static void closeQuietly(String what, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            log.error("Stopping the {} failed", what, e);
        }
    }
}
