package io.tributary.broker.network;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * Turns requests into responses: the contract between the network layer ({@link SocketServer}) and the API handlers
 * above it.
 *
 * <p>Threads. {@link #isSupported} is called on a network event loop for every request, so it must be cheap and never
 * block. {@link #handle} is called on one of {@code num.io.threads} request-handler threads, never on an event loop;
 * it may block briefly (a log append), but anything that waits for other requests (a long-poll fetch, an
 * {@code acks=all} produce) should return an incomplete future and complete it later, from any thread. While
 * {@code queued.max.requests} requests are waiting for or running in {@code handle}, the server stops reading new
 * requests.
 *
 * <p>Responses. The future's value is serialized at the request's version ({@code request.version()}), so a handler
 * may only set the fields that version has. Completing it with {@code null} sends nothing (an {@code acks=0} produce),
 * and so does a {@link NoResponse}, which also throttles the connection for a client quota;
 * the request still holds its place in the connection's response order until then. Throwing from {@link #handle}, or
 * completing the future exceptionally, answers {@code request.getErrorResponse(0, exception)}: the error code is
 * {@code Errors.forException(exception)}, so throw Kafka's {@code ApiException}s to choose it.
 *
 * <p>Buffers. A request's buffers (such as a produce request's records) are the handler's to keep; they are ordinary
 * heap memory, valid after the response. Record files in a response ({@code FileRecords}) are sent with
 * {@code sendfile} after the future completes, possibly much later if the client reads slowly; their
 * {@code FileChannel} must stay open until then, and the network layer never closes it.
 *
 * <p>ApiVersions at a version this broker cannot parse (a newer client): the body is not parsed; {@link #handle} gets
 * a v0 {@link ApiVersionsRequest} whose {@link ApiVersionsRequest#hasUnsupportedRequestVersion()} is true, with the
 * real header in the context, and should answer {@code UNSUPPORTED_VERSION} with the full list of supported APIs, as
 * Kafka brokers do; the response goes out at version 0. {@link #isSupported} is not asked in that case.
 */
public interface RequestHandler {

    /**
     * Whether {@link #handle} accepts this API at this version. A {@code false} answers the request with
     * {@code UNSUPPORTED_VERSION} without calling {@link #handle}. Called on an event loop: cheap, never blocking.
     */
    boolean isSupported(ApiKeys api, short version);

    /**
     * Handles one request.
     *
     * @param context where the request came from and its header
     * @param request the parsed request; cast to the concrete type of {@code context.header().apiKey()}
     * @return the response, completed now or later; {@code null} as its value sends no response
     */
    CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request);
}
