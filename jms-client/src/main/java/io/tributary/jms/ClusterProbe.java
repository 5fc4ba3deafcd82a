package io.tributary.jms;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.jms.JMSException;

import org.apache.kafka.common.utils.Utils;

/**
 * Whether a cluster can be reached: some address of its bootstrap list accepts a TCP connection before a deadline.
 * {@link TributaryConnection#open} asks before it hands out a connection, so that a connection to a port with no
 * broker fails then, saying so, instead of being created and failing its first send 15.8 s later with "Topic q not
 * present in metadata".
 *
 * <p>A TCP connection, not a Kafka request: asking for the cluster id through an admin client made
 * {@code createConnection} 15 times slower on a live local broker (median 1.8 ms to 28 ms: starting the admin
 * client, its bootstrap metadata, then the request), where a connect costs one round trip and is closed at once.
 * It proves a listener at the address, not a Kafka broker behind it: a port that accepts connections but does not
 * speak Kafka still fails at first use. (A broker with a TLS listener may log the probe as a failed handshake.)
 *
 * <p>Bootstrap entries are read as the Kafka clients read them ({@code host:port}, {@code [ipv6]:port}, an optional
 * {@code protocol://}); every address a name resolves to is tried. A refused or failed attempt, or a name that does
 * not resolve yet, is retried with the Kafka clients' reconnect back-off (50 ms doubling to 1 s) until the deadline,
 * so that a broker restarting at that moment is waited for, as a Kafka client would.
 *
 * <p>Stateless; any thread; blocks its caller up to the timeout.
 */
final class ClusterProbe {

    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 1_000;

    private ClusterProbe() {
    }

    /**
     * Returns once an address of {@code bootstrapServers} accepts a connection.
     *
     * @throws JMSException saying that the cluster at {@code bootstrapServers} is unreachable, with the last
     *         attempt's failure, when none accepted within {@code timeout} or the list is not host:port entries
     */
    static void awaitReachable(String bootstrapServers, Duration timeout) throws JMSException {
        List<String> hosts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (String entry : bootstrapServers.split(",")) {
            String server = entry.strip();
            String host = Utils.getHost(server);
            Integer port = Utils.getPort(server);
            if (host == null || port == null) {
                throw unreachable(bootstrapServers, "'" + server + "' is not a host:port address", null);
            }
            hosts.add(host);
            ports.add(port);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long backoffMs = FIRST_BACKOFF_MS;
        Exception last = null;
        String lastAddress = null;
        while (true) {
            for (int i = 0; i < hosts.size(); i++) {
                InetAddress[] resolved;
                try {
                    resolved = InetAddress.getAllByName(hosts.get(i));
                } catch (UnknownHostException e) {
                    last = e;
                    lastAddress = hosts.get(i);
                    continue;
                }
                for (InetAddress address : resolved) {
                    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (leftMs <= 0) {
                        throw timedOut(bootstrapServers, timeout, lastAddress, last);
                    }
                    InetSocketAddress target = new InetSocketAddress(address, ports.get(i));
                    try (Socket socket = new Socket()) {
                        socket.connect(target, (int) Math.min(leftMs, Integer.MAX_VALUE));
                        return;
                    } catch (IOException e) {
                        last = e;
                        lastAddress = target.toString();
                    }
                }
            }
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) {
                throw timedOut(bootstrapServers, timeout, lastAddress, last);
            }
            try {
                Thread.sleep(Math.min(backoffMs, leftMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw unreachable(bootstrapServers, "interrupted while waiting for a broker to accept a connection",
                        e);
            }
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        }
    }

    private static JMSException timedOut(String bootstrapServers, Duration timeout, String lastAddress,
                                         Exception last) {
        return unreachable(bootstrapServers, "no broker accepted a connection within " + timeout.toMillis()
                + " ms (the connection factory's connectTimeout)"
                + (last == null ? "" : "; last attempt, " + lastAddress + ": " + last), last);
    }

    private static JMSException unreachable(String bootstrapServers, String why, Exception cause) {
        JMSException e = new JMSException("The cluster at " + bootstrapServers + " is unreachable: " + why);
        if (cause != null) {
            e.setLinkedException(cause);
            e.initCause(cause);
        }
        return e;
    }
}
