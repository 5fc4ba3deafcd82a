package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Consumer groups as the integration tests drive and observe them: group consumers polled in turn on the test thread,
 * and the coordinator's view of a group through the Admin client (describe, committed offsets), compared with what
 * the consumers themselves hold.
 *
 * <p>Test thread only: a {@link KafkaConsumer} must not be used from two threads, and every consumer passed here is
 * polled from the caller's thread.
 */
final class Groups {

    /** Short, so that one poll does not keep the other members of a rebalance waiting. */
    private static final Duration POLL = Duration.ofMillis(50);

    private Groups() {
    }

    /**
     * Polls each consumer in turn until {@code condition} holds. A rebalance completes only when every member has
     * rejoined, and a classic consumer rejoins only inside {@code poll}, so all members must be polled; records
     * returned are dropped.
     */
    static void pollUntil(List<KafkaConsumer<String, String>> consumers, BooleanSupplier condition,
                          Supplier<String> whatWasExpected) {
        pollUntil(Waits.DEADLINE, consumers, condition, whatWasExpected);
    }

    static void pollUntil(Duration limit, List<KafkaConsumer<String, String>> consumers, BooleanSupplier condition,
                          Supplier<String> whatWasExpected) {
        await(limit).untilAsserted(() -> assertTrue(() -> {
            for (KafkaConsumer<String, String> consumer : consumers) {
                consumer.poll(POLL);
            }
            return condition.getAsBoolean();
        }, whatWasExpected));
    }

    /**
     * Polls the consumers in turn until the group is Stable with exactly these members (by client id), each holding
     * the assignment the coordinator describes for it, and the assignments together cover {@code partitions}; returns
     * the assignments by client id.
     */
    static Map<String, Set<TopicPartition>> pollUntilStable(Admin admin, String groupId,
                                                            Map<String, KafkaConsumer<String, String>> byClientId,
                                                            Set<TopicPartition> partitions) {
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>(byClientId.values());
        pollUntil(consumers, () -> stableAs(admin, groupId, byClientId, partitions),
                () -> "group " + groupId + " stable with " + byClientId.keySet() + " covering " + partitions
                        + "; described " + describeIfExists(admin, groupId) + "; consumers hold " + held(byClientId));
        Map<String, Set<TopicPartition>> assignments = new TreeMap<>();
        byClientId.forEach((clientId, consumer) -> assignments.put(clientId, Set.copyOf(consumer.assignment())));
        return assignments;
    }

    /**
     * Whether the group is Stable with exactly these members (by client id), each consumer holds what the coordinator
     * describes as its assignment, and the assignments are disjoint and together are {@code partitions}.
     */
    static boolean stableAs(Admin admin, String groupId, Map<String, KafkaConsumer<String, String>> byClientId,
                            Set<TopicPartition> partitions) {
        Optional<ConsumerGroupDescription> group = describeIfExists(admin, groupId);
        if (group.isEmpty() || group.get().groupState() != GroupState.STABLE) {
            return false;
        }
        Map<String, Set<TopicPartition>> described = assignmentsByClientId(group.get());
        if (!described.keySet().equals(byClientId.keySet())) {
            return false;
        }
        Set<TopicPartition> union = new HashSet<>();
        int total = 0;
        for (Map.Entry<String, Set<TopicPartition>> member : described.entrySet()) {
            if (!member.getValue().equals(byClientId.get(member.getKey()).assignment())) {
                return false;
            }
            union.addAll(member.getValue());
            total += member.getValue().size();
        }
        return union.equals(partitions) && total == partitions.size();
    }

    /** The coordinator's description of the group. */
    static ConsumerGroupDescription describe(Admin admin, String groupId) {
        try {
            return admin.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("describing group " + groupId, e);
        }
    }

    /**
     * The coordinator's description of the group, or empty while there is no such group: before its first member
     * joins, a coordinator answers DescribeGroups with state Dead (Kafka's classic coordinator) or with
     * GROUP_ID_NOT_FOUND (DescribeGroups v6 and later).
     */
    static Optional<ConsumerGroupDescription> describeIfExists(Admin admin, String groupId) {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId)).describedGroups()
                    .get(groupId).get();
            return group.groupState() == GroupState.DEAD ? Optional.empty() : Optional.of(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Optional.empty();
            }
            throw new AssertionError("describing group " + groupId, e);
        } catch (InterruptedException e) {
            throw new AssertionError("describing group " + groupId, e);
        }
    }

    /** Each member's assignment as the coordinator describes it, by client id (fails on two members with one id). */
    static Map<String, Set<TopicPartition>> assignmentsByClientId(ConsumerGroupDescription group) {
        Map<String, Set<TopicPartition>> byClientId = new TreeMap<>();
        for (MemberDescription member : group.members()) {
            if (byClientId.put(member.clientId(), Set.copyOf(member.assignment().topicPartitions())) != null) {
                throw new AssertionError("two members with client id " + member.clientId() + " in " + group);
            }
        }
        return byClientId;
    }

    /** The group's committed offsets as the Admin client lists them; partitions without one are left out. */
    static Map<TopicPartition, Long> committed(Admin admin, String groupId) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        committedWithMetadata(admin, groupId).forEach((tp, committed) -> offsets.put(tp, committed.offset()));
        return offsets;
    }

    /** As {@link #committed}, with the metadata committed alongside each offset. */
    static Map<TopicPartition, OffsetAndMetadata> committedWithMetadata(Admin admin, String groupId) {
        try {
            Map<TopicPartition, OffsetAndMetadata> listed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            // The client lists a partition without a committed offset as null.
            listed.forEach((tp, committed) -> {
                if (committed != null) {
                    offsets.put(tp, committed);
                }
            });
            return offsets;
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("listing the offsets of group " + groupId, e);
        }
    }

    /**
     * Polls a group consumer until it holds every partition of {@code ends} and its position has reached each end
     * offset; returns the records read, by partition, in the order read.
     */
    static Map<TopicPartition, List<ConsumerRecord<String, String>>> readToEnds(
            KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new LinkedHashMap<>();
        ends.keySet().forEach(tp -> read.put(tp, new ArrayList<>()));
        await().untilAsserted(() -> assertTrue(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                read.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), tp -> new ArrayList<>())
                        .add(record);
            }
            return consumer.assignment().containsAll(ends.keySet())
                    && ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
        }, () -> "the group consumer reading up to " + ends + "; it holds " + consumer.assignment()));
        return read;
    }

    /** The offsets of the records read, by partition. */
    static Map<TopicPartition, List<Long>> offsets(Map<TopicPartition, List<ConsumerRecord<String, String>>> read) {
        Map<TopicPartition, List<Long>> offsets = new HashMap<>();
        read.forEach((tp, records) -> offsets.put(tp, records.stream().map(ConsumerRecord::offset).toList()));
        return offsets;
    }

    /** The offsets from {@code from} (inclusive) to {@code to} (exclusive). */
    static List<Long> range(long from, long to) {
        List<Long> offsets = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            offsets.add(offset);
        }
        return offsets;
    }

    private static Map<String, Set<TopicPartition>> held(Map<String, KafkaConsumer<String, String>> byClientId) {
        Map<String, Set<TopicPartition>> held = new TreeMap<>();
        byClientId.forEach((clientId, consumer) -> held.put(clientId, consumer.assignment()));
        return held;
    }
}
