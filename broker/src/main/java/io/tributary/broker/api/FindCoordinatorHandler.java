package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.share.ShareCoordinatorConfig;
import io.tributary.broker.txn.TransactionConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * FindCoordinator: the coordinator of a group is the leader of its partition of {@code __consumer_offsets}, the
 * coordinator of a transactional id the leader of its partition of {@code __transaction_state}, the share coordinator
 * of a share-partition (key {@code groupId:topicId:partition}, key type 2 from v6, as brokers ask it) the leader of
 * its partition of {@code __share_group_state} (all {@code abs(hashCode) % partitions}). The first lookup creates
 * that topic and is answered COORDINATOR_NOT_AVAILABLE, as are lookups while the partition has no live leader;
 * clients retry. One key per request before v4, a batch of keys from v4.
 */
final class FindCoordinatorHandler {

    private static final byte GROUP_KEY = 0;
    private static final byte TRANSACTION_KEY = 1;
    private static final byte SHARE_KEY = 2;

    private final ClusterView cluster;
    private final BrokerConfig config;

    FindCoordinatorHandler(ClusterView cluster, BrokerConfig config) {
        this.cluster = cluster;
        this.config = config;
    }

    AbstractResponse handle(String listenerName, FindCoordinatorRequest request) {
        FindCoordinatorRequestData data = request.data();
        short version = request.version();
        List<String> keys = version >= 4 ? data.coordinatorKeys() : List.of(data.key());
        byte keyType = version >= 1 ? data.keyType() : GROUP_KEY;
        List<Coordinator> coordinators = new ArrayList<>();
        for (String key : keys) {
            coordinators.add(find(listenerName, keyType, key, version));
        }
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (version >= 4) {
            response.setCoordinators(coordinators);
        } else {
            Coordinator only = coordinators.get(0);
            response.setErrorCode(only.errorCode()).setNodeId(only.nodeId()).setHost(only.host())
                    .setPort(only.port());
            if (version >= 1) {
                response.setErrorMessage(only.errorMessage());
            }
        }
        return new FindCoordinatorResponse(response);
    }

    private Coordinator find(String listenerName, byte keyType, String key, short version) {
        Coordinator coordinator = new Coordinator().setKey(key);
        String internalTopic;
        switch (keyType) {
            case GROUP_KEY -> internalTopic = GroupConfig.OFFSETS_TOPIC;
            case TRANSACTION_KEY -> internalTopic = TransactionConfig.TRANSACTION_STATE_TOPIC;
            case SHARE_KEY -> {
                if (version < 6) {
                    return failed(coordinator, Errors.INVALID_REQUEST,
                            "Share coordinators are looked up with FindCoordinator v6 or later");
                }
                internalTopic = ShareCoordinatorConfig.STATE_TOPIC;
            }
            default -> {
                return failed(coordinator, Errors.INVALID_REQUEST, "Coordinator key type " + keyType
                        + " is not supported: group (0), transaction (1) and share (2) are");
            }
        }
        if (key == null || key.isEmpty()) {
            return failed(coordinator, Errors.INVALID_REQUEST, switch (keyType) {
                case GROUP_KEY -> "The group id must not be empty";
                case TRANSACTION_KEY -> "The transactional id must not be empty";
                default -> "The share-partition key must not be empty";
            });
        }
        if (!cluster.isRegistered()) {
            return failed(coordinator, Errors.COORDINATOR_NOT_AVAILABLE, "Broker " + cluster.localBrokerId()
                    + " is not registered in the cluster now; its metadata may be stale");
        }
        MetadataSnapshot snapshot = cluster.snapshot();
        Optional<TopicMetadata> topic = snapshot.topic(internalTopic);
        if (topic.isEmpty()) {
            String problem = InternalTopics.create(cluster, config, internalTopic);
            return failed(coordinator, Errors.COORDINATOR_NOT_AVAILABLE, problem != null ? problem
                    : "The coordinator is not available yet: " + internalTopic + " is being created");
        }
        int partition = Utils.abs(key.hashCode()) % topic.get().partitionCount();
        Optional<PartitionMetadata> state = snapshot.partition(new TopicPartition(internalTopic, partition));
        Optional<BrokerInfo> leader = state.filter(PartitionMetadata::hasLeader)
                .flatMap(p -> snapshot.broker(p.leader()));
        if (leader.isEmpty()) {
            return failed(coordinator, Errors.COORDINATOR_NOT_AVAILABLE, "Partition " + partition + " of "
                    + internalTopic + " has no live leader");
        }
        Optional<BrokerConfig.Endpoint> endpoint = leader.get().endpoint(listenerName);
        if (endpoint.isEmpty()) {
            return failed(coordinator, Errors.COORDINATOR_NOT_AVAILABLE, "Broker " + leader.get().id()
                    + ", the coordinator, has no listener " + listenerName);
        }
        return coordinator.setErrorCode(Errors.NONE.code()).setNodeId(leader.get().id())
                .setHost(endpoint.get().host()).setPort(endpoint.get().port());
    }

    private static Coordinator failed(Coordinator coordinator, Errors error, String message) {
        return coordinator.setErrorCode(error.code()).setErrorMessage(message).setNodeId(-1).setHost("")
                .setPort(-1);
    }
}
