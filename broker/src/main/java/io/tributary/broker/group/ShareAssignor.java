package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.tributary.broker.group.ShareGroupContext.TopicShape;
import org.apache.kafka.common.Uuid;

/**
 * The share-group assignor ({@code simple} on the wire, as Kafka names its share assignor): which partitions each
 * member of a share group fetches from. Share groups need no exclusive ownership (records, not partitions, are
 * handed out one consumer at a time by the share-partition leader), so the rules are about spreading load:
 * <ul>
 *   <li>every partition of every subscribed topic goes to at least one of the topic's subscribers;</li>
 *   <li>a topic with at least as many partitions as subscribers gives each partition to exactly one subscriber, each
 *       subscriber {@code floor(P/n)} or {@code ceil(P/n)} partitions, keeping a member's previous partitions as far
 *       as the balance allows (so a join or leave moves only the partitions it must), the others handed out in order
 *       (a fresh group gets contiguous ranges);</li>
 *   <li>a topic with more subscribers than partitions is shared: the i-th subscriber (members ordered by id) gets
 *       partition {@code i mod P}, so a one-partition topic goes to every subscriber.</li>
 * </ul>
 * Topics are balanced one at a time. Pure: no I/O, no state; any thread.
 */
final class ShareAssignor {

    static final String NAME = "simple";

    private ShareAssignor() {
    }

    /**
     * The target assignment.
     *
     * @param subscriptions member id to the topic names it subscribes to
     * @param topics        the subscribed topics that exist, by name; others are left out
     * @param previous      member id to its previous assignment (topic id to partitions), for stability
     * @return every member of {@code subscriptions}, each with its partitions by topic id (possibly none)
     */
    static SortedMap<String, SortedMap<Uuid, SortedSet<Integer>>> assign(Map<String, Set<String>> subscriptions,
            Map<String, TopicShape> topics, Map<String, Map<Uuid, Set<Integer>>> previous) {
        SortedMap<String, SortedMap<Uuid, SortedSet<Integer>>> result = new TreeMap<>();
        for (String memberId : subscriptions.keySet()) {
            result.put(memberId, new TreeMap<>());
        }
        for (Map.Entry<String, TopicShape> topic : new TreeMap<>(topics).entrySet()) {
            List<String> subscribers = new ArrayList<>();
            for (String memberId : result.keySet()) {
                if (subscriptions.get(memberId).contains(topic.getKey())) {
                    subscribers.add(memberId);
                }
            }
            int partitions = topic.getValue().partitionCount();
            if (subscribers.isEmpty() || partitions <= 0) {
                continue;
            }
            Uuid topicId = topic.getValue().topicId();
            Map<String, SortedSet<Integer>> assigned = subscribers.size() > partitions
                    ? shared(subscribers, partitions)
                    : balanced(subscribers, partitions, topicId, previous);
            assigned.forEach((memberId, parts) -> {
                if (!parts.isEmpty()) {
                    result.get(memberId).put(topicId, parts);
                }
            });
        }
        return result;
    }

    private static Map<String, SortedSet<Integer>> shared(List<String> subscribers, int partitions) {
        Map<String, SortedSet<Integer>> assigned = new TreeMap<>();
        for (int i = 0; i < subscribers.size(); i++) {
            assigned.put(subscribers.get(i), new TreeSet<>(Set.of(i % partitions)));
        }
        return assigned;
    }

    private static Map<String, SortedSet<Integer>> balanced(List<String> subscribers, int partitions, Uuid topicId,
                                                         Map<String, Map<Uuid, Set<Integer>>> previous) {
        int base = partitions / subscribers.size();
        int extra = partitions % subscribers.size();
        Map<String, SortedSet<Integer>> assigned = new TreeMap<>();
        Set<Integer> taken = new HashSet<>();
        // First the partitions members had, up to their share: base each, base + 1 for the first `extra` that had as
        // many.
        for (String memberId : subscribers) {
            SortedSet<Integer> kept = new TreeSet<>();
            Set<Integer> had = previous.getOrDefault(memberId, Map.of()).getOrDefault(topicId, Set.of());
            int limit = base + (extra > 0 ? 1 : 0);
            for (int partition : new TreeSet<>(had)) {
                if (kept.size() >= limit) {
                    break;
                }
                if (partition < partitions && taken.add(partition)) {
                    kept.add(partition);
                }
            }
            if (kept.size() > base) {
                extra--;
            }
            assigned.put(memberId, kept);
        }
        // Then the rest in order, each to the first member below its share: fresh members get ranges.
        for (int partition = 0; partition < partitions; partition++) {
            if (taken.contains(partition)) {
                continue;
            }
            for (String memberId : subscribers) {
                SortedSet<Integer> parts = assigned.get(memberId);
                if (parts.size() < base || (parts.size() == base && extra > 0)) {
                    if (parts.size() == base) {
                        extra--;
                    }
                    parts.add(partition);
                    break;
                }
            }
        }
        return assigned;
    }
}
