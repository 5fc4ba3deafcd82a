package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every version of every group API the broker advertises is answered, including its error paths: each request
 * names the empty group id (or an impossible coordinator key), which every version must answer with the right error
 * code in a response the codec can write at that version. Old clients (librdkafka, kafkajs) use old versions, and a
 * response field that a version cannot carry would otherwise only show up as a dropped connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupApiVersionsTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Uuid topicId;

    @BeforeAll
    void startBroker(@TempDir Path dataDir) throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            topicId = admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).topicId("t").get();
            // Finds (and so creates) the coordinator of the group the OffsetFetch v10 case asks.
            assertTrue(admin.listConsumerGroupOffsets("fetching-group").partitionsToOffsetAndMetadata().get()
                    .isEmpty());
        }
    }

    @AfterAll
    void stopBroker() throws Exception {
        broker.close();
        zooKeeper.close();
    }

    static Stream<Arguments> groupApiVersions() {
        List<Arguments> cases = new ArrayList<>();
        for (ApiKeys api : List.of(ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP,
                ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
                ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE,
                ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_GROUP_DESCRIBE,
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS)) {
            for (short version = api.oldestVersion(); version <= api.latestVersion(); version++) {
                cases.add(Arguments.of(api, version));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("groupApiVersions")
    void everyVersionAnswersItsErrorPath(ApiKeys api, short version) throws Exception {
        AbstractRequest request = request(api, version);
        try (RawConnection raw = new RawConnection(broker.port())) {
            RequestHeader header = raw.send(request, 7);
            AbstractResponse response = raw.receive(header);
            Map<Errors, Integer> errors = response.errorCounts();
            Errors expected = expectedError(api, version);
            assertTrue(errors.containsKey(expected), api + " v" + version + " answered " + errors + ", expected "
                    + expected + ": " + response);
            assertTrue(errors.keySet().stream().filter(error -> error != Errors.NONE && error != expected)
                    .findAny().isEmpty(), api + " v" + version + " answered other errors too: " + response);
        }
    }

    private static Errors expectedError(ApiKeys api, short version) {
        return switch (api) {
            case FIND_COORDINATOR -> Errors.INVALID_REQUEST;
            case LIST_GROUPS -> Errors.NONE;
            // As Kafka: the heartbeat's own validation ("GroupId can't be empty.") comes before the coordinator's.
            case SHARE_GROUP_HEARTBEAT -> Errors.INVALID_REQUEST;
            case OFFSET_FETCH -> version >= 10 ? Errors.UNKNOWN_TOPIC_ID : Errors.INVALID_GROUP_ID;
            default -> Errors.INVALID_GROUP_ID;
        };
    }

    private AbstractRequest request(ApiKeys api, short version) {
        return switch (api) {
            case FIND_COORDINATOR -> {
                FindCoordinatorRequestData data = new FindCoordinatorRequestData();
                if (version >= 4) {
                    data.setKeyType((byte) 1).setCoordinatorKeys(List.of(""));
                } else if (version >= 1) {
                    data.setKeyType((byte) 1).setKey("");
                } else {
                    data.setKey("");
                }
                yield new FindCoordinatorRequest.Builder(data).build(version);
            }
            case JOIN_GROUP -> {
                JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
                protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                        .setMetadata(new byte[0]));
                yield new JoinGroupRequest.Builder(new JoinGroupRequestData().setGroupId("").setMemberId("")
                        .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocolType("consumer")
                        .setProtocols(protocols)).build(version);
            }
            case SYNC_GROUP -> new SyncGroupRequest.Builder(new SyncGroupRequestData().setGroupId("")
                    .setMemberId("m").setGenerationId(1)).build(version);
            case HEARTBEAT -> new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId("")
                    .setMemberId("m").setGenerationId(1)).build(version);
            case LEAVE_GROUP -> new LeaveGroupRequest.Builder("", List.of(new MemberIdentity().setMemberId("m")))
                    .build(version);
            case OFFSET_COMMIT -> {
                OffsetCommitRequestData.OffsetCommitRequestTopic topic =
                        new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setTopicId(topicId);
                topic.partitions().add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(1));
                OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId("").setMemberId("")
                        .setGenerationIdOrMemberEpoch(-1);
                data.topics().add(topic);
                yield OffsetCommitRequest.Builder.forTopicIdsOrNames(data).build(version);
            }
            case OFFSET_FETCH -> {
                // From v10 topics are named by id: an unknown id is that topic's error.
                OffsetFetchRequestData.OffsetFetchRequestTopics topic =
                        new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("t")
                                .setTopicId(version >= 10 ? Uuid.randomUuid() : topicId)
                                .setPartitionIndexes(List.of(0));
                OffsetFetchRequestData.OffsetFetchRequestGroup group =
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId(version >= 10 ? "fetching-group" : "")
                                .setTopics(List.of(topic));
                OffsetFetchRequestData data = new OffsetFetchRequestData().setGroups(List.of(group));
                yield OffsetFetchRequest.Builder.forTopicIdsOrNames(data, false).build(version);
            }
            case DESCRIBE_GROUPS -> new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData()
                    .setGroups(List.of(""))).build(version);
            case LIST_GROUPS -> {
                ListGroupsRequestData data = new ListGroupsRequestData();
                if (version >= 4) {
                    data.setStatesFilter(List.of("Stable", "Empty"));
                }
                if (version >= 5) {
                    data.setTypesFilter(List.of("classic"));
                }
                yield new ListGroupsRequest.Builder(data).build(version);
            }
            case DELETE_GROUPS -> new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                    .setGroupsNames(List.of(""))).build(version);
            case SHARE_GROUP_HEARTBEAT -> new ShareGroupHeartbeatRequest.Builder(new ShareGroupHeartbeatRequestData()
                    .setGroupId("").setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0)
                    .setSubscribedTopicNames(List.of("t"))).build(version);
            case SHARE_GROUP_DESCRIBE -> new ShareGroupDescribeRequest.Builder(new ShareGroupDescribeRequestData()
                    .setGroupIds(List.of(""))).build(version);
            case DESCRIBE_SHARE_GROUP_OFFSETS -> new DescribeShareGroupOffsetsRequest.Builder(
                    new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
                            new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup()
                                    .setGroupId("").setTopics(null)))).build(version);
            case ALTER_SHARE_GROUP_OFFSETS -> new AlterShareGroupOffsetsRequest.Builder(
                    new AlterShareGroupOffsetsRequestData().setGroupId("")).build(version);
            case DELETE_SHARE_GROUP_OFFSETS -> new DeleteShareGroupOffsetsRequest.Builder(
                    new DeleteShareGroupOffsetsRequestData().setGroupId("").setTopics(List.of(
                            new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                                    .setTopicName("t")))).build(version);
            case OFFSET_DELETE -> {
                OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                        new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
                topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName("t").setPartitions(
                        List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
                yield new OffsetDeleteRequest.Builder(new OffsetDeleteRequestData().setGroupId("")
                        .setTopics(topics)).build(version);
            }
            case TXN_OFFSET_COMMIT -> {
                TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic =
                        new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic();
                if (version >= 6) {
                    topic.setTopicId(topicId);
                } else {
                    topic.setName("t");
                }
                topic.partitions().add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(1));
                yield new TxnOffsetCommitRequest(new TxnOffsetCommitRequestData().setTransactionalId("txn")
                        .setGroupId("").setProducerId(1L).setProducerEpoch((short) 0)
                        .setTopics(List.of(topic)), version);
            }
            default -> throw new IllegalArgumentException(api.toString());
        };
    }
}
