package io.tributary.broker.cluster;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.tributary.broker.BrokerConfig.Endpoint;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.kafka.common.utils.Time;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's ephemeral registration {@code /brokers/ids/<id>} (JSON in {@link ZkJson}): the broker is live for
 * the cluster exactly while the znode exists.
 *
 * <p>The znode belongs to a ZooKeeper session and vanishes when the session expires. After every reconnection the
 * registration is checked and, when it went with an expired session, created again in the new one. Curator's
 * {@code PersistentNode} is not used because it adopts (and overwrites) an existing znode of another session, which
 * would hide a second broker running with the same id.
 *
 * <p>The broker epoch is the registration's creation zxid ({@link BrokerInfo#epoch()}): every run, and every
 * re-registration, has a larger one. {@link BrokerEpochListener} hears it whenever it changes: the new epoch after a
 * (re-)registration, {@link BrokerInfo#NO_EPOCH} the moment the registration is known lost (the session expired, or
 * another broker deleted the znode of a broker it found dead: see {@link PeerFailureDetector}). A broker without an
 * epoch must not act as leader: its leaderships may be given to others at any moment.
 *
 * <p>A znode of another session is waited for, up to 1.5 session timeouts (ZooKeeper expires sessions in ticks of at
 * most half a session timeout, so a dead session's znode is gone by then): after a crash the previous run's session
 * is still alive for a while. Beyond that it belongs to a live broker with the same id, and {@link #register()}
 * fails with {@link BrokerIdInUseException}.
 *
 * <p>Lifecycle NEW → REGISTERED → CLOSED; {@link #register()} runs on the caller's thread, re-registrations on an own
 * thread; {@link #close()} is idempotent and deletes the znode if this session owns it.
 */
final class BrokerRegistration implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerRegistration.class);

    /** Pause before retrying a re-registration that failed on a ZooKeeper error. */
    private static final long RETRY_BACKOFF_MS = 1_000;

    /** Registered as {@code jmx_port}; see {@link #jmxPort}. */
    private static final int JMX_PORT = jmxPort(System.getProperty("com.sun.management.jmxremote.port"),
            System.getenv("JMX_PORT"));

    private enum State { NEW, REGISTERED, CLOSED }

    private final ZkConnection connection;
    private final CuratorFramework zk;
    private final BrokerInfo broker;
    private final Function<Endpoint, String> protocolOf;
    private final String path;
    private final Time time;
    private final ExecutorService reregistration;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final ConnectionStateListener connectionListener = this::onConnectionStateChange;
    private final BrokerEpochListener epochListener;
    /** Watches this run's znode: its deletion (by another broker, or with the session) ends the epoch. */
    private final CuratorWatcher registrationWatcher = this::onRegistrationEvent;
    /** The current broker epoch; written on the registration thread (or by {@link #register()} before it runs). */
    private volatile long epoch = BrokerInfo.NO_EPOCH;
    /** Set when the broker starts shutting down; see {@link #leave()}. */
    private volatile boolean leaving;

    BrokerRegistration(ZkConnection connection, BrokerInfo broker, Time time, BrokerEpochListener epochListener) {
        this(connection, broker, Endpoint::listenerName, time, epochListener);
    }

    /** @param protocolOf the security protocol of each endpoint's listener (listener_security_protocol_map) */
    BrokerRegistration(ZkConnection connection, BrokerInfo broker, Function<Endpoint, String> protocolOf, Time time,
                       BrokerEpochListener epochListener) {
        this.protocolOf = protocolOf;
        this.epochListener = epochListener;
        this.connection = connection;
        this.zk = connection.curator();
        this.broker = broker;
        this.path = ZkPaths.broker(broker.id());
        this.time = time;
        this.reregistration = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "broker-registration-" + broker.id());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Creates the registration, waiting out a previous run's session if necessary.
     *
     * @throws BrokerIdInUseException if a live session of another broker holds the id
     */
    void register() {
        if (!state.compareAndSet(State.NEW, State.REGISTERED)) {
            throw new IllegalStateException("broker " + broker.id() + " registration is " + state.get());
        }
        // Listening first, so that a session lost right after the creation below is noticed; a re-registration
        // running concurrently with this one finds the znode owned by this session and stops.
        zk.getConnectionStateListenable().addListener(connectionListener);
        long waitMs = connection.negotiatedSessionTimeoutMs() * 3L / 2;
        long owner = ensureRegistered(time.milliseconds() + waitMs);
        if (owner == 0) {
            return;
        }
        boolean closedMeanwhile = state.getAndSet(State.CLOSED) == State.CLOSED;
        zk.getConnectionStateListenable().removeListener(connectionListener);
        reregistration.shutdownNow();
        if (closedMeanwhile) {
            throw new IllegalStateException("broker " + broker.id() + " registration closed while registering");
        }
        throw new BrokerIdInUseException(broker.id(), owner, waitMs);
    }

    private void onConnectionStateChange(CuratorFramework client, ConnectionState newState) {
        if (state.get() != State.REGISTERED) {
            return;
        }
        if (newState == ConnectionState.LOST) {
            // The session is gone (or presumed gone after a session timeout without a connection): so is the
            // registration, and the controller may already have moved this broker's leaderships.
            onRegistrationThread(() -> setEpoch(BrokerInfo.NO_EPOCH, "the ZooKeeper session was lost"));
        } else if (newState == ConnectionState.RECONNECTED) {
            onRegistrationThread(this::reregister);
        }
    }

    private void onRegistrationEvent(WatchedEvent event) {
        if (state.get() != State.REGISTERED) {
            return;
        }
        if (leaving) {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                onRegistrationThread(() -> setEpoch(BrokerInfo.NO_EPOCH, path + " was deleted while leaving"));
            }
            return;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            onRegistrationThread(() -> {
                setEpoch(BrokerInfo.NO_EPOCH, path + " was deleted");
                reregister();
            });
        } else if (event.getType() != Watcher.Event.EventType.None) {
            // Another event of the znode: keep watching it.
            onRegistrationThread(this::reregister);
        }
    }

    private void onRegistrationThread(Runnable task) {
        try {
            reregistration.execute(task);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** The current broker epoch, or {@link BrokerInfo#NO_EPOCH} while not registered. */
    long epoch() {
        return epoch;
    }

    private void setEpoch(long newEpoch, String reason) {
        if (epoch == newEpoch) {
            return;
        }
        epoch = newEpoch;
        if (newEpoch == BrokerInfo.NO_EPOCH) {
            log.warn("Broker {} lost its registration: {}", broker.id(), reason);
        } else {
            log.info("Broker {} has broker epoch {} ({})", broker.id(), newEpoch, reason);
        }
        try {
            epochListener.onBrokerEpoch(newEpoch);
        } catch (RuntimeException e) {
            log.error("Broker epoch listener failed on epoch {}", newEpoch, e);
        }
    }

    /**
     * The broker is shutting down: a lost registration is not made again (its leaderships have moved or are about to
     * be given up anyway, and a new registration would only make the controller consider it once more).
     */
    void leave() {
        leaving = true;
    }

    /** After a reconnection: registers again if the znode went with an expired session; retries until closed. */
    private void reregister() {
        while (state.get() == State.REGISTERED && !leaving) {
            try {
                long owner = ensureRegistered(Long.MAX_VALUE);
                if (owner == 0) {
                    return;
                }
            } catch (ClusterException e) {
                if (state.get() != State.REGISTERED) {
                    return;
                }
                log.warn("Re-registering broker {} at {} failed; retrying in {} ms: {}", broker.id(), path,
                        RETRY_BACKOFF_MS, e.getMessage());
                try {
                    Thread.sleep(RETRY_BACKOFF_MS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /**
     * The port of this JVM's remote JMX, as Kafka registers it ({@code jmx_port}): the system property
     * {@code com.sun.management.jmxremote.port} (which the start script sets from {@code JMX_PORT}), else the
     * environment's {@code JMX_PORT}; -1 without either, or when it is not a port number.
     */
    static int jmxPort(String systemProperty, String environment) {
        for (String value : new String[] {systemProperty, environment}) {
            if (value != null && !value.isBlank()) {
                try {
                    int port = Integer.parseInt(value.trim());
                    if (port > 0 && port <= 65535) {
                        return port;
                    }
                } catch (NumberFormatException e) {
                    // not a port: the next source, or none
                }
                return -1;
            }
        }
        return -1;
    }

    /**
     * Makes sure this session owns the registration, watches it, and publishes its epoch.
     *
     * @return 0 when it does, or the id of the other session that still owns the znode at the deadline (or when
     *         closed meanwhile)
     */
    private long ensureRegistered(long deadlineMs) {
        long otherOwner = 0;
        boolean warned = false;
        while (state.get() == State.REGISTERED) {
            try {
                long session = connection.sessionId();
                try {
                    zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                            .forPath(path, ZkJson.brokerRegistration(broker, protocolOf, JMX_PORT,
                                    time.milliseconds()));
                    log.info("Registered broker {} at {} (session 0x{}): {}:{}", broker.id(), path,
                            Long.toHexString(session), broker.host(), broker.port());
                    if (watchOwn(session)) {
                        return 0;
                    }
                    continue;
                } catch (KeeperException.NodeExistsException exists) {
                    CountDownLatch changed = new CountDownLatch(1);
                    CuratorWatcher watcher = event -> changed.countDown();
                    Stat stat = zk.checkExists().usingWatcher(watcher).forPath(path);
                    if (stat == null) {
                        continue;
                    }
                    if (stat.getEphemeralOwner() == session) {
                        if (watchOwn(session)) {
                            return 0;
                        }
                        continue;
                    }
                    otherOwner = stat.getEphemeralOwner();
                    long remaining = deadlineMs - time.milliseconds();
                    if (remaining <= 0) {
                        return otherOwner;
                    }
                    if (!warned) {
                        log.warn("{} is held by another ZooKeeper session (0x{}), the previous run of broker {} or "
                                        + "another broker with this id; waiting for it to expire", path,
                                Long.toHexString(otherOwner), broker.id());
                        warned = true;
                    }
                    // Woken by the deletion (or any event of the znode or the connection); then look again.
                    changed.await(Math.min(remaining, 10_000), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClusterException("interrupted while registering broker " + broker.id(), e);
            } catch (Exception e) {
                throw ClusterException.wrap("registering broker " + broker.id() + " at " + path, e);
            }
        }
        return otherOwner == 0 ? -1 : otherOwner;
    }

    /**
     * Leaves a watch on the znode this session created and takes its creation zxid as the broker epoch.
     *
     * @return false if the znode is gone again (or belongs to another session): register anew
     */
    private boolean watchOwn(long session) throws Exception {
        Stat stat = zk.checkExists().usingWatcher(registrationWatcher).forPath(path);
        if (stat == null || stat.getEphemeralOwner() != session) {
            setEpoch(BrokerInfo.NO_EPOCH, path + " vanished right after it was created");
            return false;
        }
        setEpoch(stat.getCzxid(), "registered in session 0x" + Long.toHexString(session));
        return true;
    }

    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        reregistration.shutdownNow();
        if (previous != State.REGISTERED) {
            return;
        }
        zk.getConnectionStateListenable().removeListener(connectionListener);
        try {
            Stat stat = zk.checkExists().forPath(path);
            if (stat != null && stat.getEphemeralOwner() == connection.sessionId()) {
                zk.delete().withVersion(stat.getVersion()).forPath(path);
                log.info("Deregistered broker {}", broker.id());
            }
        } catch (Exception e) {
            // The znode goes with the session when the connection closes.
            log.warn("Deleting {} failed; it goes when the ZooKeeper session ends: {}", path, e.toString());
        }
    }
}
