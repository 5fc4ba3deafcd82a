package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.cluster.TopicAdmin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

/**
 * CreateTopics, DeleteTopics and CreatePartitions, carried out through the cluster's {@link TopicAdmin}. Each
 * answers when the controller has done the work (leaders elected, topic gone) as this broker's metadata shows it, or
 * REQUEST_TIMED_OUT after the request's timeout; the work itself still completes then. A topic named twice in one
 * request is answered INVALID_REQUEST, as Kafka does. One request creates or adds at most
 * {@link TopicAdmin#MAX_PARTITIONS_PER_REQUEST} partitions in all (Kafka's limit): a CreateTopics above it is refused
 * as a whole, a CreatePartitions from the topic that would exceed it on, with POLICY_VIOLATION.
 */
final class TopicAdminHandler {

    private final ClusterView cluster;

    TopicAdminHandler(ClusterView cluster) {
        this.cluster = cluster;
    }

    CompletableFuture<AbstractResponse> createTopics(CreateTopicsRequest request) {
        CreateTopicsRequestData data = request.data();
        short version = request.version();
        Set<String> duplicates = duplicates(data.topics().stream().map(CreateTopicsRequestData.CreatableTopic::name)
                .toList());
        Map<CreateTopicsResponseData.CreatableTopicResult, CompletableFuture<Void>> waits = new LinkedHashMap<>();
        // As in Kafka, too many partitions in all refuse the whole request, before any topic is created.
        ApiException tooManyPartitions = null;
        try {
            long partitions = 0;
            for (CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
                partitions += cluster.topicAdmin().requestedPartitions(topic.numPartitions(),
                        topic.assignments().size());
            }
            TopicAdmin.checkPartitionsPerRequest(partitions);
        } catch (ApiException e) {
            tooManyPartitions = e;
        }
        for (CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
            CreateTopicsResponseData.CreatableTopicResult result = new CreateTopicsResponseData.CreatableTopicResult()
                    .setName(topic.name());
            if (duplicates.contains(topic.name())) {
                waits.put(error(result, Errors.INVALID_REQUEST, "Topic " + topic.name()
                        + " appears more than once in the request", version), done());
                continue;
            }
            if (tooManyPartitions != null) {
                waits.put(error(result, Errors.forException(tooManyPartitions), tooManyPartitions.getMessage(),
                        version), done());
                continue;
            }
            try {
                Map<Integer, List<Integer>> assignment = new HashMap<>();
                for (CreateTopicsRequestData.CreatableReplicaAssignment replicas : topic.assignments()) {
                    assignment.put(replicas.partitionIndex(), replicas.brokerIds());
                }
                Map<String, String> configs = new HashMap<>();
                for (CreateTopicsRequestData.CreatableTopicConfig config : topic.configs()) {
                    configs.put(config.name(), config.value());
                }
                TopicAdmin.CreatedTopic created = cluster.topicAdmin().createTopic(topic.name(), topic.numPartitions(),
                        topic.replicationFactor(), assignment, configs, data.validateOnly());
                result.setErrorCode(Errors.NONE.code());
                if (version >= 5) {
                    result.setNumPartitions(created.partitionCount())
                            .setReplicationFactor((short) created.replicationFactor());
                }
                if (version >= 7 && !data.validateOnly()) {
                    result.setTopicId(created.topicId());
                }
                waits.put(result, data.validateOnly() ? done()
                        : cluster.topicAdmin().whenPartitionStatesWritten(topic.name(), created.partitionCount()));
            } catch (ApiException e) {
                waits.put(error(result, Errors.forException(e), e.getMessage(), version), done());
            }
        }
        return awaitAll(waits, data.timeoutMs(), (result, error) -> error(result, error,
                "Topic creation is still in progress after " + data.timeoutMs() + " ms", version))
                .thenApply(results -> {
                    CreateTopicsResponseData response = new CreateTopicsResponseData();
                    results.forEach(result -> response.topics().add(result));
                    return new CreateTopicsResponse(response);
                });
    }

    private static CreateTopicsResponseData.CreatableTopicResult error(
            CreateTopicsResponseData.CreatableTopicResult result, Errors error, String message, short version) {
        result.setErrorCode(error.code());
        if (version >= 1) {
            result.setErrorMessage(message);
        }
        if (version >= 5) {
            result.setNumPartitions(-1).setReplicationFactor((short) -1);
        }
        return result;
    }

    CompletableFuture<AbstractResponse> deleteTopics(DeleteTopicsRequest request) {
        DeleteTopicsRequestData data = request.data();
        short version = request.version();
        List<DeleteTopicsRequestData.DeleteTopicState> topics = new ArrayList<>();
        if (version >= 6) {
            topics.addAll(data.topics());
        } else {
            for (String name : data.topicNames()) {
                topics.add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
            }
        }
        Map<DeleteTopicsResponseData.DeletableTopicResult, CompletableFuture<Void>> waits = new LinkedHashMap<>();
        for (DeleteTopicsRequestData.DeleteTopicState topic : topics) {
            DeleteTopicsResponseData.DeletableTopicResult result = new DeleteTopicsResponseData.DeletableTopicResult();
            try {
                String name = topic.name();
                if (name == null) {
                    Uuid id = topic.topicId();
                    name = cluster.topicName(id).orElseThrow(() -> new UnknownTopicIdException(
                            "Unknown topic id " + id));
                    result.setTopicId(id);
                }
                result.setName(name);
                if (InternalTopics.isInternal(name)) {
                    throw new TopicAuthorizationException("Topic " + name + " is internal to the broker and cannot "
                            + "be deleted");
                }
                Uuid deletedId = cluster.topicAdmin().deleteTopic(name);
                if (version >= 6) {
                    result.setTopicId(deletedId);
                }
                result.setErrorCode(Errors.NONE.code());
                waits.put(result, cluster.topicAdmin().whenDeleted(deletedId));
            } catch (ApiException e) {
                result.setErrorCode(Errors.forException(e).code());
                if (version >= 5) {
                    result.setErrorMessage(e.getMessage());
                }
                waits.put(result, done());
            }
        }
        return awaitAll(waits, data.timeoutMs(), (result, error) -> {
            result.setErrorCode(error.code());
            if (version >= 5) {
                result.setErrorMessage("Topic deletion is still in progress after " + data.timeoutMs() + " ms");
            }
            return result;
        }).thenApply(results -> {
            DeleteTopicsResponseData response = new DeleteTopicsResponseData();
            results.forEach(result -> response.responses().add(result));
            return new DeleteTopicsResponse(response);
        });
    }

    CompletableFuture<AbstractResponse> createPartitions(CreatePartitionsRequest request) {
        CreatePartitionsRequestData data = request.data();
        Set<String> duplicates = duplicates(data.topics().stream()
                .map(CreatePartitionsRequestData.CreatePartitionsTopic::name).toList());
        Map<CreatePartitionsResponseData.CreatePartitionsTopicResult, CompletableFuture<Void>> waits =
                new LinkedHashMap<>();
        // What the request may still add of TopicAdmin.MAX_PARTITIONS_PER_REQUEST; the topics that come after the
        // limit is reached are refused with POLICY_VIOLATION.
        int partitionsLeft = TopicAdmin.MAX_PARTITIONS_PER_REQUEST;
        for (CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
            CreatePartitionsResponseData.CreatePartitionsTopicResult result =
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(topic.name());
            if (duplicates.contains(topic.name())) {
                waits.put(result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Topic " + topic.name() + " appears more than once in the request"), done());
                continue;
            }
            try {
                List<List<Integer>> assignment = null;
                if (topic.assignments() != null) {
                    assignment = new ArrayList<>();
                    for (CreatePartitionsRequestData.CreatePartitionsAssignment replicas : topic.assignments()) {
                        assignment.add(replicas.brokerIds());
                    }
                }
                partitionsLeft -= cluster.topicAdmin().createPartitions(topic.name(), topic.count(), assignment,
                        data.validateOnly(), partitionsLeft).size();
                result.setErrorCode(Errors.NONE.code());
                waits.put(result, data.validateOnly() ? done()
                        : cluster.topicAdmin().whenPartitionStatesWritten(topic.name(), topic.count()));
            } catch (ApiException e) {
                waits.put(result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage()), done());
            }
        }
        return awaitAll(waits, data.timeoutMs(), (result, error) -> result.setErrorCode(error.code())
                .setErrorMessage("Partition creation is still in progress after " + data.timeoutMs() + " ms"))
                .thenApply(results -> {
                    CreatePartitionsResponseData response = new CreatePartitionsResponseData();
                    response.results().addAll(results);
                    return new CreatePartitionsResponse(response);
                });
    }

    @FunctionalInterface
    private interface OnTimeout<R> {
        R apply(R result, Errors error);
    }

    /** Waits for every result's future up to {@code timeoutMs}; late ones get REQUEST_TIMED_OUT. */
    private static <R> CompletableFuture<List<R>> awaitAll(Map<R, CompletableFuture<Void>> waits, int timeoutMs,
                                                         OnTimeout<R> onTimeout) {
        List<CompletableFuture<R>> each = new ArrayList<>();
        for (Map.Entry<R, CompletableFuture<Void>> wait : waits.entrySet()) {
            R result = wait.getKey();
            each.add(wait.getValue()
                    .orTimeout(Math.max(0, timeoutMs), TimeUnit.MILLISECONDS)
                    .handle((ignored, failure) -> failure == null ? result
                            : onTimeout.apply(result, isTimeout(failure) ? Errors.REQUEST_TIMED_OUT
                            : Errors.forException(failure))));
        }
        return CompletableFuture.allOf(each.toArray(new CompletableFuture[0]))
                .thenApply(ignored -> each.stream().map(CompletableFuture::join).toList());
    }

    private static boolean isTimeout(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException ? failure.getCause() : failure;
        return cause instanceof java.util.concurrent.TimeoutException || cause instanceof TimeoutException;
    }

    private static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }

    private static Set<String> duplicates(List<String> names) {
        Set<String> seen = new HashSet<>();
        Set<String> repeated = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                repeated.add(name);
            }
        }
        return repeated;
    }
}
