package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

import io.tributary.broker.network.RequestContext;
import io.tributary.broker.security.AclAuthorizer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.resource.ResourceType;

import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.ALTER_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.CLUSTER_ACTION;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.IDEMPOTENT_WRITE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.resource.ResourceType.CLUSTER;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;
import static org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID;

/**
 * What each API needs to be allowed, as Kafka's table of operations and resources on protocols has it, asked of the
 * {@link AclAuthorizer}. This is the one place where requests are authorized: {@link #handle} runs before a request
 * reaches its handler and names every (resource, operation) the request needs. A request that needs something the
 * principal does not hold is answered with its error response for the first refused resource's error code
 * (TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED,
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED), set on every resource of the request; it never carries data. As in Kafka,
 * Produce, a consumer's Fetch and Metadata are handled for the topics the principal may use and answer the others
 * TOPIC_AUTHORIZATION_FAILED, and ListGroups and ListTransactions list only what the principal may describe. (Other
 * requests that Kafka answers in part, an OffsetCommit of an allowed and a refused topic say, are refused whole.)
 *
 * <p>Stateless apart from the authorizer; called on request-handler threads.
 */
final class RequestAuthorizer {

    /** One thing a request needs: an operation on a resource, or (with {@code orCluster}) on the cluster instead. */
    private record Need(ResourceType type, String name, AclOperation operation, boolean orCluster) {
        Need(ResourceType type, String name, AclOperation operation) {
            this(type, name, operation, false);
        }
    }

    private static final String CLUSTER_NAME = "kafka-cluster";

    private final AclAuthorizer authorizer;
    private final ClusterView cluster;

    RequestAuthorizer(AclAuthorizer authorizer, ClusterView cluster) {
        this.authorizer = authorizer;
        this.cluster = cluster;
    }

    boolean allowed(RequestContext context, ResourceType type, String name, AclOperation operation) {
        return authorizer.authorize(context.principal(), context.clientAddress(), operation, type, name);
    }

    /** As {@link #allowed}, without logging a denial (see {@link AclAuthorizer#isAllowed}). */
    private boolean quietlyAllowed(RequestContext context, ResourceType type, String name, AclOperation operation) {
        return authorizer.isAllowed(context.principal(), context.clientAddress(), operation, type, name);
    }

    /**
     * Authorizes a request and, if allowed, has {@code handler} handle it: refused outright, or handled as asked, or
     * (Metadata, Produce) handled for the topics the principal may use and answered TOPIC_AUTHORIZATION_FAILED for
     * the others, or (ListGroups, ListTransactions) answered with what the principal may describe.
     */
    CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request,
            BiFunction<RequestContext, AbstractRequest, CompletableFuture<AbstractResponse>> handler) {
        AbstractResponse denied = denial(context, request);
        if (denied != null) {
            return CompletableFuture.completedFuture(denied);
        }
        if (request instanceof MetadataRequest metadataRequest) {
            List<String> refused = new ArrayList<>();
            MetadataRequest allowed = metadataRequest(context, metadataRequest, refused);
            return handler.apply(context, allowed).thenApply(response -> metadata(context, response, refused,
                    metadataRequest.version()));
        }
        if (request instanceof ProduceRequest produce) {
            List<ProduceResponseData.TopicProduceResponse> refused = refuseTopics(context, produce);
            if (!refused.isEmpty()) {
                return handler.apply(context, request).thenApply(response -> withRefused(response, refused));
            }
        }
        if (request instanceof FetchRequest fetch && fetch.replicaId() < 0) {
            boolean asked = !fetch.data().topics().isEmpty();
            List<FetchResponseData.FetchableTopicResponse> refused = refuseTopics(context, fetch);
            if (asked && fetch.data().topics().isEmpty()) {
                // Nothing left to fetch: answer now rather than let an empty fetch wait out max.wait.ms.
                FetchResponseData answer = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
                answer.responses().addAll(refused);
                return CompletableFuture.completedFuture(FetchResponse.of(answer));
            }
            if (!refused.isEmpty()) {
                return handler.apply(context, request).thenApply(response -> {
                    if (response instanceof FetchResponse answer) {
                        answer.data().responses().addAll(refused);
                    }
                    return response;
                });
            }
        }
        return handler.apply(context, request).thenApply(response -> filter(context, response));
    }

    /** The response refusing the request, or null if the principal holds everything it needs. */
    private AbstractResponse denial(RequestContext context, AbstractRequest request) {
        for (Need need : needs(context, request)) {
            boolean allowed = (need.orCluster() && quietlyAllowed(context, CLUSTER, CLUSTER_NAME, need.operation()))
                    || allowed(context, need.type(), need.name(), need.operation());
            if (!allowed) {
                return request.getErrorResponse(0, refusal(need));
            }
        }
        return null;
    }

    private static ApiException refusal(Need need) {
        String what = "Not authorized to " + need.operation() + " " + need.type() + " " + need.name();
        return switch (need.type()) {
            case TOPIC -> new TopicAuthorizationException(what, Set.of(need.name()));
            case GROUP -> new GroupAuthorizationException(what, need.name());
            case TRANSACTIONAL_ID -> new TransactionalIdAuthorizationException(what);
            default -> new ClusterAuthorizationException(what);
        };
    }

    private List<Need> needs(RequestContext context, AbstractRequest request) {
        List<Need> needs = new ArrayList<>();
        if (request instanceof ProduceRequest r) {
            // The topics are checked one by one by refuseTopics: Kafka writes to the allowed ones.
            if (r.transactionalId() != null) {
                needs.add(new Need(TRANSACTIONAL_ID, r.transactionalId(), WRITE));
            }
        } else if (request instanceof FetchRequest r) {
            if (r.replicaId() >= 0) {
                needs.add(clusterAction());
            }
            // A consumer's topics are checked one by one by refuseTopics: Kafka fetches the allowed ones.
        } else if (request instanceof OffsetsForLeaderEpochRequest r) {
            if (r.data().replicaId() >= 0) {
                needs.add(clusterAction());
            } else {
                r.data().topics().forEach(t -> topic(needs, t.topic(), null, DESCRIBE));
            }
        } else if (request instanceof ListOffsetsRequest r) {
            r.data().topics().forEach(t -> topic(needs, t.name(), null, DESCRIBE));
        } else if (request instanceof DeleteRecordsRequest r) {
            r.data().topics().forEach(t -> topic(needs, t.name(), null, DELETE));
        } else if (request instanceof DescribeProducersRequest r) {
            r.data().topics().forEach(t -> topic(needs, t.name(), null, READ));
        } else if (request instanceof CreateTopicsRequest r) {
            r.data().topics().forEach(
                    t -> needs.add(new Need(TOPIC, t.name(), CREATE, true)));
        } else if (request instanceof DeleteTopicsRequest r) {
            r.data().topics().forEach(t -> topic(needs, t.name(), t.topicId(), DELETE));
        } else if (request instanceof CreatePartitionsRequest r) {
            r.data().topics().forEach(t -> topic(needs, t.name(), null, ALTER));
        } else if (request instanceof DescribeConfigsRequest r) {
            r.data().resources().forEach(
                    c -> config(needs, c.resourceType(), c.resourceName(), DESCRIBE_CONFIGS));
        } else if (request instanceof IncrementalAlterConfigsRequest r) {
            r.data().resources().forEach(
                    c -> config(needs, c.resourceType(), c.resourceName(), ALTER_CONFIGS));
        } else if (request instanceof FindCoordinatorRequest r) {
            List<String> keys = r.data().coordinatorKeys().isEmpty() ? List.of(r.data().key())
                    : r.data().coordinatorKeys();
            for (String key : keys) {
                switch (FindCoordinatorRequest.CoordinatorType.forId(r.data().keyType())) {
                    case GROUP -> needs.add(new Need(GROUP, key, DESCRIBE));
                    case TRANSACTION -> needs.add(new Need(TRANSACTIONAL_ID, key, DESCRIBE));
                    // Share coordinator keys (group:topicId:partition) are asked for by brokers only.
                    case SHARE -> needs.add(clusterAction());
                }
            }
        } else if (request instanceof JoinGroupRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
        } else if (request instanceof SyncGroupRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
        } else if (request instanceof HeartbeatRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
        } else if (request instanceof LeaveGroupRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
        } else if (request instanceof OffsetCommitRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            r.data().topics().forEach(t -> topic(needs, t.name(), t.topicId(), READ));
        } else if (request instanceof OffsetFetchRequest r) {
            if (r.data().groups().isEmpty()) {
                needs.add(new Need(GROUP, r.data().groupId(), DESCRIBE));
                if (r.data().topics() != null) {
                    r.data().topics().forEach(t -> topic(needs, t.name(), null, DESCRIBE));
                }
            } else {
                r.data().groups().forEach(g -> {
                    needs.add(new Need(GROUP, g.groupId(), DESCRIBE));
                    if (g.topics() != null) {
                        g.topics().forEach(t -> topic(needs, t.name(), t.topicId(), DESCRIBE));
                    }
                });
            }
        } else if (request instanceof OffsetDeleteRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), DELETE));
            r.data().topics().forEach(t -> topic(needs, t.name(), null, READ));
        } else if (request instanceof DescribeGroupsRequest r) {
            r.data().groups().forEach(g -> needs.add(new Need(GROUP, g, DESCRIBE)));
        } else if (request instanceof DeleteGroupsRequest r) {
            r.data().groupsNames().forEach(g -> needs.add(new Need(GROUP, g, DELETE)));
        } else if (request instanceof InitProducerIdRequest r) {
            if (r.data().transactionalId() != null) {
                needs.add(new Need(TRANSACTIONAL_ID, r.data().transactionalId(), WRITE));
            } else if (!authorizer.mayWriteSomeTopic(context.principal(), context.clientAddress())) {
                // Kafka 3+: an idempotent producer needs Write on some topic, or IdempotentWrite on the cluster.
                needs.add(new Need(CLUSTER, CLUSTER_NAME, IDEMPOTENT_WRITE));
            }
        } else if (request instanceof AddPartitionsToTxnRequest r) {
            if (r.version() >= 4) {
                needs.add(clusterAction()); // the batched verification form is sent by brokers only
            } else {
                needs.add(new Need(TRANSACTIONAL_ID, r.data().v3AndBelowTransactionalId(), WRITE));
                r.data().v3AndBelowTopics().forEach(t -> topic(needs, t.name(), null, WRITE));
            }
        } else if (request instanceof AddOffsetsToTxnRequest r) {
            needs.add(new Need(TRANSACTIONAL_ID, r.data().transactionalId(), WRITE));
            needs.add(new Need(GROUP, r.data().groupId(), READ));
        } else if (request instanceof EndTxnRequest r) {
            needs.add(new Need(TRANSACTIONAL_ID, r.data().transactionalId(), WRITE));
        } else if (request instanceof TxnOffsetCommitRequest r) {
            needs.add(new Need(TRANSACTIONAL_ID, r.data().transactionalId(), WRITE));
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            r.data().topics().forEach(t -> topic(needs, t.name(), null, READ));
        } else if (request instanceof DescribeTransactionsRequest r) {
            r.data().transactionalIds().forEach(
                    id -> needs.add(new Need(TRANSACTIONAL_ID, id, DESCRIBE)));
        } else if (request instanceof ShareGroupHeartbeatRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            if (r.data().subscribedTopicNames() != null) {
                r.data().subscribedTopicNames().forEach(t -> topic(needs, t, null, DESCRIBE));
            }
        } else if (request instanceof ShareGroupDescribeRequest r) {
            r.data().groupIds().forEach(
                    g -> needs.add(new Need(GROUP, g, DESCRIBE)));
        } else if (request instanceof ShareFetchRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            r.data().topics().forEach(t -> topic(needs, null, t.topicId(), READ));
        } else if (request instanceof ShareAcknowledgeRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            r.data().topics().forEach(t -> topic(needs, null, t.topicId(), READ));
        } else if (request instanceof DescribeShareGroupOffsetsRequest r) {
            r.data().groups().forEach(g -> {
                needs.add(new Need(GROUP, g.groupId(), DESCRIBE));
                if (g.topics() != null) {
                    g.topics().forEach(t -> topic(needs, t.topicName(), null, DESCRIBE));
                }
            });
        } else if (request instanceof AlterShareGroupOffsetsRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), READ));
            r.data().topics().forEach(t -> topic(needs, t.topicName(), null, READ));
        } else if (request instanceof DeleteShareGroupOffsetsRequest r) {
            needs.add(new Need(GROUP, r.data().groupId(), DELETE));
            r.data().topics().forEach(t -> topic(needs, t.topicName(), null, READ));
        } else if (request instanceof WriteTxnMarkersRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof ReadShareGroupStateRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof WriteShareGroupStateRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof DeleteShareGroupStateRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof ReadShareGroupStateSummaryRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof InitializeShareGroupStateRequest r) {
            needs.add(clusterAction());
        } else if (request instanceof ElectLeadersRequest r) {
            needs.add(cluster(ALTER));
        } else if (request instanceof AlterPartitionReassignmentsRequest r) {
            needs.add(cluster(ALTER));
        } else if (request instanceof ListPartitionReassignmentsRequest r) {
            needs.add(cluster(DESCRIBE));
        } else if (request instanceof DescribeLogDirsRequest r) {
            needs.add(cluster(DESCRIBE));
        } else if (request instanceof DescribeUserScramCredentialsRequest r) {
            needs.add(cluster(DESCRIBE));
        } else if (request instanceof AlterUserScramCredentialsRequest r) {
            needs.add(cluster(ALTER));
        } else if (request instanceof DescribeClientQuotasRequest r) {
            needs.add(cluster(DESCRIBE_CONFIGS));
        } else if (request instanceof AlterClientQuotasRequest r) {
            needs.add(cluster(ALTER_CONFIGS));
        } else if (request instanceof CreateAclsRequest r) {
            needs.add(cluster(ALTER));
        } else if (request instanceof DeleteAclsRequest r) {
            needs.add(cluster(ALTER));
        } else if (request instanceof DescribeAclsRequest r) {
            needs.add(cluster(DESCRIBE));
            // Else ApiVersions, SASL, DescribeCluster: nothing; ListGroups, ListTransactions, Metadata: filtered.
        }
        return needs;
    }

    private static Need cluster(AclOperation operation) {
        return new Need(CLUSTER, CLUSTER_NAME, operation);
    }

    private static Need clusterAction() {
        return cluster(CLUSTER_ACTION);
    }

    /** A topic named by name or (newer versions) id; an id no topic has is left to the handler's UNKNOWN_TOPIC_ID. */
    private void topic(List<Need> needs, String name, Uuid id, AclOperation operation) {
        String topic = name;
        if ((topic == null || topic.isEmpty()) && id != null && !Uuid.ZERO_UUID.equals(id)) {
            topic = cluster.topicName(id).orElse(null);
        }
        if (topic != null && !topic.isEmpty()) {
            needs.add(new Need(TOPIC, topic, operation));
        }
    }

    private static void config(List<Need> needs, byte resourceType, String name, AclOperation operation) {
        switch (ConfigResource.Type.forId(resourceType)) {
            case TOPIC -> needs.add(new Need(TOPIC, name, operation));
            case GROUP -> needs.add(new Need(GROUP, name, operation));
            default -> needs.add(cluster(operation)); // BROKER, BROKER_LOGGER, CLIENT_METRICS
        }
    }

    /**
     * The Metadata request the principal may make: named topics it may not describe are taken out (and answered
     * TOPIC_AUTHORIZATION_FAILED by {@link #metadata(MetadataResponse, List)}), and auto-creation is turned off
     * unless it holds Create on the cluster.
     *
     * @param refused filled with the names taken out
     */
    private MetadataRequest metadataRequest(RequestContext context, MetadataRequest request, List<String> refused) {
        MetadataRequestData data = request.data().duplicate();
        if (data.topics() != null) {
            List<MetadataRequestData.MetadataRequestTopic> kept = new ArrayList<>();
            for (MetadataRequestData.MetadataRequestTopic topic : data.topics()) {
                String name = topic.name() != null ? topic.name()
                        : cluster.topicName(topic.topicId()).orElse(null);
                if (name != null && !allowed(context, TOPIC, name, DESCRIBE)) {
                    refused.add(name);
                } else {
                    kept.add(topic);
                }
            }
            data.setTopics(kept);
            if (data.allowAutoTopicCreation() && !kept.isEmpty()
                    && !quietlyAllowed(context, CLUSTER, CLUSTER_NAME, CREATE)) {
                boolean anyCreatable = kept.stream().anyMatch(t -> t.name() != null
                        && quietlyAllowed(context, TOPIC, t.name(), CREATE));
                data.setAllowAutoTopicCreation(anyCreatable);
            }
        }
        return new MetadataRequest(data, request.version());
    }

    /** The Metadata answer without the topics the principal may not describe, and with the refused ones marked. */
    private MetadataResponse metadata(RequestContext context, AbstractResponse response, List<String> refused,
                              short version) {
        MetadataResponseData data = ((MetadataResponse) response).data();
        data.topics().removeIf(t -> t.name() != null && !quietlyAllowed(context, TOPIC, t.name(), DESCRIBE));
        for (String name : refused) {
            data.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(name)
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setIsInternal(false));
        }
        return new MetadataResponse(data, version);
    }

    /**
     * Takes the topics the principal may not write out of a Produce request, changing it in place before its handler
     * reads it, and returns their answers: TOPIC_AUTHORIZATION_FAILED on each of their partitions. As in Kafka, the
     * records for the other topics are written.
     */
    private List<ProduceResponseData.TopicProduceResponse> refuseTopics(RequestContext context,
                                                                        ProduceRequest request) {
        List<ProduceResponseData.TopicProduceResponse> refused = new ArrayList<>();
        Iterator<ProduceRequestData.TopicProduceData> topics = request.data().topicData().iterator();
        while (topics.hasNext()) {
            ProduceRequestData.TopicProduceData topic = topics.next();
            List<Need> needs = new ArrayList<>();
            topic(needs, topic.name(), topic.topicId(), WRITE);
            if (needs.isEmpty() || allowed(context, TOPIC, needs.get(0).name(), WRITE)) {
                continue;
            }
            topics.remove();
            ProduceResponseData.TopicProduceResponse answer = new ProduceResponseData.TopicProduceResponse()
                    .setName(topic.name()).setTopicId(topic.topicId());
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                answer.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse()
                        .setIndex(partition.index()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1));
            }
            refused.add(answer);
        }
        return refused;
    }

    /**
     * Takes the topics the principal may not read out of a consumer's Fetch request, changing it in place before its
     * handler reads it, and returns their answers: TOPIC_AUTHORIZATION_FAILED on each partition, with no records. The
     * error must be on the partitions, not the whole answer: the Java consumer ignores the partitions of an answer
     * with a top-level error and would retry for ever instead of throwing TopicAuthorizationException.
     */
    private List<FetchResponseData.FetchableTopicResponse> refuseTopics(RequestContext context, FetchRequest request) {
        List<FetchResponseData.FetchableTopicResponse> refused = new ArrayList<>();
        List<FetchRequestData.FetchTopic> kept = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.data().topics()) {
            List<Need> needs = new ArrayList<>();
            topic(needs, topic.topic(), topic.topicId(), READ);
            if (needs.isEmpty() || allowed(context, TOPIC, needs.get(0).name(), READ)) {
                kept.add(topic);
                continue;
            }
            FetchResponseData.FetchableTopicResponse answer = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(topic.topic()).setTopicId(topic.topicId());
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                answer.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(partition.partition())
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                        .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
                        .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
                        .setRecords(MemoryRecords.EMPTY));
            }
            refused.add(answer);
        }
        if (!refused.isEmpty()) {
            request.data().setTopics(kept);
        }
        return refused;
    }

    /** The handler's Produce answer with the refused topics' answers added; none for acks=0. */
    private static AbstractResponse withRefused(AbstractResponse response,
                                                List<ProduceResponseData.TopicProduceResponse> refused) {
        if (response instanceof ProduceResponse produce) {
            produce.data().responses().addAll(refused);
        }
        return response;
    }

    /** ListGroups and ListTransactions answer only what the principal may describe. */
    private AbstractResponse filter(RequestContext context, AbstractResponse response) {
        if (response instanceof ListGroupsResponse groups
                && !quietlyAllowed(context, CLUSTER, CLUSTER_NAME, DESCRIBE)) {
            ListGroupsResponseData data = groups.data();
            data.groups().removeIf(g -> !quietlyAllowed(context, GROUP, g.groupId(), DESCRIBE));
        } else if (response instanceof ListTransactionsResponse transactions) {
            ListTransactionsResponseData data = transactions.data();
            data.transactionStates().removeIf(t -> !quietlyAllowed(context, TRANSACTIONAL_ID, t.transactionalId(),
                    DESCRIBE));
        }
        return response;
    }
}
