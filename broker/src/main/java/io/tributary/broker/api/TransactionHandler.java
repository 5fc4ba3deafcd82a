package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.txn.TransactionCoordinator;
import io.tributary.broker.txn.TransactionCoordinator.Described;
import io.tributary.broker.txn.TransactionCoordinator.Listed;
import io.tributary.broker.txn.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;

/**
 * The transaction APIs: InitProducerId (idempotent producers get a producer id from the cluster-wide blocks in
 * ZooKeeper; transactional ones go to the {@link TransactionCoordinator}), AddPartitionsToTxn (the client form up
 * to v3 and the batched form from v4, verifyOnly included), AddOffsetsToTxn, EndTxn, DescribeTransactions and
 * ListTransactions. Checks what needs the cluster's metadata (the partitions exist), then answers with the
 * coordinator's outcome; PRODUCER_FENCED goes to clients too old to know it as INVALID_PRODUCER_EPOCH, as Kafka
 * answers them.
 *
 * <p>Threads: request-handler threads, InitProducerId the admin thread; futures complete on the coordinator's.
 */
final class TransactionHandler {

    private final TransactionCoordinator coordinator;
    private final GroupCoordinator groups;
    private final ClusterView cluster;

    TransactionHandler(TransactionCoordinator coordinator, GroupCoordinator groups, ClusterView cluster) {
        this.coordinator = coordinator;
        this.groups = groups;
        this.cluster = cluster;
    }

    CompletableFuture<AbstractResponse> initProducerId(InitProducerIdRequest request) {
        InitProducerIdRequestData data = request.data();
        if (data.transactionalId() == null) {
            return CompletableFuture.completedFuture(idempotentProducerId(data));
        }
        short version = request.version();
        return coordinator.initProducerId(data.transactionalId(), data.transactionTimeoutMs(), data.producerId(),
                        data.producerEpoch())
                .thenApply(result -> new InitProducerIdResponse(new InitProducerIdResponseData()
                        .setErrorCode(fenced(result.error(), version, 4).code())
                        .setProducerId(result.producerId())
                        .setProducerEpoch(result.producerEpoch())));
    }

    /** An idempotent producer: a new producer id, or its next epoch when it resets its sequences (KIP-360). */
    private AbstractResponse idempotentProducerId(InitProducerIdRequestData data) {
        InitProducerIdResponseData response = new InitProducerIdResponseData();
        long producerId = data.producerId();
        short epoch = data.producerEpoch();
        if (producerId >= 0 && epoch >= 0 && epoch < Short.MAX_VALUE - 1) {
            return new InitProducerIdResponse(response.setErrorCode(Errors.NONE.code())
                    .setProducerId(producerId).setProducerEpoch((short) (epoch + 1)));
        }
        return new InitProducerIdResponse(response.setErrorCode(Errors.NONE.code())
                .setProducerId(cluster.producerIds().nextProducerId()).setProducerEpoch((short) 0));
    }

    CompletableFuture<AbstractResponse> addPartitionsToTxn(AddPartitionsToTxnRequest request) {
        AddPartitionsToTxnRequestData data = request.data();
        short version = request.version();
        if (version <= 3) {
            List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(data.v3AndBelowTopics());
            return addPartitions(data.v3AndBelowTransactionalId(), data.v3AndBelowProducerId(),
                    data.v3AndBelowProducerEpoch(), partitions, version)
                    .thenApply(errors -> new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData()
                            .setResultsByTopicV3AndBelow(AddPartitionsToTxnResponse.resultForTransaction(
                                    AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors).topicResults())));
        }
        List<CompletableFuture<AddPartitionsToTxnResult>> results = new ArrayList<>();
        for (AddPartitionsToTxnTransaction transaction : data.transactions()) {
            List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(transaction.topics());
            CompletableFuture<Map<TopicPartition, Errors>> errors = transaction.verifyOnly()
                    ? CompletableFuture.completedFuture(coordinator.verifyPartitions(transaction.transactionalId(),
                            transaction.producerId(), transaction.producerEpoch(), partitions))
                    : addPartitions(transaction.transactionalId(), transaction.producerId(),
                            transaction.producerEpoch(), partitions, version);
            results.add(errors.thenApply(e -> AddPartitionsToTxnResponse.resultForTransaction(
                    transaction.transactionalId(), e)));
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture[0])).thenApply(ignored -> {
            AddPartitionsToTxnResultCollection collection = new AddPartitionsToTxnResultCollection();
            for (CompletableFuture<AddPartitionsToTxnResult> result : results) {
                collection.add(result.join());
            }
            return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData()
                    .setErrorCode(Errors.NONE.code()).setResultsByTransaction(collection));
        });
    }

    /**
     * Adds the partitions when every one exists; otherwise the unknown ones get UNKNOWN_TOPIC_OR_PARTITION and the
     * others OPERATION_NOT_ATTEMPTED, as in Kafka. One error for every partition when the coordinator answers.
     */
    private CompletableFuture<Map<TopicPartition, Errors>> addPartitions(String transactionalId, long producerId,
            short producerEpoch, List<TopicPartition> partitions, short version) {
        MetadataSnapshot snapshot = cluster.snapshot();
        Set<TopicPartition> unknown = new HashSet<>();
        for (TopicPartition tp : partitions) {
            if (snapshot.partition(tp).isEmpty()) {
                unknown.add(tp);
            }
        }
        if (!unknown.isEmpty()) {
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                errors.put(tp, unknown.contains(tp) ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                        : Errors.OPERATION_NOT_ATTEMPTED);
            }
            return CompletableFuture.completedFuture(errors);
        }
        return coordinator.addPartitions(transactionalId, producerId, producerEpoch, partitions).thenApply(error -> {
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                errors.put(tp, fenced(error, version, 2));
            }
            return errors;
        });
    }

    CompletableFuture<AbstractResponse> addOffsetsToTxn(AddOffsetsToTxnRequest request) {
        var data = request.data();
        TopicPartition offsets = new TopicPartition(GroupConfig.OFFSETS_TOPIC, groups.partitionFor(data.groupId()));
        return coordinator.addPartitions(data.transactionalId(), data.producerId(), data.producerEpoch(),
                        List.of(offsets))
                .thenApply(error -> new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData()
                        .setErrorCode(fenced(error, request.version(), 2).code())));
    }

    CompletableFuture<AbstractResponse> endTxn(EndTxnRequest request) {
        var data = request.data();
        return coordinator.endTransaction(data.transactionalId(), data.producerId(), data.producerEpoch(),
                        request.result())
                .thenApply(error -> new EndTxnResponse(new EndTxnResponseData()
                        .setErrorCode(fenced(error, request.version(), 2).code())));
    }

    AbstractResponse describeTransactions(DescribeTransactionsRequest request) {
        DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
        for (String transactionalId : request.data().transactionalIds()) {
            Described described = coordinator.describe(transactionalId);
            DescribeTransactionsResponseData.TransactionState state =
                    new DescribeTransactionsResponseData.TransactionState()
                            .setTransactionalId(transactionalId)
                            .setErrorCode(described.error().code());
            if (described.error() == Errors.NONE) {
                state.setTransactionState(described.state().wireName())
                        .setTransactionTimeoutMs(described.timeoutMs())
                        .setTransactionStartTimeMs(described.startTimestamp())
                        .setProducerId(described.producerId())
                        .setProducerEpoch(described.producerEpoch());
                Map<String, List<Integer>> byTopic = new TreeMap<>();
                for (TopicPartition tp : described.partitions()) {
                    byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
                }
                for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
                    topic.getValue().sort(null);
                    state.topics().add(new DescribeTransactionsResponseData.TopicData()
                            .setTopic(topic.getKey()).setPartitions(topic.getValue()));
                }
            }
            response.transactionStates().add(state);
        }
        return new DescribeTransactionsResponse(response);
    }

    AbstractResponse listTransactions(ListTransactionsRequest request) {
        ListTransactionsRequestData data = request.data();
        ListTransactionsResponseData response = new ListTransactionsResponseData();
        Set<TransactionState> states = new HashSet<>();
        List<String> unknownStates = new ArrayList<>();
        for (String name : data.stateFilters()) {
            TransactionState.fromWireName(name).ifPresentOrElse(states::add, () -> unknownStates.add(name));
        }
        response.setUnknownStateFilters(unknownStates);
        if (!unknownStates.isEmpty() && states.isEmpty()) {
            // Only unknown states asked for: nothing can match (an empty filter would match everything).
            return new ListTransactionsResponse(response.setErrorCode(Errors.NONE.code()));
        }
        Pattern pattern = null;
        if (request.version() >= 2 && data.transactionalIdPattern() != null
                && !data.transactionalIdPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(data.transactionalIdPattern());
            } catch (PatternSyntaxException e) {
                return new ListTransactionsResponse(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
            }
        }
        long duration = request.version() >= 1 ? data.durationFilter() : -1L;
        TransactionCoordinator.ListResult result = coordinator.list(states, new HashSet<>(data.producerIdFilters()),
                duration);
        response.setErrorCode(result.error().code());
        for (Listed listed : result.transactions()) {
            if (pattern != null && !pattern.matcher(listed.transactionalId()).matches()) {
                continue;
            }
            response.transactionStates().add(new ListTransactionsResponseData.TransactionState()
                    .setTransactionalId(listed.transactionalId())
                    .setProducerId(listed.producerId())
                    .setTransactionState(listed.state().wireName()));
        }
        return new ListTransactionsResponse(response);
    }

    /** PRODUCER_FENCED for clients that know it (from {@code sinceVersion}), INVALID_PRODUCER_EPOCH for older ones. */
    private static Errors fenced(Errors error, short version, int sinceVersion) {
        return error == Errors.PRODUCER_FENCED && version < sinceVersion ? Errors.INVALID_PRODUCER_EPOCH : error;
    }
}
