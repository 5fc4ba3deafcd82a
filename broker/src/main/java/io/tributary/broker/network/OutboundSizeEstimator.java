package io.tributary.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;

/**
 * Sizes outbound messages for a connection's write-buffer water marks, counting file regions by the bytes they will
 * send. Netty's default estimator counts a {@code FileRegion} as 0 bytes, which would keep a connection "writable",
 * and so read, however many fetch responses are queued for a client that stopped reading. Stateless; shared.
 */
final class OutboundSizeEstimator implements MessageSizeEstimator, MessageSizeEstimator.Handle {

    static final OutboundSizeEstimator INSTANCE = new OutboundSizeEstimator();

    private OutboundSizeEstimator() {
    }

    @Override
    public Handle newHandle() {
        return this;
    }

    @Override
    public int size(Object message) {
        if (message instanceof ByteBuf buffer) {
            return buffer.readableBytes();
        }
        if (message instanceof FileRegion region) {
            return (int) Math.min(Integer.MAX_VALUE, region.count());
        }
        return 0;
    }
}
