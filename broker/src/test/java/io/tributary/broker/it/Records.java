package io.tributary.broker.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Records as the tests compare them: everything a consumer can observe of one record, as a value type, so that a
 * reference list built from what was produced can be compared with what was read by {@code assertEquals}.
 */
final class Records {

    private Records() {
    }

    /** One record as read back (or as expected to be read back). Header values are compared as strings. */
    record Observed(int partition, long offset, String key, String value, long timestamp, TimestampType timestampType,
                    List<String> headers) {

        static Observed of(ConsumerRecord<String, String> record) {
            List<String> headers = new ArrayList<>();
            for (Header header : record.headers()) {
                headers.add(header.key() + "=" + (header.value() == null ? null
                        : new String(header.value(), StandardCharsets.UTF_8)));
            }
            return new Observed(record.partition(), record.offset(), record.key(), record.value(),
                    record.timestamp(), record.timestampType(), headers);
        }
    }

    /**
     * Assigns {@code partitions} (of one topic), seeks to their beginning and polls until the consumer's position
     * has reached each partition's end offset as it is now; returns every record read, by partition number, in the
     * order read.
     */
    static Map<Integer, List<ConsumerRecord<String, String>>> readToEnd(KafkaConsumer<String, String> consumer,
                                                                        Collection<TopicPartition> partitions) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return readFromPositionToEnd(consumer, partitions);
    }

    /** Polls the (already assigned and positioned) consumer until each partition's current end offset. */
    static Map<Integer, List<ConsumerRecord<String, String>>> readFromPositionToEnd(
            KafkaConsumer<String, String> consumer, Collection<TopicPartition> partitions) {
        Map<Integer, List<ConsumerRecord<String, String>>> byNumber = new TreeMap<>();
        readUntilEnd(consumer, partitions).forEach((tp, records) -> byNumber.put(tp.partition(), records));
        return byNumber;
    }

    /** As {@link #readToEnd}, for partitions of any topics; the result is keyed by topic-partition. */
    static Map<TopicPartition, List<ConsumerRecord<String, String>>> readAllToEnd(
            KafkaConsumer<String, String> consumer, Collection<TopicPartition> partitions) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return readUntilEnd(consumer, partitions);
    }

    private static Map<TopicPartition, List<ConsumerRecord<String, String>>> readUntilEnd(
            KafkaConsumer<String, String> consumer, Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new LinkedHashMap<>();
        partitions.forEach(tp -> read.put(tp, new ArrayList<>()));
        await().untilAsserted(() -> assertTrue(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                read.get(new TopicPartition(record.topic(), record.partition())).add(record);
            }
            return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
        }, () -> "reading up to the end offsets " + ends + "; read " + counts(read)));
        return read;
    }

    /**
     * Asserts that two lists of records are equal; on a difference, the message shows the first differing record
     * only (whole lists of records make unreadable failure messages).
     */
    static void assertSameRecords(List<Observed> expected, List<Observed> actual, String what) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                fail(what + ": record " + i + " of " + expected.size() + " expected " + abbreviate(expected.get(i))
                        + " but read " + abbreviate(actual.get(i)));
            }
        }
        if (expected.size() != actual.size()) {
            fail(what + ": expected " + expected.size() + " records, read " + actual.size() + "; first extra: "
                    + abbreviate(expected.size() > actual.size() ? expected.get(actual.size())
                    : actual.get(expected.size())));
        }
    }

    private static String abbreviate(Observed record) {
        String text = record.toString();
        return text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }

    private static Map<TopicPartition, Integer> counts(Map<TopicPartition, List<ConsumerRecord<String, String>>> read) {
        Map<TopicPartition, Integer> counts = new LinkedHashMap<>();
        read.forEach((tp, records) -> counts.put(tp, records.size()));
        return counts;
    }

    static List<TopicPartition> partitions(String topic, int count) {
        TopicPartition[] result = new TopicPartition[count];
        for (int i = 0; i < count; i++) {
            result[i] = new TopicPartition(topic, i);
        }
        return Arrays.asList(result);
    }
}
