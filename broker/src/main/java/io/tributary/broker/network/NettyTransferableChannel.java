package io.tributary.broker.network;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * The adapter between a kafka-clients {@code Send} and Netty: a {@link TransferableChannel} that, instead of writing
 * bytes anywhere, turns what the {@code Send} writes into Netty messages, in order. Heap (or direct) byte buffers
 * become {@code ByteBuf}s that wrap them without copying; {@link #transferFrom} (how a {@code FileRecords} slice
 * writes itself) becomes a {@link SharedFileRegion}, which the transport sends with {@code sendfile}, unless the slice
 * is small: then it is read into a pooled direct buffer (off the heap), so that the whole response leaves in one
 * {@code writev} instead of three system calls (header, {@code sendfile}, the tagged fields after the records).
 * Three calls on a {@code TCP_NODELAY} socket can reach the consumer as separate segments, which wakes it before its
 * response is complete; a consumer at the end of the log gets a small response for every record.
 *
 * <p>It accepts everything at once, so a {@code Send} finishes in one pass and {@link #hasPendingWrites()} is always
 * false; pacing the bytes to the socket is Netty's job. Single-threaded: one instance per response, used by the
 * thread that serializes that response.
 */
final class NettyTransferableChannel implements TransferableChannel {

    private final List<Object> messages = new ArrayList<>();
    private final int copyMaxBytes;
    private long bytes;
    private boolean open = true;

    /** @param copyMaxBytes file slices up to this size are copied into a direct buffer; larger ones are regions */
    NettyTransferableChannel(int copyMaxBytes) {
        this.copyMaxBytes = copyMaxBytes;
    }

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
    public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
        if (count <= 0) {
            return 0;
        }
        if (count <= copyMaxBytes) {
            messages.add(read(fileChannel, position, (int) count));
        } else {
            messages.add(new SharedFileRegion(fileChannel, position, count));
        }
        bytes += count;
        return count;
    }

    /** Exactly {@code count} bytes of the file from {@code position}, in a direct buffer the caller then owns. */
    private static ByteBuf read(FileChannel fileChannel, long position, int count) throws IOException {
        ByteBuf copy = ByteBufAllocator.DEFAULT.directBuffer(count, count);
        try {
            while (copy.isWritable()) {
                long at = position + copy.writerIndex();
                if (copy.writeBytes(fileChannel, at, copy.writableBytes()) < 0) {
                    throw new EOFException("record file ended at " + at + ", before the " + count
                            + " bytes from " + position + " that the response holds (truncated under the read)");
                }
            }
            return copy;
        } catch (IOException | RuntimeException e) {
            copy.release();
            throw e;
        }
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
