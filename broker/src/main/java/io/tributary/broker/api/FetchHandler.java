package io.tributary.broker.api;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.replication.FetchParams;
import io.tributary.broker.replication.FetchPartitionRequest;
import io.tributary.broker.replication.FetchPartitionResult;
import io.tributary.broker.replication.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch: reads each partition from its leader's log, up to the high watermark for consumers, with the request's
 * partition and response byte limits, and long-polls up to {@code max.wait.ms} until {@code min.bytes} are there.
 * Records go out as slices of the segment files (zero copy). Fetch sessions are not kept: every response carries
 * session id 0, which makes clients send full fetch requests; a request naming a session is answered
 * FETCH_SESSION_ID_NOT_FOUND so the client starts over sessionless.
 */
final class FetchHandler {

    private final ReplicaManager replicaManager;
    private final TopicIds topicIds;

    FetchHandler(ReplicaManager replicaManager, TopicIds topicIds) {
        this.replicaManager = replicaManager;
        this.topicIds = topicIds;
    }

    CompletableFuture<AbstractResponse> handle(FetchRequest request) {
        FetchRequestData data = request.data();
        short version = request.version();
        if (data.sessionId() != 0) {
            return CompletableFuture.completedFuture(FetchResponse.of(new FetchResponseData()
                    .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())
                    .setSessionId(0)));
        }
        boolean byId = version >= 13;
        LinkedHashMap<TopicPartition, FetchPartitionRequest> requests = new LinkedHashMap<>();
        Map<TopicPartition, Uuid> ids = new LinkedHashMap<>();
        Map<TopicPartition, Errors> unknown = new LinkedHashMap<>();
        for (FetchRequestData.FetchTopic topic : data.topics()) {
            Optional<String> name = byId ? topicIds.topicName(topic.topicId()) : Optional.of(topic.topic());
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name.orElse(topic.topicId().toString()), partition.partition());
                ids.put(tp, topic.topicId());
                if (name.isEmpty()) {
                    unknown.put(tp, Errors.UNKNOWN_TOPIC_ID);
                } else {
                    requests.put(tp, new FetchPartitionRequest(partition.fetchOffset(), partition.partitionMaxBytes(),
                            partition.currentLeaderEpoch()));
                }
            }
        }
        FetchParams params = new FetchParams(request.replicaId(), data.maxWaitMs(), data.minBytes(),
                data.maxBytes(), request.isolationLevel());
        return replicaManager.fetch(params, requests).thenApply(results -> {
            FetchResponseData response = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
            Map<String, FetchResponseData.FetchableTopicResponse> topics = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, Uuid> entry : ids.entrySet()) {
                TopicPartition tp = entry.getKey();
                FetchResponseData.FetchableTopicResponse topic = topics.computeIfAbsent(tp.topic(), topicName -> {
                    FetchResponseData.FetchableTopicResponse created = new FetchResponseData.FetchableTopicResponse();
                    if (byId) {
                        created.setTopicId(entry.getValue());
                    } else {
                        created.setTopic(topicName);
                    }
                    response.responses().add(created);
                    return created;
                });
                FetchPartitionResult result = results.get(tp);
                FetchResponseData.PartitionData partitionData = new FetchResponseData.PartitionData()
                        .setPartitionIndex(tp.partition());
                if (result == null) {
                    partitionData.setErrorCode(unknown.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR).code())
                            .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                            .setRecords(MemoryRecords.EMPTY);
                } else {
                    partitionData.setErrorCode(result.error().code())
                            .setHighWatermark(result.highWatermark())
                            .setLastStableOffset(result.lastStableOffset())
                            .setLogStartOffset(result.logStartOffset())
                            .setRecords(result.records());
                }
                topic.partitions().add(partitionData);
            }
            return FetchResponse.of(response);
        });
    }
}
