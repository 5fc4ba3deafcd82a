package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.network.RequestContext;
import io.tributary.broker.share.MemberSelectors;
import io.tributary.broker.share.ShareGroupSettings;
import io.tributary.broker.share.SharePartition.AcquiredRange;
import io.tributary.broker.share.SharePartitionManager;
import io.tributary.broker.share.SharePartitionManager.FetchLimits;
import io.tributary.broker.share.SharePartitionManager.PartitionFetch;
import io.tributary.broker.share.ShareSessions;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeResponse;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareFetchResponse;
import org.apache.kafka.common.utils.Time;

/**
 * ShareFetch and ShareAcknowledge (KIP-932), answered by the leaders of the partitions: the share session first
 * (open, next epoch, close), then the acknowledgements the request carries, then, for a fetch, the records acquired
 * for the member ({@link SharePartitionManager}). A response names the partitions that have records, an error or an
 * acknowledgement result; a closing request (epoch -1), a renew-only request and one asking for no records (MaxRecords 0) fetch
 * nothing.
 */
final class ShareHandler {

    private final SharePartitionManager manager;
    private final ShareGroupSettings.Source settings;
    private final ClusterView cluster;
    private final Time time;
    private final MemberSelectors selectors = new MemberSelectors();

    ShareHandler(SharePartitionManager manager, ShareGroupSettings.Source settings, ClusterView cluster, Time time) {
        this.manager = manager;
        this.settings = settings;
        this.cluster = cluster;
        this.time = time;
    }

    /** One partition's part of a response being built. */
    private static final class PartitionAnswer {
        Errors error = Errors.NONE;
        String errorMessage;
        Errors ackError;
        String ackErrorMessage;
        PartitionFetch fetched;
    }

    CompletableFuture<AbstractResponse> shareFetch(RequestContext context, ShareFetchRequest request) {
        ShareFetchRequestData data = request.data();
        if (data.groupId() == null || data.groupId().isEmpty() || data.memberId() == null
                || data.memberId().isEmpty()) {
            return done(fetchError(Errors.INVALID_REQUEST, "ShareFetch needs a group id and a member id"));
        }
        MemberSelectors.Parsed selector = selectors.forClientId(context.header().clientId());
        if (selector.error() != null) {
            return done(fetchError(Errors.INVALID_REQUEST, selector.error()));
        }
        Map<TopicIdPartition, PartitionAnswer> answers = new LinkedHashMap<>();
        List<TopicIdPartition> added = new ArrayList<>();
        for (ShareFetchRequestData.FetchTopic topic : data.topics()) {
            Optional<String> name = cluster.topicName(topic.topicId());
            for (ShareFetchRequestData.FetchPartition partition : topic.partitions()) {
                TopicIdPartition tip = new TopicIdPartition(topic.topicId(), partition.partitionIndex(),
                        name.orElse(null));
                if (name.isEmpty()) {
                    answer(answers, tip).error = Errors.UNKNOWN_TOPIC_ID;
                } else {
                    added.add(tip);
                }
            }
        }
        List<TopicIdPartition> forgotten = new ArrayList<>();
        for (ShareFetchRequestData.ForgottenTopic topic : data.forgottenTopicsData()) {
            String name = cluster.topicName(topic.topicId()).orElse(null);
            for (int partition : topic.partitions()) {
                forgotten.add(new TopicIdPartition(topic.topicId(), partition, name));
            }
        }
        ShareSessions.Key key = new ShareSessions.Key(data.groupId(), data.memberId());
        ShareSessions.Outcome session = manager.sessions().fetch(key, data.shareSessionEpoch(), added, forgotten,
                time.milliseconds());
        if (session.error() != Errors.NONE) {
            return done(fetchError(session.error(), "Share session of member " + data.memberId() + " of group "
                    + data.groupId() + " at epoch " + data.shareSessionEpoch()));
        }
        List<Acknowledgement> acks = new ArrayList<>();
        for (ShareFetchRequestData.FetchTopic topic : data.topics()) {
            for (ShareFetchRequestData.FetchPartition partition : topic.partitions()) {
                TopicIdPartition tip = new TopicIdPartition(topic.topicId(), partition.partitionIndex(),
                        cluster.topicName(topic.topicId()).orElse(null));
                for (ShareFetchRequestData.AcknowledgementBatch batch : partition.acknowledgementBatches()) {
                    acks.add(acknowledge(data.groupId(), data.memberId(), tip, batch.firstOffset(),
                            batch.lastOffset(), batch.acknowledgeTypes()));
                }
            }
        }
        int lockMs = settings.settings(data.groupId()).recordLockDurationMs();
        CompletableFuture<Void> acknowledged = settle(acks, answers);
        if (data.shareSessionEpoch() == -1) {
            return acknowledged.thenApply(v -> {
                manager.release(data.groupId(), data.memberId(), session.partitions());
                return fetchResponse(answers, lockMs);
            });
        }
        if (data.isRenewAck() || data.maxRecords() <= 0) {
            // Renewing locks, or acknowledging only: nothing is fetched.
            return acknowledged.thenApply(v -> fetchResponse(answers, lockMs));
        }
        FetchLimits limits = new FetchLimits(data.maxWaitMs(), data.maxBytes(), data.maxRecords());
        // A new session first checks that what is held here was not reset by an administrator meanwhile.
        CompletableFuture<Void> checked = data.shareSessionEpoch() == 0
                ? acknowledged.thenCompose(v -> manager.revalidate(data.groupId(), session.partitions()))
                : acknowledged;
        return checked.thenCompose(v -> manager.fetch(data.groupId(), data.memberId(), session.partitions(),
                limits, selector.selector())).thenApply(fetched -> {
            for (Map.Entry<TopicIdPartition, PartitionFetch> entry : fetched.entrySet()) {
                PartitionFetch result = entry.getValue();
                if (result.error() != Errors.NONE || !result.acquired().isEmpty()
                        || answers.containsKey(entry.getKey())) {
                    PartitionAnswer answer = answer(answers, entry.getKey());
                    answer.fetched = result;
                    if (result.error() != Errors.NONE) {
                        answer.error = result.error();
                        answer.errorMessage = result.errorMessage();
                    }
                }
            }
            return fetchResponse(answers, lockMs);
        });
    }

    CompletableFuture<AbstractResponse> shareAcknowledge(ShareAcknowledgeRequest request) {
        ShareAcknowledgeRequestData data = request.data();
        if (data.groupId() == null || data.groupId().isEmpty() || data.memberId() == null
                || data.memberId().isEmpty()) {
            return done(acknowledgeError(Errors.INVALID_REQUEST, "ShareAcknowledge needs a group id and a member id"));
        }
        ShareSessions.Key key = new ShareSessions.Key(data.groupId(), data.memberId());
        ShareSessions.Outcome session = manager.sessions().acknowledge(key, data.shareSessionEpoch(),
                time.milliseconds());
        if (session.error() != Errors.NONE) {
            return done(acknowledgeError(session.error(), "Share session of member " + data.memberId()
                    + " of group " + data.groupId() + " at epoch " + data.shareSessionEpoch()));
        }
        Map<TopicIdPartition, PartitionAnswer> answers = new LinkedHashMap<>();
        List<Acknowledgement> acks = new ArrayList<>();
        for (ShareAcknowledgeRequestData.AcknowledgeTopic topic : data.topics()) {
            Optional<String> name = cluster.topicName(topic.topicId());
            for (ShareAcknowledgeRequestData.AcknowledgePartition partition : topic.partitions()) {
                TopicIdPartition tip = new TopicIdPartition(topic.topicId(), partition.partitionIndex(),
                        name.orElse(null));
                PartitionAnswer answer = answer(answers, tip);
                if (name.isEmpty()) {
                    answer.error = Errors.UNKNOWN_TOPIC_ID;
                    continue;
                }
                for (ShareAcknowledgeRequestData.AcknowledgementBatch batch : partition.acknowledgementBatches()) {
                    acks.add(acknowledge(data.groupId(), data.memberId(), tip, batch.firstOffset(),
                            batch.lastOffset(), batch.acknowledgeTypes()));
                }
            }
        }
        return settle(acks, answers).thenApply(v -> {
            if (data.shareSessionEpoch() == -1) {
                manager.release(data.groupId(), data.memberId(), session.partitions());
            }
            return acknowledgeResponse(data, answers);
        });
    }

    private ShareAcknowledgeResponse acknowledgeResponse(ShareAcknowledgeRequestData data,
                                                         Map<TopicIdPartition, PartitionAnswer> answers) {
        LinkedHashMap<TopicIdPartition, ShareAcknowledgeResponseData.PartitionData> partitions =
                new LinkedHashMap<>();
        Map<Integer, Node> endpoints = new LinkedHashMap<>();
        MetadataSnapshot snapshot = cluster.snapshot();
        for (Map.Entry<TopicIdPartition, PartitionAnswer> entry : answers.entrySet()) {
            TopicIdPartition tip = entry.getKey();
            PartitionAnswer answer = entry.getValue();
            Errors error = answer.error != Errors.NONE ? answer.error
                    : answer.ackError != null ? answer.ackError : Errors.NONE;
            ShareAcknowledgeResponseData.PartitionData partition = new ShareAcknowledgeResponseData.PartitionData()
                    .setPartitionIndex(tip.partition())
                    .setErrorCode(error.code())
                    .setErrorMessage(answer.error != Errors.NONE ? answer.errorMessage : answer.ackErrorMessage);
            leaderHint(snapshot, tip, error, endpoints).ifPresent(leader ->
                    partition.currentLeader().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
            partitions.put(tip, partition);
        }
        int lockMs = settings.settings(data.groupId()).recordLockDurationMs();
        return ShareAcknowledgeResponse.of(Errors.NONE, 0, partitions, List.copyOf(endpoints.values()), lockMs);
    }

    /** One acknowledgement batch of a request, on its way to being durable. */
    private record Acknowledgement(TopicIdPartition partition, long first, long last,
                                   CompletableFuture<Errors> result) {
    }

    private Acknowledgement acknowledge(String groupId, String memberId, TopicIdPartition tip, long first, long last,
                                        List<Byte> types) {
        CompletableFuture<Errors> result = tip.topic() == null
                ? CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_ID)
                : manager.acknowledge(groupId, memberId, tip, first, last, types);
        return new Acknowledgement(tip, first, last, result);
    }

    /** Waits for every acknowledgement, then records each partition's first error in {@code answers}. */
    private static CompletableFuture<Void> settle(List<Acknowledgement> acks,
                                                  Map<TopicIdPartition, PartitionAnswer> answers) {
        for (Acknowledgement ack : acks) {
            answer(answers, ack.partition());
        }
        return CompletableFuture.allOf(acks.stream().map(Acknowledgement::result)
                .toArray(CompletableFuture[]::new)).thenRun(() -> {
                    for (Acknowledgement ack : acks) {
                        PartitionAnswer answer = answers.get(ack.partition());
                        Errors error = ack.result().join();
                        if (answer.ackError == null || answer.ackError == Errors.NONE) {
                            answer.ackError = error;
                            if (error != Errors.NONE) {
                                answer.ackErrorMessage = "Acknowledging offsets " + ack.first() + " to " + ack.last()
                                        + " of " + ack.partition() + ": " + error.message();
                            }
                        }
                    }
                });
    }

    private static PartitionAnswer answer(Map<TopicIdPartition, PartitionAnswer> answers, TopicIdPartition tip) {
        return answers.computeIfAbsent(tip, t -> new PartitionAnswer());
    }

    private ShareFetchResponse fetchResponse(Map<TopicIdPartition, PartitionAnswer> answers, int lockMs) {
        LinkedHashMap<TopicIdPartition, ShareFetchResponseData.PartitionData> partitions = new LinkedHashMap<>();
        Map<Integer, Node> endpoints = new LinkedHashMap<>();
        MetadataSnapshot snapshot = cluster.snapshot();
        for (Map.Entry<TopicIdPartition, PartitionAnswer> entry : answers.entrySet()) {
            TopicIdPartition tip = entry.getKey();
            PartitionAnswer answer = entry.getValue();
            ShareFetchResponseData.PartitionData partition = new ShareFetchResponseData.PartitionData()
                    .setPartitionIndex(tip.partition())
                    .setErrorCode(answer.error.code())
                    .setErrorMessage(answer.errorMessage)
                    .setAcknowledgeErrorCode(answer.ackError == null ? Errors.NONE.code() : answer.ackError.code())
                    .setAcknowledgeErrorMessage(answer.ackErrorMessage)
                    .setRecords(answer.fetched == null ? MemoryRecords.EMPTY : answer.fetched.records());
            if (answer.fetched != null) {
                for (AcquiredRange range : answer.fetched.acquired()) {
                    partition.acquiredRecords().add(new ShareFetchResponseData.AcquiredRecords()
                            .setFirstOffset(range.firstOffset()).setLastOffset(range.lastOffset())
                            .setDeliveryCount(range.deliveryCount()));
                }
            }
            Errors hinted = answer.error != Errors.NONE ? answer.error : answer.ackError;
            leaderHint(snapshot, tip, hinted, endpoints).ifPresent(leader ->
                    partition.currentLeader().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
            partitions.put(tip, partition);
        }
        return ShareFetchResponse.of(Errors.NONE, 0, partitions, List.copyOf(endpoints.values()), lockMs);
    }

    /** The live leader of a partition answered NOT_LEADER_OR_FOLLOWER, its endpoint added to {@code endpoints}. */
    private Optional<LeaderHints.Leader> leaderHint(MetadataSnapshot snapshot, TopicIdPartition tip, Errors error,
                                                    Map<Integer, Node> endpoints) {
        if (error == null || !LeaderHints.wanted(error) || tip.topic() == null) {
            return Optional.empty();
        }
        Optional<LeaderHints.Leader> leader = LeaderHints.leader(cluster, snapshot, tip.topicPartition());
        leader.ifPresent(found -> endpoints.computeIfAbsent(found.id(), id -> new Node(id, found.broker().host(),
                found.broker().port(), found.broker().rack())));
        return leader;
    }

    private static ShareFetchResponse fetchError(Errors error, String message) {
        ShareFetchResponse response = ShareFetchResponse.of(error, 0, new LinkedHashMap<>(), List.of(), 0);
        response.data().setErrorMessage(message + ": " + error.message());
        return response;
    }

    private static ShareAcknowledgeResponse acknowledgeError(Errors error, String message) {
        return new ShareAcknowledgeResponse(new ShareAcknowledgeResponseData().setErrorCode(error.code())
                .setErrorMessage(message + ": " + error.message()));
    }

    private static CompletableFuture<AbstractResponse> done(AbstractResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
