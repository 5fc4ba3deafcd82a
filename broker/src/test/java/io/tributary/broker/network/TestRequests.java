package io.tributary.broker.network;

import java.net.InetAddress;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;

/** Decoded requests for unit tests, as the {@link RequestDecoder} would produce them. */
final class TestRequests {

    private static final RequestMemoryPool UNBOUNDED = new RequestMemoryPool(-1);

    private TestRequests() {
    }

    static Request request(AbstractRequest body, int correlationId) {
        RequestHeader header = new RequestHeader(body.apiKey(), body.version(), TestClient.CLIENT_ID, correlationId);
        RequestContext context = new RequestContext(header, "127.0.0.1:9092-127.0.0.1:50000-0",
                InetAddress.getLoopbackAddress(), "PLAINTEXT");
        return new Request(context, body, header.toResponseHeader(), body.version(), UNBOUNDED.tryReserve(0));
    }

    static Request apiVersions(int correlationId) {
        return request(new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 2), correlationId);
    }
}
