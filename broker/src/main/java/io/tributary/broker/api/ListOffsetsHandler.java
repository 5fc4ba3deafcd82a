package io.tributary.broker.api;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

import io.tributary.broker.replication.OffsetResult;
import io.tributary.broker.replication.ReplicaManager;

/**
 * ListOffsets: earliest, latest, max-timestamp and by-timestamp lookups (replay by time). The leader epoch of the
 * answer exists in the protocol from v4 on only: setting it at an older version makes the codec refuse to write the
 * response, so it is left at its default there.
 */
final class ListOffsetsHandler {

    private final ReplicaManager replicaManager;

    ListOffsetsHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    AbstractResponse handle(ListOffsetsRequest request) {
        ListOffsetsRequestData data = request.data();
        short version = request.version();
        if (data.isolationLevel() != 0 && data.isolationLevel() != 1) {
            throw new InvalidRequestException("Unknown isolation level " + data.isolationLevel()
                    + " (0: read_uncommitted, 1: read_committed)");
        }
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition partition : topic.partitions()) {
                OffsetResult result = replicaManager.listOffset(new TopicPartition(topic.name(),
                                partition.partitionIndex()), partition.timestamp(), request.isolationLevel(),
                        partition.currentLeaderEpoch(), data.replicaId());
                ListOffsetsResponseData.ListOffsetsPartitionResponse partitionResponse =
                        new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(result.error().code())
                                .setTimestamp(result.timestamp())
                                .setOffset(result.offset());
                if (version >= 4 && result.error() == Errors.NONE) {
                    partitionResponse.setLeaderEpoch(result.leaderEpoch());
                }
                topicResponse.partitions().add(partitionResponse);
            }
            response.topics().add(topicResponse);
        }
        return new ListOffsetsResponse(response);
    }
}
