package io.tributary.broker.api;

import io.tributary.broker.replication.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

/**
 * DeleteRecords: moves each partition's log start offset forward (offset -1: to the high watermark); whole segments
 * below it are deleted. Answers the new low watermark, or OFFSET_OUT_OF_RANGE beyond the high watermark.
 */
final class DeleteRecordsHandler {

    private final ReplicaManager replicaManager;

    DeleteRecordsHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    AbstractResponse handle(DeleteRecordsRequest request) {
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic topic : request.data().topics()) {
            DeleteRecordsResponseData.DeleteRecordsTopicResult topicResult =
                    new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(topic.name());
            for (DeleteRecordsRequestData.DeleteRecordsPartition partition : topic.partitions()) {
                DeleteRecordsResponseData.DeleteRecordsPartitionResult result =
                        new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                                .setPartitionIndex(partition.partitionIndex());
                try {
                    long low = replicaManager.deleteRecords(new TopicPartition(topic.name(),
                            partition.partitionIndex()), partition.offset());
                    result.setLowWatermark(low).setErrorCode(Errors.NONE.code());
                } catch (ApiException e) {
                    result.setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK)
                            .setErrorCode(Errors.forException(e).code());
                }
                topicResult.partitions().add(result);
            }
            response.topics().add(topicResult);
        }
        return new DeleteRecordsResponse(response);
    }
}
