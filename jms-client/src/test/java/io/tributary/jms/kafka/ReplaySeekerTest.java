package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tributary.jms.StartPosition;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replay positions on a {@link MockConsumer} whose partitions hold offsets 10 to 19 (partition 0) and 0 to 4
 * (partition 1), each record's timestamp 1000 times its offset: the oracle for offsets by time.
 */
class ReplaySeekerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final Map<TopicPartition, Long> START = Map.of(P0, 10L, P1, 0L);
    private static final Map<TopicPartition, Long> END = Map.of(P0, 20L, P1, 5L);

    private TimedMockConsumer consumer;

    /** MockConsumer does not look up offsets by time: the first offset whose timestamp (1000 x offset) is late enough. */
    private static final class TimedMockConsumer extends MockConsumer<byte[], byte[]> {
        TimedMockConsumer() {
            super("none");
        }

        @Override
        public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> query,
                                                                       Duration timeout) {
            Map<TopicPartition, OffsetAndTimestamp> found = new HashMap<>();
            query.forEach((tp, time) -> {
                for (long offset = START.get(tp); offset < END.get(tp); offset++) {
                    if (offset * 1000 >= time) {
                        found.put(tp, new OffsetAndTimestamp(offset, offset * 1000));
                        return;
                    }
                }
                found.put(tp, null); // as KafkaConsumer answers for a time after the last record
            });
            return found;
        }
    }

    @BeforeEach
    void assignBothPartitionsAt3And2() {
        consumer = new TimedMockConsumer();
        consumer.assign(List.of(P0, P1));
        consumer.updateBeginningOffsets(START);
        consumer.updateEndOffsets(END);
        consumer.seek(P0, 13);
        consumer.seek(P1, 2);
    }

    private void assertPositions(long p0, long p1) {
        assertEquals(p0, consumer.position(P0), "partition 0");
        assertEquals(p1, consumer.position(P1), "partition 1");
    }

    @Test
    void committedMovesNothing() {
        assertEquals(List.of(), ReplaySeeker.seek(consumer, StartPosition.committed(), List.of(P0, P1), TIMEOUT));
        assertPositions(13, 2);
    }

    @Test
    void earliestAndLatestMoveEveryPartitionGiven() {
        assertEquals(Set.of(P0, P1), Set.copyOf(ReplaySeeker.seek(consumer, StartPosition.earliest(),
                List.of(P0, P1), TIMEOUT)));
        assertPositions(10, 0);
        assertEquals(List.of(P1), ReplaySeeker.seek(consumer, StartPosition.latest(), List.of(P1), TIMEOUT));
        assertPositions(10, 5);
    }

    @Test
    void noPartitionsMovesNoneEvenThoughKafkaReadsAnEmptyCollectionAsAll() {
        assertEquals(List.of(), ReplaySeeker.seek(consumer, StartPosition.earliest(), List.of(), TIMEOUT));
        assertEquals(List.of(), ReplaySeeker.seek(consumer, StartPosition.latest(), List.of(), TIMEOUT));
        assertPositions(13, 2);
    }

    @Test
    void aTimeMovesEachPartitionToItsFirstRecordThenOrElseToItsEnd() {
        List<?> moved = ReplaySeeker.seek(consumer, StartPosition.at(Instant.ofEpochMilli(15_500)), List.of(P0, P1),
                TIMEOUT);
        assertEquals(2, moved.size());
        assertPositions(16, 5);
        ReplaySeeker.seek(consumer, StartPosition.at(Instant.ofEpochMilli(0)), List.of(P0, P1), TIMEOUT);
        assertPositions(10, 0);
    }

    @Test
    void offsetsMoveOnlyThePartitionsTheyName() {
        List<TopicPartition> moved = ReplaySeeker.seek(consumer, StartPosition.offsets(Map.of(1, 4L, 7, 0L)),
                List.of(P0, P1), TIMEOUT);
        assertEquals(List.of(P1), moved);
        assertPositions(13, 4);
        assertTrue(ReplaySeeker.seek(consumer, StartPosition.parse("0:11"), List.of(P1), TIMEOUT).isEmpty(),
                "partition 0 is named but not among those given");
    }
}
