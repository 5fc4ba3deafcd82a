package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.group.GroupCoordinator.ShareStateTopics;
import io.tributary.broker.group.GroupCoordinator.StateTopic;
import io.tributary.broker.group.GroupState;
import io.tributary.broker.share.ShareState;
import io.tributary.broker.share.ShareStateMessages;
import io.tributary.broker.share.ShareStatePersister;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsResponse;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsResponse;

/**
 * The share-group offset admin APIs (KIP-932): DescribeShareGroupOffsets, AlterShareGroupOffsets and
 * DeleteShareGroupOffsets, and the share-state part of DeleteGroups. The group coordinator (this broker, for the
 * group) says which partitions of a group may have share state and whether the group is empty; the states themselves
 * are read, reset and deleted at their share coordinators through the {@link ShareStatePersister}:
 * <ul>
 *   <li>Describe reads each state's summary (ReadShareGroupStateSummary: no leader is fenced) and answers its start
 *       offset and leader epoch, and from version 1 the lag: the partition's high watermark ({@link PartitionEnds})
 *       minus the start offset minus the records after it already acknowledged or archived (KIP-1226), -1 when the
 *       high watermark cannot be had now. A requested partition without state answers start offset
 *       -1, which the admin client reports as no offset.</li>
 *   <li>Alter needs an empty group (created when it does not exist, as in Kafka); each partition's state is replaced
 *       (InitializeShareGroupState) by one at the new start offset, without in-flight records, at a newer state epoch,
 *       so a share-partition leader that still holds the old state loads the new one.</li>
 *   <li>Delete needs an existing empty group and deletes the states of every partition of the named topics.</li>
 *   <li>DeleteGroups deletes the states of an empty share group's partitions before the group: a group created
 *       again under the same id starts afresh, per {@code share.auto.offset.reset}. A group whose states could not be
 *       deleted is not deleted, and is answered the error.</li>
 * </ul>
 * The group's emptiness is checked before the states change, not held while they do: a member joining meanwhile finds
 * the state as the administrator left it or as it was, never a mixture within one share-partition.
 *
 * <p>Called on request-handler threads; never blocks (state operations complete on the persister's threads).
 */
final class ShareGroupOffsetsHandler {

    /** A start offset the response carries for a partition without share state. */
    private static final long NO_OFFSET = -1L;

    private final GroupCoordinator coordinator;
    private final ShareStatePersister persister;
    private final ClusterView cluster;
    private final PartitionEnds ends;

    ShareGroupOffsetsHandler(GroupCoordinator coordinator, ShareStatePersister persister, ClusterView cluster,
                             PartitionEnds ends) {
        this.coordinator = coordinator;
        this.persister = persister;
        this.cluster = cluster;
        this.ends = ends;
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeShareGroupOffsets

    CompletableFuture<AbstractResponse> describe(DescribeShareGroupOffsetsRequest request, short version) {
        List<CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup>> groups =
                new ArrayList<>();
        for (DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup group
                : request.data().groups()) {
            groups.add(describeGroup(group, version >= 1));
        }
        return all(groups).thenApply(results -> new DescribeShareGroupOffsetsResponse(
                new DescribeShareGroupOffsetsResponseData().setGroups(results)));
    }

    private CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup>
            describeGroup(DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup requested,
                          boolean withLag) {
        String groupId = requested.groupId();
        var answer = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                .setGroupId(groupId);
        ShareStateTopics view = coordinator.shareStateTopics(groupId);
        if (view.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(answer.setErrorCode(view.error().code())
                    .setErrorMessage(message(view.error(), view.errorMessage())));
        }
        List<CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic>> topics =
                new ArrayList<>();
        if (requested.topics() == null) {
            // Every partition with share state, under the topic's current name (a deleted topic has none left).
            view.topics().forEach((topicId, topic) -> cluster.topicName(topicId).ifPresent(name ->
                    topics.add(describeTopic(groupId, name, topicId, topic.partitions(), view, withLag))));
        } else {
            for (DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic topic
                    : requested.topics()) {
                Optional<TopicMetadata> metadata = cluster.snapshot().topic(topic.topicName());
                if (metadata.isEmpty()) {
                    topics.add(CompletableFuture.completedFuture(unknownTopic(topic.topicName(),
                            topic.partitions())));
                } else {
                    topics.add(describeTopic(groupId, topic.topicName(), metadata.get().topicId(),
                            topic.partitions(), view, withLag));
                }
            }
        }
        return all(topics).thenApply(answer::setTopics);
    }

    private CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic>
            describeTopic(String groupId, String name, Uuid topicId, Iterable<Integer> partitions,
                          ShareStateTopics view, boolean withLag) {
        int partitionCount = cluster.snapshot().topic(topicId).map(TopicMetadata::partitionCount).orElse(0);
        StateTopic withState = view.topics().get(topicId);
        List<CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition>>
                answers = new ArrayList<>();
        for (int partition : partitions) {
            var answer = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
                    .setPartitionIndex(partition).setStartOffset(NO_OFFSET).setLeaderEpoch(-1).setLag(-1);
            if (partition < 0 || partition >= partitionCount) {
                answers.add(CompletableFuture.completedFuture(answer
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message())));
                continue;
            }
            if (withState == null || !withState.partitions().contains(partition)) {
                answers.add(CompletableFuture.completedFuture(answer));
                continue;
            }
            TopicIdPartition tip = new TopicIdPartition(topicId, partition, name);
            answers.add(persister.readSummary(groupId, tip).thenCompose(read -> describePartition(answer, tip,
                    read, withLag)));
        }
        return all(answers).thenApply(results ->
                new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                        .setTopicName(name).setTopicId(topicId).setPartitions(results));
    }

    private CompletableFuture<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition>
            describePartition(DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition answer,
                              TopicIdPartition partition, ReadResult read, boolean withLag) {
        if (read.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(answer.setErrorCode(adminError(read.error()).code())
                    .setErrorMessage(message(read.error(), read.errorMessage())));
        }
        if (read.state().isEmpty()) {
            return CompletableFuture.completedFuture(answer);
        }
        ShareState state = read.state().get();
        answer.setStartOffset(state.startOffset()).setLeaderEpoch(state.leaderEpoch());
        if (!withLag) {
            return CompletableFuture.completedFuture(answer);
        }
        return ends.highWatermark(partition.topicPartition()).thenApply(highWatermark -> highWatermark < 0 ? answer
                : answer.setLag(Math.max(0, highWatermark - state.startOffset()
                        - ShareStateMessages.deliveryCompleteCount(state))));
    }

    private static DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic unknownTopic(
            String name, List<Integer> partitions) {
        var topic = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                .setTopicName(name).setTopicId(Uuid.ZERO_UUID);
        for (int partition : partitions) {
            topic.partitions().add(new DescribeShareGroupOffsetsResponseData
                    .DescribeShareGroupOffsetsResponsePartition().setPartitionIndex(partition)
                    .setStartOffset(NO_OFFSET).setLeaderEpoch(-1).setLag(-1)
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
        }
        return topic;
    }

    // ---------------------------------------------------------------------------------------------------------
    // AlterShareGroupOffsets

    CompletableFuture<AbstractResponse> alter(AlterShareGroupOffsetsRequest request) {
        AlterShareGroupOffsetsRequestData data = request.data();
        return coordinator.shareGroupForOffsetsAlter(data.groupId()).thenCompose(view -> {
            if (view.error() != Errors.NONE) {
                return CompletableFuture.completedFuture(alterFailed(data, view.error(),
                        message(view.error(), view.errorMessage())));
            }
            List<CompletableFuture<AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic>> topics =
                    new ArrayList<>();
            for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic topic : data.topics()) {
                topics.add(alterTopic(data.groupId(), topic));
            }
            return all(topics).thenApply(results -> {
                var response = new AlterShareGroupOffsetsResponseData();
                results.forEach(response.responses()::add);
                return new AlterShareGroupOffsetsResponse(response);
            });
        });
    }

    private CompletableFuture<AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic> alterTopic(
            String groupId, AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic topic) {
        Optional<TopicMetadata> metadata = cluster.snapshot().topic(topic.topicName());
        Uuid topicId = metadata.map(TopicMetadata::topicId).orElse(Uuid.ZERO_UUID);
        int partitionCount = metadata.map(TopicMetadata::partitionCount).orElse(0);
        Set<Integer> altered = ConcurrentHashMap.newKeySet();
        List<CompletableFuture<AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition>> answers =
                new ArrayList<>();
        for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition partition
                : topic.partitions()) {
            int index = partition.partitionIndex();
            Function<Errors, AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition> answer =
                    error -> new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                            .setPartitionIndex(index).setErrorCode(error.code())
                            .setErrorMessage(error == Errors.NONE ? null : error.message());
            if (metadata.isEmpty() || index < 0 || index >= partitionCount) {
                answers.add(CompletableFuture.completedFuture(answer.apply(Errors.UNKNOWN_TOPIC_OR_PARTITION)));
            } else if (partition.startOffset() < 0) {
                answers.add(CompletableFuture.completedFuture(answer.apply(Errors.INVALID_REQUEST)
                        .setErrorMessage("The start offset must not be negative")));
            } else {
                TopicIdPartition tip = new TopicIdPartition(topicId, index, topic.topicName());
                // State epoch 0: the share coordinator takes one past the highest it has seen.
                answers.add(persister.initialize(groupId, tip, 0, partition.startOffset()).thenApply(error -> {
                    if (error == Errors.NONE) {
                        altered.add(index);
                    }
                    return answer.apply(adminError(error));
                }));
            }
        }
        return all(answers).thenCompose(results -> coordinator.addShareStatePartitions(groupId, topicId,
                topic.topicName(), new TreeSet<>(altered)).thenApply(stored -> {
                    if (stored != Errors.NONE) {
                        // The states are reset, but a coordinator failover could forget that they exist.
                        results.forEach(result -> result.setErrorCode(stored.code())
                                .setErrorMessage(stored.message()));
                    }
                    return new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                            .setTopicName(topic.topicName()).setTopicId(topicId).setPartitions(results);
                }));
    }

    private static AbstractResponse alterFailed(AlterShareGroupOffsetsRequestData data, Errors error,
                                                String message) {
        var response = new AlterShareGroupOffsetsResponseData().setErrorCode(error.code()).setErrorMessage(message);
        for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic topic : data.topics()) {
            var answer = new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                    .setTopicName(topic.topicName());
            for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition partition
                    : topic.partitions()) {
                answer.partitions().add(new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                        .setPartitionIndex(partition.partitionIndex()).setErrorCode(error.code())
                        .setErrorMessage(message));
            }
            response.responses().add(answer);
        }
        return new AlterShareGroupOffsetsResponse(response);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteShareGroupOffsets

    CompletableFuture<AbstractResponse> delete(DeleteShareGroupOffsetsRequest request) {
        DeleteShareGroupOffsetsRequestData data = request.data();
        String groupId = data.groupId();
        ShareStateTopics view = coordinator.shareStateTopics(groupId);
        Errors groupError = view.error() != Errors.NONE ? view.error()
                : view.state() != GroupState.EMPTY ? Errors.NON_EMPTY_GROUP : Errors.NONE;
        if (groupError != Errors.NONE) {
            String message = view.error() != Errors.NONE ? message(view.error(), view.errorMessage())
                    : "The share group " + groupId + " has members; its offsets can be deleted only when it is "
                    + "empty.";
            return CompletableFuture.completedFuture(new DeleteShareGroupOffsetsResponse(
                    new DeleteShareGroupOffsetsResponseData().setErrorCode(groupError.code())
                            .setErrorMessage(message)));
        }
        List<CompletableFuture<DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic>> topics =
                new ArrayList<>();
        for (DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic topic : data.topics()) {
            var answer = new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                    .setTopicName(topic.topicName());
            Optional<TopicMetadata> metadata = cluster.snapshot().topic(topic.topicName());
            if (metadata.isEmpty()) {
                topics.add(CompletableFuture.completedFuture(answer.setTopicId(Uuid.ZERO_UUID)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message())));
                continue;
            }
            Uuid topicId = metadata.get().topicId();
            answer.setTopicId(topicId);
            topics.add(deleteStates(groupId, topicId, topic.topicName(), allPartitions(metadata.get(), view))
                    .thenCompose(error -> error != Errors.NONE ? CompletableFuture.completedFuture(error)
                            : coordinator.removeShareStateTopics(groupId, Set.of(topicId)))
                    .thenApply(error -> answer.setErrorCode(error.code())
                            .setErrorMessage(error == Errors.NONE ? null : error.message())));
        }
        return all(topics).thenApply(results -> new DeleteShareGroupOffsetsResponse(
                new DeleteShareGroupOffsetsResponseData().setResponses(results)));
    }

    /**
     * Every partition of the topic, and those recorded beyond its current count: states of partitions without one
     * are cheap to delete (nothing is written), and a state the group coordinator did not record (written by a leader
     * before a coordinator failover) is deleted too.
     */
    private static Set<Integer> allPartitions(TopicMetadata topic, ShareStateTopics view) {
        Set<Integer> partitions = new TreeSet<>();
        for (int partition = 0; partition < topic.partitionCount(); partition++) {
            partitions.add(partition);
        }
        StateTopic recorded = view.topics().get(topic.topicId());
        if (recorded != null) {
            partitions.addAll(recorded.partitions());
        }
        return partitions;
    }

    /** Deletes the states of the partitions; NONE, or the first error. */
    private CompletableFuture<Errors> deleteStates(String groupId, Uuid topicId, String name,
                                                   Set<Integer> partitions) {
        List<CompletableFuture<Errors>> deletes = new ArrayList<>();
        for (int partition : partitions) {
            deletes.add(persister.delete(groupId, new TopicIdPartition(topicId, partition, name)));
        }
        return all(deletes).thenApply(errors -> errors.stream().filter(error -> error != Errors.NONE)
                .map(ShareGroupOffsetsHandler::adminError).findFirst().orElse(Errors.NONE));
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteGroups

    /**
     * DeleteGroups: the share-partition states of the empty share groups named are deleted first, then
     * {@code deleteGroups} deletes the groups whose states are gone (and every group that is not a share group).
     */
    CompletableFuture<AbstractResponse> deleteGroups(DeleteGroupsRequest request,
            Function<DeleteGroupsRequest, CompletableFuture<AbstractResponse>> deleteGroups) {
        Map<String, CompletableFuture<Errors>> stateDeletions = new LinkedHashMap<>();
        for (String groupId : new HashSet<>(request.data().groupsNames())) {
            ShareStateTopics view = coordinator.shareStateTopics(groupId);
            if (view.error() != Errors.NONE || view.state() != GroupState.EMPTY) {
                continue; // the group coordinator answers these
            }
            List<CompletableFuture<Errors>> deletes = new ArrayList<>();
            view.topics().forEach((topicId, topic) -> deletes.add(deleteStates(groupId, topicId,
                    cluster.topicName(topicId).orElse(topic.name()), topic.partitions())));
            stateDeletions.put(groupId, all(deletes).thenApply(errors -> errors.stream()
                    .filter(error -> error != Errors.NONE).findFirst().orElse(Errors.NONE)));
        }
        if (stateDeletions.isEmpty()) {
            return deleteGroups.apply(request);
        }
        return all(new ArrayList<>(stateDeletions.values())).thenCompose(ignored -> {
            Map<String, Errors> failed = new LinkedHashMap<>();
            stateDeletions.forEach((groupId, error) -> {
                if (error.join() != Errors.NONE) {
                    failed.put(groupId, error.join());
                }
            });
            List<String> remaining = request.data().groupsNames().stream()
                    .filter(groupId -> !failed.containsKey(groupId)).toList();
            CompletableFuture<AbstractResponse> deleted = remaining.isEmpty()
                    ? CompletableFuture.completedFuture(new DeleteGroupsResponse(new DeleteGroupsResponseData()))
                    : deleteGroups.apply(new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                            .setGroupsNames(remaining)).build(request.version()));
            return deleted.thenApply(response -> {
                DeleteGroupsResponseData data = ((DeleteGroupsResponse) response).data();
                failed.forEach((groupId, error) -> data.results().add(
                        new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(groupId)
                                .setErrorCode(error.code())));
                return response;
            });
        });
    }

    // ---------------------------------------------------------------------------------------------------------

    /** What an administrator is told for a share coordinator's error. */
    private static Errors adminError(Errors error) {
        return switch (error) {
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, NOT_ENOUGH_REPLICAS,
                 NOT_ENOUGH_REPLICAS_AFTER_APPEND -> Errors.COORDINATOR_NOT_AVAILABLE;
            default -> error;
        };
    }

    private static String message(Errors error, String message) {
        return message != null ? message : error.message();
    }

    /** The results of {@code futures} in their order, once all are done. */
    private static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                .thenApply(done -> futures.stream().map(CompletableFuture::join).toList());
    }
}
