package io.tributary.broker.network;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts a connection's byte stream into request frames: the first stage of its pipeline after the {@link ExpiryTimer}.
 * On the wire a frame is a 4-byte big-endian size {@code N} followed by {@code N} bytes (request header and body);
 * this stage passes on a {@link Frame}: the {@code N} bytes as a heap {@link ByteBuffer} of exactly that size,
 * positioned at 0, and their reservation in the {@link RequestMemoryPool}.
 *
 * <p>Refusals, each closing the connection with one WARN line that shows the four bytes read as the size (an HTTP or
 * TLS client on a plaintext port shows up as {@code 47455420} "GET " or {@code 16030100}): a negative size, one
 * above {@code socket.request.max.bytes}, and one above the whole of {@code queued.max.request.bytes}, which could
 * never be reserved. Nothing else on the server is affected.
 *
 * <p>Memory: when a size prefix is complete, the frame reserves its size in the pool; if that does not fit, the
 * connection stops reading ({@link ReadThrottle#awaitMemory}) until memory is released, and tries again. The heap
 * buffer, though, grows as bytes arrive, to at most twice what has been received and never beyond the frame's size,
 * so a client that announces 100 MiB and sends nothing costs a reservation, not 100 MiB of heap. (Allocated whole at
 * the size prefix, as it used to be, 12 connections announcing 100 MiB held 400 MiB of heap and ran the broker out
 * of memory.) A frame that is complete in what one socket read delivered, as most are, is copied once, from the
 * pooled buffer Netty read into, to a buffer of its exact size. A larger one spread over many reads doubles its
 * buffer as it fills, the last step allocating exactly the frame's size, so each byte is copied about twice (a 1 MiB
 * produce in 64 KiB reads: buffers of 64, 128, 256, 512 and 1024 KiB, 1.9 MiB copied in all, a fraction of a
 * millisecond next to the CRC check and the log append of the same bytes).
 *
 * <p>Copy, not retain: parsed requests point into plain heap memory that the garbage collector owns, so handlers may
 * keep produce records past the response (replication, a request waiting for acks=all) and nothing can read a pooled
 * buffer after it was released and reused. Kafka's own {@code NetworkReceive} copies once too.
 *
 * <p>Back-pressure: a frame is taken in only while the connection's {@link ReadThrottle} is open. Bytes received
 * while it is closed (at most what one socket read returned, since the throttle also turns {@code autoRead} off) are
 * kept and decoded when it opens again.
 *
 * <p>Reports to the connection's {@link ConnectionExpiry} when a frame starts and when it is complete.
 *
 * <p>One instance per channel; its event loop only.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(FrameDecoder.class);

    /** Where the next bytes go. */
    private enum State {
        /** Reading a size prefix, which may arrive split over several reads. */
        SIZE,
        /** A size is known; its reservation in the pool did not fit yet. */
        MEMORY,
        /** Reading the frame's bytes into {@link #frame}. */
        BODY
    }

    private final String connectionId;
    /** {@code socket.request.max.bytes}; lower until a SASL client has authenticated ({@link #limit}). */
    private int maxRequestBytes;
    private String maxRequestBytesName = "socket.request.max.bytes";
    private final ReadThrottle throttle;
    private final RequestMemoryPool memory;
    private final ConnectionExpiry expiry;

    private final ByteBuffer sizePrefix = ByteBuffer.allocate(4);
    private State state = State.SIZE;
    /** The size of the frame being read; in MEMORY and BODY. */
    private int frameSize;
    /** The frame's reservation; in BODY. */
    private RequestMemoryPool.Reservation reservation;
    /** The frame's bytes so far, at most {@link #frameSize}; null until the first arrives. */
    private ByteBuffer frame;
    /** Bytes received and not yet decoded; null when there are none. */
    private ByteBuf received;
    private ChannelHandlerContext ctx;
    /** True while {@link #decode} runs: a frame passed on can reopen the throttle, which calls back here. */
    private boolean decoding;
    /** The connection is closed or closing; drop whatever else arrives. */
    private boolean closed;

    FrameDecoder(String connectionId, int maxRequestBytes, ReadThrottle throttle, RequestMemoryPool memory,
                 ConnectionExpiry expiry) {
        this.connectionId = connectionId;
        this.maxRequestBytes = maxRequestBytes;
        this.throttle = throttle;
        this.memory = memory;
        this.expiry = expiry;
    }

    /**
     * Changes the largest frame accepted from now on; the {@link SaslAuthenticator} keeps it low until the client
     * has authenticated, as Kafka's {@code sasl.server.max.receive.size} does.
     *
     * @param name what the limit is called in the log line that refuses a larger frame
     */
    void limit(int maxRequestBytes, String name) {
        this.maxRequestBytes = maxRequestBytes;
        this.maxRequestBytesName = name;
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
            while (!closed && hasWork() && throttle.mayDecode()) {
                if (state == State.SIZE && !readSizePrefix()) {
                    break;
                }
                if (state == State.MEMORY && !reserve()) {
                    break;
                }
                if (!readBody()) {
                    break;
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

    /**
     * Whether there are bytes to decode or a reservation to retry; the throttle is asked only then, so that a
     * connection with nothing to decode is not paused for a full handler queue.
     */
    private boolean hasWork() {
        return state == State.MEMORY || (received != null && received.isReadable());
    }

    /** Reads (the rest of) a size prefix; true once a valid one is complete. */
    private boolean readSizePrefix() {
        if (received == null || !received.isReadable()) {
            return false;
        }
        if (sizePrefix.position() == 0) {
            expiry.frameStarted();
        }
        int length = Math.min(sizePrefix.remaining(), received.readableBytes());
        received.readBytes(sizePrefix.array(), sizePrefix.position(), length);
        sizePrefix.position(sizePrefix.position() + length);
        if (sizePrefix.hasRemaining()) {
            return false;
        }
        int size = sizePrefix.getInt(0);
        sizePrefix.clear();
        String refusal = size < 0 ? "is negative"
                : size > maxRequestBytes ? "exceeds " + maxRequestBytesName + " " + maxRequestBytes
                : size > memory.capacity() ? "exceeds queued.max.request.bytes " + memory.capacity()
                        + ", the memory for all requests being received or queued"
                : null;
        if (refusal != null) {
            log.warn("Closing connection {}: request size {} (bytes {}) {}", connectionId, size,
                    String.format("%08x", size), refusal);
            closeConnection();
            return false;
        }
        frameSize = size;
        state = State.MEMORY;
        return true;
    }

    /** Reserves the frame's size in the pool; if it does not fit, stops reading until it may and returns false. */
    private boolean reserve() {
        reservation = memory.tryReserve(frameSize);
        if (reservation == null) {
            throttle.awaitMemory(memory, frameSize);
            return false;
        }
        state = State.BODY;
        return true;
    }

    /** Takes in what has arrived of the frame; true once it is complete and passed on. */
    private boolean readBody() {
        int filled = frame == null ? 0 : frame.position();
        int length = received == null ? 0 : Math.min(frameSize - filled, received.readableBytes());
        if (length > 0) {
            ensureCapacity(filled + length);
            received.readBytes(frame.array(), frame.arrayOffset() + filled, length);
            frame.position(filled + length);
        }
        if (filled + length < frameSize) {
            return false;
        }
        ByteBuffer payload = frame == null ? ByteBuffer.allocate(0) : frame.flip();
        Frame complete = new Frame(payload, reservation);
        frame = null;
        reservation = null;
        state = State.SIZE;
        expiry.frameReceived();
        ctx.fireChannelRead(complete);
        return true;
    }

    /** Grows {@link #frame} to hold {@code needed} bytes: by doubling, and to exactly the frame's size at the end. */
    private void ensureCapacity(int needed) {
        int capacity = frame == null ? 0 : frame.capacity();
        if (needed <= capacity) {
            return;
        }
        int grown = (int) Math.min(frameSize, Math.max(needed, 2L * capacity));
        ByteBuffer bigger = ByteBuffer.allocate(grown);
        if (frame != null) {
            bigger.put(frame.flip());
        }
        frame = bigger;
    }

    private void closeConnection() {
        closed = true;
        dropFrame();
        ctx.close();
    }

    private void dropFrame() {
        frame = null;
        if (reservation != null) {
            reservation.release();
            reservation = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        dropFrame();
        releaseReceived();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropFrame();
        releaseReceived();
    }

    private void releaseReceived() {
        if (received != null && !decoding) {
            received.release();
            received = null;
        }
    }
}
