package io.tributary.broker.network;

import java.util.Map;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What a {@link RequestHandler} completes with to send nothing (an {@code acks=0} produce) and still have the
 * connection throttled for a client quota: like {@code null}, no bytes are written, and the connection is then not
 * read for {@link #throttleTimeMs()} (KIP-219; Kafka mutes an {@code acks=0} producer's channel the same way).
 * Immutable; never serialized.
 */
public final class NoResponse extends AbstractResponse {

    private final int throttleTimeMs;

    public NoResponse(ApiKeys api, int throttleTimeMs) {
        super(api);
        this.throttleTimeMs = throttleTimeMs;
    }

    @Override
    public ApiMessage data() {
        throw new UnsupportedOperationException("no response is sent for this request");
    }

    @Override
    public Map<Errors, Integer> errorCounts() {
        return Map.of();
    }

    @Override
    public int throttleTimeMs() {
        return throttleTimeMs;
    }

    @Override
    public void maybeSetThrottleTimeMs(int throttleTimeMs) {
        // Immutable: the throttle time is fixed when it is made.
    }

    @Override
    public String toString() {
        return "NoResponse(throttleTimeMs=" + throttleTimeMs + ")";
    }
}
