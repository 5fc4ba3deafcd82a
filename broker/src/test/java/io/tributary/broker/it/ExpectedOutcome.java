package io.tributary.broker.it;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What the broker must do with one request frame, the protocol fuzzer's oracle ({@link ProtocolFuzzTest}). Decided
 * with the codec the broker decodes with (kafka-clients), by the network layer's contract (docs/architecture.md,
 * "Refusals"):
 * <ul>
 *   <li>{@link Kind#CLOSE}: a frame shorter than an API key and version, an unknown API key, a version the codec
 *       cannot read (except ApiVersions), a header or body that does not parse: no response can be framed, so the
 *       connection closes, with a log line naming it;</li>
 *   <li>{@link Kind#ANSWER}: everything that parses, within {@link #within} (an ApiVersions request at a version the
 *       codec cannot read is answered at v0; an API or version the broker does not implement UNSUPPORTED_VERSION;
 *       the rest by its handler, possibly with error codes);</li>
 *   <li>{@link Kind#NO_ANSWER}: a produce with acks=0, which has no response whatever happens;</li>
 *   <li>{@link Kind#ANSWER_OR_WAIT}: a request the protocol lets the broker hold for longer than the fuzzer waits
 *       (a long-poll fetch, a join or sync waiting for the rest of its group, topic administration with a long
 *       timeout): answered, or still pending when the fuzzer gives up on its connection.</li>
 * </ul>
 *
 * @param kind         what must happen
 * @param answerHeader the header to read the answer with (the ApiVersions fallback's is v0); null for CLOSE
 * @param request      the request as the broker will see it; null for CLOSE
 * @param within       how long the broker may take to answer (ANSWER)
 * @param why          for CLOSE, why the frame cannot be read
 */
record ExpectedOutcome(Kind kind, RequestHeader answerHeader, AbstractRequest request, Duration within, String why) {

    enum Kind { CLOSE, ANSWER, NO_ANSWER, ANSWER_OR_WAIT }

    /**
     * How long any answer may take on this loaded 2-core machine; far more than any request takes, so that only a
     * request that is never answered (a lost response, a stuck handler) exceeds it.
     */
    static final Duration REPLY_DEADLINE = Duration.ofSeconds(10);
    /** Requests that may legitimately wait longer than this are {@link Kind#ANSWER_OR_WAIT}. */
    static final Duration LONGEST_AWAITED_WAIT = Duration.ofSeconds(2);

    static ExpectedOutcome of(byte[] frame, Map<ApiKeys, ApiVersion> advertised) {
        if (frame.length < 4) {
            return close("a frame of " + frame.length + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        short apiKey = buffer.getShort(0);
        short version = buffer.getShort(2);
        if (!ApiKeys.hasId(apiKey) || !ApiKeys.forId(apiKey).hasValidVersion()) {
            return close("unknown API key " + apiKey);
        }
        ApiKeys api = ApiKeys.forId(apiKey);
        boolean readable = api.isVersionSupported(version);
        if (!readable && api != ApiKeys.API_VERSIONS) {
            return close(api + " v" + version + " is not readable");
        }
        RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            return close("malformed header: " + e);
        }
        if (!readable) {
            RequestHeader asV0 = new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, header.clientId(),
                    header.correlationId());
            return new ExpectedOutcome(Kind.ANSWER, asV0, null, REPLY_DEADLINE, "");
        }
        AbstractRequest request;
        try {
            request = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            return close("malformed body: " + e);
        }
        if (request instanceof ProduceRequest produce && produce.acks() == 0) {
            return new ExpectedOutcome(Kind.NO_ANSWER, header, request, Duration.ZERO, "");
        }
        ApiVersion range = advertised.get(api);
        if (range == null || version < range.minVersion() || version > range.maxVersion()) {
            return answer(header, request, Duration.ZERO); // UNSUPPORTED_VERSION, without reaching a handler
        }
        return switch (api) {
            case FETCH -> waitFor(header, request, ((FetchRequest) request).maxWait());
            case JOIN_GROUP, SYNC_GROUP -> new ExpectedOutcome(Kind.ANSWER_OR_WAIT, header, request, Duration.ZERO, "");
            case CREATE_TOPICS -> waitFor(header, request, ((CreateTopicsRequest) request).data().timeoutMs());
            case DELETE_TOPICS -> waitFor(header, request, ((DeleteTopicsRequest) request).data().timeoutMs());
            case CREATE_PARTITIONS -> waitFor(header, request, ((CreatePartitionsRequest) request).data().timeoutMs());
            case DELETE_RECORDS -> waitFor(header, request, ((DeleteRecordsRequest) request).data().timeoutMs());
            case ELECT_LEADERS -> waitFor(header, request, ((ElectLeadersRequest) request).data().timeoutMs());
            case ALTER_PARTITION_REASSIGNMENTS -> waitFor(header, request,
                    ((AlterPartitionReassignmentsRequest) request).data().timeoutMs());
            default -> answer(header, request, Duration.ZERO);
        };
    }

    /** A request answered by its timeout at the latest (and usually much sooner). */
    private static ExpectedOutcome waitFor(RequestHeader header, AbstractRequest request, int waitMs) {
        Duration wait = Duration.ofMillis(Math.max(0, waitMs));
        if (wait.compareTo(LONGEST_AWAITED_WAIT) > 0) {
            return new ExpectedOutcome(Kind.ANSWER_OR_WAIT, header, request, Duration.ZERO, "");
        }
        return answer(header, request, wait);
    }

    private static ExpectedOutcome answer(RequestHeader header, AbstractRequest request, Duration wait) {
        return new ExpectedOutcome(Kind.ANSWER, header, request, wait.plus(REPLY_DEADLINE), "");
    }

    private static ExpectedOutcome close(String why) {
        return new ExpectedOutcome(Kind.CLOSE, null, null, REPLY_DEADLINE, why);
    }
}
