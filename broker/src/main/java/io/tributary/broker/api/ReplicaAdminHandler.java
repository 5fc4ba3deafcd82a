package io.tributary.broker.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;

/**
 * The replica-placement admin APIs, as {@code kafka-leader-election.sh} and {@code kafka-reassign-partitions.sh} use
 * them. ElectLeaders (preferred or unclean) and AlterPartitionReassignments are carried out by the controller: the
 * admin client sends them there, and any other broker answers NOT_CONTROLLER so that the client looks the controller
 * up again. ListPartitionReassignments is answered from this broker's metadata (the reassignment markers of the
 * topics' assignments).
 */
final class ReplicaAdminHandler {

    private final ClusterView cluster;

    ReplicaAdminHandler(ClusterView cluster) {
        this.cluster = cluster;
    }

    CompletableFuture<AbstractResponse> electLeaders(ElectLeadersRequest request) {
        ElectLeadersRequestData data = request.data();
        boolean unclean = request.version() >= 1 && data.electionType() == ElectionType.UNCLEAN.value;
        if (request.version() >= 1 && data.electionType() != ElectionType.UNCLEAN.value
                && data.electionType() != ElectionType.PREFERRED.value) {
            return done(new ElectLeadersResponse(new ElectLeadersResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code())));
        }
        Optional<Set<TopicPartition>> partitions = Optional.empty();
        if (data.topicPartitions() != null) {
            Set<TopicPartition> named = new java.util.LinkedHashSet<>();
            for (ElectLeadersRequestData.TopicPartitions topic : data.topicPartitions()) {
                for (int partition : topic.partitions()) {
                    named.add(new TopicPartition(topic.topic(), partition));
                }
            }
            partitions = Optional.of(named);
        }
        short version = request.version();
        try {
            return cluster.electLeaders(unclean, partitions)
                    .orTimeout(Math.max(1, data.timeoutMs()), TimeUnit.MILLISECONDS)
                    .handle((results, failure) -> failure == null ? electResponse(results, version)
                            : electFailure(request, failure));
        } catch (ApiException e) {
            return done(electFailure(request, e));
        }
    }

    private static AbstractResponse electResponse(Map<TopicPartition, ApiError> results, short version) {
        ElectLeadersResponseData response = new ElectLeadersResponseData().setErrorCode(Errors.NONE.code());
        Map<String, ElectLeadersResponseData.ReplicaElectionResult> topics = new LinkedHashMap<>();
        results.forEach((tp, error) -> topics.computeIfAbsent(tp.topic(), name -> {
            ElectLeadersResponseData.ReplicaElectionResult topic =
                    new ElectLeadersResponseData.ReplicaElectionResult().setTopic(name);
            response.replicaElectionResults().add(topic);
            return topic;
        }).partitionResult().add(new ElectLeadersResponseData.PartitionResult()
                .setPartitionId(tp.partition())
                // v0 knows no ELECTION_NOT_NEEDED: a partition led by its preferred replica is a success there.
                .setErrorCode(version == 0 && error.error() == Errors.ELECTION_NOT_NEEDED ? Errors.NONE.code()
                        : error.error().code())
                .setErrorMessage(error.error() == Errors.NONE ? null : error.message())));
        return new ElectLeadersResponse(response);
    }

    /**
     * The whole election failed (not the controller, timed out). The codec's error response puts the error where the
     * version has room for it: v0 has no top-level error code, so there each named partition carries it. (A top-level
     * code set at v0 cannot be serialized; the client got UNKNOWN_SERVER_ERROR instead, found by the protocol fuzzer.)
     */
    private static AbstractResponse electFailure(ElectLeadersRequest request, Throwable failure) {
        return request.getErrorResponse(0, unwrap(failure));
    }

    CompletableFuture<AbstractResponse> alterReassignments(AlterPartitionReassignmentsRequest request) {
        AlterPartitionReassignmentsRequestData data = request.data();
        boolean allowReplicationFactorChange = request.version() < 1 || data.allowReplicationFactorChange();
        MetadataSnapshot snapshot = cluster.snapshot();
        Map<TopicPartition, Optional<List<Integer>>> targets = new LinkedHashMap<>();
        Map<TopicPartition, ApiError> refused = new LinkedHashMap<>();
        for (AlterPartitionReassignmentsRequestData.ReassignableTopic topic : data.topics()) {
            for (AlterPartitionReassignmentsRequestData.ReassignablePartition partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
                List<Integer> replicas = partition.replicas();
                Optional<PartitionMetadata> current = snapshot.partition(tp);
                if (replicas != null && !allowReplicationFactorChange && current.isPresent()) {
                    int factor = current.get().replicas().size() - current.get().addingReplicas().size();
                    if (replicas.size() != factor) {
                        refused.put(tp, new ApiError(Errors.INVALID_REPLICATION_FACTOR, "The reassignment of " + tp
                                + " to " + replicas + " changes its replication factor " + factor
                                + ", and the request does not allow that"));
                        continue;
                    }
                }
                targets.put(tp, Optional.ofNullable(replicas));
            }
        }
        if (targets.isEmpty()) {
            return done(alterResponse(refused));
        }
        try {
            return cluster.alterPartitionReassignments(targets)
                    .orTimeout(Math.max(1, data.timeoutMs()), TimeUnit.MILLISECONDS)
                    .handle((results, failure) -> {
                        if (failure != null) {
                            Errors error = Errors.forException(unwrap(failure));
                            return new AlterPartitionReassignmentsResponse(
                                    new AlterPartitionReassignmentsResponseData().setErrorCode(error.code())
                                            .setErrorMessage(unwrap(failure).getMessage()));
                        }
                        Map<TopicPartition, ApiError> all = new LinkedHashMap<>(refused);
                        all.putAll(results);
                        return alterResponse(all);
                    });
        } catch (ApiException e) {
            return done(new AlterPartitionReassignmentsResponse(new AlterPartitionReassignmentsResponseData()
                    .setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage())));
        }
    }

    private static AbstractResponse alterResponse(Map<TopicPartition, ApiError> results) {
        AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code());
        Map<String, AlterPartitionReassignmentsResponseData.ReassignableTopicResponse> topics = new LinkedHashMap<>();
        results.forEach((tp, error) -> topics.computeIfAbsent(tp.topic(), name -> {
            AlterPartitionReassignmentsResponseData.ReassignableTopicResponse topic =
                    new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(name);
            response.responses().add(topic);
            return topic;
        }).partitions().add(new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                .setPartitionIndex(tp.partition())
                .setErrorCode(error.error().code())
                .setErrorMessage(error.error() == Errors.NONE ? null : error.message())));
        return new AlterPartitionReassignmentsResponse(response);
    }

    AbstractResponse listReassignments(ListPartitionReassignmentsRequest request) {
        ListPartitionReassignmentsRequestData data = request.data();
        MetadataSnapshot snapshot = cluster.snapshot();
        ListPartitionReassignmentsResponseData response = new ListPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code());
        Map<String, ListPartitionReassignmentsResponseData.OngoingTopicReassignment> topics = new LinkedHashMap<>();
        for (PartitionMetadata partition : requested(snapshot, data)) {
            if (!partition.isReassigning()) {
                continue;
            }
            TopicPartition tp = partition.topicPartition();
            topics.computeIfAbsent(tp.topic(), name -> {
                ListPartitionReassignmentsResponseData.OngoingTopicReassignment topic =
                        new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(name);
                response.topics().add(topic);
                return topic;
            }).partitions().add(new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                    .setPartitionIndex(tp.partition())
                    .setReplicas(partition.replicas())
                    .setAddingReplicas(partition.addingReplicas())
                    .setRemovingReplicas(partition.removingReplicas()));
        }
        return new ListPartitionReassignmentsResponse(response);
    }

    private static List<PartitionMetadata> requested(MetadataSnapshot snapshot,
                                                     ListPartitionReassignmentsRequestData data) {
        List<PartitionMetadata> partitions = new java.util.ArrayList<>();
        if (data.topics() == null) {
            for (TopicMetadata topic : snapshot.topics().values()) {
                partitions.addAll(topic.partitions().values());
            }
            return partitions;
        }
        for (ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics topic : data.topics()) {
            for (int index : topic.partitionIndexes()) {
                snapshot.partition(new TopicPartition(topic.name(), index)).ifPresent(partitions::add);
            }
        }
        return partitions;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof TimeoutException) {
            return new org.apache.kafka.common.errors.TimeoutException("The controller did not answer in time");
        }
        return cause;
    }

    private static CompletableFuture<AbstractResponse> done(AbstractResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
