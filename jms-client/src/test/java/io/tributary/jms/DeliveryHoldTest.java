package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class DeliveryHoldTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final DeliveryHold hold = new DeliveryHold();
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();

    @Test
    void recordsBehindAHeldRecordWaitWithIt() {
        hold.hold(P0, record(P0, 5), 1_000);
        assertTrue(hold.holdBehind(record(P0, 6)));
        assertFalse(hold.holdBehind(record(P1, 9)), "another partition is not held");
        assertTrue(hold.releaseDue(999, buffer).isEmpty());
        assertEquals(List.of(P0), hold.releaseDue(1_000, buffer));
        assertEquals(List.of(5L, 6L), buffer.stream().map(ConsumerRecord::offset).toList());
        assertFalse(hold.isHeld(P0));
    }

    @Test
    void releasedRecordsGoBeforeTheOnesBufferedMeanwhile() {
        hold.hold(P0, record(P0, 5), 1_000);
        buffer.add(record(P1, 9));
        hold.releaseDue(2_000, buffer);
        assertEquals(List.of(5L, 9L), buffer.stream().map(ConsumerRecord::offset).toList());
    }

    @Test
    void aPollWaitsNoLongerThanTheFirstDeliveryTime() {
        assertEquals(100, hold.pollWaitMs(100, 1_000));
        hold.hold(P0, record(P0, 5), 1_030);
        hold.hold(P1, record(P1, 9), 1_010);
        assertEquals(10, hold.pollWaitMs(100, 1_000));
        assertEquals(0, hold.pollWaitMs(100, 2_000));
    }

    @Test
    void releasingAllReturnsWhereEachHeldPartitionResumes() {
        hold.hold(P0, record(P0, 5), 1_000);
        hold.holdBehind(record(P0, 6));
        assertEquals(Map.of(P0, 5L), hold.releaseAll());
        assertFalse(hold.isHeld(P0));
        assertFalse(hold.holdBehind(record(P0, 7)));
    }

    @Test
    void afterAPausedPollOnlyPartitionsNeitherPausedBeforeNorHeldResume() {
        TopicPartition p2 = new TopicPartition("orders", 2);
        hold.hold(P0, record(P0, 5), 1_000);
        assertEquals(List.of(p2), hold.toResume(List.of(P0, P1, p2), Set.of(P1)));
    }

    @Test
    void forgottenPartitionsAreNoLongerHeld() {
        hold.hold(P0, record(P0, 5), 1_000);
        hold.forget(List.of(P0));
        assertFalse(hold.isHeld(P0));
        assertEquals(100, hold.pollWaitMs(100, 0));
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, new byte[0], new byte[0]);
    }
}
