package io.tributary.broker.network;

import java.io.IOException;
import java.util.List;

import io.netty.util.ReferenceCountUtil;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A response serialized for the wire, as the Netty messages to write in order: the 4-byte size prefix, the response
 * header and the body, heap bytes as {@code ByteBuf}s and record files as {@link SharedFileRegion}s.
 *
 * <p>Serialization is the codec's ({@code SendBuilder}); records are not copied through the heap: in-memory records
 * stay the buffers the handler gave, record files become regions sent with {@code sendfile}, or, up to
 * {@link #COPY_MAX_BYTES}, direct buffers read from the file so that a small response is one write (see
 * {@link NettyTransferableChannel}). Built on whichever thread completed the
 * handler's future (so large responses are not serialized on an event loop), then handed to the connection's event
 * loop, which writes or releases it.
 */
final class ResponseParts {

    /**
     * Record file slices up to this size are read into a direct buffer rather than sent with {@code sendfile}: one
     * {@code pread} on the serializing thread buys one {@code writev} for the whole response instead of three system
     * calls on the event loop. 16 KiB is a dozen 1 KiB records, what a consumer that keeps up gets per fetch.
     */
    static final int COPY_MAX_BYTES = 16 * 1024;

    private final List<Object> messages;
    private final long bytes;

    private ResponseParts(List<Object> messages, long bytes) {
        this.messages = messages;
        this.bytes = bytes;
    }

    /**
     * Serializes {@code response} to {@code request} with the request's response header and version.
     *
     * @throws IOException      if a record file cannot be read (it was truncated under the response)
     * @throws RuntimeException if the response does not fit its version (a field set that the version lacks) or is
     *                          not a response to this request's API
     */
    static ResponseParts serialize(Request request, AbstractResponse response) throws IOException {
        return serialize(request, response, COPY_MAX_BYTES);
    }

    /** {@link #serialize(Request, AbstractResponse)} copying file slices up to {@code copyMaxBytes}. */
    static ResponseParts serialize(Request request, AbstractResponse response, int copyMaxBytes) throws IOException {
        if (response.apiKey() != request.context().header().apiKey()) {
            throw new IllegalArgumentException("a " + response.apiKey() + " response to a " + request.describe());
        }
        Send send = SendBuilder.buildResponseSend(request.responseHeader(), response.data(),
                request.responseVersion());
        NettyTransferableChannel channel = new NettyTransferableChannel(copyMaxBytes);
        try {
            // The channel takes every byte at once, so each writeTo moves a Send forward; a pass that does not means
            // a Send that never completes, which would otherwise spin here forever.
            while (!send.completed()) {
                long before = channel.bytes();
                send.writeTo(channel);
                if (channel.bytes() == before && !send.completed()) {
                    throw new IllegalStateException("a " + send.getClass().getSimpleName()
                            + " made no progress after " + before + " of " + send.size() + " bytes");
                }
            }
            if (channel.bytes() != send.size()) {
                throw new IllegalStateException("response of " + send.size() + " bytes produced " + channel.bytes());
            }
            return new ResponseParts(channel.messages(), channel.bytes());
        } catch (IOException | RuntimeException e) {
            channel.release();
            throw e;
        }
    }

    /** The messages to write, in order; writing them hands them to Netty, which releases them. */
    List<Object> messages() {
        return messages;
    }

    /** Bytes on the wire, size prefix included. */
    long bytes() {
        return bytes;
    }

    /** Releases the messages of a response that will not be written (its connection closed first). */
    void release() {
        for (Object message : messages) {
            ReferenceCountUtil.safeRelease(message);
        }
    }
}
