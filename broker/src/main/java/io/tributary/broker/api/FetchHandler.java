package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.replication.FetchParams;
import io.tributary.broker.replication.FetchPartitionRequest;
import io.tributary.broker.replication.FetchPartitionResult;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.AbortedTxn;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch: reads each partition from its leader's log, up to the high watermark for read_uncommitted consumers and the
 * last stable offset for read_committed ones (with the aborted transactions of what they read), with the request's
 * partition and response byte limits, and long-polls up to {@code max.wait.ms} until {@code min.bytes} are there.
 * Records go out as slices of the segment files (zero copy). Fetch sessions are not kept: every response carries
 * session id 0, which makes clients send full fetch requests; a request naming a session is answered
 * FETCH_SESSION_ID_NOT_FOUND so the client starts over sessionless.
 *
 * <p>A follower's fetch (a replica id, and from v15 its broker epoch) reads up to the log end offset, reports the
 * follower's position to the leader, and is answered with a {@code divergingEpoch} instead of records when its
 * {@code lastFetchedEpoch} shows a log that diverges from the leader's. NOT_LEADER_OR_FOLLOWER and
 * FENCED_LEADER_EPOCH carry the current leader ({@link LeaderHints}).
 */
final class FetchHandler {

    private final ReplicaManager replicaManager;
    private final ClusterView cluster;

    FetchHandler(ReplicaManager replicaManager, ClusterView cluster) {
        this.replicaManager = replicaManager;
        this.cluster = cluster;
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
        // A client's mistake is an INVALID_REQUEST answer (logged at WARN by the dispatcher), not a server error.
        if (data.isolationLevel() != 0 && data.isolationLevel() != 1) {
            throw new InvalidRequestException("Unknown isolation level " + data.isolationLevel()
                    + " (0: read_uncommitted, 1: read_committed)");
        }
        LinkedHashMap<TopicPartition, FetchPartitionRequest> requests = new LinkedHashMap<>();
        Map<TopicPartition, Uuid> ids = new LinkedHashMap<>();
        Map<TopicPartition, Errors> refused = new LinkedHashMap<>();
        for (FetchRequestData.FetchTopic topic : data.topics()) {
            Optional<String> name = byId ? cluster.topicName(topic.topicId()) : Optional.of(topic.topic());
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name.orElse(topic.topicId().toString()), partition.partition());
                ids.put(tp, topic.topicId());
                if (name.isEmpty()) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_ID);
                } else if (partition.partitionMaxBytes() < 0) {
                    refused.put(tp, Errors.INVALID_REQUEST);
                } else {
                    requests.put(tp, new FetchPartitionRequest(partition.fetchOffset(), partition.partitionMaxBytes(),
                            partition.currentLeaderEpoch(), partition.lastFetchedEpoch()));
                }
            }
        }
        FetchParams params = new FetchParams(request.replicaId(), request.replicaEpoch(), data.maxWaitMs(),
                data.minBytes(), data.maxBytes(), request.isolationLevel());
        return replicaManager.fetch(params, requests).thenApply(results -> {
            FetchResponseData response = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
            MetadataSnapshot snapshot = null;
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
                    partitionData.setErrorCode(refused.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR).code())
                            .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                            .setRecords(MemoryRecords.EMPTY);
                } else {
                    partitionData.setErrorCode(result.error().code())
                            .setHighWatermark(result.highWatermark())
                            .setLastStableOffset(result.lastStableOffset())
                            .setLogStartOffset(result.logStartOffset())
                            .setRecords(result.records());
                    if (result.abortedTransactions() != null && version >= 4) {
                        List<FetchResponseData.AbortedTransaction> aborted = new ArrayList<>();
                        for (AbortedTxn txn : result.abortedTransactions()) {
                            aborted.add(new FetchResponseData.AbortedTransaction().setProducerId(txn.producerId())
                                    .setFirstOffset(txn.firstOffset()));
                        }
                        partitionData.setAbortedTransactions(aborted);
                    }
                    if (result.divergingEpoch() != null && version >= 12) {
                        partitionData.setDivergingEpoch(new FetchResponseData.EpochEndOffset()
                                .setEpoch(result.divergingEpoch().epoch())
                                .setEndOffset(result.divergingEpoch().endOffset()));
                    }
                    if (LeaderHints.wanted(result.error()) && version >= 12) {
                        snapshot = snapshot != null ? snapshot : cluster.snapshot();
                        addLeaderHint(cluster, snapshot, tp, partitionData, response, version);
                    }
                }
                topic.partitions().add(partitionData);
            }
            return FetchResponse.of(response);
        });
    }

    private static void addLeaderHint(ClusterView cluster, MetadataSnapshot snapshot, TopicPartition tp,
                                      FetchResponseData.PartitionData partitionData, FetchResponseData response,
                                      short version) {
        LeaderHints.leader(cluster, snapshot, tp).ifPresent(leader -> {
            partitionData.currentLeader().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch());
            if (version >= 16 && response.nodeEndpoints().find(leader.id()) == null) {
                response.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(leader.id())
                        .setHost(leader.broker().host()).setPort(leader.broker().port())
                        .setRack(leader.broker().rack()));
            }
        });
    }
}
