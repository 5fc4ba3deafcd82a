package io.tributary.broker.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.BrokerConfigAdmin;
import io.tributary.broker.cluster.ClientQuotaStore;
import io.tributary.broker.cluster.GroupConfigs;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.ProducerIdManager;
import io.tributary.broker.cluster.ScramCredentialStore;
import io.tributary.broker.cluster.TopicAdmin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.ApiError;

/**
 * What request handlers need of the cluster layer: the current metadata, topic administration, producer ids, and
 * the cluster id. The broker implements it over its {@code ClusterManager}; tests may give a narrower one.
 */
public interface ClusterView extends TopicIds {

    MetadataSnapshot snapshot();

    /**
     * Runs ZooKeeper work of an administrative request off the request-handler threads ({@link
     * io.tributary.broker.cluster.AdminWork}); fails at once with a retriable TimeoutException while ZooKeeper is
     * unreachable.
     */
    <T> CompletableFuture<T> adminWork(String what, java.util.function.Supplier<T> work);

    /** This broker's id. */
    int localBrokerId();

    /**
     * Whether this broker is registered now (has a broker epoch). Without a registration its metadata may be stale
     * (it may have been cut off from ZooKeeper, its leaderships given to others): it then names no leaders and no
     * coordinators, so that clients ask another broker.
     */
    boolean isRegistered();

    TopicAdmin topicAdmin();

    ProducerIdManager producerIds();

    String clusterId();

    BrokerConfigAdmin brokerConfigs();

    /** Group configurations ({@code ConfigResource.Type.GROUP}). */
    GroupConfigs groupConfigs();

    /** SCRAM credentials of users ({@code /config/users}). */
    ScramCredentialStore scramCredentials();

    /** Client quotas ({@code /config/users}, {@code /config/clients}). */
    ClientQuotaStore clientQuotas();

    /** The authorizer, when {@code authorizer.class.name} is set. */
    default Optional<io.tributary.broker.security.AclAuthorizer> authorizer() {
        return Optional.empty();
    }

    /** The ACLs in ZooKeeper, when {@code authorizer.class.name} is set. */
    default Optional<io.tributary.broker.cluster.AclStore> aclStore() {
        return Optional.empty();
    }

    /**
     * ElectLeaders on this broker's controller.
     *
     * @throws org.apache.kafka.common.errors.NotControllerException if this broker is not the controller
     */
    CompletableFuture<Map<TopicPartition, ApiError>> electLeaders(boolean unclean,
                                                                Optional<Set<TopicPartition>> partitions);

    /**
     * AlterPartitionReassignments on this broker's controller; an empty target cancels.
     *
     * @throws org.apache.kafka.common.errors.NotControllerException if this broker is not the controller
     */
    CompletableFuture<Map<TopicPartition, ApiError>> alterPartitionReassignments(
            Map<TopicPartition, Optional<List<Integer>>> targets);

    @Override
    default Optional<Uuid> topicId(String topic) {
        return snapshot().topic(topic).map(t -> t.topicId());
    }

    @Override
    default Optional<String> topicName(Uuid topicId) {
        return snapshot().topic(topicId).map(t -> t.name());
    }
}
