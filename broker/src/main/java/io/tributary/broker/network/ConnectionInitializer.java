package io.tributary.broker.network;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.tributary.broker.BrokerConfig;
import io.tributary.broker.security.SaslServers;
import io.tributary.broker.security.SslEngines;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up each accepted connection of one listener: first asks the {@link ConnectionQuotas} whether it may stay open
 * and, if not, closes it at once with a WARN line naming the limit (the client sees its connection end before any
 * response: end of stream, or a reset if its first request had already arrived); then names it, builds its pipeline
 * of fresh per-connection stages (on a TLS listener {@code SslHandler} → {@code ChunkedWriteHandler} →
 * {@link FileRegionChunks}; then {@link ExpiryTimer}, if {@code connections.max.idle.ms} is set, →
 * {@link FrameDecoder} → {@link SaslAuthenticator} on a SASL listener → {@link RequestDecoder} →
 * {@link ResponseSequencer}, sharing one {@link ReadThrottle} and one {@link ConnectionExpiry}) and keeps it in the
 * server's set of open connections until it closes.
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
    /** The listener's TLS engines; null on a listener without TLS. */
    private final SslEngines tls;
    /** The listener's SASL mechanisms; null on a listener without SASL. */
    private final SaslServers sasl;
    private final BrokerConfig config;
    private final Time time;
    private final RequestDispatcher dispatcher;
    private final RequestMemoryPool memory;
    private final ConnectionQuotas quotas;
    private final Set<ResponseSequencer> connections;
    private final AtomicLong sequence;

    ConnectionInitializer(String listenerName, SslEngines tls, SaslServers sasl, BrokerConfig config, Time time,
                          RequestDispatcher dispatcher, RequestMemoryPool memory, ConnectionQuotas quotas,
                          Set<ResponseSequencer> connections, AtomicLong sequence) {
        this.listenerName = listenerName;
        this.tls = tls;
        this.sasl = sasl;
        this.config = config;
        this.time = time;
        this.dispatcher = dispatcher;
        this.memory = memory;
        this.quotas = quotas;
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
        String overLimit = quotas.tryAcquire(remote.getAddress());
        if (overLimit != null) {
            log.warn("Closing connection from {}:{} on listener {} as soon as accepted: {}",
                    remote.getAddress().getHostAddress(), remote.getPort(), listenerName, overLimit);
            channel.close();
            return;
        }
        // Released before the connection leaves the set below, so that once connectionCount() has dropped, a new
        // connection from the same address is counted against the lower number.
        channel.closeFuture().addListener(closed -> quotas.release(remote.getAddress()));
        String id = local.getAddress().getHostAddress() + ":" + local.getPort() + "-"
                + remote.getAddress().getHostAddress() + ":" + remote.getPort() + "-" + sequence.getAndIncrement();
        ConnectionExpiry expiry = new ConnectionExpiry(config.connectionsMaxIdleMs, time);
        ReadThrottle throttle = new ReadThrottle(channel, MAX_IN_FLIGHT_PER_CONNECTION, dispatcher, expiry);
        ResponseSequencer responses = new ResponseSequencer(id, channel, throttle, dispatcher, expiry);
        if (tls != null) {
            addTls(channel, id, remote);
        }
        if (config.connectionsMaxIdleMs > 0) {
            channel.pipeline().addLast("expiry", new ExpiryTimer(id, expiry, config.connectionsMaxIdleMs));
        }
        FrameDecoder frames = new FrameDecoder(id, config.socketRequestMaxBytes, throttle, memory, expiry);
        channel.pipeline().addLast("frames", frames);
        if (sasl != null) {
            channel.pipeline().addLast("sasl",
                    new SaslAuthenticator(id, listenerName, sasl, frames, config.socketRequestMaxBytes,
                            config.connectionsMaxReauthMs));
        }
        channel.pipeline()
                .addLast("requests", new RequestDecoder(id, remote.getAddress(), listenerName))
                .addLast("responses", responses);
        connections.add(responses);
        channel.closeFuture().addListener(closed -> connections.remove(responses));
        log.debug("Accepted connection {} on listener {}", id, listenerName);
    }

    /**
     * TLS first in the pipeline: the JDK's engine in Netty's {@link SslHandler}, then the stages that turn record
     * files into encrypted chunks ({@link FileRegionChunks}). On an SSL listener a client certificate, if one was
     * presented, names the principal ({@code User:<subject DN>}), as Kafka's default principal builder does.
     */
    private void addTls(Channel channel, String id, InetSocketAddress remote) {
        SSLEngine engine = tls.newServerEngine(remote.getAddress().getHostAddress(), remote.getPort());
        SslHandler handler = new SslHandler(engine);
        channel.pipeline()
                .addLast("tls", handler)
                .addLast("file-chunks", new ChunkedWriteHandler())
                .addLast("file-regions", new FileRegionChunks());
        handler.handshakeFuture().addListener(done -> {
            if (!done.isSuccess()) {
                Throwable cause = done.cause() instanceof DecoderException && done.cause().getCause() != null
                        ? done.cause().getCause() : done.cause();
                String reason = cause instanceof NotSslRecordException ? "not a TLS record (a plaintext client?)"
                        : cause.toString();
                log.info("Closing connection {} on listener {}: TLS handshake failed: {}", id, listenerName, reason);
                return;
            }
            if (sasl == null) {
                try {
                    ConnectionPrincipal.set(channel, new KafkaPrincipal(KafkaPrincipal.USER_TYPE,
                            engine.getSession().getPeerPrincipal().getName()));
                } catch (SSLPeerUnverifiedException e) {
                    // No client certificate (ssl.client.auth none or requested): anonymous, as in Kafka.
                }
            }
        });
    }
}
