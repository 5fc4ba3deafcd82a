package io.tributary.broker.api;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Produce: appends each partition's batches as leader through the {@link ReplicaManager}, with acks 0 (no response
 * at all), 1 (after the leader's append) or -1/all (after the high watermark passes the records, bounded by the
 * request's timeout). Topics are named by name before v13 and by id from v13 on; an unknown one is answered
 * UNKNOWN_TOPIC_OR_PARTITION or UNKNOWN_TOPIC_ID per partition. Transactional batches go to the log like
 * idempotent ones, checked against the producer state there (a non-transactional batch during the producer's
 * transaction is refused); that the partition was added to the transaction (KIP-890's verification) is not checked.
 */
final class ProduceHandler {

    private final ReplicaManager replicaManager;
    private final ClusterView cluster;

    ProduceHandler(ReplicaManager replicaManager, ClusterView cluster) {
        this.replicaManager = replicaManager;
        this.cluster = cluster;
    }

    CompletableFuture<AbstractResponse> handle(ProduceRequest request) {
        ProduceRequestData data = request.data();
        short version = request.version();
        boolean byId = version >= 13;
        Map<TopicPartition, MemoryRecords> entries = new LinkedHashMap<>();
        Map<TopicPartition, ProduceResult> immediate = new LinkedHashMap<>();
        Map<TopicPartition, Uuid> ids = new LinkedHashMap<>();
        for (ProduceRequestData.TopicProduceData topic : data.topicData()) {
            Optional<String> name = byId ? cluster.topicName(topic.topicId()) : Optional.of(topic.name());
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                String topicName = name.orElse(topic.topicId().toString());
                TopicPartition tp = new TopicPartition(topicName, partition.index());
                ids.put(tp, topic.topicId());
                if (name.isEmpty()) {
                    immediate.put(tp, new ProduceResult(Errors.UNKNOWN_TOPIC_ID, "Unknown topic id "
                            + topic.topicId(), -1L, -1L, -1L));
                } else if (InternalTopics.isInternal(topicName)) {
                    immediate.put(tp, new ProduceResult(Errors.INVALID_TOPIC_EXCEPTION, "Cannot append to internal "
                            + "topic " + topicName, -1L, -1L, -1L));
                } else if (!(partition.records() instanceof MemoryRecords records)) {
                    immediate.put(tp, new ProduceResult(Errors.CORRUPT_MESSAGE, "No records", -1L, -1L, -1L));
                } else {
                    entries.put(tp, records);
                }
            }
        }
        short acks = request.acks();
        CompletableFuture<Map<TopicPartition, ProduceResult>> appended = entries.isEmpty()
                ? CompletableFuture.completedFuture(Map.of())
                : replicaManager.appendRecords(entries, acks, data.timeoutMs());
        return appended.thenApply(results -> {
            if (acks == 0) {
                return null;
            }
            Map<TopicPartition, ProduceResult> all = new LinkedHashMap<>(immediate);
            all.putAll(results);
            return new ProduceResponse(response(all, ids, byId, version));
        });
    }

    private ProduceResponseData response(Map<TopicPartition, ProduceResult> results, Map<TopicPartition, Uuid> ids,
                                         boolean byId, short version) {
        ProduceResponseData data = new ProduceResponseData();
        MetadataSnapshot snapshot = null;
        Map<String, ProduceResponseData.TopicProduceResponse> topics = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, ProduceResult> entry : results.entrySet()) {
            TopicPartition tp = entry.getKey();
            ProduceResponseData.TopicProduceResponse topic = topics.computeIfAbsent(tp.topic(), name -> {
                ProduceResponseData.TopicProduceResponse created = new ProduceResponseData.TopicProduceResponse();
                if (byId) {
                    created.setTopicId(ids.get(tp));
                } else {
                    created.setName(name);
                }
                data.responses().add(created);
                return created;
            });
            ProduceResult result = entry.getValue();
            ProduceResponseData.PartitionProduceResponse partition = new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(tp.partition())
                    .setErrorCode(result.error().code())
                    .setErrorMessage(result.error() == Errors.NONE ? null : result.errorMessage())
                    .setBaseOffset(result.baseOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs())
                    .setLogStartOffset(result.logStartOffset());
            if (version >= 10 && LeaderHints.wanted(result.error())) {
                snapshot = snapshot != null ? snapshot : cluster.snapshot();
                LeaderHints.leader(cluster, snapshot, tp).ifPresent(leader -> {
                    partition.currentLeader().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch());
                    if (data.nodeEndpoints().find(leader.id()) == null) {
                        data.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(leader.id())
                                .setHost(leader.broker().host()).setPort(leader.broker().port())
                                .setRack(leader.broker().rack()));
                    }
                });
            }
            topic.partitionResponses().add(partition);
        }
        return data;
    }
}
