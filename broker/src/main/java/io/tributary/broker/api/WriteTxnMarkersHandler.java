package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.replication.ProduceResult;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.AppendOrigin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.Time;

/**
 * WriteTxnMarkers: writes the COMMIT or ABORT marker (a control batch with the producer's id and epoch and the
 * coordinator epoch) of each listed transaction to each listed partition this broker leads, as a coordinator append
 * ({@link AppendOrigin#COORDINATOR}) with acks=all, and answers per partition once the marker is replicated: NONE, or
 * the append's error (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PRODUCER_EPOCH for a marker of a
 * fenced producer epoch, TRANSACTION_COORDINATOR_FENCED for one of an older coordinator epoch, REQUEST_TIMED_OUT,
 * ...). The transaction coordinator sends it, and so does {@code Admin.abortTransaction} (kafka-transactions.sh abort)
 * straight to the partition's leader.
 *
 * <p>Markers written to partitions of {@code __consumer_offsets} complete the transaction's offset commits: the group
 * coordinator is told ({@link GroupCoordinator#onTransactionCompleted}) once per marker with the partitions whose
 * marker was written.
 *
 * <p>Called on request-handler threads; the response completes on the thread that moved the high watermark past the
 * last marker, or on the delayed-operations thread at the timeout.
 */
final class WriteTxnMarkersHandler {

    /**
     * How long a marker waits for its replication: Kafka's {@code request.timeout.ms} default, which the coordinator's
     * own request timeout matches; it retries a partition answered REQUEST_TIMED_OUT.
     */
    static final long REPLICATION_TIMEOUT_MS = 30_000;

    private final ReplicaManager replicaManager;
    private final GroupCoordinator groupCoordinator;
    private final Time time;

    WriteTxnMarkersHandler(ReplicaManager replicaManager, GroupCoordinator groupCoordinator, Time time) {
        this.replicaManager = replicaManager;
        this.groupCoordinator = groupCoordinator;
        this.time = time;
    }

    CompletableFuture<AbstractResponse> handle(WriteTxnMarkersRequest request) {
        List<CompletableFuture<WritableTxnMarkerResult>> results = new ArrayList<>();
        for (WritableTxnMarker marker : request.data().markers()) {
            results.add(write(marker));
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture[0])).thenApply(done -> {
            WriteTxnMarkersResponseData data = new WriteTxnMarkersResponseData();
            for (CompletableFuture<WritableTxnMarkerResult> result : results) {
                data.markers().add(result.join());
            }
            return new WriteTxnMarkersResponse(data);
        });
    }

    private CompletableFuture<WritableTxnMarkerResult> write(WritableTxnMarker marker) {
        TransactionResult result = TransactionResult.forId(marker.transactionResult());
        EndTransactionMarker endMarker = new EndTransactionMarker(
                result == TransactionResult.COMMIT ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                marker.coordinatorEpoch());
        Map<TopicPartition, MemoryRecords> entries = new LinkedHashMap<>();
        for (WritableTxnMarkerTopic topic : marker.topics()) {
            for (int partition : topic.partitionIndexes()) {
                // One batch per partition: the append assigns its offsets in place.
                entries.put(new TopicPartition(topic.name(), partition), MemoryRecords.withEndTransactionMarker(
                        time.milliseconds(), marker.producerId(), marker.producerEpoch(), endMarker));
            }
        }
        CompletableFuture<Map<TopicPartition, ProduceResult>> appended = entries.isEmpty()
                ? CompletableFuture.completedFuture(Map.of())
                : replicaManager.appendRecords(entries, (short) -1, REPLICATION_TIMEOUT_MS, AppendOrigin.COORDINATOR);
        return appended.thenApply(written -> {
            List<Integer> offsetsPartitions = new ArrayList<>();
            Map<String, WritableTxnMarkerTopicResult> topics = new LinkedHashMap<>();
            for (TopicPartition tp : entries.keySet()) {
                ProduceResult partitionResult = written.get(tp);
                Errors error = partitionResult == null ? Errors.UNKNOWN_SERVER_ERROR : partitionResult.error();
                if (error == Errors.NONE && tp.topic().equals(GroupConfig.OFFSETS_TOPIC)) {
                    offsetsPartitions.add(tp.partition());
                }
                topics.computeIfAbsent(tp.topic(), name -> new WritableTxnMarkerTopicResult().setName(name))
                        .partitions().add(new WritableTxnMarkerPartitionResult().setPartitionIndex(tp.partition())
                                .setErrorCode(error.code()));
            }
            if (!offsetsPartitions.isEmpty()) {
                groupCoordinator.onTransactionCompleted(marker.producerId(), offsetsPartitions, result);
            }
            return new WritableTxnMarkerResult().setProducerId(marker.producerId())
                    .setTopics(new ArrayList<>(topics.values()));
        });
    }
}
