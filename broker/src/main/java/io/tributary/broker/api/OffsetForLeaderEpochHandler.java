package io.tributary.broker.api;

import java.util.Optional;

import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LeaderEpochCache;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * OffsetForLeaderEpoch: where a leader epoch ended in the leader's log, from its leader-epoch cache. Consumers use
 * it to detect log truncation after a leader change; followers to cut a divergent suffix.
 */
final class OffsetForLeaderEpochHandler {

    private final ReplicaManager replicaManager;

    OffsetForLeaderEpochHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    AbstractResponse handle(OffsetsForLeaderEpochRequest request) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.data().topics()) {
            OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topicResult =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition partition : topic.partitions()) {
                topicResult.partitions().add(endOffset(new TopicPartition(topic.topic(), partition.partition()),
                        partition.currentLeaderEpoch(), partition.leaderEpoch()));
            }
            response.topics().add(topicResult);
        }
        return new OffsetsForLeaderEpochResponse(response);
    }

    private OffsetForLeaderEpochResponseData.EpochEndOffset endOffset(TopicPartition tp, int currentLeaderEpoch,
                                                                     int requestedEpoch) {
        OffsetForLeaderEpochResponseData.EpochEndOffset result = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(tp.partition())
                .setLeaderEpoch(-1)
                .setEndOffset(-1L);
        Optional<Partition> hosted = replicaManager.partition(tp);
        if (hosted.isEmpty()) {
            return result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        Partition partition = hosted.get();
        if (!partition.isLeader()) {
            return result.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
        }
        int current = partition.state().leaderEpoch();
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < current) {
            return result.setErrorCode(Errors.FENCED_LEADER_EPOCH.code());
        }
        if (currentLeaderEpoch > current) {
            return result.setErrorCode(Errors.UNKNOWN_LEADER_EPOCH.code());
        }
        LeaderEpochCache.EpochEndOffset end = partition.log().leaderEpochCache()
                .endOffsetFor(requestedEpoch, partition.log().logEndOffset());
        return result.setErrorCode(Errors.NONE.code()).setLeaderEpoch(end.epoch()).setEndOffset(end.endOffset());
    }
}
