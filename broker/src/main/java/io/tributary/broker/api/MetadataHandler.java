package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.cluster.TopicAdmin;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.cluster.TopicNames;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata: live brokers (at their advertised address), the controller, and for each requested topic its id and its
 * partitions' leader, leader epoch, replicas, ISR and offline replicas. A requested topic that does not exist is
 * created with the broker defaults when {@code auto.create.topics.enable} and the request allow it; it is then
 * answered LEADER_NOT_AVAILABLE, and the client asks again until the leaders are there, as with Kafka. Fields are
 * filled only at the versions that have them. A broker that has lost (or not yet made) its registration answers with
 * the other brokers only and no leaders: its metadata may be stale, and clients should turn to the others.
 */
final class MetadataHandler {

    private static final Logger log = LoggerFactory.getLogger(MetadataHandler.class);

    private final BrokerConfig config;
    private final ClusterView cluster;

    MetadataHandler(BrokerConfig config, ClusterView cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    /** @param listenerName the listener the request came in on: brokers are given by their endpoint on it */
    AbstractResponse handle(String listenerName, MetadataRequest request) {
        MetadataRequestData data = request.data();
        short version = request.version();
        MetadataSnapshot snapshot = cluster.snapshot();
        MetadataResponseData response = new MetadataResponseData();
        // Without a registration this broker's view may be stale: it leaves itself out of the broker list (and names
        // no leaders, below), so that clients ask the others, the way they would if it were down.
        boolean registered = cluster.isRegistered();
        for (BrokerInfo broker : snapshot.brokers().values()) {
            if (!registered && broker.id() == cluster.localBrokerId()) {
                continue;
            }
            Optional<BrokerConfig.Endpoint> endpoint = broker.endpoint(listenerName);
            if (endpoint.isEmpty()) {
                continue; // as Kafka: a broker without this listener is not reachable for this client
            }
            MetadataResponseData.MetadataResponseBroker entry = new MetadataResponseData.MetadataResponseBroker()
                    .setNodeId(broker.id()).setHost(endpoint.get().host()).setPort(endpoint.get().port());
            if (version >= 1) {
                entry.setRack(broker.rack());
            }
            response.brokers().add(entry);
        }
        if (version >= 1) {
            response.setControllerId(snapshot.controllerId());
        }
        if (version >= 2) {
            response.setClusterId(cluster.clusterId());
        }
        if (request.isAllTopics()) {
            for (TopicMetadata topic : snapshot.topics().values()) {
                response.topics().add(topicResponse(topic, version));
            }
        } else {
            boolean allowAutoCreate = version < 4 || data.allowAutoTopicCreation();
            for (MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
                response.topics().add(requestedTopic(snapshot, requested, version, allowAutoCreate));
            }
        }
        return new MetadataResponse(response, version);
    }

    private MetadataResponseData.MetadataResponseTopic requestedTopic(MetadataSnapshot snapshot,
            MetadataRequestData.MetadataRequestTopic requested, short version, boolean allowAutoCreate) {
        if (requested.name() == null) {
            Uuid id = requested.topicId();
            Optional<TopicMetadata> byId = id == null ? Optional.empty() : snapshot.topic(id);
            return byId.map(topic -> topicResponse(topic, version))
                    .orElseGet(() -> new MetadataResponseData.MetadataResponseTopic()
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                            .setTopicId(id == null ? Uuid.ZERO_UUID : id));
        }
        String name = requested.name();
        Optional<TopicMetadata> topic = snapshot.topic(name);
        if (topic.isPresent()) {
            return topicResponse(topic.get(), version);
        }
        MetadataResponseData.MetadataResponseTopic missing = new MetadataResponseData.MetadataResponseTopic()
                .setName(name);
        if (InternalTopics.isInternal(name)) {
            String problem = InternalTopics.create(cluster, config, name);
            return missing.setErrorCode(problem == null ? Errors.LEADER_NOT_AVAILABLE.code()
                    : Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
        if (!allowAutoCreate || !config.autoCreateTopicsEnable) {
            return missing.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        try {
            TopicNames.validate(name);
        } catch (InvalidTopicException invalid) {
            return missing.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
        }
        // Created off this thread (a metadata request must not wait for ZooKeeper); the client asks again until the
        // leaders are there, as it does after any auto-creation.
        cluster.adminWork("auto-creating topic " + name, () -> cluster.topicAdmin().createTopic(name,
                TopicAdmin.USE_DEFAULT, TopicAdmin.USE_DEFAULT, null, null, false))
                .whenComplete((created, failure) -> {
                    Throwable cause = failure instanceof java.util.concurrent.CompletionException
                            && failure.getCause() != null ? failure.getCause() : failure;
                    if (cause == null) {
                        log.info("Created topic {} on a metadata request (auto.create.topics.enable)", name);
                    } else if (!(cause instanceof TopicExistsException)) {
                        log.warn("Automatic creation of topic {} failed: {}", name, cause.getMessage());
                    }
                });
        return missing.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code());
    }

    private MetadataResponseData.MetadataResponseTopic topicResponse(TopicMetadata topic, short version) {
        MetadataResponseData.MetadataResponseTopic entry = new MetadataResponseData.MetadataResponseTopic()
                .setName(topic.name())
                .setIsInternal(InternalTopics.isInternal(topic.name()))
                .setErrorCode(Errors.NONE.code());
        if (version >= 10) {
            entry.setTopicId(topic.topicId());
        }
        MetadataSnapshot snapshot = cluster.snapshot();
        // A broker that lost its registration may hold stale metadata: it names no leader (clients ask elsewhere).
        boolean registered = cluster.isRegistered();
        for (PartitionMetadata partition : topic.partitions().values()) {
            List<Integer> offline = new ArrayList<>();
            for (int replica : partition.replicas()) {
                if (!snapshot.isLive(replica)) {
                    offline.add(replica);
                }
            }
            boolean hasLeader = registered && partition.hasLeader() && snapshot.isLive(partition.leader());
            MetadataResponseData.MetadataResponsePartition partitionEntry =
                    new MetadataResponseData.MetadataResponsePartition()
                            .setPartitionIndex(partition.topicPartition().partition())
                            .setErrorCode(hasLeader ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                            .setLeaderId(hasLeader ? partition.leader() : -1)
                            .setReplicaNodes(partition.replicas())
                            .setIsrNodes(partition.isr());
            if (version >= 7) {
                partitionEntry.setLeaderEpoch(partition.leaderEpoch());
            }
            if (version >= 5) {
                partitionEntry.setOfflineReplicas(offline);
            }
            entry.partitions().add(partitionEntry);
        }
        return entry;
    }
}
