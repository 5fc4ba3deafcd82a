package io.tributary.broker.it;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * The protocol fuzzer's seeds: valid requests of every API the broker implements, built with the kafka-clients
 * message classes and serialized with their request header as a client sends them (without the size prefix). Each
 * API at every advertised version, several in more than one shape at their newest (produce with each compression
 * codec, idempotent, transactional, acks=0; fetch as consumer and as replica; topics by name and by id; all topics).
 *
 * <p>The requests name the fuzzer's own topics and groups ({@link Names}), never the topic whose data the fuzzer
 * checks afterwards. What a destructive request may hit is chosen so that it does not starve the others: DeleteTopics
 * deletes {@code fuzz-doomed}, which CreateTopics creates again; DeleteRecords trims {@code fuzz-trimmed}, not the
 * topic produce and fetch use.
 *
 * <p>Built on the test's thread; the seeds' bytes are not to be changed afterwards (the mutator copies them).
 */
final class FuzzCorpus {

    static final String CLIENT_ID = "fuzz-client";
    /** A group that commits offsets without members (generation -1), as a consumer with assign() does. */
    static final String SIMPLE_GROUP = "fuzz-simple";
    /** A group that members join and leave. */
    static final String MEMBER_GROUP = "fuzz-group";

    /** One valid request as it travels in a frame; {@code recordsOffset} is where its record batch starts, or -1. */
    record Seed(String name, ApiKeys api, short version, byte[] bytes, int recordsOffset, int recordsLength) {
    }

    /** The topics the requests name, with the ids the broker gave them. */
    record Names(String target, Uuid targetId, String doomed, Uuid doomedId, String trimmed, String grown,
                 String configured, String moved, String created, String autoCreated) {
    }

    private final Names names;
    private final Map<ApiKeys, ApiVersion> advertised;
    private final List<Seed> seeds = new ArrayList<>();

    private FuzzCorpus(Names names, Map<ApiKeys, ApiVersion> advertised) {
        this.names = names;
        this.advertised = advertised;
    }

    /**
     * Builds the seeds for the APIs and version ranges the broker advertised.
     *
     * @throws IllegalStateException if an advertised API has no seed here (a new API needs seeds before it ships)
     */
    static List<Seed> build(Names names, Map<ApiKeys, ApiVersion> advertised) {
        FuzzCorpus corpus = new FuzzCorpus(names, advertised);
        corpus.addAll();
        TreeSet<ApiKeys> missing = new TreeSet<>(advertised.keySet());
        corpus.seeds.forEach(seed -> missing.remove(seed.api()));
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the broker implements " + missing + " but the fuzz corpus has no "
                    + "request for it; add one to FuzzCorpus");
        }
        return List.copyOf(corpus.seeds);
    }

    private void addAll() {
        String t = names.target();
        long now = System.currentTimeMillis();

        add(ApiKeys.API_VERSIONS, "", v -> new ApiVersionsRequestData()
                .setClientSoftwareName(v >= 3 ? "fuzz" : "").setClientSoftwareVersion(v >= 3 ? "1.0" : ""));

        add(ApiKeys.METADATA, "by name", v -> {
            MetadataRequestData data = new MetadataRequestData().setTopics(new ArrayList<>(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(t),
                    new MetadataRequestData.MetadataRequestTopic().setName(names.autoCreated()))));
            return data.setAllowAutoTopicCreation(true);
        });
        addAtMax(ApiKeys.METADATA, "all topics", v -> new MetadataRequestData().setTopics(null)
                .setAllowAutoTopicCreation(false).setIncludeTopicAuthorizedOperations(true));
        addAtMax(ApiKeys.METADATA, "by id", v -> new MetadataRequestData().setTopics(new ArrayList<>(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(names.targetId()))))
                .setAllowAutoTopicCreation(false));

        addProduce("acks=all", (short) -1, Compression.NONE, false, now, false);
        addProduceAtMax("acks=1 gzip", (short) 1, Compression.gzip().build(), now);
        addProduceAtMax("lz4", (short) -1, Compression.lz4().build(), now);
        addProduceAtMax("zstd", (short) -1, Compression.zstd().build(), now);
        addProduceAtMax("snappy", (short) -1, Compression.snappy().build(), now);
        addProduceAtMax("acks=0", (short) 0, Compression.NONE, now);
        addProduce("idempotent", (short) -1, Compression.NONE, true, now, true);
        addProduceTransactional(now);

        add(ApiKeys.FETCH, "consumer", v -> fetch(v, -1));
        addAtMax(ApiKeys.FETCH, "replica", v -> fetch(v, 1));

        add(ApiKeys.LIST_OFFSETS, "", v -> {
            List<ListOffsetsRequestData.ListOffsetsPartition> partitions = new ArrayList<>(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                            .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP),
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(1)
                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP)));
            if (v >= 7) {
                partitions.add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                        .setTimestamp(ListOffsetsRequest.MAX_TIMESTAMP));
            }
            List<ListOffsetsRequestData.ListOffsetsTopic> topics = new ArrayList<>(List.of(
                    new ListOffsetsRequestData.ListOffsetsTopic().setName(t).setPartitions(partitions),
                    new ListOffsetsRequestData.ListOffsetsTopic().setName(names.trimmed()).setPartitions(
                            new ArrayList<>(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                    .setPartitionIndex(0).setTimestamp(now - 60_000))))));
            return new ListOffsetsRequestData().setReplicaId(ListOffsetsRequest.CONSUMER_REPLICA_ID)
                    .setIsolationLevel(v >= 2 ? IsolationLevel.READ_COMMITTED.id() : 0).setTopics(topics)
                    .setTimeoutMs(v >= 10 ? 5000 : 0);
        });

        add(ApiKeys.OFFSET_FOR_LEADER_EPOCH, "", v -> {
            OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
            topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(t).setPartitions(
                    new ArrayList<>(List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(0).setLeaderEpoch(0).setCurrentLeaderEpoch(-1)))));
            return new OffsetForLeaderEpochRequestData().setReplicaId(v >= 3 ? -1 : -2).setTopics(topics);
        });

        add(ApiKeys.DELETE_RECORDS, "", v -> new DeleteRecordsRequestData().setTimeoutMs(2000).setTopics(
                new ArrayList<>(List.of(new DeleteRecordsRequestData.DeleteRecordsTopic().setName(names.trimmed())
                        .setPartitions(new ArrayList<>(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition()
                                .setPartitionIndex(0).setOffset(1))))))));

        add(ApiKeys.CREATE_TOPICS, "", v -> {
            CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
            CreateTopicsRequestData.CreatableTopicConfigCollection configs =
                    new CreateTopicsRequestData.CreatableTopicConfigCollection();
            configs.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms").setValue("3600000"));
            configs.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy").setValue("delete"));
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName(names.created()).setNumPartitions(1)
                    .setReplicationFactor((short) 1).setConfigs(configs));
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName(names.doomed()).setNumPartitions(1)
                    .setReplicationFactor((short) 1));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(2000).setValidateOnly(false);
        });
        addAtMax(ApiKeys.CREATE_TOPICS, "validate only, assigned", v -> {
            CreateTopicsRequestData.CreatableReplicaAssignmentCollection assignments =
                    new CreateTopicsRequestData.CreatableReplicaAssignmentCollection();
            assignments.add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(0)
                    .setBrokerIds(new ArrayList<>(List.of(0))));
            assignments.add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(1)
                    .setBrokerIds(new ArrayList<>(List.of(0))));
            CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName("fuzz-assigned").setNumPartitions(-1)
                    .setReplicationFactor((short) -1).setAssignments(assignments));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(2000).setValidateOnly(true);
        });

        add(ApiKeys.DELETE_TOPICS, "by name", v -> {
            DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs(2000);
            if (v >= 6) {
                return data.setTopics(new ArrayList<>(List.of(
                        new DeleteTopicsRequestData.DeleteTopicState().setName(names.doomed()))));
            }
            return data.setTopicNames(new ArrayList<>(List.of(names.doomed())));
        });
        addAtMax(ApiKeys.DELETE_TOPICS, "by id", v -> new DeleteTopicsRequestData().setTimeoutMs(2000).setTopics(
                new ArrayList<>(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName(null)
                        .setTopicId(names.doomedId())))));

        add(ApiKeys.CREATE_PARTITIONS, "", v -> {
            CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
                    new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(names.grown()).setCount(2 + v)
                    .setAssignments(null));
            return new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(2000).setValidateOnly(false);
        });
        addAtMax(ApiKeys.CREATE_PARTITIONS, "validate only, assigned", v -> {
            CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
                    new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(names.grown()).setCount(12)
                    .setAssignments(new ArrayList<>(List.of(
                            new CreatePartitionsRequestData.CreatePartitionsAssignment()
                                    .setBrokerIds(new ArrayList<>(List.of(0)))))));
            return new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(2000).setValidateOnly(true);
        });

        add(ApiKeys.DESCRIBE_CONFIGS, "", v -> new DescribeConfigsRequestData()
                .setIncludeSynonyms(v >= 1).setIncludeDocumentation(v >= 3)
                .setResources(new ArrayList<>(List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                                .setResourceName(t).setConfigurationKeys(null),
                        new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4)
                                .setResourceName("0").setConfigurationKeys(new ArrayList<>(List.of(
                                        "log.retention.ms", "num.io.threads")))))));

        add(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "", v -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            IncrementalAlterConfigsRequestData.AlterableConfigCollection topicConfigs =
                    new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
            topicConfigs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                    .setConfigOperation((byte) 0).setValue("7200000"));
            topicConfigs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("segment.ms")
                    .setConfigOperation((byte) 1).setValue(null));
            topicConfigs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("cleanup.policy")
                    .setConfigOperation((byte) 2).setValue("compact"));
            resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(names.configured()).setConfigs(topicConfigs));
            IncrementalAlterConfigsRequestData.AlterableConfigCollection brokerConfigs =
                    new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
            brokerConfigs.add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                    .setName("unclean.leader.election.enable").setConfigOperation((byte) 0).setValue("false"));
            resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                    .setResourceName("0").setConfigs(brokerConfigs));
            IncrementalAlterConfigsRequestData.AlterableConfigCollection clusterConfigs =
                    new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
            clusterConfigs.add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                    .setName("log.cleaner.min.cleanable.ratio").setConfigOperation((byte) 0).setValue("0.5"));
            resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                    .setResourceName("").setConfigs(clusterConfigs));
            return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(false);
        });

        add(ApiKeys.DESCRIBE_CLUSTER, "", v -> new DescribeClusterRequestData()
                .setIncludeClusterAuthorizedOperations(false).setEndpointType((byte) 1)
                .setIncludeFencedBrokers(v >= 2));

        // On a plaintext listener both are answered ILLEGAL_SASL_STATE; the SASL listeners' exchange is tested in
        // ListenerSecurityTest.
        add(ApiKeys.SASL_HANDSHAKE, "", v -> new SaslHandshakeRequestData().setMechanism("PLAIN"));
        add(ApiKeys.SASL_AUTHENTICATE, "", v -> new SaslAuthenticateRequestData()
                .setAuthBytes("\0user\0password".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        add(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "", v -> new DescribeUserScramCredentialsRequestData()
                .setUsers(java.util.List.of(new DescribeUserScramCredentialsRequestData.UserName().setName("u"))));
        add(ApiKeys.DESCRIBE_CLIENT_QUOTAS, "", v -> new DescribeClientQuotasRequestData().setStrict(false)
                .setComponents(java.util.List.of(new DescribeClientQuotasRequestData.ComponentData()
                        .setEntityType("user").setMatchType((byte) 1))));
        // request_percentage is stored, not enforced: no mutation of the value can slow the fuzzer's own clients.
        add(ApiKeys.ALTER_CLIENT_QUOTAS, "", v -> new AlterClientQuotasRequestData().setValidateOnly(false)
                .setEntries(java.util.List.of(new AlterClientQuotasRequestData.EntryData()
                        .setEntity(java.util.List.of(new AlterClientQuotasRequestData.EntityData()
                                .setEntityType("client-id").setEntityName("fuzz-quota")))
                        .setOps(java.util.List.of(new AlterClientQuotasRequestData.OpData()
                                .setKey("request_percentage").setValue(200.0))))));
        // ACLs on the fuzzer's own resource, for a principal no client uses (the fuzzer's is a super user).
        AclBinding fuzzAcl = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "fuzz-acl", PatternType.LITERAL),
                new AccessControlEntry("User:fuzz", "*", AclOperation.READ, AclPermissionType.ALLOW));
        add(ApiKeys.CREATE_ACLS, "", v -> new CreateAclsRequestData().setCreations(
                java.util.List.of(CreateAclsRequest.aclCreation(fuzzAcl))));
        add(ApiKeys.DESCRIBE_ACLS, "", v -> new DescribeAclsRequestData()
                .setResourceTypeFilter(ResourceType.TOPIC.code()).setResourceNameFilter(null)
                .setPatternTypeFilter(PatternType.LITERAL.code()).setPrincipalFilter(null).setHostFilter(null)
                .setOperation(AclOperation.ANY.code()).setPermissionType(AclPermissionType.ANY.code()));
        add(ApiKeys.DELETE_ACLS, "", v -> new DeleteAclsRequestData().setFilters(java.util.List.of(
                DeleteAclsRequest.deleteAclsFilter(fuzzAcl.toFilter()))));
        add(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "", v -> new AlterUserScramCredentialsRequestData()
                .setDeletions(java.util.List.of(new AlterUserScramCredentialsRequestData.ScramCredentialDeletion()
                        .setName("nobody").setMechanism((byte) 1))));

        add(ApiKeys.INIT_PRODUCER_ID, "", v -> new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(60_000));
        addAtMax(ApiKeys.INIT_PRODUCER_ID, "transactional", v -> new InitProducerIdRequestData()
                .setTransactionalId("fuzz-txn").setTransactionTimeoutMs(60_000));

        add(ApiKeys.FIND_COORDINATOR, "", v -> {
            FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType((byte) 0);
            if (v >= 4) {
                return data.setCoordinatorKeys(new ArrayList<>(List.of(SIMPLE_GROUP, MEMBER_GROUP)));
            }
            return data.setKey(SIMPLE_GROUP);
        });

        byte[] subscription = bytes(ConsumerProtocol.serializeSubscription(
                new ConsumerPartitionAssignor.Subscription(List.of(t))));
        add(ApiKeys.JOIN_GROUP, "dynamic", v -> joinGroup(v, null, subscription));
        addAtMax(ApiKeys.JOIN_GROUP, "static", v -> joinGroup(v, "fuzz-static", subscription));

        byte[] assignment = bytes(ConsumerProtocol.serializeAssignment(
                new ConsumerPartitionAssignor.Assignment(List.of(new TopicPartition(t, 0)))));
        add(ApiKeys.SYNC_GROUP, "", v -> new SyncGroupRequestData().setGroupId(MEMBER_GROUP).setGenerationId(1)
                .setMemberId("fuzz-member").setProtocolType(v >= 5 ? "consumer" : null)
                .setProtocolName(v >= 5 ? "range" : null)
                .setAssignments(new ArrayList<>(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId("fuzz-member").setAssignment(assignment)))));

        add(ApiKeys.HEARTBEAT, "", v -> new HeartbeatRequestData().setGroupId(MEMBER_GROUP).setGenerationId(1)
                .setMemberId("fuzz-member"));

        add(ApiKeys.LEAVE_GROUP, "", v -> {
            LeaveGroupRequestData data = new LeaveGroupRequestData().setGroupId(MEMBER_GROUP);
            if (v >= 3) {
                return data.setMembers(new ArrayList<>(List.of(new LeaveGroupRequestData.MemberIdentity()
                        .setMemberId("fuzz-member").setReason(v >= 5 ? "fuzz" : null))));
            }
            return data.setMemberId("fuzz-member");
        });

        add(ApiKeys.OFFSET_COMMIT, "", v -> {
            OffsetCommitRequestData.OffsetCommitRequestTopic topic = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                    .setPartitions(new ArrayList<>(List.of(
                            new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                                    .setCommittedOffset(1).setCommittedMetadata("fuzz"),
                            new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1)
                                    .setCommittedOffset(2).setCommittedLeaderEpoch(v >= 6 ? 0 : -1)
                                    .setCommittedMetadata(null))));
            if (v >= 10) {
                topic.setTopicId(names.targetId());
            } else {
                topic.setName(t);
            }
            return new OffsetCommitRequestData().setGroupId(SIMPLE_GROUP).setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("").setTopics(new ArrayList<>(List.of(topic)));
        });

        // A producer id no transaction coordinator handed out: the offsets stay pending in a group of their own.
        add(ApiKeys.TXN_OFFSET_COMMIT, "", v -> {
            TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic =
                    new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setPartitions(new ArrayList<>(List.of(
                            new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition().setPartitionIndex(0)
                                    .setCommittedOffset(1).setCommittedLeaderEpoch(v >= 2 ? 0 : -1)
                                    .setCommittedMetadata("fuzz"))));
            if (v >= 6) {
                topic.setTopicId(names.targetId());
            } else {
                topic.setName(t);
            }
            return new TxnOffsetCommitRequestData().setTransactionalId("fuzz-txn").setGroupId("fuzz-txn-group")
                    .setProducerId(4711L).setProducerEpoch((short) 0).setTopics(new ArrayList<>(List.of(topic)));
        });

        add(ApiKeys.OFFSET_FETCH, "", v -> {
            if (v >= 8) {
                OffsetFetchRequestData.OffsetFetchRequestTopics topic = new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setPartitionIndexes(new ArrayList<>(List.of(0, 1)));
                if (v >= 10) {
                    topic.setTopicId(names.targetId());
                } else {
                    topic.setName(t);
                }
                return new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(SIMPLE_GROUP)
                                .setTopics(new ArrayList<>(List.of(topic))),
                        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(MEMBER_GROUP)
                                .setTopics(null))));
            }
            return new OffsetFetchRequestData().setGroupId(SIMPLE_GROUP).setTopics(new ArrayList<>(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(t)
                            .setPartitionIndexes(new ArrayList<>(List.of(0, 1))))));
        });

        add(ApiKeys.DESCRIBE_GROUPS, "", v -> new DescribeGroupsRequestData()
                .setGroups(new ArrayList<>(List.of(SIMPLE_GROUP, MEMBER_GROUP))));

        add(ApiKeys.LIST_GROUPS, "", v -> new ListGroupsRequestData()
                .setStatesFilter(v >= 4 ? new ArrayList<>(List.of("Stable", "Empty")) : new ArrayList<>())
                .setTypesFilter(v >= 5 ? new ArrayList<>(List.of("classic", "share")) : new ArrayList<>()));

        add(ApiKeys.DELETE_GROUPS, "", v -> new DeleteGroupsRequestData()
                .setGroupsNames(new ArrayList<>(List.of(SIMPLE_GROUP, "fuzz-absent"))));

        add(ApiKeys.SHARE_GROUP_HEARTBEAT, "join", v -> new ShareGroupHeartbeatRequestData()
                .setGroupId("fuzz-share").setMemberId("fuzz-share-member").setMemberEpoch(0)
                .setSubscribedTopicNames(new ArrayList<>(List.of(t))));
        add(ApiKeys.SHARE_GROUP_HEARTBEAT, "leave", v -> new ShareGroupHeartbeatRequestData()
                .setGroupId("fuzz-share").setMemberId("fuzz-share-member").setMemberEpoch(-1));

        add(ApiKeys.SHARE_GROUP_DESCRIBE, "", v -> new ShareGroupDescribeRequestData()
                .setGroupIds(new ArrayList<>(List.of("fuzz-share", SIMPLE_GROUP)))
                .setIncludeAuthorizedOperations(true));

        add(ApiKeys.OFFSET_DELETE, "", v -> {
            OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                    new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t).setPartitions(
                    new ArrayList<>(List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition()
                            .setPartitionIndex(0)))));
            return new OffsetDeleteRequestData().setGroupId(SIMPLE_GROUP).setTopics(topics);
        });

        add(ApiKeys.ELECT_LEADERS, "", v -> {
            ElectLeadersRequestData.TopicPartitionsCollection partitions =
                    new ElectLeadersRequestData.TopicPartitionsCollection();
            partitions.add(new ElectLeadersRequestData.TopicPartitions().setTopic(t)
                    .setPartitions(new ArrayList<>(List.of(0, 1))));
            return new ElectLeadersRequestData().setElectionType((byte) 0).setTopicPartitions(partitions)
                    .setTimeoutMs(2000);
        });
        addAtMax(ApiKeys.ELECT_LEADERS, "all partitions", v -> new ElectLeadersRequestData()
                .setElectionType((byte) 0).setTopicPartitions(null).setTimeoutMs(2000));

        add(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "", v -> new AlterPartitionReassignmentsRequestData()
                .setTimeoutMs(2000).setAllowReplicationFactorChange(true)
                .setTopics(new ArrayList<>(List.of(new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                        .setName(names.moved()).setPartitions(new ArrayList<>(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                        .setPartitionIndex(0).setReplicas(new ArrayList<>(List.of(0))),
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                        .setPartitionIndex(1).setReplicas(null))))))));

        add(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "", v -> new ListPartitionReassignmentsRequestData()
                .setTimeoutMs(2000).setTopics(new ArrayList<>(List.of(
                        new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                                .setName(names.moved()).setPartitionIndexes(new ArrayList<>(List.of(0, 1)))))));
        addAtMax(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "all", v -> new ListPartitionReassignmentsRequestData()
                .setTimeoutMs(2000).setTopics(null));

        add(ApiKeys.DESCRIBE_LOG_DIRS, "", v -> {
            DescribeLogDirsRequestData.DescribableLogDirTopicCollection topics =
                    new DescribeLogDirsRequestData.DescribableLogDirTopicCollection();
            topics.add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic(t)
                    .setPartitions(new ArrayList<>(List.of(0, 1))));
            return new DescribeLogDirsRequestData().setTopics(topics);
        });
        addAtMax(ApiKeys.DESCRIBE_LOG_DIRS, "all", v -> new DescribeLogDirsRequestData().setTopics(null));

        add(ApiKeys.WRITE_TXN_MARKERS, "", v -> new WriteTxnMarkersRequestData().setMarkers(new ArrayList<>(List.of(
                new WriteTxnMarkersRequestData.WritableTxnMarker().setProducerId(4321).setProducerEpoch((short) 0)
                        .setTransactionResult(false).setCoordinatorEpoch(0)
                        .setTopics(new ArrayList<>(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                .setName(t).setPartitionIndexes(new ArrayList<>(List.of(0, 1))))))))));

        add(ApiKeys.DESCRIBE_PRODUCERS, "", v -> {
            DescribeProducersRequestData.TopicRequestCollection topics =
                    new DescribeProducersRequestData.TopicRequestCollection();
            topics.add(new DescribeProducersRequestData.TopicRequest().setName(t)
                    .setPartitionIndexes(new ArrayList<>(List.of(0, 1))));
            return new DescribeProducersRequestData().setTopics(topics);
        });

        add(ApiKeys.ADD_PARTITIONS_TO_TXN, "", v -> {
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
            topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(t)
                    .setPartitions(new ArrayList<>(List.of(0, 1))));
            if (v <= 3) {
                return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId("fuzz-txn")
                        .setV3AndBelowProducerId(4321).setV3AndBelowProducerEpoch((short) 0)
                        .setV3AndBelowTopics(topics);
            }
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection transactions =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
            transactions.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction()
                    .setTransactionalId("fuzz-txn").setProducerId(4321).setProducerEpoch((short) 0)
                    .setVerifyOnly(true).setTopics(topics));
            return new AddPartitionsToTxnRequestData().setTransactions(transactions);
        });
        add(ApiKeys.ADD_OFFSETS_TO_TXN, "", v -> new AddOffsetsToTxnRequestData().setTransactionalId("fuzz-txn")
                .setProducerId(4321).setProducerEpoch((short) 0).setGroupId(SIMPLE_GROUP));
        add(ApiKeys.END_TXN, "", v -> new EndTxnRequestData().setTransactionalId("fuzz-txn").setProducerId(4321)
                .setProducerEpoch((short) 0).setCommitted(true));
        add(ApiKeys.DESCRIBE_TRANSACTIONS, "", v -> new DescribeTransactionsRequestData()
                .setTransactionalIds(new ArrayList<>(List.of("fuzz-txn", "unknown-txn"))));
        add(ApiKeys.LIST_TRANSACTIONS, "", v -> {
            ListTransactionsRequestData data = new ListTransactionsRequestData()
                    .setStateFilters(new ArrayList<>(List.of("Ongoing", "Empty")))
                    .setProducerIdFilters(new ArrayList<>(List.of(4321L)));
            if (v >= 1) {
                data.setDurationFilter(1_000L);
            }
            if (v >= 2) {
                data.setTransactionalIdPattern("fuzz-.*");
            }
            return data;
        });

        // A share consumer's requests to a partition leader: open a session on partition 0 of the target topic with
        // an acknowledgement batch, then acknowledge on a session that does not exist.
        add(ApiKeys.SHARE_FETCH, "", v -> {
            ShareFetchRequestData.FetchTopicCollection topics = new ShareFetchRequestData.FetchTopicCollection();
            ShareFetchRequestData.FetchPartitionCollection partitions =
                    new ShareFetchRequestData.FetchPartitionCollection();
            partitions.add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0).setAcknowledgementBatches(
                    new ArrayList<>(List.of(new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(0)
                            .setLastOffset(2).setAcknowledgeTypes(new ArrayList<>(List.of((byte) 1)))))));
            topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(names.targetId()).setPartitions(partitions));
            return new ShareFetchRequestData().setGroupId("fuzz-share").setMemberId("fuzz-share-member")
                    .setShareSessionEpoch(0).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 16).setMaxRecords(10)
                    .setBatchSize(10).setTopics(topics);
        });
        add(ApiKeys.SHARE_ACKNOWLEDGE, "", v -> {
            ShareAcknowledgeRequestData.AcknowledgeTopicCollection topics =
                    new ShareAcknowledgeRequestData.AcknowledgeTopicCollection();
            ShareAcknowledgeRequestData.AcknowledgePartitionCollection partitions =
                    new ShareAcknowledgeRequestData.AcknowledgePartitionCollection();
            partitions.add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0)
                    .setAcknowledgementBatches(new ArrayList<>(List.of(
                            new ShareAcknowledgeRequestData.AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                                    .setAcknowledgeTypes(new ArrayList<>(List.of((byte) 2)))))));
            topics.add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(names.targetId())
                    .setPartitions(partitions));
            return new ShareAcknowledgeRequestData().setGroupId("fuzz-share").setMemberId("fuzz-share-other")
                    .setShareSessionEpoch(3).setTopics(topics);
        });

        // The share coordinator's APIs (brokers send them to each other): one share-partition of the target topic.
        add(ApiKeys.READ_SHARE_GROUP_STATE, "", v -> new ReadShareGroupStateRequestData().setGroupId("fuzz-share")
                .setTopics(new ArrayList<>(List.of(new ReadShareGroupStateRequestData.ReadStateData()
                        .setTopicId(names.targetId()).setPartitions(new ArrayList<>(List.of(
                                new ReadShareGroupStateRequestData.PartitionData().setPartition(0)
                                        .setLeaderEpoch(0))))))));
        add(ApiKeys.WRITE_SHARE_GROUP_STATE, "", v -> new WriteShareGroupStateRequestData().setGroupId("fuzz-share")
                .setTopics(new ArrayList<>(List.of(new WriteShareGroupStateRequestData.WriteStateData()
                        .setTopicId(names.targetId()).setPartitions(new ArrayList<>(List.of(
                                new WriteShareGroupStateRequestData.PartitionData().setPartition(0).setStateEpoch(0)
                                        .setLeaderEpoch(0).setStartOffset(3).setStateBatches(new ArrayList<>(List.of(
                                                new WriteShareGroupStateRequestData.StateBatch().setFirstOffset(3)
                                                        .setLastOffset(5).setDeliveryState((byte) 2)
                                                        .setDeliveryCount((short) 1)))))))))));
        add(ApiKeys.DELETE_SHARE_GROUP_STATE, "", v -> new DeleteShareGroupStateRequestData()
                .setGroupId("fuzz-share").setTopics(new ArrayList<>(List.of(
                        new DeleteShareGroupStateRequestData.DeleteStateData().setTopicId(names.targetId())
                                .setPartitions(new ArrayList<>(List.of(
                                        new DeleteShareGroupStateRequestData.PartitionData().setPartition(0))))))));
        add(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, "", v -> new ReadShareGroupStateSummaryRequestData()
                .setGroupId("fuzz-share").setTopics(new ArrayList<>(List.of(
                        new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData().setTopicId(names.targetId())
                                .setPartitions(new ArrayList<>(List.of(
                                        new ReadShareGroupStateSummaryRequestData.PartitionData().setPartition(0)
                                                .setLeaderEpoch(-1))))))));
        add(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, "", v -> new InitializeShareGroupStateRequestData()
                .setGroupId("fuzz-share-admin").setTopics(new ArrayList<>(List.of(
                        new InitializeShareGroupStateRequestData.InitializeStateData().setTopicId(names.targetId())
                                .setPartitions(new ArrayList<>(List.of(
                                        new InitializeShareGroupStateRequestData.PartitionData().setPartition(0)
                                                .setStateEpoch(1).setStartOffset(0))))))));

        // The share-group offset admin APIs: a share group of their own, empty (altering creates it).
        add(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, "", v -> new DescribeShareGroupOffsetsRequestData()
                .setGroups(new ArrayList<>(List.of(new DescribeShareGroupOffsetsRequestData
                        .DescribeShareGroupOffsetsRequestGroup().setGroupId("fuzz-share-admin")
                        .setTopics(new ArrayList<>(List.of(new DescribeShareGroupOffsetsRequestData
                                .DescribeShareGroupOffsetsRequestTopic().setTopicName(names.target())
                                .setPartitions(new ArrayList<>(List.of(0, 1))))))))));
        add(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, "", v -> {
            AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection topics =
                    new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
            topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic()
                    .setTopicName(names.target()).setPartitions(new ArrayList<>(List.of(
                            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition()
                                    .setPartitionIndex(0).setStartOffset(0)))));
            return new AlterShareGroupOffsetsRequestData().setGroupId("fuzz-share-admin").setTopics(topics);
        });
        add(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, "", v -> new DeleteShareGroupOffsetsRequestData()
                .setGroupId("fuzz-share-admin").setTopics(new ArrayList<>(List.of(
                        new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                                .setTopicName(names.target())))));
    }

    private ApiMessage fetch(short version, int replicaId) {
        // Insertion order, not Map.of's per-JVM order: the same random seed must mutate the same layout every run.
        Map<TopicPartition, FetchRequest.PartitionData> partitions = new LinkedHashMap<>();
        partitions.put(new TopicPartition(names.target(), 0), new FetchRequest.PartitionData(names.targetId(), 0, -1,
                64 * 1024, Optional.of(-1)));
        partitions.put(new TopicPartition(names.target(), 1), new FetchRequest.PartitionData(names.targetId(), 1, -1,
                64 * 1024, Optional.empty()));
        // maxWait 50 ms: the fuzzer waits for each answer, and a mutant that raises it is told apart by its value.
        FetchRequest.Builder builder = replicaId < 0
                ? FetchRequest.Builder.forConsumer(version, 50, 1, partitions)
                : FetchRequest.Builder.forReplica(version, replicaId, 7, 50, 1, partitions);
        return builder.setMaxBytes(1024 * 1024).build(version).data();
    }

    private ApiMessage joinGroup(short version, String instanceId, byte[] subscription) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(subscription));
        // Short timeouts (the broker's group.min.session.timeout.ms is lowered for the fuzzer): a member the fuzzer
        // leaves behind holds its group's next rebalance for at most this long.
        return new JoinGroupRequestData().setGroupId(instanceId == null ? MEMBER_GROUP : "fuzz-static-group")
                .setSessionTimeoutMs(200).setRebalanceTimeoutMs(200).setMemberId("")
                .setGroupInstanceId(instanceId).setProtocolType("consumer").setProtocols(protocols)
                .setReason(version >= 8 ? "fuzz" : null);
    }

    private void addProduce(String shape, short acks, Compression compression, boolean idempotent, long now,
                            boolean maxOnly) {
        for (short version : maxOnly ? List.of(max(ApiKeys.PRODUCE)) : versions(ApiKeys.PRODUCE)) {
            MemoryRecords records = idempotent
                    ? MemoryRecords.withIdempotentRecords(compression, 4242L, (short) 0, 0, records(now))
                    : MemoryRecords.withRecords(compression, records(now));
            addProduceSeed(shape, version, acks, null, records);
        }
    }

    private void addProduceAtMax(String shape, short acks, Compression compression, long now) {
        addProduceSeed(shape, max(ApiKeys.PRODUCE), acks, null, MemoryRecords.withRecords(compression, records(now)));
    }

    private void addProduceTransactional(long now) {
        addProduceSeed("transactional", max(ApiKeys.PRODUCE), (short) -1, "fuzz-txn",
                MemoryRecords.withTransactionalRecords(Compression.NONE, 4343L, (short) 0, 0, records(now)));
    }

    private void addProduceSeed(String shape, short version, short acks, String transactionalId,
                                MemoryRecords records) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData()
                .setPartitionData(new ArrayList<>(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0).setRecords(records))));
        if (version >= 13) {
            topic.setTopicId(names.targetId());
        } else {
            topic.setName(names.target());
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic);
        ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(2000)
                .setTransactionalId(transactionalId).setTopicData(topics);
        byte[] bytes = serialize(ApiKeys.PRODUCE, version, data);
        byte[] batch = bytes(records.buffer());
        int offset = indexOf(bytes, batch);
        if (offset < 0) {
            throw new IllegalStateException("the record batch is not in the serialized produce request");
        }
        seeds.add(new Seed("PRODUCE v" + version + " (" + shape + ")", ApiKeys.PRODUCE, version, bytes, offset,
                batch.length));
    }

    private static SimpleRecord[] records(long now) {
        Header[] headers = {new RecordHeader("h", "v".getBytes(StandardCharsets.UTF_8))};
        return new SimpleRecord[] {
            new SimpleRecord(now, "k1".getBytes(StandardCharsets.UTF_8), "value one".getBytes(StandardCharsets.UTF_8),
                    headers),
            new SimpleRecord(now + 1, null, "value two, no key".getBytes(StandardCharsets.UTF_8)),
            new SimpleRecord(now + 2, "k3".getBytes(StandardCharsets.UTF_8), null)
        };
    }

    /** Adds a seed at each of {@link #versions}. */
    private void add(ApiKeys api, String shape, Function<Short, ApiMessage> build) {
        for (short version : versions(api)) {
            addSeed(api, shape, version, build.apply(version));
        }
    }

    private void addAtMax(ApiKeys api, String shape, Function<Short, ApiMessage> build) {
        short version = max(api);
        addSeed(api, shape, version, build.apply(version));
    }

    private void addSeed(ApiKeys api, String shape, short version, ApiMessage data) {
        if (!advertised.containsKey(api)) {
            return; // not implemented (any more): no seeds
        }
        seeds.add(new Seed(api + " v" + version + (shape.isEmpty() ? "" : " (" + shape + ")"), api, version,
                serialize(api, version, data), -1, 0));
    }

    /** Every advertised version: each one is a different layout for the codec and a different path in the handler. */
    private List<Short> versions(ApiKeys api) {
        ApiVersion range = advertised.get(api);
        List<Short> versions = new ArrayList<>();
        if (range != null) {
            for (short v = range.minVersion(); v <= range.maxVersion(); v++) {
                versions.add(v);
            }
        }
        return versions;
    }

    private short max(ApiKeys api) {
        ApiVersion range = advertised.get(api);
        return range == null ? api.latestVersion() : range.maxVersion();
    }

    private byte[] serialize(ApiKeys api, short version, ApiMessage data) {
        RequestHeader header = new RequestHeader(api, version, CLIENT_ID, seeds.size() + 1);
        return bytes(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
