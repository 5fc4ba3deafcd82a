package io.tributary.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;

import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tributary.broker.security.SaslServers;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stage of a SASL listener's pipeline, between the {@link FrameDecoder} and the {@link RequestDecoder}, that
 * authenticates the connection before any request reaches the broker, following Kafka's exchange:
 * <ol>
 * <li>ApiVersions (optional, any number) passes through and is answered by the broker as usual, so the client learns
 * the SaslHandshake and SaslAuthenticate versions;</li>
 * <li>SaslHandshake (v0-1) names a mechanism: answered {@code NONE}, or {@code UNSUPPORTED_SASL_MECHANISM} with the
 * listener's mechanisms, after which the connection closes;</li>
 * <li>after a v1 handshake, SaslAuthenticate requests (v0-2) carry the client's tokens and their responses the
 * server's; after a v0 handshake, the tokens come as bare size-prefixed frames and are answered the same way;</li>
 * <li>once the mechanism's server is complete the principal {@code User:<authorization id>} is set on the channel
 * ({@link ConnectionPrincipal}), the frame limit is raised to {@code socket.request.max.bytes} and this stage leaves
 * the pipeline; with {@code connections.max.reauth.ms} it stays (see below).</li>
 * </ol>
 * Re-authentication (KIP-368): with {@code connections.max.reauth.ms} above 0, the last SaslAuthenticate response
 * (v1 and later) tells the client its session lifetime, and the stage stays in the pipeline as a pass-through that
 * looks at each request's API key. A SaslHandshake (v1) starts the exchange again on the open connection (the Java
 * client does so before the session ends); it must end with the same principal, else it fails like wrong
 * credentials. Any other request after the session ended closes the connection, as Kafka does.
 * Failures: wrong credentials answer SaslAuthenticate with {@code SASL_AUTHENTICATION_FAILED} and the reason, then
 * close; any other request before authentication, a request that does not parse, or a token after a v0 handshake
 * that fails, closes the connection without an answer, as Kafka does. Each is one log line naming the connection.
 * Until authentication, frames above {@value #MAX_UNAUTHENTICATED_BYTES} bytes close the connection (Kafka's
 * {@code sasl.server.max.receive.size} default): a stranger cannot make the broker reserve 100 MiB.
 *
 * <p>The SASL servers (PLAIN, SCRAM) run here, on the event loop: they compare a password or compute a few HMACs over
 * a credential held in memory, microseconds of work, and never block. One instance per channel; its event loop only.
 */
final class SaslAuthenticator extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(SaslAuthenticator.class);

    /** Kafka's {@code sasl.server.max.receive.size} default: the largest frame before authentication. */
    static final int MAX_UNAUTHENTICATED_BYTES = 524_288;

    private enum State {
        /** Waiting for SaslHandshake (ApiVersions passes). */
        HANDSHAKE,
        /** After a v1 handshake: waiting for SaslAuthenticate requests. */
        AUTHENTICATE,
        /** After a v0 handshake: waiting for bare tokens. */
        AUTHENTICATE_RAW,
        /** Authenticated, with re-authentication: requests pass until the session ends. */
        AUTHENTICATED,
        /** Failed or closed: whatever still arrives is dropped. */
        DONE
    }

    private final String connectionId;
    private final String listenerName;
    private final SaslServers servers;
    private final FrameDecoder frames;
    private final int maxRequestBytes;
    /** {@code connections.max.reauth.ms}: a session's lifetime, 0 for sessions as long as their connection. */
    private final long reauthMs;
    private State state = State.HANDSHAKE;
    private SaslServer server;
    /** The principal of the current session; null until the first authentication. */
    private KafkaPrincipal principal;
    /** When the current session ends ({@code System.nanoTime()}), with re-authentication. */
    private long sessionEndNanos;

    /**
     * @param frames          the connection's frame decoder, whose limit this stage lowers until authentication
     * @param maxRequestBytes {@code socket.request.max.bytes}, restored once authenticated
     */
    SaslAuthenticator(String connectionId, String listenerName, SaslServers servers, FrameDecoder frames,
                      int maxRequestBytes) {
        this(connectionId, listenerName, servers, frames, maxRequestBytes, 0);
    }

    /** @param reauthMs {@code connections.max.reauth.ms}: the session lifetime, 0 for no re-authentication */
    SaslAuthenticator(String connectionId, String listenerName, SaslServers servers, FrameDecoder frames,
                      int maxRequestBytes, long reauthMs) {
        this.connectionId = connectionId;
        this.listenerName = listenerName;
        this.servers = servers;
        this.frames = frames;
        this.maxRequestBytes = maxRequestBytes;
        this.reauthMs = Math.max(0, reauthMs);
        frames.limit(Math.min(maxRequestBytes, MAX_UNAUTHENTICATED_BYTES),
                "the limit before SASL authentication (sasl.server.max.receive.size)");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (state == State.HANDSHAKE && isApiVersions(frame.payload())) {
            ctx.fireChannelRead(frame); // its memory is released by the stages after this one
            return;
        }
        if (state == State.AUTHENTICATED) {
            if (!isApiKey(frame.payload(), ApiKeys.SASL_HANDSHAKE)) {
                if (System.nanoTime() - sessionEndNanos < 0) {
                    ctx.fireChannelRead(frame);
                    return;
                }
                log.info("Closing connection {} on listener {}: the session of {} ended {} ms after it began"
                        + " (connections.max.reauth.ms) and the client did not re-authenticate", connectionId,
                        listenerName, principal, reauthMs);
                fail();
                frame.memory().release();
                ctx.close();
                return;
            }
            state = State.HANDSHAKE; // re-authentication
        }
        try {
            switch (state) {
                case HANDSHAKE -> handshake(ctx, frame.payload());
                case AUTHENTICATE -> authenticate(ctx, frame.payload());
                case AUTHENTICATE_RAW -> authenticateRaw(ctx, frame.payload());
                case DONE -> {
                    // closing; drop it
                }
            }
        } finally {
            frame.memory().release();
        }
    }

    private static boolean isApiVersions(ByteBuffer frame) {
        return isApiKey(frame, ApiKeys.API_VERSIONS);
    }

    private static boolean isApiKey(ByteBuffer frame, ApiKeys key) {
        return frame.remaining() >= 2 && frame.getShort(frame.position()) == key.id;
    }

    private void handshake(ChannelHandlerContext ctx, ByteBuffer frame) {
        Parsed request = parse(ctx, frame, ApiKeys.SASL_HANDSHAKE);
        if (request == null) {
            return;
        }
        String mechanism = ((SaslHandshakeRequest) request.body).data().mechanism();
        SaslHandshakeResponseData answer = new SaslHandshakeResponseData()
                .setMechanisms(servers.enabledMechanisms());
        if (!servers.isEnabled(mechanism)) {
            log.info("Closing connection {} on listener {}: SASL mechanism '{}' is not enabled (enabled: {})",
                    connectionId, listenerName, mechanism, servers.enabledMechanisms());
            answer.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            send(ctx, new SaslHandshakeResponse(answer), request.header).addListener(ChannelFutureListener.CLOSE);
            state = State.DONE;
            return;
        }
        if (principal != null && request.header.apiVersion() < 1) {
            log.info("Closing connection {} on listener {}: re-authentication needs SaslHandshake v1, not v0",
                    connectionId, listenerName);
            fail();
            ctx.close();
            return;
        }
        server = servers.newServer(mechanism);
        state = request.header.apiVersion() >= 1 ? State.AUTHENTICATE : State.AUTHENTICATE_RAW;
        send(ctx, new SaslHandshakeResponse(answer.setErrorCode(Errors.NONE.code())), request.header);
    }

    private void authenticate(ChannelHandlerContext ctx, ByteBuffer frame) {
        Parsed request = parse(ctx, frame, ApiKeys.SASL_AUTHENTICATE);
        if (request == null) {
            return;
        }
        byte[] token = ((SaslAuthenticateRequest) request.body).data().authBytes();
        SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData();
        byte[] challenge;
        try {
            challenge = server.evaluateResponse(token);
        } catch (SaslException | RuntimeException e) {
            String reason = e instanceof SaslAuthenticationException ? e.getMessage()
                    : "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                    + server.getMechanismName();
            log.info("Closing connection {} on listener {}: SASL {} authentication failed: {}", connectionId,
                    listenerName, server.getMechanismName(), e.toString());
            answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(reason);
            send(ctx, new SaslAuthenticateResponse(answer), request.header).addListener(ChannelFutureListener.CLOSE);
            fail();
            return;
        }
        answer.setErrorCode(Errors.NONE.code()).setAuthBytes(challenge == null ? new byte[0] : challenge);
        if (server.isComplete()) {
            KafkaPrincipal authenticated = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
            if (principal != null && !principal.equals(authenticated)) {
                log.info("Closing connection {} on listener {}: re-authentication as {} on a session of {}",
                        connectionId, listenerName, authenticated, principal);
                answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setAuthBytes(new byte[0])
                        .setErrorMessage("Cannot change principal during re-authentication from " + principal
                                + " to " + authenticated);
                send(ctx, new SaslAuthenticateResponse(answer), request.header)
                        .addListener(ChannelFutureListener.CLOSE);
                fail();
                return;
            }
            if (reauthMs > 0 && request.header.apiVersion() >= 1) {
                answer.setSessionLifetimeMs(reauthMs);
            }
        }
        send(ctx, new SaslAuthenticateResponse(answer), request.header);
        if (server.isComplete()) {
            complete(ctx);
        }
    }

    private void authenticateRaw(ChannelHandlerContext ctx, ByteBuffer frame) {
        byte[] token = new byte[frame.remaining()];
        frame.get(token);
        byte[] challenge;
        try {
            challenge = server.evaluateResponse(token);
        } catch (SaslException | RuntimeException e) {
            log.info("Closing connection {} on listener {}: SASL {} authentication (v0 handshake) failed: {}",
                    connectionId, listenerName, server.getMechanismName(), e.toString());
            fail();
            ctx.close();
            return;
        }
        if (challenge != null) {
            ctx.writeAndFlush(Unpooled.buffer(4 + challenge.length).writeInt(challenge.length).writeBytes(challenge));
        }
        if (server.isComplete()) {
            complete(ctx);
        }
    }

    private void complete(ChannelHandlerContext ctx) {
        boolean again = principal != null;
        principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
        String mechanism = server.getMechanismName();
        dispose();
        ConnectionPrincipal.set(ctx.channel(), principal);
        frames.limit(maxRequestBytes, "socket.request.max.bytes");
        log.debug("Connection {} on listener {} {} as {} with SASL {}", connectionId, listenerName,
                again ? "re-authenticated" : "authenticated", principal, mechanism);
        if (reauthMs > 0) {
            sessionEndNanos = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(reauthMs);
            state = State.AUTHENTICATED;
        } else {
            state = State.DONE;
            ctx.pipeline().remove(this);
        }
    }

    private void fail() {
        state = State.DONE;
        dispose();
    }

    /** A request the client may send now, or null after closing the connection. */
    private Parsed parse(ChannelHandlerContext ctx, ByteBuffer frame, ApiKeys expected) {
        short apiKey = frame.remaining() >= 2 ? frame.getShort(frame.position()) : -1;
        if (apiKey != expected.id) {
            String what = ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey).toString() : "unknown API key " + apiKey;
            log.info("Closing connection {} on listener {}: {} before SASL authentication completed (expected {})",
                    connectionId, listenerName, what, expected);
            fail();
            ctx.close();
            return null;
        }
        try {
            short version = frame.getShort(frame.position() + 2);
            if (!expected.isVersionSupported(version)) {
                throw new IllegalArgumentException(expected + " version " + version + " is not supported");
            }
            RequestHeader header = RequestHeader.parse(frame);
            AbstractRequest body = AbstractRequest.parseRequest(expected, version, new ByteBufferAccessor(frame))
                    .request;
            return new Parsed(header, body);
        } catch (RuntimeException e) {
            log.info("Closing connection {} on listener {}: malformed {} request: {}", connectionId, listenerName,
                    expected, e.toString());
            fail();
            ctx.close();
            return null;
        }
    }

    private record Parsed(RequestHeader header, AbstractRequest body) {
    }

    /** Writes a response at the request's version, with its response header. */
    private ChannelFuture send(ChannelHandlerContext ctx, AbstractResponse response, RequestHeader header) {
        Send send = response.toSend(header.toResponseHeader(), header.apiVersion());
        NettyTransferableChannel out = new NettyTransferableChannel(0);
        try {
            while (!send.completed()) {
                send.writeTo(out);
            }
        } catch (IOException e) {
            out.release();
            throw new IllegalStateException("writing a response to memory failed", e);
        }
        for (Object message : out.messages()) {
            ctx.write(message);
        }
        return ctx.writeAndFlush(Unpooled.EMPTY_BUFFER);
    }

    private void dispose() {
        if (server != null) {
            try {
                server.dispose();
            } catch (SaslException e) {
                log.debug("Disposing the SASL server of connection {}: {}", connectionId, e.toString());
            }
            server = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail();
        ctx.fireChannelInactive();
    }
}
