package io.tributary.broker.api;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.tributary.broker.network.NoResponse;
import io.tributary.broker.network.RequestContext;
import io.tributary.broker.quota.ByteRateQuotas;
import io.tributary.broker.quota.ClientQuotaManager;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Applies the produce and fetch byte-rate quotas to Produce and a consumer's Fetch (KIP-13, KIP-219): records the
 * bytes against the client's quota entity and sets {@code throttle_time_ms} on the response, which goes out at once;
 * the network layer then stops reading from the connection for that long (see {@code ReadThrottle}), and the client
 * itself holds back its requests to that broker for as long.
 *
 * <p>Produce counts the bytes of the request's record batches. Fetch counts the bytes of the records in the
 * response; its {@code max_bytes} is first bounded by what the quota allows over its window, and a response that
 * would exceed the quota goes out empty with the throttle time (its bytes taken back), as Kafka does, so the client
 * fetches the same records again afterwards. Followers' fetches (a replica id) are not throttled. An {@code acks=0}
 * produce has no response to carry a throttle time: it is answered with a {@link NoResponse}, which writes nothing
 * and stops reading from the connection all the same.
 *
 * <p>Stateless apart from the quota managers; called on request-handler threads and where responses complete.
 */
final class QuotaThrottling {

    private final ByteRateQuotas quotas;

    QuotaThrottling(ByteRateQuotas quotas) {
        this.quotas = quotas;
    }

    CompletableFuture<AbstractResponse> produce(RequestContext context, ProduceRequest request,
                                                Function<ProduceRequest, CompletableFuture<AbstractResponse>> handler) {
        long bytes = 0;
        for (ProduceRequestData.TopicProduceData topic : request.data().topicData()) {
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                if (partition.records() != null) {
                    bytes += partition.records().sizeInBytes();
                }
            }
        }
        long recorded = bytes;
        return handler.apply(request).thenApply(response -> {
            long throttleMs = quotas.produce().recordAndGetThrottleTimeMs(user(context), clientId(context), recorded);
            if (throttleMs > 0 && response instanceof ProduceResponse produce) {
                produce.data().setThrottleTimeMs((int) throttleMs);
            } else if (throttleMs > 0 && response == null) {
                return new NoResponse(ApiKeys.PRODUCE, (int) throttleMs); // acks=0: throttled all the same
            }
            return response;
        });
    }

    CompletableFuture<AbstractResponse> fetch(RequestContext context, FetchRequest request,
                                              Function<FetchRequest, CompletableFuture<AbstractResponse>> handler) {
        if (request.replicaId() >= 0) {
            return handler.apply(request);
        }
        ClientQuotaManager fetch = quotas.fetch();
        String user = user(context);
        String clientId = clientId(context);
        int maxBytes = fetch.maxValueInQuotaWindow(user, clientId);
        if (maxBytes < request.data().maxBytes()) {
            request.data().setMaxBytes(maxBytes);
        }
        return handler.apply(request).thenApply(response -> {
            if (!(response instanceof FetchResponse answer)) {
                return response;
            }
            long bytes = 0;
            for (FetchResponseData.FetchableTopicResponse topic : answer.data().responses()) {
                for (FetchResponseData.PartitionData partition : topic.partitions()) {
                    BaseRecords records = partition.records();
                    bytes += records == null ? 0 : records.sizeInBytes();
                }
            }
            long throttleMs = fetch.recordAndGetThrottleTimeMs(user, clientId, bytes);
            if (throttleMs > 0) {
                fetch.unrecord(user, clientId, bytes);
                answer.data().setThrottleTimeMs((int) throttleMs);
                for (FetchResponseData.FetchableTopicResponse topic : answer.data().responses()) {
                    for (FetchResponseData.PartitionData partition : topic.partitions()) {
                        partition.setRecords(MemoryRecords.EMPTY);
                    }
                }
            }
            return response;
        });
    }

    private static String user(RequestContext context) {
        return context.principal().getName();
    }

    private static String clientId(RequestContext context) {
        String clientId = context.header().clientId();
        return clientId == null ? "" : clientId;
    }
}
