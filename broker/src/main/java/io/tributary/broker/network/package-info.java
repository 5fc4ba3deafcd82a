/**
 * The broker's network layer: a Netty server that speaks the Kafka wire protocol. It cuts the byte stream into
 * size-prefixed frames, parses them with the kafka-clients codec, hands each request to a {@link
 * io.tributary.broker.network.RequestHandler} on a request-handler thread, and writes the responses of each
 * connection back in request order, with record files sent by {@code sendfile} instead of through the heap.
 *
 * <p>Entry point: {@link io.tributary.broker.network.SocketServer}. Everything else here is package-private: one class
 * per pipeline stage ({@code ExpiryTimer} → {@code FrameDecoder} → {@code RequestDecoder} → {@code ResponseSequencer}),
 * the read back-pressure of a connection ({@code ReadThrottle}), the limits on connections and the memory of requests
 * ({@code ConnectionQuotas}, {@code ConnectionExpiry}, {@code RequestMemoryPool}), the request-handler pool
 * ({@code RequestDispatcher}) and the bridge from a kafka-clients {@code Send} to Netty messages
 * ({@code ResponseParts}, {@code NettyTransferableChannel}, {@code SharedFileRegion}).
 */
package io.tributary.broker.network;
