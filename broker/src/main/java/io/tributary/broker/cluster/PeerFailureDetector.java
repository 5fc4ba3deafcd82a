package io.tributary.broker.cluster;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices within moments that another broker's process is gone, instead of waiting for its ZooKeeper session to
 * expire ({@code zookeeper.session.timeout.ms}, 18 s by default, during which the dead broker stays in every ISR and
 * keeps its leaderships).
 *
 * <p>How: this broker holds one idle TCP connection to every other live broker's advertised address. When a process
 * dies, its kernel closes its sockets, so the connection ends (EOF or reset) at once. That alone proves little (a
 * connection may end for other reasons), so the detector then connects again: if the port <em>refuses</em>, nothing
 * listens there, and the registered broker is gone (only an address that once accepted this broker's connection
 * counts: see {@link Watch#everConnected}). It then deletes that broker's registration {@code
 * /brokers/ids/<id>} (only the very registration it watched: same creation zxid) and, if the dead broker's session
 * holds {@code /controller}, that too. The controller sees the broker leave and elects new leaders, exactly as after
 * a session expiry, only seconds earlier.
 *
 * <p>Why this cannot lose data: the evidence is a refused connection, not a timeout, so a slow or paused broker is
 * never declared dead by it (a paused one is found by its session and the ISR lag as before). And if a live broker's
 * registration were deleted anyway (its listener closed during its own shutdown), it only loses its roles: it
 * re-registers with a new broker epoch, and leader epochs and the ISR rules keep its old leaderships from
 * acknowledging anything (see {@link BrokerRegistration}). Network partitions, where nothing refuses, fall back to the
 * session timeout. {@code broker.failure.detection.enable=false} turns this off.
 *
 * <p>Threads: one detector thread with a NIO selector; the metadata listener only wakes it. {@link #close()} is
 * idempotent.
 */
final class PeerFailureDetector implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeerFailureDetector.class);

    /** How long the confirming connect may take; on loopback or a LAN a refusal comes back in well under that. */
    private static final int CONFIRM_TIMEOUT_MS = 1_000;

    /** Pause before watching a broker again after its connection ended (it may close idle connections). */
    private static final long REWATCH_BACKOFF_MS = 1_000;

    /** One watched broker: its registration as seen, and the connection to it (null while none). */
    private static final class Watch {
        final BrokerInfo broker;
        SocketChannel channel;
        boolean connected;
        /**
         * Whether a connection to this registration was ever established. Only a broker that once accepted and then
         * refuses is declared dead: one never reached (an advertised address peers cannot use) is left to its
         * session, so a misconfigured address can never get a live broker's registration deleted again and again.
         */
        boolean everConnected;
        /** {@code nanoTime} before which no new connection is opened. */
        long retryAtNanos;

        Watch(BrokerInfo broker) {
            this.broker = broker;
        }
    }

    private final int localBrokerId;
    private final ZkConnection connection;
    private final MetadataCache metadata;
    private final Selector selector;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final MetadataListener listener = change -> wakeup();
    /** Detector thread only. */
    private final Map<Integer, Watch> watches = new HashMap<>();
    private final ByteBuffer discard = ByteBuffer.allocate(256);

    PeerFailureDetector(int localBrokerId, ZkConnection connection, MetadataCache metadata) throws IOException {
        this.localBrokerId = localBrokerId;
        this.connection = connection;
        this.metadata = metadata;
        this.selector = Selector.open();
        this.thread = new Thread(this::run, "peer-failure-detector-" + localBrokerId);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
        metadata.addListener(listener);
    }

    private void wakeup() {
        try {
            selector.wakeup();
        } catch (ClosedSelectorException e) {
            // closed
        }
    }

    private void run() {
        try {
            while (!closed.get()) {
                sync(metadata.snapshot());
                selector.select(1_000);
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    handle((Watch) key.attachment(), key);
                }
            }
        } catch (ClosedSelectorException e) {
            // closed
        } catch (IOException | RuntimeException e) {
            if (!closed.get()) {
                log.error("The peer failure detector of broker {} stopped; dead brokers are found by their "
                        + "ZooKeeper session expiry only", localBrokerId, e);
            }
        } finally {
            watches.values().forEach(PeerFailureDetector::closeChannel);
            watches.clear();
        }
    }

    /** Watches exactly the live brokers other than this one, each at its current registration. */
    private void sync(MetadataSnapshot snapshot) {
        for (Iterator<Map.Entry<Integer, Watch>> it = watches.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Watch> entry = it.next();
            BrokerInfo now = snapshot.brokers().get(entry.getKey());
            if (now == null || !now.equals(entry.getValue().broker)) {
                closeChannel(entry.getValue());
                it.remove();
            }
        }
        for (BrokerInfo broker : snapshot.brokers().values()) {
            if (broker.id() == localBrokerId || broker.epoch() < 0) {
                continue;
            }
            Watch watch = watches.computeIfAbsent(broker.id(), id -> new Watch(broker));
            if (watch.channel == null && System.nanoTime() - watch.retryAtNanos >= 0) {
                open(watch);
            }
        }
    }

    private void open(Watch watch) {
        try {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            watch.channel = channel;
            watch.connected = false;
            boolean connected = channel.connect(new InetSocketAddress(watch.broker.host(), watch.broker.port()));
            if (connected) {
                watch.connected = true;
                watch.everConnected = true;
                channel.register(selector, SelectionKey.OP_READ, watch);
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, watch);
            }
        } catch (IOException e) {
            onConnectionLost(watch, e);
        }
    }

    private void handle(Watch watch, SelectionKey key) {
        try {
            if (key.isConnectable()) {
                watch.channel.finishConnect();
                watch.connected = true;
                watch.everConnected = true;
                key.interestOps(SelectionKey.OP_READ);
            } else if (key.isReadable()) {
                discard.clear();
                if (watch.channel.read(discard) < 0) {
                    onConnectionLost(watch, new IOException("connection closed by the peer"));
                }
            }
        } catch (IOException e) {
            onConnectionLost(watch, e);
        }
    }

    /** The watch connection ended or could not be made: is anything still listening there? */
    private void onConnectionLost(Watch watch, IOException cause) {
        closeChannel(watch);
        watch.retryAtNanos = System.nanoTime() + REWATCH_BACKOFF_MS * 1_000_000L;
        BrokerInfo broker = watch.broker;
        if (closed.get()) {
            return;
        }
        if (!watch.everConnected) {
            log.debug("Broker {} cannot reach broker {} at {}:{} ({}); its failure is left to its ZooKeeper session",
                    localBrokerId, broker.id(), broker.host(), broker.port(), cause.getMessage());
            return;
        }
        if (refuses(broker)) {
            declareDead(broker, cause);
        } else {
            log.debug("Broker {}'s connection to broker {} ended ({}), but its port still answers", localBrokerId,
                    broker.id(), cause.getMessage());
        }
        // Watch again (or, if it was declared dead, until the metadata drops it): the next sync opens a connection.
    }

    private static boolean refuses(BrokerInfo broker) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(broker.host(), broker.port()), CONFIRM_TIMEOUT_MS);
            return false;
        } catch (ConnectException e) {
            String message = e.getMessage();
            return message != null && message.toLowerCase(Locale.ROOT).contains("refused");
        } catch (IOException e) {
            return false;
        }
    }

    private void declareDead(BrokerInfo broker, IOException cause) {
        CuratorFramework zk = connection.curator();
        String path = ZkPaths.broker(broker.id());
        try {
            Stat registration = zk.checkExists().forPath(path);
            if (registration == null || registration.getCzxid() != broker.epoch()) {
                return;
            }
            log.warn("Broker {} at {}:{} (broker epoch {}) is gone: its connection ended ({}) and its port refuses "
                            + "connections. Deleting its registration so that its leaderships move now rather than "
                            + "when its ZooKeeper session expires", broker.id(), broker.host(), broker.port(),
                    broker.epoch(), cause.getMessage());
            long deadSession = registration.getEphemeralOwner();
            zk.delete().withVersion(registration.getVersion()).forPath(path);
            Stat controller = zk.checkExists().forPath(ZkPaths.CONTROLLER);
            if (controller != null && controller.getEphemeralOwner() == deadSession) {
                log.warn("Broker {} was the controller; deleting {} for a new election", broker.id(),
                        ZkPaths.CONTROLLER);
                zk.delete().withVersion(controller.getVersion()).forPath(ZkPaths.CONTROLLER);
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            // Another broker was quicker, or the session expired meanwhile.
        } catch (Exception e) {
            log.warn("Broker {} could not delete the registration of dead broker {}: {}", localBrokerId, broker.id(),
                    e.toString());
        }
    }

    private static void closeChannel(Watch watch) {
        if (watch.channel != null) {
            try {
                watch.channel.close();
            } catch (IOException e) {
                // closing anyway
            }
            watch.channel = null;
            watch.connected = false;
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        metadata.removeListener(listener);
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
