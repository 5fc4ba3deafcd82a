package io.tributary.broker.api;

import java.util.List;

import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.ActiveProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;

/**
 * DescribeProducers: for each partition this broker leads, the producers its producer state knows: id, epoch, last
 * sequence, last timestamp, the coordinator epoch of the last marker and the start offset of the ongoing
 * transaction (-1 if none). {@code kafka-transactions.sh describe-producers}, {@code find-hanging} and
 * {@code abort --start-offset} read it. A partition not led here is answered NOT_LEADER_OR_FOLLOWER, one not hosted
 * UNKNOWN_TOPIC_OR_PARTITION. Called on request-handler threads.
 */
final class DescribeProducersHandler {

    private final ReplicaManager replicaManager;

    DescribeProducersHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    AbstractResponse handle(DescribeProducersRequest request) {
        DescribeProducersResponseData data = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest topic : request.data().topics()) {
            DescribeProducersResponseData.TopicResponse topicResponse =
                    new DescribeProducersResponseData.TopicResponse().setName(topic.name());
            for (int partition : topic.partitionIndexes()) {
                topicResponse.partitions().add(describe(new TopicPartition(topic.name(), partition)));
            }
            data.topics().add(topicResponse);
        }
        return new DescribeProducersResponse(data);
    }

    private PartitionResponse describe(TopicPartition tp) {
        PartitionResponse response = new PartitionResponse().setPartitionIndex(tp.partition());
        List<ActiveProducer> producers;
        try {
            producers = replicaManager.activeProducers(tp);
        } catch (ApiException e) {
            return response.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
        for (ActiveProducer producer : producers) {
            response.activeProducers().add(new ProducerState().setProducerId(producer.producerId())
                    .setProducerEpoch(producer.producerEpoch())
                    .setLastSequence(producer.lastSequence())
                    .setLastTimestamp(producer.lastTimestamp())
                    .setCoordinatorEpoch(producer.coordinatorEpoch())
                    .setCurrentTxnStartOffset(producer.currentTxnStartOffset()));
        }
        return response.setErrorCode(Errors.NONE.code());
    }
}
