package io.tributary.broker.api;

import java.util.Optional;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster: the live brokers, the controller and the cluster id. (InitProducerId is the
 * {@link TransactionHandler}'s.)
 */
final class ClusterInfoHandler {

    /** DescribeCluster's endpoint type asking for controllers; brokers answer for brokers only. */
    private static final byte CONTROLLER_ENDPOINTS = 2;

    private final ClusterView cluster;

    ClusterInfoHandler(ClusterView cluster) {
        this.cluster = cluster;
    }

    AbstractResponse describeCluster(String listenerName, DescribeClusterRequest request) {
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
            Optional<BrokerConfig.Endpoint> endpoint = broker.endpoint(listenerName);
            if (endpoint.isEmpty()) {
                continue; // as Kafka: a broker without this listener is not reachable for this client
            }
            response.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                    .setBrokerId(broker.id())
                    .setHost(endpoint.get().host())
                    .setPort(endpoint.get().port())
                    .setRack(broker.rack()));
        }
        return new DescribeClusterResponse(response);
    }
}
