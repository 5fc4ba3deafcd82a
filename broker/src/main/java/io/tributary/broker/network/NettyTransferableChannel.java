package io.tributary.broker.network;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * The adapter between a kafka-clients {@code Send} and Netty: a {@link TransferableChannel} that, instead of writing
 * bytes anywhere, turns what the {@code Send} writes into Netty messages, in order. Heap (or direct) byte buffers
 * become {@code ByteBuf}s that wrap them without copying; {@link #transferFrom} (how a {@code FileRecords} slice
 * writes itself) becomes a {@link SharedFileRegion}, which the transport sends with {@code sendfile}.
 *
 * <p>It accepts everything at once, so a {@code Send} finishes in one pass and {@link #hasPendingWrites()} is always
 * false; pacing the bytes to the socket is Netty's job. Single-threaded: one instance per response, used by the
 * thread that serializes that response.
 */
final class NettyTransferableChannel implements TransferableChannel {

    private final List<Object> messages = new ArrayList<>();
    private long bytes;
    private boolean open = true;

    @Override
    public int write(ByteBuffer src) {
        int length = src.remaining();
        if (length > 0) {
            // The Send owns src and never reuses it once written, so wrapping (not copying) is safe.
            messages.add(Unpooled.wrappedBuffer(src.slice()));
            src.position(src.limit());
            bytes += length;
        }
        return length;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        long written = 0;
        for (int i = offset; i < offset + length; i++) {
            written += write(srcs[i]);
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] srcs) {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public long transferFrom(FileChannel fileChannel, long position, long count) {
        if (count > 0) {
            messages.add(new SharedFileRegion(fileChannel, position, count));
            bytes += count;
        }
        return count;
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }

    /** The messages collected so far, in write order; the caller now owns them (they are reference counted). */
    List<Object> messages() {
        return messages;
    }

    /** Bytes collected so far, file regions included. */
    long bytes() {
        return bytes;
    }

    /** Releases every message collected, for a response that will not be written after all. */
    void release() {
        for (Object message : messages) {
            ReferenceCountUtil.safeRelease(message);
        }
        messages.clear();
    }
}
