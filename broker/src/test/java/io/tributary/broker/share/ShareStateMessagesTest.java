package io.tributary.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;

import io.tributary.broker.share.ShareStatePersister.ReadResult;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The administrator's share coordinator messages (ReadShareGroupStateSummary, InitializeShareGroupState). */
class ShareStateMessagesTest {

    private static final ShareKey KEY = new ShareKey("g", Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), 2);

    private static ReadShareGroupStateSummaryResponseData response(
            ReadShareGroupStateSummaryResponseData.PartitionResult partition) {
        return new ReadShareGroupStateSummaryResponseData().setResults(List.of(
                new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult().setTopicId(KEY.topicId())
                        .setPartitions(List.of(partition))));
    }

    @Test
    void aSummaryCarriesTheStartOffsetEpochsAndTheRecordsDoneAfterIt() {
        ShareState state = new ShareState(4, 9, 20L, List.of(
                new SharePartition.StateBatch(20L, 21L, RecordState.AVAILABLE, (short) 1),
                new SharePartition.StateBatch(22L, 24L, RecordState.ACKNOWLEDGED, (short) 1)));
        var answer = ShareStateMessages.readSummaryAnswer(KEY.partition(),
                new ReadResult(Errors.NONE, null, Optional.of(state)));
        assertEquals(3, answer.deliveryCompleteCount());
        ShareState read = ShareStateMessages.readSummaryResult(response(answer), KEY).state().orElseThrow();
        assertEquals(4, read.stateEpoch());
        assertEquals(9, read.leaderEpoch());
        assertEquals(20L, read.startOffset());
        assertEquals(3, ShareStateMessages.deliveryCompleteCount(read));
    }

    @Test
    void aSummaryOfNoStateIsStartOffsetMinusOne() {
        var answer = ShareStateMessages.readSummaryAnswer(KEY.partition(),
                new ReadResult(Errors.NONE, null, Optional.empty()));
        assertEquals(-1L, answer.startOffset());
        assertEquals(Optional.empty(), ShareStateMessages.readSummaryResult(response(answer), KEY).state());
        var failed = ShareStateMessages.readSummaryAnswer(KEY.partition(),
                ReadResult.failed(Errors.NOT_COORDINATOR, null));
        assertEquals(Errors.NOT_COORDINATOR, ShareStateMessages.readSummaryResult(response(failed), KEY).error());
    }

    @Test
    void anInitializationNamesTheSharePartitionItsStateEpochAndStart() {
        InitializeShareGroupStateRequestData data = ShareStateMessages.initializeRequest(KEY, 3, 70L).build()
                .data();
        assertEquals("g", data.groupId());
        assertEquals(KEY.topicId(), data.topics().get(0).topicId());
        var partition = data.topics().get(0).partitions().get(0);
        assertEquals(List.of(2, 3, 70L), List.of(partition.partition(), partition.stateEpoch(),
                partition.startOffset()));
        assertEquals(Errors.FENCED_STATE_EPOCH, ShareStateMessages.initializeError(
                new InitializeShareGroupStateResponseData().setResults(List.of(
                        new InitializeShareGroupStateResponseData.InitializeStateResult().setTopicId(KEY.topicId())
                                .setPartitions(List.of(new InitializeShareGroupStateResponseData.PartitionResult()
                                        .setPartition(2).setErrorCode(Errors.FENCED_STATE_EPOCH.code()))))), KEY));
    }
}
