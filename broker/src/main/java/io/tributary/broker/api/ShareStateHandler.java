package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.tributary.broker.share.ShareCoordinator;
import io.tributary.broker.share.ShareKey;
import io.tributary.broker.share.ShareStateMessages;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateResponse;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateResponse;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateResponse;

/**
 * ReadShareGroupState, WriteShareGroupState and DeleteShareGroupState (KIP-932): the share coordinator's APIs, sent
 * by share-partition leaders on other brokers ({@code share.ShareCoordinatorPersister}); and
 * ReadShareGroupStateSummary and InitializeShareGroupState, sent for the share-group offset admin APIs by the group
 * coordinator's broker. Each share-partition of a
 * request is answered by this broker's {@link ShareCoordinator} on its own (NOT_COORDINATOR for those whose
 * {@code __share_group_state} partition another broker leads); the response is sent once every one is answered.
 * A write replaces the share-partition's whole state ({@link ShareStateMessages}).
 *
 * <p>Called on request-handler threads; never blocks.
 */
final class ShareStateHandler {

    private final ShareCoordinator coordinator;

    ShareStateHandler(ShareCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    CompletableFuture<AbstractResponse> read(ReadShareGroupStateRequest request) {
        ReadShareGroupStateRequestData data = request.data();
        List<CompletableFuture<ReadShareGroupStateResponseData.ReadStateResult>> topics = new ArrayList<>();
        for (ReadShareGroupStateRequestData.ReadStateData topic : data.topics()) {
            List<CompletableFuture<ReadShareGroupStateResponseData.PartitionResult>> partitions = new ArrayList<>();
            for (ReadShareGroupStateRequestData.PartitionData partition : topic.partitions()) {
                CompletableFuture<ReadResult> result = validGroupId(data.groupId())
                        ? coordinator.read(key(data.groupId(), topic.topicId(), partition.partition()),
                                partition.leaderEpoch())
                        : CompletableFuture.completedFuture(ReadResult.failed(Errors.INVALID_REQUEST,
                                "The group id must not be empty"));
                partitions.add(result.thenApply(r -> ShareStateMessages.readAnswer(partition.partition(), r)));
            }
            topics.add(all(partitions).thenApply(results -> new ReadShareGroupStateResponseData.ReadStateResult()
                    .setTopicId(topic.topicId()).setPartitions(results)));
        }
        return all(topics).thenApply(results ->
                new ReadShareGroupStateResponse(new ReadShareGroupStateResponseData().setResults(results)));
    }

    CompletableFuture<AbstractResponse> write(WriteShareGroupStateRequest request) {
        WriteShareGroupStateRequestData data = request.data();
        List<CompletableFuture<WriteShareGroupStateResponseData.WriteStateResult>> topics = new ArrayList<>();
        for (WriteShareGroupStateRequestData.WriteStateData topic : data.topics()) {
            List<CompletableFuture<WriteShareGroupStateResponseData.PartitionResult>> partitions = new ArrayList<>();
            for (WriteShareGroupStateRequestData.PartitionData partition : topic.partitions()) {
                Function<Errors, WriteShareGroupStateResponseData.PartitionResult> answer = error ->
                        new WriteShareGroupStateResponseData.PartitionResult().setPartition(partition.partition())
                                .setErrorCode(error.code()).setErrorMessage(error == Errors.NONE ? null
                                        : error.message());
                if (!validGroupId(data.groupId())) {
                    partitions.add(CompletableFuture.completedFuture(answer.apply(Errors.INVALID_REQUEST)));
                    continue;
                }
                try {
                    partitions.add(coordinator.write(key(data.groupId(), topic.topicId(), partition.partition()),
                            ShareStateMessages.stateOf(partition)).thenApply(answer));
                } catch (IllegalArgumentException e) {
                    partitions.add(CompletableFuture.completedFuture(answer.apply(Errors.INVALID_REQUEST)
                            .setErrorMessage(e.getMessage())));
                }
            }
            topics.add(all(partitions).thenApply(results -> new WriteShareGroupStateResponseData.WriteStateResult()
                    .setTopicId(topic.topicId()).setPartitions(results)));
        }
        return all(topics).thenApply(results ->
                new WriteShareGroupStateResponse(new WriteShareGroupStateResponseData().setResults(results)));
    }

    CompletableFuture<AbstractResponse> delete(DeleteShareGroupStateRequest request) {
        DeleteShareGroupStateRequestData data = request.data();
        List<CompletableFuture<DeleteShareGroupStateResponseData.DeleteStateResult>> topics = new ArrayList<>();
        for (DeleteShareGroupStateRequestData.DeleteStateData topic : data.topics()) {
            List<CompletableFuture<DeleteShareGroupStateResponseData.PartitionResult>> partitions = new ArrayList<>();
            for (DeleteShareGroupStateRequestData.PartitionData partition : topic.partitions()) {
                CompletableFuture<Errors> result = validGroupId(data.groupId())
                        ? coordinator.delete(key(data.groupId(), topic.topicId(), partition.partition()))
                        : CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
                partitions.add(result.thenApply(error -> new DeleteShareGroupStateResponseData.PartitionResult()
                        .setPartition(partition.partition()).setErrorCode(error.code())
                        .setErrorMessage(error == Errors.NONE ? null : error.message())));
            }
            topics.add(all(partitions).thenApply(results -> new DeleteShareGroupStateResponseData.DeleteStateResult()
                    .setTopicId(topic.topicId()).setPartitions(results)));
        }
        return all(topics).thenApply(results ->
                new DeleteShareGroupStateResponse(new DeleteShareGroupStateResponseData().setResults(results)));
    }

    CompletableFuture<AbstractResponse> readSummary(ReadShareGroupStateSummaryRequest request) {
        ReadShareGroupStateSummaryRequestData data = request.data();
        List<CompletableFuture<ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult>> topics =
                new ArrayList<>();
        for (ReadShareGroupStateSummaryRequestData.ReadStateSummaryData topic : data.topics()) {
            List<CompletableFuture<ReadShareGroupStateSummaryResponseData.PartitionResult>> partitions =
                    new ArrayList<>();
            for (ReadShareGroupStateSummaryRequestData.PartitionData partition : topic.partitions()) {
                CompletableFuture<ReadResult> result = validGroupId(data.groupId())
                        ? coordinator.readSummary(key(data.groupId(), topic.topicId(), partition.partition()))
                        : CompletableFuture.completedFuture(ReadResult.failed(Errors.INVALID_REQUEST,
                                "The group id must not be empty"));
                partitions.add(result.thenApply(r -> ShareStateMessages.readSummaryAnswer(partition.partition(),
                        r)));
            }
            topics.add(all(partitions).thenApply(results ->
                    new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult()
                            .setTopicId(topic.topicId()).setPartitions(results)));
        }
        return all(topics).thenApply(results -> new ReadShareGroupStateSummaryResponse(
                new ReadShareGroupStateSummaryResponseData().setResults(results)));
    }

    CompletableFuture<AbstractResponse> initialize(InitializeShareGroupStateRequest request) {
        InitializeShareGroupStateRequestData data = request.data();
        List<CompletableFuture<InitializeShareGroupStateResponseData.InitializeStateResult>> topics =
                new ArrayList<>();
        for (InitializeShareGroupStateRequestData.InitializeStateData topic : data.topics()) {
            List<CompletableFuture<InitializeShareGroupStateResponseData.PartitionResult>> partitions =
                    new ArrayList<>();
            for (InitializeShareGroupStateRequestData.PartitionData partition : topic.partitions()) {
                CompletableFuture<Errors> result;
                if (!validGroupId(data.groupId()) || partition.startOffset() < 0) {
                    // Kafka's -1 ("start offset not initialized") is not supported: the admin path always sets one.
                    result = CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
                } else {
                    result = coordinator.initialize(key(data.groupId(), topic.topicId(), partition.partition()),
                            partition.stateEpoch(), partition.startOffset());
                }
                partitions.add(result.thenApply(error -> new InitializeShareGroupStateResponseData.PartitionResult()
                        .setPartition(partition.partition()).setErrorCode(error.code())
                        .setErrorMessage(error == Errors.NONE ? null : error.message())));
            }
            topics.add(all(partitions).thenApply(results ->
                    new InitializeShareGroupStateResponseData.InitializeStateResult()
                            .setTopicId(topic.topicId()).setPartitions(results)));
        }
        return all(topics).thenApply(results -> new InitializeShareGroupStateResponse(
                new InitializeShareGroupStateResponseData().setResults(results)));
    }

    private static boolean validGroupId(String groupId) {
        return groupId != null && !groupId.isEmpty();
    }

    private static ShareKey key(String groupId, Uuid topicId, int partition) {
        return new ShareKey(groupId, topicId, partition);
    }

    /** The results of {@code futures} in their order, once all are done. */
    private static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                .thenApply(done -> futures.stream().map(CompletableFuture::join).toList());
    }
}
