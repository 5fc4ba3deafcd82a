package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class AcknowledgementTrackerTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final AcknowledgementTracker tracker = new AcknowledgementTracker("definition");

    @Test
    void nothingIsUnacknowledgedBeforeADelivery() {
        tracker.startAt(P0, 7);
        assertTrue(tracker.unacknowledgedPositions().isEmpty());
    }

    @Test
    void theDeliveredPositionIsCommittedWithTheSubscriptionsMetadata() {
        tracker.consumed(P0, 3);
        tracker.consumed(P0, 4);
        assertEquals(Map.of(P0, new OffsetAndMetadata(5, "definition")), tracker.unacknowledgedPositions());
    }

    @Test
    void acknowledgedPositionsAreNotCommittedAgain() {
        tracker.consumed(P0, 3);
        tracker.markAcknowledged(tracker.unacknowledgedPositions());
        assertTrue(tracker.unacknowledgedPositions().isEmpty());
        tracker.consumed(P1, 0);
        assertEquals(Map.of(P1, new OffsetAndMetadata(1, "definition")), tracker.unacknowledgedPositions());
    }

    @Test
    void aRedeliveryCountsOnUntilAcknowledged() {
        tracker.consumed(P0, 3);
        assertEquals(1, tracker.countDelivery(P0, 3));
        assertEquals(Map.of(P0, 3L), tracker.rewind());
        tracker.consumed(P0, 3);
        assertEquals(2, tracker.countDelivery(P0, 3));
        tracker.markAcknowledged(tracker.unacknowledgedPositions());
        tracker.consumed(P0, 3); // a seek back past the acknowledgement, e.g. a replay: counted afresh
        assertEquals(1, tracker.countDelivery(P0, 3));
    }

    @Test
    void rewindGoesBackToTheAcknowledgedPositionOnlyWhereSomethingIsUnacknowledged() {
        tracker.consumed(P0, 3);
        tracker.markAcknowledged(tracker.unacknowledgedPositions());
        tracker.consumed(P1, 10);
        tracker.consumed(P1, 11);
        assertEquals(Map.of(P1, 10L), tracker.rewind());
        assertTrue(tracker.unacknowledgedPositions().isEmpty());
    }

    @Test
    void forgottenPartitionsHaveNothingToCommit() {
        tracker.consumed(P0, 3);
        tracker.consumed(P1, 4);
        tracker.forget(List.of(P0));
        assertEquals(Map.of(P1, new OffsetAndMetadata(5, "definition")), tracker.unacknowledgedPositions());
    }
}
