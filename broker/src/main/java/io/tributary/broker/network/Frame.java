package io.tributary.broker.network;

import java.nio.ByteBuffer;

/**
 * One request frame as the {@link FrameDecoder} passes it on: the bytes after the size prefix, and their reservation
 * in the {@link RequestMemoryPool}, which whoever ends the request's life releases. Immutable; the buffer belongs to
 * whoever holds the frame.
 *
 * @param payload a heap buffer of exactly the frame's size, positioned at 0
 * @param memory  the frame's bytes in {@code queued.max.request.bytes}
 */
record Frame(ByteBuffer payload, RequestMemoryPool.Reservation memory) {
}
