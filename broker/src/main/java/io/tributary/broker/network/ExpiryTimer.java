package io.tributary.broker.network;

import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Head of a connection's pipeline when {@code connections.max.idle.ms} is set: reports every read to the
 * connection's {@link ConnectionExpiry}, asks it, on one timer per connection, whether the connection has expired,
 * and closes it if so. The timer is set for the earliest moment expiry is possible and set again from there, rather
 * than ticking: 10,000 idle connections cost one scheduled task each, run once per timeout.
 *
 * <p>Log lines: an idle connection is closed at DEBUG, as Kafka does (it is how every client that goes quiet ends,
 * the Java client closing its own at 9 minutes first); one whose request arrives too slowly at WARN, naming the
 * timeout, as that is a broken or hostile client. The client sees the connection end (end of stream) without a
 * response to the incomplete request.
 *
 * <p>One instance per channel; its event loop only.
 */
final class ExpiryTimer extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ExpiryTimer.class);

    private final String connectionId;
    private final ConnectionExpiry expiry;
    private final long timeoutMs;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> check;

    ExpiryTimer(String connectionId, ConnectionExpiry expiry, long timeoutMs) {
        this.connectionId = connectionId;
        this.expiry = expiry;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            schedule(expiry.nanosUntilNextCheck());
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (check == null) {
            schedule(expiry.nanosUntilNextCheck());
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        expiry.activity();
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void schedule(long delayNanos) {
        check = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (check != null) {
            check.cancel(false);
        }
    }

    private void check() {
        if (!ctx.channel().isActive()) {
            return;
        }
        ConnectionExpiry.Reason reason = expiry.expired();
        if (reason == null) {
            schedule(expiry.nanosUntilNextCheck());
            return;
        }
        if (reason == ConnectionExpiry.Reason.IDLE) {
            log.debug("Closing connection {}: idle for {} ms (connections.max.idle.ms)", connectionId, timeoutMs);
        } else {
            log.warn("Closing connection {}: a request has not arrived in full {} ms after its first byte "
                    + "(connections.max.idle.ms)", connectionId, timeoutMs);
        }
        ctx.close();
    }
}
