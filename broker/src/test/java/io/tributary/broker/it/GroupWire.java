package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * The classic group protocol, and the share groups' ShareGroupHeartbeat, spoken by hand on a {@link RawConnection},
 * for tests that need the exact error code the coordinator answers to exactly the request they wrote, or a member
 * that does what no well-behaved client does (stop heartbeating without leaving, commit with a stale generation).
 *
 * <p>Requests are kafka-clients' own request classes, each sent at the newest version that both the broker (from its
 * ApiVersions answer, read once on connecting) and the request class support, as the Java client chooses; offset
 * commits and fetches stay at the versions that name topics (v9 and below), since later ones carry topic ids.
 * Member metadata and assignments are in the consumer protocol's format ({@link ConsumerProtocol}), with protocol
 * type {@value #PROTOCOL_TYPE} and the one protocol {@value #PROTOCOL_NAME}.
 *
 * <p>Coordinator errors the protocol defines as retriable ({@code COORDINATOR_LOAD_IN_PROGRESS},
 * {@code COORDINATOR_NOT_AVAILABLE}, {@code NOT_COORDINATOR}: the offsets topic is being created or loaded) are
 * retried until {@link Await#DEADLINE}, as every client retries them; any other answer is returned to the test.
 *
 * <p>Test thread only; one request at a time. {@link #close()} closes the socket.
 */
final class GroupWire implements AutoCloseable {

    static final String PROTOCOL_TYPE = ConsumerProtocol.PROTOCOL_TYPE;
    static final String PROTOCOL_NAME = "range";

    private static final Set<Errors> COORDINATOR_NOT_READY = EnumSet.of(Errors.COORDINATOR_LOAD_IN_PROGRESS,
            Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR);

    private final RawConnection connection;
    private final ApiVersionsResponse brokerVersions;
    private int correlationId;

    GroupWire(int port) throws IOException {
        connection = new RawConnection(port);
        RequestHeader header = connection.send(new ApiVersionsRequest.Builder().build((short) 3), ++correlationId);
        brokerVersions = (ApiVersionsResponse) connection.receive(header);
        assertEquals(Errors.NONE.code(), brokerVersions.data().errorCode(), "ApiVersions");
    }

    /** The version this connection sends {@code api} at: the broker's newest, capped at what the client knows. */
    short version(ApiKeys api) {
        return version(api, api.latestVersion());
    }

    private short version(ApiKeys api, short clientLatest) {
        ApiVersion broker = brokerVersions.apiVersion(api.id);
        assertNotNull(broker, "the broker does not list " + api + " in ApiVersions");
        short version = (short) Math.min(broker.maxVersion(), clientLatest);
        assertTrue(version >= broker.minVersion(), api + ": no version in common with the broker's " + broker);
        return version;
    }

    /** Finds the group's coordinator (and so has the broker create the offsets topic) until it answers NONE. */
    FindCoordinatorResponse awaitCoordinator(String groupId) {
        FindCoordinatorResponse[] found = new FindCoordinatorResponse[1];
        await().untilAsserted(() -> assertTrue(() -> {
            found[0] = send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                    .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())
                    .setCoordinatorKeys(List.of(groupId))));
            return found[0].coordinators().get(0).errorCode() == Errors.NONE.code();
        }, () -> "FindCoordinator for group " + groupId + " answering NONE; last " + found[0]));
        return found[0];
    }

    /**
     * A JoinGroup as a dynamic member with {@code memberId} ("" for a new member), subscribed to {@code topics}; the
     * rebalance timeout is twice the session timeout.
     */
    JoinGroupResponseData join(String groupId, String memberId, int sessionTimeoutMs, String... topics) {
        return join(joinRequest(groupId, memberId, null, sessionTimeoutMs, topics));
    }

    /** A JoinGroup as a static member with {@code groupInstanceId} (JoinGroup v5 and later). */
    JoinGroupResponseData joinStatic(String groupId, String memberId, String groupInstanceId, int sessionTimeoutMs,
                                     String... topics) {
        return join(joinRequest(groupId, memberId, groupInstanceId, sessionTimeoutMs, topics));
    }

    JoinGroupResponseData join(JoinGroupRequestData request) {
        return retried(() -> ((JoinGroupResponse) send(new JoinGroupRequest.Builder(request))).data(),
                response -> Errors.forCode(response.errorCode()), "JoinGroup " + request);
    }

    /**
     * Joins as a new dynamic member through the {@code MEMBER_ID_REQUIRED} handshake of JoinGroup v4 and later: the
     * first JoinGroup is answered with that error and a member id, the second, with that id, joins.
     */
    JoinGroupResponseData joinAsNewMember(String groupId, int sessionTimeoutMs, String... topics) {
        JoinGroupResponseData required = join(groupId, "", sessionTimeoutMs, topics);
        assertEquals(Errors.MEMBER_ID_REQUIRED, Errors.forCode(required.errorCode()), required.toString());
        JoinGroupResponseData joined = join(groupId, required.memberId(), sessionTimeoutMs, topics);
        assertEquals(Errors.NONE, Errors.forCode(joined.errorCode()), joined.toString());
        assertEquals(required.memberId(), joined.memberId());
        return joined;
    }

    static JoinGroupRequestData joinRequest(String groupId, String memberId, String groupInstanceId,
                                            int sessionTimeoutMs, String... topics) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName(PROTOCOL_NAME)
                .setMetadata(subscription(topics)));
        return new JoinGroupRequestData().setGroupId(groupId).setMemberId(memberId)
                .setGroupInstanceId(groupInstanceId).setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(2 * sessionTimeoutMs).setProtocolType(PROTOCOL_TYPE).setProtocols(protocols);
    }

    /** The consumer protocol's subscription to {@code topics}, as member metadata. */
    static byte[] subscription(String... topics) {
        return Utils.toArray(ConsumerProtocol.serializeSubscription(
                new ConsumerPartitionAssignor.Subscription(List.of(topics))));
    }

    /**
     * A SyncGroup; as the leader, {@code assignments} gives each member's partitions (empty for a follower). Protocol
     * type and name are sent from v5, where the request has them.
     */
    SyncGroupResponseData sync(String groupId, int generationId, String memberId, String groupInstanceId,
                               Map<String, List<TopicPartition>> assignments) {
        List<SyncGroupRequestData.SyncGroupRequestAssignment> wire = new ArrayList<>();
        assignments.forEach((member, partitions) -> wire.add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(member).setAssignment(Utils.toArray(ConsumerProtocol.serializeAssignment(
                        new ConsumerPartitionAssignor.Assignment(partitions))))));
        SyncGroupRequestData request = new SyncGroupRequestData().setGroupId(groupId).setGenerationId(generationId)
                .setMemberId(memberId).setGroupInstanceId(groupInstanceId).setAssignments(wire);
        if (version(ApiKeys.SYNC_GROUP) >= 5) {
            request.setProtocolType(PROTOCOL_TYPE).setProtocolName(PROTOCOL_NAME);
        }
        return retried(() -> ((SyncGroupResponse) send(new SyncGroupRequest.Builder(request))).data(),
                response -> Errors.forCode(response.errorCode()), "SyncGroup " + request);
    }

    /** The partitions in a SyncGroup answer's assignment. */
    static List<TopicPartition> assigned(SyncGroupResponseData response) {
        return ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(response.assignment())).partitions();
    }

    Errors heartbeat(String groupId, int generationId, String memberId, String groupInstanceId) {
        HeartbeatRequestData request = new HeartbeatRequestData().setGroupId(groupId).setGenerationId(generationId)
                .setMemberId(memberId).setGroupInstanceId(groupInstanceId);
        return retried(() -> Errors.forCode(((HeartbeatResponse) send(new HeartbeatRequest.Builder(request)))
                .data().errorCode()), Function.identity(), "Heartbeat " + request);
    }

    /**
     * An OffsetCommit of {@code offsets} (without metadata); generation -1 and member id "" commit as a tool or an
     * {@code assign()} user does. Returns the error of each partition.
     */
    Map<TopicPartition, Errors> commit(String groupId, int generationId, String memberId,
                                       Map<TopicPartition, Long> offsets) {
        Map<String, List<OffsetCommitRequestData.OffsetCommitRequestPartition>> byTopic = new TreeMap<>();
        offsets.forEach((tp, offset) -> byTopic.computeIfAbsent(tp.topic(), topic -> new ArrayList<>())
                .add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(tp.partition())
                        .setCommittedOffset(offset)));
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> topics.add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(topic).setPartitions(partitions)));
        OffsetCommitRequestData request = new OffsetCommitRequestData().setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(generationId).setMemberId(memberId).setTopics(topics);
        return retried(() -> {
            OffsetCommitResponseData response = ((OffsetCommitResponse) send(
                    OffsetCommitRequest.Builder.forTopicNames(request))).data();
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (OffsetCommitResponseData.OffsetCommitResponseTopic topic : response.topics()) {
                for (OffsetCommitResponseData.OffsetCommitResponsePartition partition : topic.partitions()) {
                    errors.put(new TopicPartition(topic.name(), partition.partitionIndex()),
                            Errors.forCode(partition.errorCode()));
                }
            }
            return errors;
        }, GroupWire::anyCoordinatorError, "OffsetCommit " + request);
    }

    /**
     * A TxnOffsetCommit of {@code offsets} at {@code version} (topics by id from v6, {@code topicIds} naming them)
     * for producer {@code producerId} at epoch 0; generation -1, member id "" and no instance id commit as a
     * producer without group metadata does. Returns the error of each partition.
     */
    Map<TopicPartition, Errors> txnCommit(short version, String groupId, long producerId, int generationId,
                                          String memberId, Map<TopicPartition, Long> offsets,
                                          Map<String, Uuid> topicIds) {
        Map<String, List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition>> byTopic = new TreeMap<>();
        offsets.forEach((tp, offset) -> byTopic.computeIfAbsent(tp.topic(), topic -> new ArrayList<>())
                .add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(tp.partition()).setCommittedOffset(offset)));
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> topics = new ArrayList<>();
        Map<Uuid, String> names = new LinkedHashMap<>();
        byTopic.forEach((topic, partitions) -> {
            TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic requested =
                    new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setPartitions(partitions);
            if (version >= 6) {
                requested.setTopicId(topicIds.get(topic));
                names.put(topicIds.get(topic), topic);
            } else {
                requested.setName(topic);
            }
            topics.add(requested);
        });
        TxnOffsetCommitRequestData request = new TxnOffsetCommitRequestData().setTransactionalId("txn-" + groupId)
                .setGroupId(groupId).setProducerId(producerId).setProducerEpoch((short) 0)
                .setGenerationIdOrMemberEpoch(generationId).setMemberId(memberId).setTopics(topics);
        return retried(() -> {
            TxnOffsetCommitResponseData response;
            try {
                RequestHeader header = connection.send(new TxnOffsetCommitRequest(request, version),
                        ++correlationId);
                response = ((TxnOffsetCommitResponse) connection.receive(header)).data();
            } catch (IOException e) {
                throw new UncheckedIOException("TxnOffsetCommit v" + version, e);
            }
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic topic : response.topics()) {
                String name = version >= 6 ? names.get(topic.topicId()) : topic.name();
                for (TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition partition : topic.partitions()) {
                    errors.put(new TopicPartition(name, partition.partitionIndex()),
                            Errors.forCode(partition.errorCode()));
                }
            }
            return errors;
        }, GroupWire::anyCoordinatorError, "TxnOffsetCommit " + request);
    }

    /**
     * An OffsetFetch of {@code partitions} for the group, or of every partition it has offsets for when
     * {@code partitions} is null. Returns the group's part of the answer (group-level error, topics, partitions).
     */
    OffsetFetchResponseData.OffsetFetchResponseGroup fetch(String groupId, Collection<TopicPartition> partitions) {
        return fetch(groupId, partitions, false);
    }

    /** As {@link #fetch(String, Collection)}, with requireStable (v7+) as a read_committed consumer sends it. */
    OffsetFetchResponseData.OffsetFetchResponseGroup fetch(String groupId, Collection<TopicPartition> partitions,
                                                           boolean requireStable) {
        List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics = null;
        if (partitions != null) {
            topics = new ArrayList<>();
            Map<String, List<Integer>> byTopic = partitions.stream().collect(Collectors.groupingBy(
                    TopicPartition::topic, TreeMap::new, Collectors.mapping(TopicPartition::partition,
                            Collectors.toList())));
            for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
                topics.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(topic.getKey())
                        .setPartitionIndexes(topic.getValue()));
            }
        }
        OffsetFetchRequestData request = new OffsetFetchRequestData().setRequireStable(requireStable)
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(groupId)
                        .setTopics(topics)));
        // The builder's flag: fail rather than send requireStable at a version without it.
        return retried(() -> ((OffsetFetchResponse) send(OffsetFetchRequest.Builder.forTopicNames(request,
                        requireStable)))
                .group(groupId), GroupWire::anyCoordinatorError, "OffsetFetch " + request);
    }

    /** The committed offset of each partition in an OffsetFetch answer (-1: none), failing on partition errors. */
    static Map<TopicPartition, Long> offsets(OffsetFetchResponseData.OffsetFetchResponseGroup group) {
        assertEquals(Errors.NONE, Errors.forCode(group.errorCode()), group.toString());
        Map<TopicPartition, Long> offsets = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (OffsetFetchResponseData.OffsetFetchResponseTopics topic : group.topics()) {
            for (OffsetFetchResponseData.OffsetFetchResponsePartitions partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
                assertEquals(Errors.NONE, Errors.forCode(partition.errorCode()), tp + " in " + group);
                offsets.put(tp, partition.committedOffset());
            }
        }
        return offsets;
    }

    /**
     * A ShareGroupHeartbeat (KIP-932): {@code memberEpoch} 0 joins with {@code topics}, -1 leaves, anything else
     * heartbeats (topics null: unchanged).
     */
    ShareGroupHeartbeatResponseData shareHeartbeat(String groupId, String memberId, int memberEpoch,
                                                   String... topics) {
        ShareGroupHeartbeatRequestData request = new ShareGroupHeartbeatRequestData().setGroupId(groupId)
                .setMemberId(memberId).setMemberEpoch(memberEpoch)
                .setSubscribedTopicNames(topics.length == 0 ? null : List.of(topics));
        return retried(() -> ((ShareGroupHeartbeatResponse) send(new ShareGroupHeartbeatRequest.Builder(request)))
                .data(), response -> Errors.forCode(response.errorCode()), "ShareGroupHeartbeat " + request);
    }

    @SuppressWarnings("unchecked")
    private <T extends AbstractResponse> T send(AbstractRequest.Builder<?> builder) {
        short version = version(builder.apiKey(), builder.latestAllowedVersion());
        try {
            RequestHeader header = connection.send(builder.build(version), ++correlationId);
            return (T) connection.receive(header);
        } catch (IOException e) {
            throw new UncheckedIOException(builder.apiKey() + " v" + version, e);
        }
    }

    /** Sends (by {@code call}) until the answer's error is not a coordinator that is still getting ready. */
    private static <T> T retried(Supplier<T> call, Function<T, Errors> error, String what) {
        List<T> last = new ArrayList<>(1);
        await().untilAsserted(() -> assertTrue(() -> {
            last.clear();
            last.add(call.get());
            return !COORDINATOR_NOT_READY.contains(error.apply(last.get(0)));
        }, () -> what + " answered without a retriable coordinator error; last answer " + last));
        return last.get(0);
    }

    private static Errors anyCoordinatorError(Map<TopicPartition, Errors> errors) {
        return errors.values().stream().filter(COORDINATOR_NOT_READY::contains).findFirst().orElse(Errors.NONE);
    }

    private static Errors anyCoordinatorError(OffsetFetchResponseData.OffsetFetchResponseGroup group) {
        if (COORDINATOR_NOT_READY.contains(Errors.forCode(group.errorCode()))) {
            return Errors.forCode(group.errorCode());
        }
        return group.topics().stream().flatMap(topic -> topic.partitions().stream())
                .map(partition -> Errors.forCode(partition.errorCode())).filter(COORDINATOR_NOT_READY::contains)
                .findFirst().orElse(Errors.NONE);
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
