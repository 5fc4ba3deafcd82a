package io.tributary.broker.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.PurgeTxnLog;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server running inside the broker's JVM: the development default when
 * {@code zookeeper.connect} is not set, so that one command starts a working single-node system.
 *
 * <p>Data: ZooKeeper's own snapshot and transaction-log files ({@code version-2/snapshot.*}, {@code version-2/log.*})
 * in the given directory, so topics survive a restart of the broker. Not replicated: production clusters point
 * {@code zookeeper.connect} at an ensemble.
 *
 * <p>Started by {@link #start}, stopped by {@link #close()} (idempotent, any thread). Clients should disconnect before
 * {@link #close()} so that their sessions, and the ephemeral znodes of those sessions, end cleanly instead of being
 * restored from the snapshot at the next start.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    /** ZooKeeper's default tick: sessions may last 2 to 20 ticks, so 4 s to 40 s (the broker default is 18 s). */
    private static final int TICK_TIME_MS = ZooKeeperServer.DEFAULT_TICK_TIME;

    /** Snapshots (and the transaction logs they need) kept at start-up; ZooKeeper's minimum and default. */
    private static final int SNAPSHOTS_RETAINED = 3;

    /** Connections per client address; a broker needs one, tests with several brokers a few. */
    private static final int MAX_CONNECTIONS_PER_CLIENT = 60;

    private final Path dataDir;
    private final FileTxnSnapLog files;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;
    private final String connectString;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedZooKeeper(Path dataDir, FileTxnSnapLog files, ZooKeeperServer server,
                              ServerCnxnFactory connections, String connectString) {
        this.dataDir = dataDir;
        this.files = files;
        this.server = server;
        this.connections = connections;
        this.connectString = connectString;
    }

    /**
     * Starts a server keeping its data in {@code dataDir} (created if missing) and listening on {@code address};
     * port 0 picks a free port.
     *
     * @throws IOException if the directory cannot be used or the address is taken
     */
    public static EmbeddedZooKeeper start(Path dataDir, InetSocketAddress address) throws IOException {
        Files.createDirectories(dataDir);
        // ZooKeeper keeps every snapshot and transaction log (64 MiB preallocated each) unless purged; a development
        // broker restarted often would fill its disk. Keep the newest few, ZooKeeper's autopurge default.
        PurgeTxnLog.purge(dataDir.toFile(), dataDir.toFile(), SNAPSHOTS_RETAINED);
        FileTxnSnapLog files = new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
        ServerCnxnFactory connections = new NIOServerCnxnFactory();
        try {
            ZooKeeperServer server = new ZooKeeperServer(files, TICK_TIME_MS, -1, -1, -1, null, "");
            try {
                connections.configure(address, MAX_CONNECTIONS_PER_CLIENT);
            } catch (IOException e) {
                throw new IOException("embedded ZooKeeper cannot listen on " + address + " (" + e.getMessage()
                        + "); is another ZooKeeper or broker running there? Set zookeeper.connect to use it", e);
            }
            connections.startup(server);
            String host = address.getAddress() == null || address.getAddress().isAnyLocalAddress()
                    ? "127.0.0.1" : address.getAddress().getHostAddress();
            String connect = host + ":" + connections.getLocalPort();
            log.info("Embedded ZooKeeper serving {} with its data in {}", connect, dataDir);
            return new EmbeddedZooKeeper(dataDir, files, server, connections, connect);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connections.shutdown();
            files.close();
            throw new IOException("interrupted while starting the embedded ZooKeeper", e);
        } catch (IOException | RuntimeException e) {
            connections.shutdown();
            files.close();
            throw e;
        }
    }

    /** {@code host:port} for clients. */
    public String connectString() {
        return connectString;
    }

    public int port() {
        return connections.getLocalPort();
    }

    public Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // The factory stops accepting and closes every connection, then shuts the server down; the server's
        // shutdown is repeated because it is idempotent and the factory skips it when startup failed halfway.
        connections.shutdown();
        server.shutdown();
        try {
            files.close();
        } catch (IOException e) {
            log.warn("Closing the embedded ZooKeeper's files in {} failed", dataDir, e);
        }
        log.info("Embedded ZooKeeper on {} stopped", connectString);
    }
}
