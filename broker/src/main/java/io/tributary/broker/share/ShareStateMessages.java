package io.tributary.broker.share;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.tributary.broker.share.SharePartition.StateBatch;
import io.tributary.broker.share.ShareStatePersister.ReadResult;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;

/**
 * The share coordinator's requests and answers on the wire (ReadShareGroupState v0, WriteShareGroupState v0-1,
 * DeleteShareGroupState v0, and the administrator's ReadShareGroupStateSummary v0-1 and InitializeShareGroupState
 * v0, KIP-932), one share-partition per request as the {@link ShareCoordinatorPersister} sends
 * them, and the state they carry: both ends (the persister and {@code api.ShareStateHandler}) convert here.
 *
 * <p>A write carries the whole state of the share-partition and replaces what was there (Kafka's coordinator merges
 * a write's batches into the stored ones instead; Tributary's share-partition leaders always send everything).
 * Version 1's DeliveryCompleteCount (KIP-1226) is not sent and not kept. A read of a share-partition without state
 * answers start offset -1 and no batches, as Kafka's does. The read answer has no leader epoch: the state read is at
 * the epoch the read brought (see {@link ShareCoordinator}).
 *
 * <p>Stateless; any thread.
 */
public final class ShareStateMessages {

    /** The start offset of a share-partition without state in a read answer. */
    private static final long NO_START_OFFSET = -1L;

    private ShareStateMessages() {
    }

    // ---------------------------------------------------------------------------------------------------------
    // The persister's side

    static ReadShareGroupStateRequest.Builder readRequest(ShareKey key, int leaderEpoch) {
        return new ReadShareGroupStateRequest.Builder(new ReadShareGroupStateRequestData().setGroupId(key.groupId())
                .setTopics(List.of(new ReadShareGroupStateRequestData.ReadStateData().setTopicId(key.topicId())
                        .setPartitions(List.of(new ReadShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()).setLeaderEpoch(leaderEpoch))))));
    }

    static WriteShareGroupStateRequest.Builder writeRequest(ShareKey key, ShareState state) {
        List<WriteShareGroupStateRequestData.StateBatch> batches = new ArrayList<>(state.batches().size());
        for (StateBatch batch : state.batches()) {
            batches.add(new WriteShareGroupStateRequestData.StateBatch().setFirstOffset(batch.firstOffset())
                    .setLastOffset(batch.lastOffset()).setDeliveryState(batch.state().code)
                    .setDeliveryCount(batch.deliveryCount()));
        }
        return new WriteShareGroupStateRequest.Builder(new WriteShareGroupStateRequestData().setGroupId(key.groupId())
                .setTopics(List.of(new WriteShareGroupStateRequestData.WriteStateData().setTopicId(key.topicId())
                        .setPartitions(List.of(new WriteShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()).setStateEpoch(state.stateEpoch())
                                .setLeaderEpoch(state.leaderEpoch()).setStartOffset(state.startOffset())
                                .setStateBatches(batches))))));
    }

    static DeleteShareGroupStateRequest.Builder deleteRequest(ShareKey key) {
        return new DeleteShareGroupStateRequest.Builder(new DeleteShareGroupStateRequestData()
                .setGroupId(key.groupId())
                .setTopics(List.of(new DeleteShareGroupStateRequestData.DeleteStateData().setTopicId(key.topicId())
                        .setPartitions(List.of(new DeleteShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()))))));
    }

    static ReadShareGroupStateSummaryRequest.Builder readSummaryRequest(ShareKey key) {
        // Leader epoch -1: the summary read fences no leader (Kafka's admin client sends the same).
        return new ReadShareGroupStateSummaryRequest.Builder(new ReadShareGroupStateSummaryRequestData()
                .setGroupId(key.groupId())
                .setTopics(List.of(new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(new ReadShareGroupStateSummaryRequestData.PartitionData()
                                .setPartition(key.partition()).setLeaderEpoch(-1))))));
    }

    static InitializeShareGroupStateRequest.Builder initializeRequest(ShareKey key, int stateEpoch,
                                                                       long startOffset) {
        return new InitializeShareGroupStateRequest.Builder(new InitializeShareGroupStateRequestData()
                .setGroupId(key.groupId())
                .setTopics(List.of(new InitializeShareGroupStateRequestData.InitializeStateData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(new InitializeShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition()).setStateEpoch(stateEpoch)
                                .setStartOffset(startOffset))))));
    }

    /**
     * The answer for {@code key} in a summary response. The summary has no batches: the state answered has its
     * start offset and epochs only, and its in-flight records are not known (use {@link #deliveryCompleteCount} on
     * the coordinator's side before it is sent).
     */
    static ReadResult readSummaryResult(ReadShareGroupStateSummaryResponseData response, ShareKey key) {
        for (ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult topic : response.results()) {
            for (ReadShareGroupStateSummaryResponseData.PartitionResult partition : topic.partitions()) {
                if (!topic.topicId().equals(key.topicId()) || partition.partition() != key.partition()) {
                    continue;
                }
                Errors error = Errors.forCode(partition.errorCode());
                if (error != Errors.NONE) {
                    return ReadResult.failed(error, partition.errorMessage());
                }
                if (partition.startOffset() == NO_START_OFFSET) {
                    return new ReadResult(Errors.NONE, null, Optional.empty());
                }
                return new ReadResult(Errors.NONE, null, Optional.of(new ShareState(partition.stateEpoch(),
                        partition.leaderEpoch(), partition.startOffset(),
                        summaryBatches(partition.startOffset(), partition.deliveryCompleteCount()))));
            }
        }
        return ReadResult.failed(Errors.UNKNOWN_SERVER_ERROR, "The share coordinator's answer has no " + key);
    }

    /**
     * A summary carries only how many records at or after the start offset are done; it is kept as one archived
     * batch of that many records after the start offset, so that {@link #deliveryCompleteCount} gives it back.
     */
    private static List<StateBatch> summaryBatches(long startOffset, int deliveryCompleteCount) {
        if (deliveryCompleteCount <= 0) {
            return List.of();
        }
        return List.of(new StateBatch(startOffset, startOffset + deliveryCompleteCount - 1, RecordState.ARCHIVED,
                (short) 0));
    }

    static Errors initializeError(InitializeShareGroupStateResponseData response, ShareKey key) {
        for (InitializeShareGroupStateResponseData.InitializeStateResult topic : response.results()) {
            for (InitializeShareGroupStateResponseData.PartitionResult partition : topic.partitions()) {
                if (topic.topicId().equals(key.topicId()) && partition.partition() == key.partition()) {
                    return Errors.forCode(partition.errorCode());
                }
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /** The answer for {@code key} in a read response; the state is at {@code leaderEpoch}, the epoch read with. */
    static ReadResult readResult(ReadShareGroupStateResponseData response, ShareKey key, int leaderEpoch) {
        for (ReadShareGroupStateResponseData.ReadStateResult topic : response.results()) {
            if (!topic.topicId().equals(key.topicId())) {
                continue;
            }
            for (ReadShareGroupStateResponseData.PartitionResult partition : topic.partitions()) {
                if (partition.partition() != key.partition()) {
                    continue;
                }
                Errors error = Errors.forCode(partition.errorCode());
                if (error != Errors.NONE) {
                    return ReadResult.failed(error, partition.errorMessage());
                }
                if (partition.startOffset() == NO_START_OFFSET && partition.stateBatches().isEmpty()) {
                    return new ReadResult(Errors.NONE, null, Optional.empty());
                }
                List<StateBatch> batches = new ArrayList<>(partition.stateBatches().size());
                try {
                    for (ReadShareGroupStateResponseData.StateBatch batch : partition.stateBatches()) {
                        batches.add(new StateBatch(batch.firstOffset(), batch.lastOffset(),
                                RecordState.forCode(batch.deliveryState()), batch.deliveryCount()));
                    }
                } catch (IllegalArgumentException e) {
                    return ReadResult.failed(Errors.UNKNOWN_SERVER_ERROR, "The share coordinator answered "
                            + e.getMessage() + " for " + key);
                }
                return new ReadResult(Errors.NONE, null, Optional.of(new ShareState(partition.stateEpoch(),
                        leaderEpoch, partition.startOffset(), batches)));
            }
        }
        return ReadResult.failed(Errors.UNKNOWN_SERVER_ERROR, "The share coordinator's answer has no " + key);
    }

    static Errors writeError(WriteShareGroupStateResponseData response, ShareKey key) {
        for (WriteShareGroupStateResponseData.WriteStateResult topic : response.results()) {
            for (WriteShareGroupStateResponseData.PartitionResult partition : topic.partitions()) {
                if (topic.topicId().equals(key.topicId()) && partition.partition() == key.partition()) {
                    return Errors.forCode(partition.errorCode());
                }
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    static Errors deleteError(DeleteShareGroupStateResponseData response, ShareKey key) {
        for (DeleteShareGroupStateResponseData.DeleteStateResult topic : response.results()) {
            for (DeleteShareGroupStateResponseData.PartitionResult partition : topic.partitions()) {
                if (topic.topicId().equals(key.topicId()) && partition.partition() == key.partition()) {
                    return Errors.forCode(partition.errorCode());
                }
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The coordinator's side

    /**
     * The state a write request carries for one share-partition.
     *
     * @throws IllegalArgumentException if a batch has an unknown delivery state or ends before it starts
     */
    public static ShareState stateOf(WriteShareGroupStateRequestData.PartitionData partition) {
        List<StateBatch> batches = new ArrayList<>(partition.stateBatches().size());
        for (WriteShareGroupStateRequestData.StateBatch batch : partition.stateBatches()) {
            if (batch.lastOffset() < batch.firstOffset()) {
                throw new IllegalArgumentException("The state batch from " + batch.firstOffset() + " to "
                        + batch.lastOffset() + " ends before it starts");
            }
            batches.add(new StateBatch(batch.firstOffset(), batch.lastOffset(),
                    RecordState.forCode(batch.deliveryState()), batch.deliveryCount()));
        }
        return new ShareState(partition.stateEpoch(), partition.leaderEpoch(), partition.startOffset(), batches);
    }

    /**
     * The records at or after the state's start offset whose delivery is complete (acknowledged or archived):
     * KIP-1226's DeliveryCompleteCount, which the lag of DescribeShareGroupOffsets subtracts.
     */
    public static int deliveryCompleteCount(ShareState state) {
        long count = 0;
        for (StateBatch batch : state.batches()) {
            if (batch.state() == RecordState.ACKNOWLEDGED || batch.state() == RecordState.ARCHIVED) {
                long first = Math.max(batch.firstOffset(), state.startOffset());
                if (batch.lastOffset() >= first) {
                    count += batch.lastOffset() - first + 1;
                }
            }
        }
        return (int) Math.min(count, Integer.MAX_VALUE);
    }

    /** One share-partition's answer to a summary read. */
    public static ReadShareGroupStateSummaryResponseData.PartitionResult readSummaryAnswer(int partition,
                                                                                           ReadResult result) {
        ReadShareGroupStateSummaryResponseData.PartitionResult answer =
                new ReadShareGroupStateSummaryResponseData.PartitionResult().setPartition(partition)
                        .setErrorCode(result.error().code()).setErrorMessage(result.errorMessage())
                        .setStartOffset(NO_START_OFFSET).setLeaderEpoch(-1).setStateEpoch(-1)
                        .setDeliveryCompleteCount(-1);
        result.state().ifPresent(state -> answer.setStateEpoch(state.stateEpoch())
                .setLeaderEpoch(state.leaderEpoch()).setStartOffset(state.startOffset())
                .setDeliveryCompleteCount(deliveryCompleteCount(state)));
        return answer;
    }

    /** One share-partition's answer to a read. */
    public static ReadShareGroupStateResponseData.PartitionResult readAnswer(int partition, ReadResult result) {
        ReadShareGroupStateResponseData.PartitionResult answer =
                new ReadShareGroupStateResponseData.PartitionResult().setPartition(partition)
                        .setErrorCode(result.error().code()).setErrorMessage(result.errorMessage())
                        .setStartOffset(NO_START_OFFSET);
        result.state().ifPresent(state -> {
            List<ReadShareGroupStateResponseData.StateBatch> batches = new ArrayList<>(state.batches().size());
            for (StateBatch batch : state.batches()) {
                batches.add(new ReadShareGroupStateResponseData.StateBatch().setFirstOffset(batch.firstOffset())
                        .setLastOffset(batch.lastOffset()).setDeliveryState(batch.state().code)
                        .setDeliveryCount(batch.deliveryCount()));
            }
            answer.setStateEpoch(state.stateEpoch()).setStartOffset(state.startOffset()).setStateBatches(batches);
        });
        return answer;
    }
}
