package io.tributary.broker.network;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A request decoded from one frame, travelling from the {@link RequestDecoder} to the handler and back to the
 * {@link ResponseSequencer}: its context, its body, and how its response is framed. Immutable.
 *
 * @param context         header, connection and listener, as the handler sees them
 * @param body            the parsed body; a v0 ApiVersions request for the ApiVersions fallback
 * @param responseHeader  the response header to send (v0 or v1, chosen by the API and version)
 * @param responseVersion the version to serialize the response body at; 0 for the ApiVersions fallback
 * @param memory          the frame's bytes in {@code queued.max.request.bytes}; the {@link RequestDispatcher}
 *                        releases them when the request has been handled, or whoever drops it before
 */
record Request(RequestContext context, AbstractRequest body, ResponseHeader responseHeader, short responseVersion,
               RequestMemoryPool.Reservation memory) {

    /** An ApiVersions request at a version the codec cannot read, answered at v0 (see {@link RequestHandler}). */
    boolean isApiVersionsFallback() {
        return body instanceof ApiVersionsRequest apiVersions && apiVersions.hasUnsupportedRequestVersion();
    }

    /** For log lines: {@code METADATA v12 (correlation id 7, client id 'app-1')}. */
    String describe() {
        return context.header().apiKey() + " v" + context.header().apiVersion()
                + " (correlation id " + context.header().correlationId()
                + ", client id '" + context.header().clientId() + "')";
    }
}
