package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.group.CommittedOffset;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.group.GroupCoordinator.GroupOffsets;
import io.tributary.broker.group.GroupCoordinator.GroupType;
import io.tributary.broker.group.GroupCoordinator.LeaveResult;
import io.tributary.broker.group.GroupCoordinator.ListedGroup;
import io.tributary.broker.group.GroupCoordinator.ListedGroups;
import io.tributary.broker.group.GroupCoordinator.OffsetCommit;
import io.tributary.broker.group.GroupCoordinator.OffsetDeleteResult;
import io.tributary.broker.group.GroupState;
import io.tributary.broker.network.RequestContext;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeResponse;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * The group APIs: turns JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, TxnOffsetCommit, OffsetFetch,
 * DescribeGroups, ListGroups, DeleteGroups, OffsetDelete, and the share groups' ShareGroupHeartbeat and
 * ShareGroupDescribe into calls on the {@link GroupCoordinator},
 * resolving topic ids (OffsetCommit and OffsetFetch v10, TxnOffsetCommit v6) and checking that committed partitions
 * exist. Fields are filled only at the
 * versions that have them.
 */
final class GroupHandler {

    /** Group operations a client may perform (no ACLs yet: all of them), for includeAuthorizedOperations. */
    private static final int GROUP_OPERATIONS = Utils.to32BitField(Set.of(AclOperation.READ.code(),
            AclOperation.DESCRIBE.code(), AclOperation.DELETE.code()));

    private final GroupCoordinator coordinator;
    private final ClusterView cluster;

    GroupHandler(GroupCoordinator coordinator, ClusterView cluster) {
        this.coordinator = coordinator;
        this.cluster = cluster;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Membership

    CompletableFuture<AbstractResponse> joinGroup(RequestContext context, JoinGroupRequest request) {
        short version = request.version();
        String clientHost = "/" + context.clientAddress().getHostAddress();
        return coordinator.joinGroup(request.data(), version, context.header().clientId(), clientHost)
                .thenApply(response -> {
                    if (version < 7) {
                        // Nullable only from v7: an error response names no protocol with "".
                        response.setProtocolType(null);
                        if (response.protocolName() == null) {
                            response.setProtocolName("");
                        }
                    }
                    if (version < 9) {
                        response.setSkipAssignment(false);
                    }
                    if (version < 5) {
                        for (JoinGroupResponseData.JoinGroupResponseMember member : response.members()) {
                            member.setGroupInstanceId(null);
                        }
                    }
                    return new JoinGroupResponse(response, version);
                });
    }

    CompletableFuture<AbstractResponse> syncGroup(SyncGroupRequest request) {
        short version = request.version();
        return coordinator.syncGroup(request.data()).thenApply(response -> {
            if (version < 5) {
                response.setProtocolType(null).setProtocolName(null);
            }
            return new SyncGroupResponse(response);
        });
    }

    AbstractResponse heartbeat(HeartbeatRequest request) {
        Errors error = coordinator.heartbeat(request.data());
        return new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code()));
    }

    AbstractResponse leaveGroup(LeaveGroupRequest request) {
        short version = request.version();
        List<MemberIdentity> members = request.members();
        LeaveResult result = coordinator.leaveGroup(request.data().groupId(), members);
        LeaveGroupResponseData data = new LeaveGroupResponseData().setErrorCode(result.error().code());
        if (version >= 3) {
            data.setMembers(result.members());
        } else if (result.error() == Errors.NONE && !result.members().isEmpty()) {
            // One member per request before v3: its error is the request's error.
            MemberResponse only = result.members().get(0);
            data.setErrorCode(only.errorCode());
        }
        return new LeaveGroupResponse(data);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets

    CompletableFuture<AbstractResponse> offsetCommit(OffsetCommitRequest request) {
        OffsetCommitRequestData data = request.data();
        short version = request.version();
        boolean byId = version >= 10;
        MetadataSnapshot snapshot = cluster.snapshot();
        CommitPartitions commit = new CommitPartitions();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics()) {
            commit.addTopic(snapshot, byId, topic.name(), topic.topicId(), topic.partitions().stream()
                    .map(p -> RequestedOffset.of(p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(),
                            p.committedMetadata()))
                    .toList());
        }
        return commit.commitValid(valid -> coordinator.commitOffsets(data.groupId(), data.memberId(),
                        data.groupInstanceId(), data.generationIdOrMemberEpoch(), valid))
                .thenApply(answers -> new OffsetCommitResponse(commitResponse(answers, commit.ids, byId)));
    }

    private static OffsetCommitResponseData commitResponse(Map<TopicPartition, Errors> results, Map<String, Uuid> ids,
                                                           boolean byId) {
        OffsetCommitResponseData data = new OffsetCommitResponseData();
        Map<String, OffsetCommitResponseTopic> topics = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Errors> entry : results.entrySet()) {
            String name = entry.getKey().topic();
            OffsetCommitResponseTopic topic = topics.computeIfAbsent(name, n -> {
                OffsetCommitResponseTopic created = new OffsetCommitResponseTopic();
                if (byId) {
                    created.setTopicId(ids.getOrDefault(n, Uuid.ZERO_UUID));
                } else {
                    created.setName(n);
                }
                return created;
            });
            topic.partitions().add(new OffsetCommitResponsePartition()
                    .setPartitionIndex(entry.getKey().partition())
                    .setErrorCode(entry.getValue().code()));
        }
        data.topics().addAll(topics.values());
        return data;
    }

    /**
     * TxnOffsetCommit (KIP-98; member id, group instance id and generation from v3, KIP-447; topic ids from v6): as
     * OffsetCommit, but the offsets stay pending until the producer's transaction ends.
     */
    CompletableFuture<AbstractResponse> txnOffsetCommit(TxnOffsetCommitRequest request) {
        TxnOffsetCommitRequestData data = request.data();
        boolean byId = TxnOffsetCommitResponse.useTopicIds(request.version());
        MetadataSnapshot snapshot = cluster.snapshot();
        CommitPartitions commit = new CommitPartitions();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : data.topics()) {
            commit.addTopic(snapshot, byId, topic.name(), topic.topicId(), topic.partitions().stream()
                    .map(p -> RequestedOffset.of(p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(),
                            p.committedMetadata()))
                    .toList());
        }
        return commit.commitValid(valid -> coordinator.commitTxnOffsets(data.groupId(), data.producerId(),
                        data.producerEpoch(), data.memberId(), data.groupInstanceId(),
                        data.generationIdOrMemberEpoch(), valid))
                .thenApply(answers -> new TxnOffsetCommitResponse(txnCommitResponse(answers, commit.ids, byId)));
    }

    private static TxnOffsetCommitResponseData txnCommitResponse(Map<TopicPartition, Errors> results,
                                                                 Map<String, Uuid> ids, boolean byId) {
        TxnOffsetCommitResponseData data = new TxnOffsetCommitResponseData();
        Map<String, TxnOffsetCommitResponseTopic> topics = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Errors> entry : results.entrySet()) {
            TxnOffsetCommitResponseTopic topic = topics.computeIfAbsent(entry.getKey().topic(), name -> byId
                    ? new TxnOffsetCommitResponseTopic().setTopicId(ids.getOrDefault(name, Uuid.ZERO_UUID))
                    : new TxnOffsetCommitResponseTopic().setName(name));
            topic.partitions().add(new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(entry.getKey().partition())
                    .setErrorCode(entry.getValue().code()));
        }
        data.topics().addAll(topics.values());
        return data;
    }

    AbstractResponse offsetFetch(OffsetFetchRequest request) {
        short version = request.version();
        boolean byId = version >= 10;
        MetadataSnapshot snapshot = cluster.snapshot();
        List<OffsetFetchResponseGroup> groups = new ArrayList<>();
        // requireStable is read as false below v7, where the field does not exist.
        boolean requireStable = request.requireStable();
        for (OffsetFetchRequestGroup requested : request.groups()) {
            groups.add(fetchGroup(requested, snapshot, byId, version, requireStable));
        }
        return new OffsetFetchResponse.Builder(groups).build(version);
    }

    private OffsetFetchResponseGroup fetchGroup(OffsetFetchRequestGroup requested, MetadataSnapshot snapshot,
                                                boolean byId, short version, boolean requireStable) {
        OffsetFetchResponseGroup group = new OffsetFetchResponseGroup().setGroupId(requested.groupId());
        List<TopicPartition> wanted = null;
        Map<String, Uuid> unknownIds = new LinkedHashMap<>();
        if (requested.topics() != null) {
            wanted = new ArrayList<>();
            for (OffsetFetchRequestTopics topic : requested.topics()) {
                String name = topic.name();
                if (byId) {
                    Optional<TopicMetadata> metadata = snapshot.topic(topic.topicId());
                    if (metadata.isEmpty()) {
                        unknownIds.put(topic.topicId().toString(), topic.topicId());
                        for (int partition : topic.partitionIndexes()) {
                            wanted.add(new TopicPartition(topic.topicId().toString(), partition));
                        }
                        continue;
                    }
                    name = metadata.get().name();
                }
                for (int partition : topic.partitionIndexes()) {
                    wanted.add(new TopicPartition(name, partition));
                }
            }
        }
        GroupOffsets offsets = coordinator.fetchOffsets(requested.groupId(), wanted, requireStable);
        if (offsets.error() != Errors.NONE && version >= 2) {
            return group.setErrorCode(offsets.error().code());
        }
        Map<String, OffsetFetchResponseTopics> topics = new LinkedHashMap<>();
        Map<TopicPartition, CommittedOffset> result = offsets.error() == Errors.NONE ? offsets.offsets()
                : nullOffsets(wanted);
        for (Map.Entry<TopicPartition, CommittedOffset> entry : result.entrySet()) {
            TopicPartition tp = entry.getKey();
            Uuid unknownId = unknownIds.get(tp.topic());
            Optional<Uuid> id = unknownId != null ? Optional.of(unknownId)
                    : snapshot.topic(tp.topic()).map(TopicMetadata::topicId);
            if (byId && id.isEmpty()) {
                continue; // committed for a topic that no longer exists: it has no id to name it by
            }
            OffsetFetchResponseTopics topic = topics.computeIfAbsent(tp.topic(), name -> byId
                    ? new OffsetFetchResponseTopics().setTopicId(id.get())
                    : new OffsetFetchResponseTopics().setName(name));
            // An offset an open transaction is about to replace is not given: the consumer asks again (KIP-447).
            boolean unstable = offsets.unstable().contains(tp);
            CommittedOffset committed = unstable ? null : entry.getValue();
            Errors error = unknownId != null ? Errors.UNKNOWN_TOPIC_ID
                    : unstable ? Errors.UNSTABLE_OFFSET_COMMIT : offsets.error();
            topic.partitions().add(new OffsetFetchResponsePartitions()
                    .setPartitionIndex(tp.partition())
                    .setCommittedOffset(committed == null ? -1L : committed.offset())
                    .setCommittedLeaderEpoch(committed == null ? -1 : committed.leaderEpoch())
                    .setMetadata(committed == null ? "" : committed.metadata())
                    .setErrorCode(error.code()));
        }
        group.topics().addAll(topics.values());
        return group;
    }

    private static Map<TopicPartition, CommittedOffset> nullOffsets(List<TopicPartition> partitions) {
        Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
        if (partitions != null) {
            for (TopicPartition tp : partitions) {
                result.put(tp, null);
            }
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Group administration

    AbstractResponse describeGroups(DescribeGroupsRequest request) {
        DescribeGroupsRequestData data = request.data();
        short version = request.version();
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String groupId : data.groups()) {
            DescribedGroup described = coordinator.describeGroup(groupId);
            if (described == null) {
                described = new DescribedGroup()
                        .setGroupId(groupId)
                        .setGroupState(GroupState.DEAD.wireName())
                        .setProtocolType("")
                        .setProtocolData("");
                if (version >= 6) {
                    described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + groupId + " not found.");
                }
            }
            if (described.errorCode() == Errors.INVALID_GROUP_ID.code() && groupId != null && groupId.isEmpty()) {
                described.setGroupState(GroupState.DEAD.wireName());
            }
            if (version < 6) {
                described.setErrorMessage(null);
                if (described.errorCode() == Errors.GROUP_ID_NOT_FOUND.code()) {
                    // Before v6 a group that is not a classic group is answered Dead without an error, as by Kafka.
                    described.setErrorCode(Errors.NONE.code());
                }
            }
            if (version < 4) {
                for (DescribedGroupMember member : described.members()) {
                    member.setGroupInstanceId(null);
                }
            }
            described.setAuthorizedOperations(version >= 3 && data.includeAuthorizedOperations()
                    ? GROUP_OPERATIONS : Integer.MIN_VALUE);
            response.groups().add(described);
        }
        return new DescribeGroupsResponse(response);
    }

    AbstractResponse listGroups(ListGroupsRequest request) {
        ListGroupsRequestData data = request.data();
        short version = request.version();
        ListGroupsResponseData response = new ListGroupsResponseData();
        Set<GroupState> states = EnumSet.noneOf(GroupState.class);
        boolean unknownState = false;
        for (String name : data.statesFilter()) {
            Optional<GroupState> state = GroupState.parse(name);
            if (state.isPresent()) {
                states.add(state.get());
            } else {
                unknownState = true;
            }
        }
        Set<GroupType> types = EnumSet.noneOf(GroupType.class);
        if (data.typesFilter().isEmpty()) {
            types = EnumSet.allOf(GroupType.class);
        } else {
            // Types this broker does not run (consumer, streams) have no groups to list.
            for (String name : data.typesFilter()) {
                GroupType.parse(name).ifPresent(types::add);
            }
        }
        if ((unknownState && states.isEmpty()) || types.isEmpty()) {
            return new ListGroupsResponse(response.setErrorCode(Errors.NONE.code()));
        }
        ListedGroups listed = coordinator.listGroups(states, types);
        response.setErrorCode(listed.error().code());
        for (ListedGroup group : listed.groups()) {
            ListGroupsResponseData.ListedGroup entry = new ListGroupsResponseData.ListedGroup()
                    .setGroupId(group.groupId())
                    .setProtocolType(group.protocolType());
            if (version >= 4) {
                entry.setGroupState(group.state().wireName());
            }
            if (version >= 5) {
                entry.setGroupType(group.type().wireName());
            }
            response.groups().add(entry);
        }
        return new ListGroupsResponse(response);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Share groups (KIP-932)

    CompletableFuture<AbstractResponse> shareGroupHeartbeat(RequestContext context,
                                                            ShareGroupHeartbeatRequest request) {
        String clientHost = "/" + context.clientAddress().getHostAddress();
        return coordinator.shareGroupHeartbeat(request.data(), context.header().clientId(), clientHost)
                .thenApply(ShareGroupHeartbeatResponse::new);
    }

    AbstractResponse shareGroupDescribe(ShareGroupDescribeRequest request) {
        ShareGroupDescribeRequestData data = request.data();
        ShareGroupDescribeResponseData response = new ShareGroupDescribeResponseData();
        for (String groupId : data.groupIds()) {
            ShareGroupDescribeResponseData.DescribedGroup described = coordinator.describeShareGroup(groupId);
            described.setAuthorizedOperations(data.includeAuthorizedOperations() ? GROUP_OPERATIONS
                    : Integer.MIN_VALUE);
            response.groups().add(described);
        }
        return new ShareGroupDescribeResponse(response);
    }

    CompletableFuture<AbstractResponse> deleteGroups(DeleteGroupsRequest request) {
        return coordinator.deleteGroups(request.data().groupsNames()).thenApply(results -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            for (Map.Entry<String, Errors> result : results.entrySet()) {
                response.results().add(new DeletableGroupResult()
                        .setGroupId(result.getKey())
                        .setErrorCode(result.getValue().code()));
            }
            return new DeleteGroupsResponse(response);
        });
    }

    CompletableFuture<AbstractResponse> offsetDelete(OffsetDeleteRequest request) {
        OffsetDeleteRequestData data = request.data();
        List<TopicPartition> partitions = new ArrayList<>();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic topic : data.topics()) {
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition partition : topic.partitions()) {
                partitions.add(new TopicPartition(topic.name(), partition.partitionIndex()));
            }
        }
        return coordinator.deleteOffsets(data.groupId(), partitions).thenApply(result -> {
            OffsetDeleteResponseData response = new OffsetDeleteResponseData().setErrorCode(result.error().code());
            if (result.error() == Errors.NONE) {
                Map<String, OffsetDeleteResponseTopic> topics = new LinkedHashMap<>();
                MetadataSnapshot snapshot = cluster.snapshot();
                for (Map.Entry<TopicPartition, Errors> entry : withUnknownTopics(result, snapshot).entrySet()) {
                    OffsetDeleteResponseTopic topic = topics.computeIfAbsent(entry.getKey().topic(),
                            name -> new OffsetDeleteResponseTopic().setName(name));
                    topic.partitions().add(new OffsetDeleteResponsePartition()
                            .setPartitionIndex(entry.getKey().partition())
                            .setErrorCode(entry.getValue().code()));
                }
                response.topics().addAll(topics.values());
            }
            return new OffsetDeleteResponse(response);
        });
    }

    /** Partitions of topics that do not exist are answered UNKNOWN_TOPIC_OR_PARTITION, as by Kafka. */
    private static Map<TopicPartition, Errors> withUnknownTopics(OffsetDeleteResult result,
                                                                 MetadataSnapshot snapshot) {
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Errors> entry : result.partitions().entrySet()) {
            boolean exists = snapshot.partition(entry.getKey()).isPresent();
            errors.put(entry.getKey(), exists || entry.getValue() != Errors.NONE ? entry.getValue()
                    : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        return errors;
    }

    /** One partition of an OffsetCommit or TxnOffsetCommit request (the two messages share no type). */
    private record RequestedOffset(int partition, OffsetCommit commit) {

        static RequestedOffset of(int partition, long offset, int leaderEpoch, String metadata) {
            return new RequestedOffset(partition, new OffsetCommit(offset, leaderEpoch, metadata));
        }
    }

    /**
     * The partitions of an offset commit, by topic name or id: those that exist, to commit, and the others, answered
     * at once (UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION). Request-handler thread; one per request.
     */
    private static final class CommitPartitions {

        final Map<TopicPartition, OffsetCommit> valid = new LinkedHashMap<>();
        final Map<TopicPartition, Errors> refused = new LinkedHashMap<>();
        /** The requested topic id of each topic name, for answers by id. */
        final Map<String, Uuid> ids = new LinkedHashMap<>();

        void addTopic(MetadataSnapshot snapshot, boolean byId, String requestedName, Uuid requestedId,
                      List<RequestedOffset> partitions) {
            Optional<TopicMetadata> metadata = byId ? snapshot.topic(requestedId) : snapshot.topic(requestedName);
            String name = byId ? metadata.map(TopicMetadata::name).orElse(requestedId.toString()) : requestedName;
            ids.put(name, requestedId);
            for (RequestedOffset partition : partitions) {
                TopicPartition tp = new TopicPartition(name, partition.partition());
                if (metadata.isEmpty()) {
                    refused.put(tp, byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else if (!metadata.get().partitions().containsKey(partition.partition())) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    valid.put(tp, partition.commit());
                }
            }
        }

        /**
         * Commits the valid partitions through {@code commit} (not called when there are none) and completes with every
         * requested partition's answer: the refused ones, then the coordinator's.
         */
        CompletableFuture<Map<TopicPartition, Errors>> commitValid(
                Function<Map<TopicPartition, OffsetCommit>, CompletableFuture<Map<TopicPartition, Errors>>> commit) {
            CompletableFuture<Map<TopicPartition, Errors>> results = valid.isEmpty()
                    ? CompletableFuture.completedFuture(Map.of()) : commit.apply(valid);
            return results.thenApply(committed -> {
                Map<TopicPartition, Errors> all = new LinkedHashMap<>(refused);
                all.putAll(committed);
                return all;
            });
        }
    }
}
