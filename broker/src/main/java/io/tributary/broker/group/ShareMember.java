package io.tributary.broker.group;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;

/**
 * One member of a share group: its epochs, subscription, the assignment it was last given, and its session.
 *
 * <p>Not thread-safe: guarded by its {@link ShareGroup}'s monitor.
 */
final class ShareMember {

    private final String memberId;
    /** The group epoch whose assignment the member has; the epoch before, accepted in case a response was lost. */
    int memberEpoch;
    int previousMemberEpoch;
    String clientId;
    String clientHost;
    String rackId;
    /** Sorted and immutable. */
    Set<String> subscribedTopicNames = Set.of();
    /** What the member was last given: topic id to partitions; immutable. */
    Map<Uuid, Set<Integer>> assignment = Map.of();
    /** When its last heartbeat arrived ({@code Time.milliseconds()}), and whether a session check is pending. */
    long lastHeartbeatMs;
    boolean sessionCheckScheduled;

    ShareMember(String memberId) {
        this.memberId = memberId;
    }

    String memberId() {
        return memberId;
    }
}
