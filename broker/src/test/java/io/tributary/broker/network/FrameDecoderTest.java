package io.tributary.broker.network;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    private static final int MAX_REQUEST_BYTES = 100;
    private static final int MAX_IN_FLIGHT = 2;

    private final FakeHandler handler = new FakeHandler();
    private RequestDispatcher dispatcher = new RequestDispatcher(handler, 1, 10);
    private final ManualTime time = new ManualTime();
    private RequestMemoryPool memory = new RequestMemoryPool(-1);
    private EmbeddedChannel channel;
    private ReadThrottle throttle;
    private ConnectionExpiry expiry;

    private void open() {
        channel = new EmbeddedChannel();
        expiry = new ConnectionExpiry(60_000, time);
        throttle = new ReadThrottle(channel, MAX_IN_FLIGHT, dispatcher, expiry);
        channel.pipeline().addLast(new FrameDecoder("test-connection", MAX_REQUEST_BYTES, throttle, memory, expiry));
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        dispatcher.close(Duration.ofSeconds(1));
    }

    private static ByteBuf bytes(int... values) {
        ByteBuf buffer = Unpooled.buffer(values.length);
        for (int value : values) {
            buffer.writeByte(value);
        }
        return buffer;
    }

    private static ByteBuf frame(String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        return Unpooled.buffer().writeInt(bytes.length).writeBytes(bytes);
    }

    private String nextFrame() {
        Frame received = channel.readInbound();
        if (received == null) {
            return null;
        }
        ByteBuffer frame = received.payload();
        assertEquals(frame.capacity(), received.memory().bytes(), "the frame's size is reserved");
        received.memory().release();
        assertEquals(0, frame.position());
        assertEquals(frame.capacity(), frame.limit(), "a buffer of exactly the frame's size");
        return StandardCharsets.UTF_8.decode(frame).toString();
    }

    @Test
    void frameSplitOverManyReadsIsPassedOnWhole() {
        open();
        channel.writeInbound(bytes(0, 0));
        channel.writeInbound(bytes(0, 5, 'h'));
        channel.writeInbound(bytes('e', 'l', 'l'));
        assertNull(nextFrame());
        channel.writeInbound(bytes('o'));
        assertEquals("hello", nextFrame());
    }

    @Test
    void framesInOneReadArePassedOnOneByOneEmptyOnesIncluded() {
        open();
        channel.writeInbound(Unpooled.wrappedBuffer(frame("a"), frame(""), frame("xyz"), bytes(0, 0)));
        assertEquals("a", nextFrame());
        assertEquals("", nextFrame());
        assertEquals("xyz", nextFrame());
        assertNull(nextFrame());
    }

    @Test
    void frameOfExactlyTheLimitIsPassedOnAndOneByteMoreClosesTheConnection() {
        open();
        String largest = "x".repeat(MAX_REQUEST_BYTES);
        channel.writeInbound(frame(largest));
        assertEquals(largest, nextFrame());
        assertTrue(channel.isOpen());

        channel.writeInbound(frame(largest + "x"));
        assertNull(nextFrame());
        assertFalse(channel.isOpen());
    }

    @Test
    void negativeSizeClosesTheConnection() {
        open();
        channel.writeInbound(bytes(0x80, 0, 0, 0, 'x'));
        assertNull(nextFrame());
        assertFalse(channel.isOpen());
    }

    @Test
    void framesWaitWhileTheThrottleIsClosedAndFollowInOrderWhenItOpens() {
        open();
        throttle.inFlight(MAX_IN_FLIGHT);
        assertFalse(channel.config().isAutoRead());
        channel.writeInbound(Unpooled.wrappedBuffer(frame("one"), frame("two")));
        channel.writeInbound(frame("three")); // a read already under way when reading stopped
        assertNull(nextFrame());

        throttle.inFlight(0);
        assertTrue(channel.config().isAutoRead());
        assertEquals("one", nextFrame());
        assertEquals("two", nextFrame());
        assertEquals("three", nextFrame());
    }

    @Test
    void fullHandlerQueueStopsDecodingUntilARequestLeavesIt() throws Exception {
        dispatcher.close(Duration.ofSeconds(1));
        dispatcher = new RequestDispatcher(handler, 1, 1);
        CountDownLatch release = new CountDownLatch(1);
        handler.on(ApiKeys.API_VERSIONS, (context, request) -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(null);
        });
        open();
        // another connection's request fills the queue
        dispatcher.dispatch(TestRequests.apiVersions(1), dispatcher.newConnectionQueue());

        channel.writeInbound(frame("waits"));
        assertNull(nextFrame());
        assertFalse(channel.config().isAutoRead());

        release.countDown();
        await().untilAsserted(() -> assertTrue(dispatcher::hasCapacity, () -> "the queue drained"));
        await().untilAsserted(() -> assertTrue(() -> {
            channel.runPendingTasks(); // the wake-up is handed to the channel's event loop
            return channel.config().isAutoRead();
        }, () -> "reading resumed"));
        assertEquals("waits", nextFrame());
    }

    @Test
    void aFrameThatDoesNotFitInThePoolWaitsWithoutReadingAndIsPassedOnWhenMemoryIsReleased() {
        memory = new RequestMemoryPool(MAX_REQUEST_BYTES);
        open();
        RequestMemoryPool.Reservation otherConnection = memory.tryReserve(60);

        channel.writeInbound(frame("x".repeat(50)));
        assertNull(nextFrame());
        assertFalse(channel.config().isAutoRead(), "not read while its frame has no memory");
        assertEquals(60, memory.used(), "nothing reserved for the waiting frame");

        otherConnection.release();
        channel.runPendingTasks(); // the wake-up is handed to the channel's event loop
        assertTrue(channel.config().isAutoRead());
        assertEquals("x".repeat(50), nextFrame());
        assertEquals(0, memory.used());
    }

    @Test
    void aFrameLargerThanTheWholePoolClosesTheConnection() {
        memory = new RequestMemoryPool(MAX_REQUEST_BYTES / 2);
        open();
        channel.writeInbound(frame("x".repeat(MAX_REQUEST_BYTES / 2 + 1)));
        assertNull(nextFrame());
        assertFalse(channel.isOpen());
        assertEquals(0, memory.used());
    }

    @Test
    void theReservationOfAFrameCutShortByTheConnectionClosingIsReleased() {
        open();
        channel.writeInbound(bytes(0, 0, 0, 80, 'a', 'b', 'c'));
        assertEquals(80, memory.used(), "the whole frame is reserved as soon as its size is known");
        channel.close();
        assertEquals(0, memory.used());
    }

    @Test
    void aRequestIsNotTimedWhileItWaitsForMemory() {
        memory = new RequestMemoryPool(MAX_REQUEST_BYTES);
        open();
        RequestMemoryPool.Reservation otherConnection = memory.tryReserve(MAX_REQUEST_BYTES);
        channel.writeInbound(bytes(0, 0, 0, 10, 'a'));
        time.advance(10 * 60_000);
        assertNull(expiry.expired());

        otherConnection.release();
        channel.runPendingTasks();
        time.advance(59_999);
        assertNull(expiry.expired(), "the request's clock started again when reading resumed");
        time.advance(1);
        assertEquals(ConnectionExpiry.Reason.SLOW_REQUEST, expiry.expired());
    }
}
