package io.tributary.broker.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;

/**
 * Consumer lag as the broker sees it, computed at scrape time, under the names of the Kafka exporter that dashboards
 * use: per classic group, topic and partition {@code kafka_consumergroup_current_offset} (the committed offset) and
 * {@code kafka_consumergroup_lag} (end minus committed, never below 0), and per group
 * {@code kafka_consumergroup_lag_sum}.
 *
 * <p>The rule. The groups are those whose coordinator is this broker, so each group appears on exactly one broker of
 * a cluster. The end is the partition's high watermark, as {@code kafka-consumer-groups.sh} takes it: read from the
 * local replica when this broker hosts the partition (its leader's is exact; a follower's is the one it last learnt
 * from the leader, at most one replica fetch behind). A partition with no local replica has no lag line, only its
 * current offset: the scrape makes no remote call. Which partitions have local ends is the caller's (an
 * {@code endOffsets} function that answers empty for the others).
 *
 * <p>Share groups ({@link Kind#SHARE}) have the same shape under {@code kafka_sharegroup_start_offset},
 * {@code kafka_sharegroup_lag} and {@code kafka_sharegroup_lag_sum}: the share-partition start offset (below it every
 * record is acknowledged or archived) instead of a committed offset, from the share-partitions this broker leads
 * (where the start offsets live), so each share-partition appears on its leader; the end is the leader's high
 * watermark. Records in flight between the start offset and the end count as lag.
 *
 * <p>Stateless; {@link #collect} runs on the scrape's thread.
 */
final class ConsumerLag {

    /** Whose offsets: classic consumer groups' committed offsets, or share groups' start offsets. */
    enum Kind {
        CONSUMER("kafka_consumergroup", "current_offset"), SHARE("kafka_sharegroup", "start_offset");

        private final String prefix;
        private final String offsetName;

        Kind(String prefix, String offsetName) {
            this.prefix = prefix;
            this.offsetName = offsetName;
        }
    }

    private final Kind kind;

    private final Supplier<Map<String, Map<TopicPartition, Long>>> committedOffsets;
    private final Function<TopicPartition, OptionalLong> endOffsets;

    /**
     * @param kind             consumer groups or share groups
     * @param committedOffsets committed offsets (share-partition start offsets) by group
     * @param endOffsets       a partition's high watermark, if known locally
     */
    ConsumerLag(Kind kind, Supplier<Map<String, Map<TopicPartition, Long>>> committedOffsets,
                Function<TopicPartition, OptionalLong> endOffsets) {
        this.kind = kind;
        this.committedOffsets = committedOffsets;
        this.endOffsets = endOffsets;
    }

    void collect(PrometheusText text) {
        for (Map.Entry<String, Map<TopicPartition, Long>> group : committedOffsets.get().entrySet()) {
            long lagSum = 0;
            boolean anyLag = false;
            for (Map.Entry<TopicPartition, Long> committed : group.getValue().entrySet()) {
                TopicPartition tp = committed.getKey();
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put("group", group.getKey());
                labels.put("topic", tp.topic());
                labels.put("partition", Integer.toString(tp.partition()));
                text.add(kind.prefix + "_" + kind.offsetName, labels, PrometheusText.Type.GAUGE,
                        committed.getValue());
                OptionalLong end = endOffsets.apply(tp);
                if (end.isPresent()) {
                    long lag = lag(end.getAsLong(), committed.getValue());
                    text.add(kind.prefix + "_lag", labels, PrometheusText.Type.GAUGE, lag);
                    lagSum += lag;
                    anyLag = true;
                }
            }
            if (anyLag) {
                text.add(kind.prefix + "_lag_sum", Map.of("group", group.getKey()), PrometheusText.Type.GAUGE,
                        lagSum);
            }
        }
    }

    /** End minus committed; 0 when the commit is ahead (a follower's stale end, or a commit past the end). */
    static long lag(long endOffset, long committedOffset) {
        return Math.max(0, endOffset - committedOffset);
    }
}
