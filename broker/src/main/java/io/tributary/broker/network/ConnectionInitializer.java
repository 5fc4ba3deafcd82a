package io.tributary.broker.network;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up each accepted connection of one listener: names it, builds its pipeline of fresh per-connection stages
 * ({@link FrameDecoder} → {@link RequestDecoder} → {@link ResponseSequencer}, sharing one {@link ReadThrottle}) and
 * keeps it in the server's set of open connections until it closes.
 *
 * <p>Connection ids follow Kafka's {@code localHost:localPort-remoteHost:remotePort-sequence}, the sequence counting
 * connections over the life of the server. Shared by the connections of a listener; runs on their event loops.
 */
final class ConnectionInitializer extends ChannelInitializer<Channel> {

    private static final Logger log = LoggerFactory.getLogger(ConnectionInitializer.class);

    /**
     * Requests of one connection read but not yet answered on the wire, beyond which it is not read. Above the Java
     * client's default of 5 (max.in.flight.requests.per.connection) and librdkafka's idempotent-producer limit of 5,
     * so real clients pipeline undisturbed; low enough that a client which sends a burst of requests and reads
     * nothing holds at most 16 responses in the broker's memory.
     */
    static final int MAX_IN_FLIGHT_PER_CONNECTION = 16;

    private final String listenerName;
    private final int maxRequestBytes;
    private final RequestDispatcher dispatcher;
    private final Set<ResponseSequencer> connections;
    private final AtomicLong sequence;

    ConnectionInitializer(String listenerName, int maxRequestBytes, RequestDispatcher dispatcher,
                          Set<ResponseSequencer> connections, AtomicLong sequence) {
        this.listenerName = listenerName;
        this.maxRequestBytes = maxRequestBytes;
        this.dispatcher = dispatcher;
        this.connections = connections;
        this.sequence = sequence;
    }

    @Override
    protected void initChannel(Channel channel) {
        InetSocketAddress local = (InetSocketAddress) channel.localAddress();
        InetSocketAddress remote = (InetSocketAddress) channel.remoteAddress();
        if (local == null || remote == null) {
            channel.close(); // the client went away while we accepted it
            return;
        }
        String id = local.getAddress().getHostAddress() + ":" + local.getPort() + "-"
                + remote.getAddress().getHostAddress() + ":" + remote.getPort() + "-" + sequence.getAndIncrement();
        ReadThrottle throttle = new ReadThrottle(channel, MAX_IN_FLIGHT_PER_CONNECTION, dispatcher);
        ResponseSequencer responses = new ResponseSequencer(id, channel, throttle, dispatcher);
        channel.pipeline()
                .addLast("frames", new FrameDecoder(id, maxRequestBytes, throttle))
                .addLast("requests", new RequestDecoder(id, remote.getAddress(), listenerName))
                .addLast("responses", responses);
        connections.add(responses);
        channel.closeFuture().addListener(closed -> connections.remove(responses));
        log.debug("Accepted connection {} on listener {}", id, listenerName);
    }
}
