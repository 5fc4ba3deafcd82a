package io.tributary.broker.network;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

import io.tributary.broker.BrokerConfig;
import org.apache.kafka.common.config.ConfigException;

/**
 * Decides whether a newly accepted connection may stay open: counts the open client connections, in all and by
 * remote IP address, against {@code max.connections} (over every listener) and {@code max.connections.per.ip}, with
 * {@code max.connections.per.ip.overrides} giving particular hosts their own per-IP limit (host names resolved once,
 * when the server is created, as Kafka does). The per-IP limit is checked first, as in Kafka.
 *
 * <p>Unlike Kafka, whose acceptor stops accepting at {@code max.connections} (the next clients wait in the listen
 * backlog) and closes only connections over a per-IP limit, the server closes a connection over either limit right
 * after accepting it, so that a client learns at once that it was refused rather than timing out.
 *
 * <p>Thread-safe: {@link #tryAcquire} and {@link #release} are called on the event loops of the connections.
 */
final class ConnectionQuotas {

    private final int maxConnections;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> maxPerIpOverrides;
    /** Open connections by remote address; guarded by this. */
    private final Map<InetAddress, Integer> counts = new HashMap<>();
    /** Guarded by this. */
    private int total;

    /** @throws ConfigException if a host in {@code max.connections.per.ip.overrides} cannot be resolved */
    ConnectionQuotas(BrokerConfig config) {
        this.maxConnections = config.maxConnections;
        this.maxPerIp = config.maxConnectionsPerIp;
        Map<InetAddress, Integer> overrides = new HashMap<>();
        for (Map.Entry<String, Integer> override : config.maxConnectionsPerIpOverrides.entrySet()) {
            try {
                overrides.put(InetAddress.getByName(override.getKey()), override.getValue());
            } catch (UnknownHostException e) {
                throw new ConfigException(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES,
                        config.maxConnectionsPerIpOverrides, "cannot resolve host " + override.getKey());
            }
        }
        this.maxPerIpOverrides = Map.copyOf(overrides);
    }

    /**
     * Counts a new connection from {@code address} if no limit forbids it.
     *
     * @return null if it is counted (call {@link #release} when it closes), else which limit it is over, for the log
     */
    synchronized String tryAcquire(InetAddress address) {
        int fromAddress = counts.getOrDefault(address, 0);
        Integer override = maxPerIpOverrides.get(address);
        if (override != null && fromAddress >= override) {
            return BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES + " allows " + address.getHostAddress() + " "
                    + override + " connections, and it has " + fromAddress;
        }
        if (override == null && fromAddress >= maxPerIp) {
            return BrokerConfig.MAX_CONNECTIONS_PER_IP + " is " + maxPerIp + ", and "
                    + address.getHostAddress() + " has " + fromAddress + " connections";
        }
        if (total >= maxConnections) {
            return BrokerConfig.MAX_CONNECTIONS + " is " + maxConnections + ", and " + total + " are open";
        }
        counts.put(address, fromAddress + 1);
        total++;
        return null;
    }

    /** A connection counted by {@link #tryAcquire} closed. */
    synchronized void release(InetAddress address) {
        int fromAddress = counts.getOrDefault(address, 0);
        if (fromAddress <= 0) {
            throw new IllegalStateException("no connection from " + address + " is counted");
        }
        if (fromAddress == 1) {
            counts.remove(address);
        } else {
            counts.put(address, fromAddress - 1);
        }
        total--;
    }
}
