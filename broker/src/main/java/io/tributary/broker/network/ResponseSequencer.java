package io.tributary.broker.network;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import javax.net.ssl.SSLException;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last stage of a connection's pipeline: dispatches each decoded request to the {@link RequestDispatcher} and writes
 * the responses in request order, however the handler completes them.
 *
 * <p>Ordering: every request takes a slot at the tail of {@link #inFlight} when it arrives. A completed response fills
 * its slot; then all filled slots at the head are written, in order, and flushed once. A slot filled with no response
 * ({@code acks=0}) is dropped when it reaches the head, writing nothing. So a long-poll fetch at the head holds back
 * the responses behind it, which is what the protocol requires (clients match responses to requests by order as well
 * as by correlation id).
 *
 * <p>Threads: the queue and the writes belong to the channel's event loop. Responses are serialized on the thread that
 * completes them ({@link ResponseParts}) and handed to the event loop as tasks; one that arrives after the connection
 * closed is released instead of written.
 *
 * <p>Back-pressure: reports the number of unanswered requests and the channel's writability to the connection's
 * {@link ReadThrottle}, and the unanswered requests and the progress of every write to its {@link ConnectionExpiry}.
 * A response carrying a {@code throttle_time_ms} (a client over its quota) stops reading for that long once it is
 * written. Draining for shutdown ({@link #drain()}) stops reading and completes once every request taken has its response
 * written to the socket.
 */
final class ResponseSequencer extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ResponseSequencer.class);

    /** A request's place in the response order. */
    private static final class Slot {
        final RequestTimes times;
        boolean done;
        /** The serialized response; null for none. */
        ResponseParts response;
        /** The response's {@code throttle_time_ms}: how long to stop reading once it is written (KIP-219). */
        int throttleTimeMs;

        Slot(RequestTimes times) {
            this.times = times;
        }
    }

    private final String connectionId;
    private final Channel channel;
    private final EventLoop eventLoop;
    private final ReadThrottle throttle;
    private final RequestDispatcher dispatcher;
    private final ConnectionExpiry expiry;
    /** This connection's requests in arrival order, handled one at a time. */
    private final RequestDispatcher.ConnectionQueue requestOrder;
    private final ArrayDeque<Slot> inFlight = new ArrayDeque<>();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    /** On every write: progress and completion are activity for {@link ConnectionExpiry}; a failure closes. */
    private final ChannelProgressiveFutureListener writeListener = new ChannelProgressiveFutureListener() {
        @Override
        public void operationProgressed(ChannelProgressiveFuture write, long progress, long total) {
            expiry.activity();
        }

        @Override
        public void operationComplete(ChannelProgressiveFuture write) {
            expiry.activity();
            writeFinished(write);
        }
    };

    private ChannelHandlerContext ctx;
    /** The last write handed to Netty; its completion means every earlier one completed. */
    private ChannelFuture lastWrite;
    private boolean draining;
    private boolean closed;

    ResponseSequencer(String connectionId, Channel channel, ReadThrottle throttle, RequestDispatcher dispatcher,
                      ConnectionExpiry expiry) {
        this.connectionId = connectionId;
        this.channel = channel;
        this.eventLoop = channel.eventLoop();
        this.throttle = throttle;
        this.dispatcher = dispatcher;
        this.expiry = expiry;
        this.requestOrder = dispatcher.newConnectionQueue();
    }

    String connectionId() {
        return connectionId;
    }

    Channel channel() {
        return channel;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Request request = (Request) msg;
        if (closed) {
            request.memory().release();
            return;
        }
        Slot slot = new Slot(RequestTimes.received(dispatcher.metrics(), request));
        inFlight.addLast(slot);
        throttle.inFlight(inFlight.size());
        expiry.outstanding(inFlight.size());
        dispatcher.dispatch(request, requestOrder, slot.times)
                .whenComplete((response, failure) -> responded(slot, request, response, failure));
    }

    /** Any thread: the handler is done with a request; serialize here, write on the event loop. */
    private void responded(Slot slot, Request request, AbstractResponse response, Throwable failure) {
        slot.times.responded();
        ResponseParts parts = null;
        int throttleTimeMs = response == null ? 0 : response.throttleTimeMs();
        boolean fatal = failure != null;
        if (fatal) {
            log.error("Closing connection {}: no response, not even an error response, for {}", connectionId,
                    request.describe(), failure);
        } else if (response != null && !(response instanceof NoResponse)) {
            slot.times.errors(response);
            try {
                parts = ResponseParts.serialize(request, response);
            } catch (IOException | RuntimeException e) {
                parts = serializeError(request, e);
                fatal = parts == null;
            }
        }
        ResponseParts written = parts;
        boolean close = fatal;
        onEventLoop(() -> fill(slot, written, throttleTimeMs, close), () -> {
            if (written != null) {
                written.release();
            }
        });
    }

    /**
     * The handler's response could not be serialized (a field its version lacks, a record file truncated under it):
     * answer with an error instead, so the client is not left waiting.
     */
    private ResponseParts serializeError(Request request, Exception cause) {
        log.error("Connection {}: the response to {} cannot be serialized; answering UNKNOWN_SERVER_ERROR",
                connectionId, request.describe(), cause);
        try {
            AbstractResponse error = request.body().getErrorResponse(0,
                    new UnknownServerException("response could not be serialized"));
            return ResponseParts.serialize(request, error);
        } catch (IOException | RuntimeException e) {
            log.error("Closing connection {}: not even an error response to {} can be serialized", connectionId,
                    request.describe(), e);
            return null;
        }
    }

    private void fill(Slot slot, ResponseParts response, int throttleTimeMs, boolean closeConnection) {
        if (closed) {
            if (response != null) {
                response.release();
            }
            return;
        }
        if (closeConnection) {
            ctx.close();
            return;
        }
        slot.done = true;
        slot.response = response;
        slot.throttleTimeMs = throttleTimeMs;
        slot.times.responseDequeued();
        writeReady();
    }

    /** Writes every response at the head of the order that is ready, then flushes once. */
    private void writeReady() {
        boolean wrote = false;
        while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
            Slot slot = inFlight.pollFirst();
            ResponseParts response = slot.response;
            if (response != null) {
                for (Object message : response.messages()) {
                    // A progressive promise, so that a large response read slowly is activity all along, not only
                    // when it is complete.
                    lastWrite = ctx.write(message, ctx.newProgressivePromise()).addListener(writeListener);
                }
                RequestTimes times = slot.times;
                lastWrite.addListener(written -> times.sent());
                wrote = true;
                if (slot.throttleTimeMs > 0) {
                    // KIP-219: the response goes out now, and the connection is not read for the throttle time.
                    throttle.throttleFor(slot.throttleTimeMs);
                }
            } else {
                slot.times.sent(); // acks=0: nothing to write
                if (slot.throttleTimeMs > 0) {
                    throttle.throttleFor(slot.throttleTimeMs); // an acks=0 producer over its quota (NoResponse)
                }
            }
        }
        if (wrote) {
            ctx.flush();
        }
        throttle.inFlight(inFlight.size());
        expiry.outstanding(inFlight.size());
        if (draining) {
            completeDrainWhenFlushed();
        }
    }

    private void writeFinished(ChannelFuture write) {
        if (!write.isSuccess() && write.channel().isActive()) {
            // A record file that shrank under a fetch response, say: the stream now holds part of a response, and
            // nothing the client reads after it would make sense.
            log.warn("Closing connection {}: writing a response failed", connectionId, write.cause());
            write.channel().close();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        throttle.writable(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Stops reading and completes once every request read so far is answered on the socket (or the connection
     * closed). Any thread.
     */
    CompletableFuture<Void> drain() {
        onEventLoop(() -> {
            draining = true;
            throttle.stop();
            completeDrainWhenFlushed();
        }, () -> drained.complete(null));
        return drained;
    }

    private void completeDrainWhenFlushed() {
        if (!inFlight.isEmpty()) {
            return;
        }
        if (lastWrite == null || lastWrite.isDone()) {
            drained.complete(null);
        } else {
            lastWrite.addListener(write -> drained.complete(null));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        for (Slot slot : inFlight) {
            if (slot.response != null) {
                slot.response.release();
            }
        }
        inFlight.clear();
        drained.complete(null);
        log.debug("Connection {} closed", connectionId);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("Closing connection {}: {}", connectionId, cause.toString());
        } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // A failed TLS handshake (logged once where the handshake ends) or bytes that are not TLS at all, whose
            // message holds them all in hex: one short line is enough.
            log.debug("Closing connection {}: TLS failed: {}", connectionId, tls.getClass().getSimpleName());
        } else {
            log.warn("Closing connection {} after an unexpected error", connectionId, cause);
        }
        ctx.close();
    }

    /** Runs {@code task} on the channel's event loop, or {@code ifRejected} here when that loop is shut down. */
    private void onEventLoop(Runnable task, Runnable ifRejected) {
        if (eventLoop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            eventLoop.execute(task);
        } catch (RejectedExecutionException e) {
            ifRejected.run();
        }
    }

    @Override
    public String toString() {
        return "ResponseSequencer[" + connectionId + ", " + inFlight.size() + " in flight, " + throttle + "]";
    }
}
