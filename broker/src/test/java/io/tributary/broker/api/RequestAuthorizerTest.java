package io.tributary.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.network.RequestContext;
import io.tributary.broker.security.AclAuthorizer;
import io.tributary.broker.security.AuthorizerConfig;
import io.tributary.broker.storage.ManualTime;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * What reaches a handler, and what the client gets, for requests that name resources the principal may and may not
 * use; the handler is a stand-in that records what it was given. Topics are named by name, so no cluster is needed.
 */
class RequestAuthorizerTest {

    private final AclAuthorizer authorizer = new AclAuthorizer(AuthorizerConfig.of(Set.of(), false),
            new ManualTime());
    private final RequestAuthorizer authorization = new RequestAuthorizer(authorizer, null);
    private final List<AbstractRequest> handled = new ArrayList<>();

    RequestAuthorizerTest() {
        authorizer.update(Map.of(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                Set.of(new AccessControlEntry("User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW))));
    }

    private static RequestContext alice(ApiKeys api, short version) throws Exception {
        return new RequestContext(new RequestHeader(api, version, "client", 7), "conn", InetAddress.getLoopbackAddress(),
                "SASL_PLAINTEXT", new KafkaPrincipal("User", "alice"));
    }

    @Test
    void aProduceWritesTheAllowedTopicsAndRefusesTheOthers() throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000);
        for (String topic : List.of("orders", "payments")) {
            ProduceRequestData.TopicProduceData topicData = new ProduceRequestData.TopicProduceData().setName(topic);
            topicData.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                    .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))));
            data.topicData().add(topicData);
        }
        short version = 12;
        AbstractResponse response = authorization.handle(alice(ApiKeys.PRODUCE, version),
                new ProduceRequest(data, version), (context, request) -> {
                    handled.add(request);
                    ProduceResponseData answer = new ProduceResponseData();
                    ((ProduceRequest) request).data().topicData().forEach(t -> answer.responses().add(
                            new ProduceResponseData.TopicProduceResponse().setName(t.name()).setPartitionResponses(
                                    List.of(new ProduceResponseData.PartitionProduceResponse().setIndex(0)))));
                    return CompletableFuture.completedFuture(new ProduceResponse(answer));
                }).get();
        assertEquals(List.of("orders"), ((ProduceRequest) handled.get(0)).data().topicData().stream()
                .map(ProduceRequestData.TopicProduceData::name).toList(), "only the allowed topic is written");
        ProduceResponseData answer = ((ProduceResponse) response).data();
        assertEquals(Errors.NONE.code(), answer.responses().find("orders", org.apache.kafka.common.Uuid.ZERO_UUID)
                .partitionResponses().get(0).errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.responses()
                .find("payments", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses().get(0).errorCode());
    }

    @Test
    void metadataLeavesOutTopicsThePrincipalMayNotDescribe() throws Exception {
        short version = 12;
        AbstractResponse all = authorization.handle(alice(ApiKeys.METADATA, version),
                new MetadataRequest(new MetadataRequestData().setTopics(null), version), (context, request) -> {
                    MetadataResponseData answer = new MetadataResponseData();
                    for (String topic : List.of("orders", "payments")) {
                        answer.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(topic));
                    }
                    return CompletableFuture.completedFuture(new MetadataResponse(answer, version));
                }).get();
        assertEquals(List.of("orders"), ((MetadataResponse) all).data().topics().stream()
                .map(MetadataResponseData.MetadataResponseTopic::name).toList());

        MetadataRequestData named = new MetadataRequestData().setAllowAutoTopicCreation(true).setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("orders"),
                new MetadataRequestData.MetadataRequestTopic().setName("payments")));
        AbstractResponse some = authorization.handle(alice(ApiKeys.METADATA, version),
                new MetadataRequest(named, version), (context, request) -> {
                    handled.add(request);
                    MetadataResponseData answer = new MetadataResponseData();
                    ((MetadataRequest) request).data().topics().forEach(t -> answer.topics().add(
                            new MetadataResponseData.MetadataResponseTopic().setName(t.name())));
                    return CompletableFuture.completedFuture(new MetadataResponse(answer, version));
                }).get();
        MetadataRequestData asked = ((MetadataRequest) handled.get(0)).data();
        assertEquals(List.of("orders"), asked.topics().stream()
                .map(MetadataRequestData.MetadataRequestTopic::name).toList());
        assertFalse(asked.allowAutoTopicCreation(), "no Create on the cluster or the topic: nothing is created");
        MetadataResponseData answer = ((MetadataResponse) some).data();
        assertEquals(Errors.NONE.code(), answer.topics().find("orders").errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.topics().find("payments").errorCode());
    }

    @Test
    void listGroupsListsOnlyTheGroupsThePrincipalMayDescribe() throws Exception {
        authorizer.update(Map.of(new ResourcePattern(ResourceType.GROUP, "alice-", PatternType.PREFIXED),
                Set.of(new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW))));
        short version = 5;
        AbstractResponse response = authorization.handle(alice(ApiKeys.LIST_GROUPS, version),
                new ListGroupsRequest(new ListGroupsRequestData(), version), (context, request) -> {
                    ListGroupsResponseData answer = new ListGroupsResponseData();
                    for (String group : List.of("alice-app", "bob-app", "alice-jobs")) {
                        answer.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(group));
                    }
                    return CompletableFuture.completedFuture(new ListGroupsResponse(answer));
                }).get();
        assertEquals(List.of("alice-app", "alice-jobs"), ((ListGroupsResponse) response).data().groups().stream()
                .map(ListGroupsResponseData.ListedGroup::groupId).toList());
    }

    @Test
    void aFetchOfOnlyTopicsThePrincipalMayNotReadIsAnsweredWithoutTheHandler() throws Exception {
        short version = 12;
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setTopics(List.of(
                new FetchRequestData.FetchTopic().setTopic("orders").setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0)))));
        AbstractResponse response = authorization.handle(alice(ApiKeys.FETCH, version),
                new FetchRequest(data, version), (context, request) -> {
                    handled.add(request);
                    return CompletableFuture.completedFuture(null);
                }).get();
        assertEquals(List.of(), handled, "alice may write orders, not read it");
        FetchResponse fetch = (FetchResponse) response;
        assertEquals(Errors.NONE, fetch.error(), "no top-level error: the consumer reads the partitions' errors");
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                fetch.data().responses().get(0).partitions().get(0).errorCode());
    }
}
