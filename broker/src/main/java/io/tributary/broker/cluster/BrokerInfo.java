package io.tributary.broker.cluster;

import java.util.List;
import java.util.Optional;

import io.tributary.broker.BrokerConfig.Endpoint;

/**
 * A live broker as registered under {@code /brokers/ids/<id>}: where clients reach it and its rack.
 *
 * @param host      the host of its PLAINTEXT endpoint (Kafka's legacy {@code host} field)
 * @param port      the port of its PLAINTEXT endpoint
 * @param rack      {@code broker.rack}, or null
 * @param endpoints every advertised listener
 * @param epoch     the broker epoch: the creation zxid of this registration znode, larger for every run of the
 *                  broker; -1 until the registration is read back from ZooKeeper
 */
public record BrokerInfo(int id, String host, int port, String rack, List<Endpoint> endpoints, long epoch) {

    public static final long NO_EPOCH = -1L;

    public BrokerInfo {
        endpoints = List.copyOf(endpoints);
    }

    /** A broker advertising these listeners; host and port are taken from the first of them. */
    public static BrokerInfo of(int id, List<Endpoint> endpoints, String rack) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("broker " + id + " needs at least one endpoint");
        }
        Endpoint first = endpoints.get(0);
        return new BrokerInfo(id, first.host(), first.port(), rack, endpoints, NO_EPOCH);
    }

    /**
     * Its endpoint on the listener of that name (any case), where clients that came in on that listener of this
     * broker reach it, as Kafka answers each client with the endpoints of the listener it connected to.
     */
    public Optional<Endpoint> endpoint(String listenerName) {
        for (Endpoint endpoint : endpoints) {
            if (endpoint.listenerName().equalsIgnoreCase(listenerName)) {
                return Optional.of(endpoint);
            }
        }
        return Optional.empty();
    }

    /** The same registration read back with its znode's creation zxid. */
    public BrokerInfo withEpoch(long registrationZxid) {
        return new BrokerInfo(id, host, port, rack, endpoints, registrationZxid);
    }
}
