package io.tributary.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.OptionalLong;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Consumer lag from committed offsets and the partitions' ends known here. */
class ConsumerLagTest {

    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);

    @Test
    void lagIsTheHighWatermarkMinusTheCommittedOffsetPerPartitionAndSummedPerGroup() {
        Map<TopicPartition, Long> ends = Map.of(T0, 100L, T1, 40L);
        ConsumerLag lag = new ConsumerLag(ConsumerLag.Kind.CONSUMER, () -> Map.of("billing", Map.of(T0, 70L, T1, 40L)),
                tp -> ends.containsKey(tp) ? OptionalLong.of(ends.get(tp)) : OptionalLong.empty());
        PrometheusText text = new PrometheusText();
        lag.collect(text);
        String out = text.write();
        String partition0 = "{group=\"billing\",topic=\"orders\",partition=\"0\"}";
        String partition1 = "{group=\"billing\",topic=\"orders\",partition=\"1\"}";
        assertTrue(out.contains("kafka_consumergroup_lag" + partition0 + " 30\n"), out);
        assertTrue(out.contains("kafka_consumergroup_lag" + partition1 + " 0\n"), out);
        assertTrue(out.contains(
                "kafka_consumergroup_current_offset{group=\"billing\",topic=\"orders\",partition=\"0\"} 70\n"), out);
        assertTrue(out.contains("kafka_consumergroup_lag_sum{group=\"billing\"} 30\n"), out);
    }

    @Test
    void aPartitionWithoutALocalReplicaHasItsCurrentOffsetButNoLag() {
        ConsumerLag lag = new ConsumerLag(ConsumerLag.Kind.CONSUMER, () -> Map.of("billing", Map.of(T0, 70L)),
                tp -> OptionalLong.empty());
        PrometheusText text = new PrometheusText();
        lag.collect(text);
        String out = text.write();
        assertTrue(out.contains("kafka_consumergroup_current_offset{"), out);
        assertFalse(out.contains("kafka_consumergroup_lag"), out);
    }

    @Test
    void shareGroupLagIsTheHighWatermarkMinusTheShareStartOffsetUnderItsOwnNames() {
        ConsumerLag lag = new ConsumerLag(ConsumerLag.Kind.SHARE, () -> Map.of("workers", Map.of(T0, 90L)),
                tp -> OptionalLong.of(100L));
        PrometheusText text = new PrometheusText();
        lag.collect(text);
        String out = text.write();
        String labels = "{group=\"workers\",topic=\"orders\",partition=\"0\"}";
        assertTrue(out.contains("kafka_sharegroup_lag" + labels + " 10\n"), out);
        assertTrue(out.contains(
                "kafka_sharegroup_start_offset{group=\"workers\",topic=\"orders\",partition=\"0\"} 90\n"), out);
        assertFalse(out.contains("kafka_consumergroup"), out);
    }

    @Test
    void aCommitAheadOfAStaleEndIsNoLagRatherThanANegativeOne() {
        assertEquals(0, ConsumerLag.lag(10, 12));
        assertEquals(5, ConsumerLag.lag(17, 12));
    }
}
