package io.tributary.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay between one broker and ZooKeeper, so that a test can cut that broker off from ZooKeeper while it keeps
 * serving clients and other brokers: {@link #cut()} closes every relayed connection and refuses new ones (the broker's
 * session then expires in ZooKeeper), {@link #restore()} accepts again on the same port.
 *
 * <p>One accepting thread, two copying threads per connection. Any thread may cut, restore and close.
 */
public final class ZooKeeperProxy implements AutoCloseable {

    private final int targetPort;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private volatile boolean closed;

    public ZooKeeperProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        ServerSocket first = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.port = first.getLocalPort();
        accept(first);
    }

    public int port() {
        return port;
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() throws IOException {
        ServerSocket current = server;
        server = null;
        if (current != null) {
            current.close();
        }
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    /** Accepts connections again, on the same port. */
    public synchronized void restore() throws IOException {
        if (server == null && !closed) {
            ServerSocket again = new ServerSocket();
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            accept(again);
        }
    }

    private void accept(ServerSocket listening) {
        server = listening;
        Thread acceptor = new Thread(() -> {
            while (!listening.isClosed()) {
                try {
                    Socket client = listening.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    sockets.add(client);
                    sockets.add(upstream);
                    relay(client, upstream);
                    relay(upstream, client);
                } catch (IOException e) {
                    // closed, or ZooKeeper refused: the client sees its connection end
                }
            }
        }, "zookeeper-proxy-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void relay(Socket from, Socket to) {
        Thread copier = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "zookeeper-proxy-" + port + "-relay");
        copier.setDaemon(true);
        copier.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        cut();
    }
}
