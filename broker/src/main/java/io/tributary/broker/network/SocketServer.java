package io.tributary.broker.network;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.tributary.broker.BrokerConfig;
import io.tributary.broker.BrokerConfig.Endpoint;
import io.tributary.broker.metrics.BrokerMetrics;
import io.tributary.broker.metrics.RequestMetrics;
import io.tributary.broker.security.ListenerSecurity;
import io.tributary.broker.security.SaslServers;
import io.tributary.broker.security.ScramCredentials;
import io.tributary.broker.security.SslEngines;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's Kafka-protocol server: listens on every configured listener, reads size-prefixed requests from each
 * connection, has the {@link RequestHandler} answer them on request-handler threads, and writes the responses of
 * each connection back in request order. Record files in responses go from the page cache to the socket with
 * {@code sendfile}, except on TLS connections, where they are read in chunks and encrypted.
 *
 * <p>Security: each listener speaks the protocol {@code listener.security.protocol.map} gives its name. TLS listeners
 * (SSL, SASL_SSL) put Netty's {@code SslHandler} with a JDK engine first in each connection's pipeline; SASL
 * listeners (SASL_PLAINTEXT, SASL_SSL) put a {@link SaslAuthenticator} after the frame decoder, which lets no request
 * but ApiVersions through until the client has authenticated. A client whose TLS handshake or SASL exchange fails,
 * or that sends garbage, loses its own connection only.
 *
 * <p>Threads: one acceptor thread, {@code num.network.threads} event loops (epoll where available, else NIO) that do
 * all socket I/O and framing, and {@code num.io.threads} request-handler threads that call the handler. Nothing
 * blocks an event loop.
 *
 * <p>Limits and back-pressure. A request above {@code socket.request.max.bytes}, a malformed frame, an unknown API
 * key or a version this broker cannot read closes that connection with a log line; the server and every other
 * connection carry on. A connection is not read while its queued response bytes are above a high water mark (until
 * they fall below a low one), while {@value ConnectionInitializer#MAX_IN_FLIGHT_PER_CONNECTION} of its requests await
 * their responses, while {@code queued.max.requests} requests wait for or run in the handler, or while its next
 * request does not fit in {@code queued.max.request.bytes} (see {@link RequestMemoryPool}; a request larger than the
 * whole of it closes its connection). Socket buffer sizes are {@code socket.send.buffer.bytes} and
 * {@code socket.receive.buffer.bytes}; 0 or -1 leaves the OS default (and its auto-tuning).
 *
 * <p>Connection limits ({@link ConnectionQuotas}). A connection beyond {@code max.connections} (over all listeners)
 * or beyond {@code max.connections.per.ip} (or its host's entry in {@code max.connections.per.ip.overrides}) is
 * closed as soon as it is accepted, with a WARN line naming the limit; its client sees the connection end before any
 * response. {@code connections.max.idle.ms} closes a connection that has been idle that long, and one whose request
 * has not arrived in full that long after its first byte ({@link ConnectionExpiry}).
 *
 * <p>Lifecycle: NEW → {@link #start()} → RUNNING → {@link #close()} → CLOSED; it cannot be restarted. {@code close}
 * is graceful and idempotent. {@link #start()} and {@link #close()} are synchronized; {@link #boundPort},
 * {@link #connectionCount()} and {@link #queuedRequestBytes()} may be called from any thread.
 */
public final class SocketServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SocketServer.class);

    /** How long {@link #close()} waits for in-flight requests to be answered. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Queued response bytes of one connection (file regions included) above which it is not read, and below which
     * it is read again. About five times the default socket send buffer (100 KiB), so short bursts flow without
     * toggling reads, while a client that has stopped reading stops being read after half a MiB; any larger
     * response (most fetches) pauses reading until the client has taken all but 256 KiB of it, much as Kafka mutes a
     * connection for the whole of every request.
     */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 512 * 1024);

    /** How long, after the drain, closing waits for the request-handler threads and event loops to stop. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(3);

    private enum State { NEW, RUNNING, CLOSED }

    /** Kafka's gauge of the requests waiting for or running in a handler. */
    private static final String REQUEST_QUEUE_SIZE = BrokerMetrics.name("kafka.network", "RequestChannel",
            "RequestQueueSize");

    private final BrokerConfig config;
    private final RequestHandler handler;
    private final Transport transport;
    private final Time time;
    private final BrokerMetrics metrics;
    /** {@code queued.max.request.bytes}, shared by every connection. */
    private final RequestMemoryPool requestMemory;
    private final ConnectionQuotas quotas;
    /** Open connections; added and removed by the event loops, read by {@link #close}. */
    private final Set<ResponseSequencer> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionSequence = new AtomicLong();

    /** Guarded by {@code this}. */
    private State state = State.NEW;
    private EventLoopGroup acceptorThreads;
    private EventLoopGroup networkThreads;
    private RequestDispatcher dispatcher;
    private final List<Channel> listenerChannels = new ArrayList<>();
    /** The TLS engines of each TLS listener, by listener name; built by the constructor. */
    private final Map<String, SslEngines> tls = new HashMap<>();
    /** The SASL mechanisms of each SASL listener, by listener name; built by the constructor. */
    private final Map<String, SaslServers> sasl = new HashMap<>();
    /** Written by {@link #start()}; read from any thread. */
    private volatile Map<String, Integer> boundPorts = Map.of();

    /**
     * @throws ConfigException if two listeners have the same name, or a host in
     *                         {@code max.connections.per.ip.overrides} cannot be resolved
     */
    public SocketServer(BrokerConfig config, RequestHandler handler) {
        this(config, handler, ScramCredentials.NONE, BrokerMetrics.detached());
    }

    /**
     * A server whose SCRAM authentication finds the users' credentials in {@code scram} and that records Kafka's
     * {@code kafka.network} request metrics in {@code metrics}.
     *
     * @throws ConfigException also if a TLS listener's key store cannot be loaded, or a SASL listener's mechanism is
     *                         not available; the message names the property
     */
    public SocketServer(BrokerConfig config, RequestHandler handler, ScramCredentials scram,
                        BrokerMetrics metrics) {
        this(config, handler, scram, Transport.best(), Time.SYSTEM, metrics);
    }

    SocketServer(BrokerConfig config, RequestHandler handler, Transport transport, Time time) {
        this(config, handler, ScramCredentials.NONE, transport, time, BrokerMetrics.detached());
    }

    private SocketServer(BrokerConfig config, RequestHandler handler, ScramCredentials scram, Transport transport,
                         Time time, BrokerMetrics metrics) {
        this.metrics = metrics;
        this.config = config;
        this.handler = handler;
        this.transport = transport;
        this.time = time;
        this.requestMemory = new RequestMemoryPool(config.queuedMaxRequestBytes);
        this.quotas = new ConnectionQuotas(config);
        Set<String> names = new HashSet<>();
        for (Endpoint endpoint : config.listeners) {
            if (!names.add(endpoint.listenerName())) {
                throw new ConfigException(BrokerConfig.LISTENERS, config.listeners,
                        "each listener needs its own name; " + endpoint.listenerName() + " is used twice");
            }
        }
        try {
            for (Endpoint endpoint : config.listeners) {
                ListenerSecurity security = config.security.listener(endpoint.listenerName());
                if (security.usesTls()) {
                    tls.put(endpoint.listenerName(), SslEngines.create(security));
                }
                if (security.usesSasl()) {
                    sasl.put(endpoint.listenerName(), SaslServers.create(security, scram));
                }
            }
        } catch (RuntimeException e) {
            tls.values().forEach(SslEngines::close);
            throw e;
        }
    }

    /**
     * Binds every listener and starts serving.
     *
     * @return the port each listener is bound to, by listener name (the real port where the config said 0)
     * @throws UncheckedIOException  if a listener cannot be bound; nothing is left running
     * @throws IllegalStateException if already started or closed
     */
    public synchronized Map<String, Integer> start() {
        if (state != State.NEW) {
            throw new IllegalStateException("SocketServer is " + state + "; it can be started only once");
        }
        state = State.RUNNING;
        dispatcher = new RequestDispatcher(handler, config.numIoThreads, config.queuedMaxRequests,
                new RequestMetrics(metrics));
        RequestDispatcher requests = dispatcher;
        metrics.gauge(REQUEST_QUEUE_SIZE, requests::queued);
        acceptorThreads = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tributary-acceptor"),
                transport.ioHandlerFactory());
        networkThreads = new MultiThreadIoEventLoopGroup(config.numNetworkThreads,
                new DefaultThreadFactory("tributary-network"), transport.ioHandlerFactory());
        try {
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (Endpoint endpoint : config.listeners) {
                Channel channel = bind(endpoint);
                listenerChannels.add(channel);
                ports.put(endpoint.listenerName(), ((InetSocketAddress) channel.localAddress()).getPort());
                log.info("Listening for Kafka clients on {} ({}, {}, {} transport)", channel.localAddress(),
                        endpoint.listenerName(), config.security.listener(endpoint.listenerName()).protocol(),
                        transport);
            }
            boundPorts = Collections.unmodifiableMap(ports);
            return boundPorts;
        } catch (RuntimeException e) {
            state = State.CLOSED;
            stop();
            throw e;
        }
    }

    private Channel bind(Endpoint endpoint) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptorThreads, networkThreads)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childOption(ChannelOption.MESSAGE_SIZE_ESTIMATOR, OutboundSizeEstimator.INSTANCE)
                .childHandler(new ConnectionInitializer(endpoint.listenerName(), tls.get(endpoint.listenerName()),
                        sasl.get(endpoint.listenerName()), config, time, dispatcher, requestMemory, quotas,
                        connections, connectionSequence));
        if (config.socketReceiveBufferBytes > 0) {
            // On the listening socket too: accepted sockets inherit it, and only a size set before the handshake
            // decides the TCP window scale.
            bootstrap.option(ChannelOption.SO_RCVBUF, config.socketReceiveBufferBytes);
            bootstrap.childOption(ChannelOption.SO_RCVBUF, config.socketReceiveBufferBytes);
        }
        if (config.socketSendBufferBytes > 0) {
            bootstrap.childOption(ChannelOption.SO_SNDBUF, config.socketSendBufferBytes);
        }
        InetSocketAddress address = endpoint.host().isEmpty()
                ? new InetSocketAddress(endpoint.port())
                : new InetSocketAddress(endpoint.host(), endpoint.port());
        ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new UncheckedIOException(new IOException("Cannot listen on " + endpoint.listenerName() + "://"
                    + endpoint.host() + ":" + endpoint.port() + ": " + bound.cause(), bound.cause()));
        }
        return bound.channel();
    }

    /**
     * Whether the network serves: running, and every event loop (acceptor and network threads) runs a no-op task
     * within {@code timeout}. For the liveness probe, on its own thread: it waits at most {@code timeout} per loop
     * and never runs on an event loop.
     */
    public boolean eventLoopsAlive(Duration timeout) {
        EventLoopGroup[] groups;
        synchronized (this) {
            if (state != State.RUNNING) {
                return false;
            }
            groups = new EventLoopGroup[] {acceptorThreads, networkThreads};
        }
        for (EventLoopGroup group : groups) {
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                if (loop.isShuttingDown() || !loop.submit(() -> { }).awaitUninterruptibly(timeout.toMillis())) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The port a listener is bound to.
     *
     * @throws IllegalStateException    if the server is not running
     * @throws IllegalArgumentException if there is no listener of that name
     */
    public int boundPort(String listenerName) {
        Map<String, Integer> ports = boundPorts;
        if (ports.isEmpty()) {
            throw new IllegalStateException("SocketServer is not running");
        }
        Integer port = ports.get(listenerName);
        if (port == null) {
            throw new IllegalArgumentException("no listener named " + listenerName + "; listeners: "
                    + ports.keySet());
        }
        return port;
    }

    /** Client connections open right now. */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Bytes of requests being received, waiting for a request-handler thread or being handled right now, as counted
     * against {@code queued.max.request.bytes} (counted when it is unbounded too): Kafka's {@code MemoryPoolUsed}.
     */
    public long queuedRequestBytes() {
        return requestMemory.used();
    }

    /** {@link #close(Duration)} with {@link #DEFAULT_CLOSE_TIMEOUT}. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Stops gracefully: stops accepting connections and reading requests, waits up to {@code timeout} for the
     * requests already read to be answered and their responses written to the sockets, then closes every
     * connection and stops the threads (waiting up to a few more seconds for them). Idempotent. Must not be called
     * from an event loop or a request-handler thread, which it waits for.
     */
    public synchronized void close(Duration timeout) {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.NEW) {
            state = State.CLOSED;
            tls.values().forEach(SslEngines::close);
            return;
        }
        for (EventExecutor loop : networkThreads) {
            if (loop.inEventLoop()) {
                throw new IllegalStateException("SocketServer.close() called on its own event loop");
            }
        }
        state = State.CLOSED;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Channel listener : listenerChannels) {
            listener.close().awaitUninterruptibly(STOP_TIMEOUT.toMillis());
        }
        boundPorts = Map.of();
        drainConnections(deadline);
        stop();
        tls.values().forEach(SslEngines::close);
        log.info("Stopped listening; every connection closed");
    }

    private void drainConnections(long deadline) {
        List<CompletableFuture<Void>> drains = new ArrayList<>();
        for (ResponseSequencer connection : connections) {
            drains.add(connection.drain());
        }
        if (drains.isEmpty()) {
            return;
        }
        try {
            CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new))
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            long busy = drains.stream().filter(drain -> !drain.isDone()).count();
            log.warn("{} of {} connections still had requests in flight at the close deadline; closing them anyway",
                    busy, drains.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a drain cannot fail", e);
        }
    }

    /** Closes the connections and stops every thread; whatever state start() reached. */
    private void stop() {
        List<ChannelFuture> closing = new ArrayList<>();
        for (ResponseSequencer connection : connections) {
            closing.add(connection.channel().close());
        }
        for (ChannelFuture close : closing) {
            close.awaitUninterruptibly(STOP_TIMEOUT.toMillis());
        }
        if (dispatcher != null) {
            dispatcher.close(STOP_TIMEOUT);
        }
        List<Future<?>> loops = new ArrayList<>();
        for (EventLoopGroup group : new EventLoopGroup[] {networkThreads, acceptorThreads}) {
            if (group != null) {
                loops.add(group.shutdownGracefully(0, STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            }
        }
        for (Future<?> loop : loops) {
            if (!loop.awaitUninterruptibly(STOP_TIMEOUT.toMillis() + 1000)) {
                log.warn("Network threads did not stop within {} ms", STOP_TIMEOUT.toMillis() + 1000);
            }
        }
    }
}
