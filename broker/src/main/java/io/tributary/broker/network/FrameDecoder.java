package io.tributary.broker.network;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First stage of a connection's pipeline: cuts the byte stream into request frames. On the wire a frame is a 4-byte
 * big-endian size {@code N} followed by {@code N} bytes (request header and body); this stage passes on the {@code N}
 * bytes as a heap {@link ByteBuffer} of exactly that size, positioned at 0.
 *
 * <p>A size above {@code socket.request.max.bytes}, or negative, closes the connection with one WARN line that shows
 * the four bytes read as the size (an HTTP or TLS client on a plaintext port shows up as {@code 47455420} "GET " or
 * {@code 16030100}). Nothing else on the server is affected.
 *
 * <p>Copy, not retain: each frame is copied once, from the pooled buffer Netty read the socket into, to a heap buffer
 * of the frame's size, allocated when its size prefix arrives. Cost: one {@code memcpy} per request byte (about 0.1 ms
 * for a 1 MiB produce, next to the CRC check and the log append of the same bytes) and a heap allocation per
 * request, which is the one copy Kafka's own {@code NetworkReceive} makes too; no cumulation buffer is ever merged, so
 * a large request spread over many reads is still copied only once. Gain: parsed requests point into plain heap
 * memory that the garbage collector owns, so handlers may keep produce records past the response (replication, a
 * request waiting for acks=all) and nothing can read a pooled buffer after it was released and reused. The price of
 * allocating at the size prefix is that a client announcing a large request ties up that much heap until it sends it
 * or disconnects, bounded by {@code socket.request.max.bytes} per connection, as in Kafka.
 *
 * <p>Back-pressure: a frame is passed on only while the connection's {@link ReadThrottle} is open. Bytes received
 * while it is closed (at most what one socket read returned, since the throttle also turns {@code autoRead} off) are
 * kept and decoded when it opens again.
 *
 * <p>One instance per channel; its event loop only.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(FrameDecoder.class);

    private final String connectionId;
    private final int maxRequestBytes;
    private final ReadThrottle throttle;

    /** The size prefix of the next frame, which may arrive split over several reads. */
    private final ByteBuffer sizePrefix = ByteBuffer.allocate(4);
    /** The frame being filled; null while reading a size prefix. */
    private ByteBuffer frame;
    /** Bytes received and not yet decoded; null when there are none. */
    private ByteBuf received;
    private ChannelHandlerContext ctx;
    /** True while {@link #decode} runs: a frame passed on can reopen the throttle, which calls back here. */
    private boolean decoding;
    /** The connection is closed or closing; drop whatever else arrives. */
    private boolean closed;

    FrameDecoder(String connectionId, int maxRequestBytes, ReadThrottle throttle) {
        this.connectionId = connectionId;
        this.maxRequestBytes = maxRequestBytes;
        this.throttle = throttle;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        throttle.onReopen(this::decode);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf bytes = (ByteBuf) msg;
        if (closed) {
            bytes.release();
            return;
        }
        // Ownership of both passes to the composite, which releases them with itself.
        received = received == null ? bytes : Unpooled.wrappedBuffer(received, bytes);
        decode();
    }

    private void decode() {
        if (decoding) {
            return; // re-entered through the throttle: the loop below goes on by itself
        }
        decoding = true;
        try {
            while (!closed && received != null && received.isReadable() && throttle.mayDecode()) {
                if (frame == null && !readSizePrefix()) {
                    break;
                }
                int length = Math.min(frame.remaining(), received.readableBytes());
                received.readBytes(frame.array(), frame.arrayOffset() + frame.position(), length);
                frame.position(frame.position() + length);
                if (!frame.hasRemaining()) {
                    ByteBuffer complete = frame.flip();
                    frame = null;
                    ctx.fireChannelRead(complete);
                }
            }
        } finally {
            decoding = false;
            if (received != null && (closed || !received.isReadable())) {
                received.release();
                received = null;
            }
        }
    }

    /** Reads (the rest of) a size prefix; true once a valid one is complete and {@link #frame} is allocated. */
    private boolean readSizePrefix() {
        int length = Math.min(sizePrefix.remaining(), received.readableBytes());
        received.readBytes(sizePrefix.array(), sizePrefix.position(), length);
        sizePrefix.position(sizePrefix.position() + length);
        if (sizePrefix.hasRemaining()) {
            return false;
        }
        int size = sizePrefix.getInt(0);
        sizePrefix.clear();
        if (size < 0 || size > maxRequestBytes) {
            log.warn("Closing connection {}: request size {} (bytes {}) {}", connectionId, size,
                    String.format("%08x", size),
                    size < 0 ? "is negative" : "exceeds socket.request.max.bytes " + maxRequestBytes);
            closeConnection();
            return false;
        }
        frame = ByteBuffer.allocate(size);
        return true;
    }

    private void closeConnection() {
        closed = true;
        frame = null;
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        frame = null;
        releaseReceived();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseReceived();
    }

    private void releaseReceived() {
        if (received != null && !decoding) {
            received.release();
            received = null;
        }
    }
}
