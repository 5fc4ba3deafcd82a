package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * DescribeCluster (live brokers, controller, cluster id) and InitProducerId (a producer id from the cluster-wide
 * blocks in ZooKeeper for idempotent producers; an existing producer asking again gets its epoch bumped).
 * Transactional producers are refused until transactions exist.
 */
final class ClusterInfoHandler {

    /** DescribeCluster's endpoint type asking for controllers; brokers answer for brokers only. */
    private static final byte CONTROLLER_ENDPOINTS = 2;

    private final ClusterView cluster;

    ClusterInfoHandler(ClusterView cluster) {
        this.cluster = cluster;
    }

    AbstractResponse describeCluster(DescribeClusterRequest request) {
        DescribeClusterRequestData data = request.data();
        DescribeClusterResponseData response = new DescribeClusterResponseData();
        if (request.version() >= 1 && data.endpointType() == CONTROLLER_ENDPOINTS) {
            return new DescribeClusterResponse(response
                    .setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("This broker answers for broker endpoints only")
                    .setEndpointType(data.endpointType()));
        }
        MetadataSnapshot snapshot = cluster.snapshot();
        response.setErrorCode(Errors.NONE.code())
                .setClusterId(cluster.clusterId())
                .setControllerId(snapshot.controllerId());
        if (request.version() >= 1) {
            response.setEndpointType(data.endpointType());
        }
        for (BrokerInfo broker : snapshot.brokers().values()) {
            response.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                    .setBrokerId(broker.id())
                    .setHost(broker.host())
                    .setPort(broker.port())
                    .setRack(broker.rack()));
        }
        return new DescribeClusterResponse(response);
    }

    AbstractResponse initProducerId(InitProducerIdRequest request) {
        InitProducerIdRequestData data = request.data();
        InitProducerIdResponseData response = new InitProducerIdResponseData();
        if (data.transactionalId() != null) {
            return new InitProducerIdResponse(response
                    .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                    .setProducerId(-1L).setProducerEpoch((short) -1));
        }
        long producerId = data.producerId();
        short epoch = data.producerEpoch();
        if (producerId >= 0 && epoch >= 0 && epoch < Short.MAX_VALUE - 1) {
            // An idempotent producer resetting its sequences (KIP-360): same id, next epoch.
            return new InitProducerIdResponse(response.setErrorCode(Errors.NONE.code())
                    .setProducerId(producerId).setProducerEpoch((short) (epoch + 1)));
        }
        return new InitProducerIdResponse(response.setErrorCode(Errors.NONE.code())
                .setProducerId(cluster.producerIds().nextProducerId()).setProducerEpoch((short) 0));
    }
}
