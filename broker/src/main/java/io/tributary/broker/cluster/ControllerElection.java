package io.tributary.broker.cluster;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
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
 * Elects the controller the way Kafka does, through the ephemeral znode {@code /controller}
 * ({@code {"version":1,"brokerid":N,"timestamp":"<ms>"}}): whoever creates it is the controller until its session
 * ends. Curator's {@code LeaderLatch} is not used because its sequential znodes would not fit the fixed layout.
 *
 * <p>Winning is one transaction: create {@code /controller} and write {@code /controller_epoch} + 1 naming the
 * version just read. The transaction fails whole if another broker got either first, so the epoch is incremented
 * exactly once per controller; the resulting znode version becomes the winner's {@link ControllerFence}.
 *
 * <p>Every broker watches {@code /controller} and runs for office again when it disappears. A controller resigns
 * when its session is lost (its {@code /controller} went with it), when another broker's znode is found there, or
 * when one of its writes finds itself fenced by a newer epoch.
 *
 * <p>Threads: elections, activation and resignation run on one election thread; watches and connection events only
 * schedule work there. {@link #close()} resigns and deletes this broker's {@code /controller}; idempotent.
 */
final class ControllerElection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ControllerElection.class);

    /** Pause before running for office again after a ZooKeeper error. */
    private static final long RETRY_BACKOFF_MS = 1_000;

    /** Starts the controller of a won election; {@code resign} is called by the controller when it is fenced. */
    @FunctionalInterface
    interface ControllerFactory {
        Controller start(ControllerFence fence, Runnable resign);
    }

    private enum State { NEW, RUNNING, CLOSED }

    private final ZkConnection connection;
    private final CuratorFramework zk;
    private final int brokerId;
    private final Time time;
    private final ControllerFactory controllers;
    private final ScheduledExecutorService thread;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final CuratorWatcher controllerWatcher = this::onControllerEvent;
    private final ConnectionStateListener connectionListener = this::onConnectionStateChange;

    /** The running controller while this broker holds office; election thread only. */
    /** The running controller of this broker's term, or null; written by the election thread, read by any. */
    private volatile Controller active;
    /** The epoch of {@link #active}, or -1; written by the election thread, read by any. */
    private volatile int activeEpoch = -1;

    ControllerElection(ZkConnection connection, int brokerId, Time time, ControllerFactory controllers) {
        this.connection = connection;
        this.zk = connection.curator();
        this.brokerId = brokerId;
        this.time = time;
        this.controllers = controllers;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "controller-election-" + brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("controller election of broker " + brokerId + " is " + state.get());
        }
        zk.getConnectionStateListenable().addListener(connectionListener);
        submit(this::elect);
    }

    /** The running controller, if this broker is the controller now. */
    Optional<Controller> activeController() {
        return Optional.ofNullable(active);
    }

    boolean isController() {
        return activeEpoch >= 0;
    }

    /** The epoch of this broker's term as controller, or -1 when it is not the controller. */
    int controllerEpoch() {
        return activeEpoch;
    }

    private void onControllerEvent(WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.None) {
            submit(this::elect);
        }
    }

    private void onConnectionStateChange(CuratorFramework client, ConnectionState newState) {
        if (newState == ConnectionState.LOST) {
            submit(() -> resign("the ZooKeeper session was lost"));
        } else if (newState == ConnectionState.RECONNECTED) {
            submit(this::elect);
        }
    }

    /** Looks at {@code /controller} (leaving a watch on it) and runs for office when it is free. */
    private void elect() {
        if (state.get() != State.RUNNING) {
            return;
        }
        try {
            Stat stat = zk.checkExists().usingWatcher(controllerWatcher).forPath(ZkPaths.CONTROLLER);
            if (stat == null) {
                runForOffice();
            } else if (stat.getEphemeralOwner() == connection.sessionId()) {
                if (active == null) {
                    // This session created /controller but no controller runs: a retried transaction whose
                    // first attempt had succeeded. Free the office for a proper election with a new epoch.
                    log.info("Broker {} holds {} without a running controller; releasing it", brokerId,
                            ZkPaths.CONTROLLER);
                    zk.delete().withVersion(stat.getVersion()).forPath(ZkPaths.CONTROLLER);
                }
            } else if (active != null) {
                resign(ZkPaths.CONTROLLER + " belongs to another broker's session");
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            submit(this::elect);
        } catch (Exception e) {
            log.warn("Controller election of broker {} failed; retrying in {} ms: {}", brokerId, RETRY_BACKOFF_MS,
                    e.toString());
            schedule(this::elect, RETRY_BACKOFF_MS);
        }
    }

    private void runForOffice() throws Exception {
        try {
            zk.create().forPath(ZkPaths.CONTROLLER_EPOCH, ZkJson.controllerEpoch(0));
        } catch (KeeperException.NodeExistsException e) {
            // the usual case
        }
        Stat epochStat = new Stat();
        int epoch = ZkJson.parseControllerEpoch(ZkPaths.CONTROLLER_EPOCH,
                zk.getData().storingStatIn(epochStat).forPath(ZkPaths.CONTROLLER_EPOCH));
        int newEpoch = epoch + 1;
        Collection<CuratorTransactionResult> results;
        try {
            results = zk.transaction().forOperations(
                    zk.transactionOp().create().withMode(CreateMode.EPHEMERAL)
                            .forPath(ZkPaths.CONTROLLER, ZkJson.controller(brokerId, time.milliseconds())),
                    zk.transactionOp().setData().withVersion(epochStat.getVersion())
                            .forPath(ZkPaths.CONTROLLER_EPOCH, ZkJson.controllerEpoch(newEpoch)));
        } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException lost) {
            // Another broker won in between; look again, which also watches the winner's znode.
            submit(this::elect);
            return;
        }
        int epochZkVersion = results.stream()
                .filter(result -> result.getType() == OperationType.SET_DATA)
                .findFirst()
                .orElseThrow(() -> new ClusterException("no result for " + ZkPaths.CONTROLLER_EPOCH))
                .getResultStat().getVersion();
        ControllerFence fence = new ControllerFence(newEpoch, epochZkVersion);
        log.info("Broker {} is the controller (controller epoch {})", brokerId, newEpoch);
        active = controllers.start(fence, () -> submit(() -> {
            // Only this term's controller may end this term; a late call of an earlier one is ignored.
            if (activeEpoch == newEpoch) {
                resign("a newer controller was elected");
                elect();
            }
        }));
        activeEpoch = newEpoch;
    }

    /** Stops controlling, if this broker is the controller. Election thread only. */
    private void resign(String reason) {
        if (active == null) {
            return;
        }
        log.info("Broker {} stops being the controller (epoch {}): {}", brokerId, activeEpoch, reason);
        activeEpoch = -1;
        Controller stopping = active;
        active = null;
        stopping.close();
    }

    private void submit(Runnable task) {
        schedule(task, 0);
    }

    private void schedule(Runnable task, long delayMs) {
        try {
            thread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        zk.getConnectionStateListenable().removeListener(connectionListener);
        try {
            thread.submit(() -> {
                boolean wasController = active != null;
                resign("the broker is shutting down");
                if (wasController) {
                    releaseOffice();
                }
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("Resigning as controller on shutdown of broker {} failed: {}", brokerId, e.toString());
        }
        thread.shutdownNow();
    }

    /** Deletes {@code /controller} if this session holds it, so that another broker takes over at once. */
    private void releaseOffice() {
        try {
            Stat stat = zk.checkExists().forPath(ZkPaths.CONTROLLER);
            if (stat != null && stat.getEphemeralOwner() == connection.sessionId()) {
                zk.delete().withVersion(stat.getVersion()).forPath(ZkPaths.CONTROLLER);
            }
        } catch (Exception e) {
            log.warn("Deleting {} failed; it goes when the ZooKeeper session ends: {}", ZkPaths.CONTROLLER,
                    e.toString());
        }
    }
}
