package io.tributary.broker.network;

import java.net.InetAddress;
import java.nio.ByteBuffer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stage after the {@link FrameDecoder} in a connection's pipeline: parses a frame into a {@link Request} with the
 * kafka-clients codec.
 *
 * <p>Frame format (size prefix already removed): the request header, whose version follows from the API key and
 * version in its first four bytes (v1: {@code int16 api_key, int16 api_version, int32 correlation_id, nullable string
 * client_id}; v2 adds tagged fields), then the body at {@code api_version}.
 *
 * <p>Refusals, each closing the connection with one log line naming the connection (and so the client address), the
 * API key and the version: an unknown API key, or a version the codec cannot read (INFO: a client newer or older than
 * this broker); a header or body that does not parse, such as a truncated request (WARN). There is no error response
 * in those cases because the protocol has no way to frame one: the response format depends on the API and version.
 * The exception is ApiVersions, which every client sends first to learn what the broker reads: at an unreadable
 * version its body is left unparsed and a v0 {@link ApiVersionsRequest} (marked as such) stands in for it, answered
 * at version 0 with response header v0, which every client can read.
 *
 * <p>A frame refused here gives its bytes back to {@code queued.max.request.bytes} at once; a request passed on
 * carries its reservation to the {@link RequestDispatcher}.
 *
 * <p>One instance per channel; its event loop only.
 */
final class RequestDecoder extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(RequestDecoder.class);

    private final String connectionId;
    private final InetAddress clientAddress;
    private final String listenerName;
    private boolean closed;

    RequestDecoder(String connectionId, InetAddress clientAddress, String listenerName) {
        this.connectionId = connectionId;
        this.clientAddress = clientAddress;
        this.listenerName = listenerName;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (closed) {
            frame.memory().release();
            return;
        }
        Request request = decode(frame.payload(), frame.memory(), ConnectionPrincipal.of(ctx.channel()));
        if (request == null) {
            frame.memory().release();
            closed = true;
            ctx.close();
        } else {
            ctx.fireChannelRead(request);
        }
    }

    /** The request in {@code frame}, or null after logging why the connection must close. */
    private Request decode(ByteBuffer frame, RequestMemoryPool.Reservation memory, KafkaPrincipal principal) {
        if (frame.remaining() < 4) {
            log.warn("Closing connection {}: a frame of {} bytes is too short for a request header",
                    connectionId, frame.remaining());
            return null;
        }
        short apiKeyId = frame.getShort(frame.position());
        short version = frame.getShort(frame.position() + 2);
        if (!ApiKeys.hasId(apiKeyId) || !ApiKeys.forId(apiKeyId).hasValidVersion()) {
            log.info("Closing connection {}: unknown API key {} (version {})", connectionId, apiKeyId, version);
            return null;
        }
        ApiKeys api = ApiKeys.forId(apiKeyId);
        boolean readable = api.isVersionSupported(version);
        if (!readable && api != ApiKeys.API_VERSIONS) {
            log.info("Closing connection {}: {} (key {}) version {} is not one this broker reads ({} to {})",
                    connectionId, api, apiKeyId, version, api.oldestVersion(), api.latestVersion());
            return null;
        }
        RequestHeader header;
        try {
            header = RequestHeader.parse(frame);
        } catch (RuntimeException e) {
            log.warn("Closing connection {}: malformed {} v{} request header: {}", connectionId, api, version,
                    e.toString());
            return null;
        }
        RequestContext context = new RequestContext(header, connectionId, clientAddress, listenerName, principal);
        if (!readable) {
            log.debug("Connection {}: ApiVersions v{} from client id '{}' is newer than this broker; answering at v0",
                    connectionId, version, header.clientId());
            ApiVersionsRequest standIn = new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0, version);
            return new Request(context, standIn, new ResponseHeader(header.correlationId(), (short) 0), (short) 0,
                    memory);
        }
        AbstractRequest body;
        try {
            body = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(frame)).request;
        } catch (RuntimeException e) {
            log.warn("Closing connection {}: malformed {} v{} request (correlation id {}, client id '{}'): {}",
                    connectionId, api, version, header.correlationId(), header.clientId(), e.toString());
            return null;
        }
        if (frame.hasRemaining() && log.isDebugEnabled()) {
            log.debug("Connection {}: {} bytes after the body of {} v{} ignored", connectionId, frame.remaining(),
                    api, version);
        }
        return new Request(context, body, header.toResponseHeader(), version, memory);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        ctx.fireChannelInactive();
    }
}
