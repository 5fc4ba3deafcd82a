package io.tributary.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

import io.tributary.broker.group.ShareGroupContext.TopicShape;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The share assignor: coverage, balance, sharing when members outnumber partitions, and stability. */
class ShareAssignorTest {

    private static final Uuid ONE_ID = Uuid.randomUuid();
    private static final Uuid FOUR_ID = Uuid.randomUuid();
    private static final Map<String, TopicShape> TOPICS = Map.of(
            "one", new TopicShape(ONE_ID, 1), "four", new TopicShape(FOUR_ID, 4));

    private static Map<String, Set<String>> subscribed(List<String> members, String... topics) {
        Map<String, Set<String>> subscriptions = new LinkedHashMap<>();
        members.forEach(m -> subscriptions.put(m, Set.of(topics)));
        return subscriptions;
    }

    private static Map<String, Map<Uuid, Set<Integer>>> asPrevious(
            SortedMap<String, SortedMap<Uuid, SortedSet<Integer>>> assignment) {
        Map<String, Map<Uuid, Set<Integer>>> previous = new HashMap<>();
        assignment.forEach((member, topics) -> previous.put(member, new HashMap<>(topics)));
        return previous;
    }

    @Test
    void threeMembersShareAOnePartitionTopicAndSplitAFourPartitionTopic() {
        var assignment = ShareAssignor.assign(subscribed(List.of("a", "b", "c"), "one", "four"), TOPICS, Map.of());

        for (String member : List.of("a", "b", "c")) {
            assertEquals(Set.of(0), assignment.get(member).get(ONE_ID), member + " gets the only partition");
        }
        assertEquals(Set.of(0, 1), assignment.get("a").get(FOUR_ID));
        assertEquals(Set.of(2), assignment.get("b").get(FOUR_ID));
        assertEquals(Set.of(3), assignment.get("c").get(FOUR_ID));
    }

    @Test
    void moreMembersThanPartitionsGivesMemberIPartitionIModP() {
        Map<String, TopicShape> two = Map.of("two", new TopicShape(ONE_ID, 2));
        var assignment = ShareAssignor.assign(subscribed(List.of("m1", "m2", "m3", "m4", "m5"), "two"), two,
                Map.of());

        assertEquals(List.of(0, 1, 0, 1, 0), List.of("m1", "m2", "m3", "m4", "m5").stream()
                .map(m -> assignment.get(m).get(ONE_ID).first()).toList());
    }

    @Test
    void everyPartitionGoesToExactlyOneMemberWhenMembersAreFewer() {
        Map<String, TopicShape> seven = Map.of("seven", new TopicShape(FOUR_ID, 7));
        var assignment = ShareAssignor.assign(subscribed(List.of("a", "b", "c"), "seven"), seven, Map.of());

        Set<Integer> seen = new HashSet<>();
        for (var topics : assignment.values()) {
            Set<Integer> partitions = topics.get(FOUR_ID);
            assertTrue(partitions.size() == 2 || partitions.size() == 3, "balanced: " + assignment);
            partitions.forEach(p -> assertTrue(seen.add(p), "partition " + p + " assigned twice: " + assignment));
        }
        assertEquals(7, seen.size());
    }

    @Test
    void aJoiningMemberTakesOnlyWhatBalanceRequiresFromTheOthers() {
        var before = ShareAssignor.assign(subscribed(List.of("a", "b"), "four"), TOPICS, Map.of());
        var after = ShareAssignor.assign(subscribed(List.of("a", "b", "c"), "four"), TOPICS, asPrevious(before));

        assertTrue(before.get("a").get(FOUR_ID).containsAll(after.get("a").get(FOUR_ID)), "a keeps what it keeps");
        assertTrue(before.get("b").get(FOUR_ID).containsAll(after.get("b").get(FOUR_ID)), "b keeps what it keeps");
        assertEquals(1, after.get("c").get(FOUR_ID).size());
        int moved = 0;
        for (String member : List.of("a", "b")) {
            moved += before.get(member).get(FOUR_ID).size() - after.get(member).get(FOUR_ID).size();
        }
        assertEquals(1, moved, "one partition moves to the new member");
    }

    @Test
    void unknownTopicsAndUnsubscribedMembersGetNothing() {
        Map<String, Set<String>> subscriptions = new LinkedHashMap<>();
        subscriptions.put("a", Set.of("missing"));
        subscriptions.put("b", Set.of("four"));
        var assignment = ShareAssignor.assign(subscriptions, TOPICS, Map.of());

        assertEquals(Map.of(), assignment.get("a"));
        assertEquals(Set.of(0, 1, 2, 3), assignment.get("b").get(FOUR_ID));
    }
}
