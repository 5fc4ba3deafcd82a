package io.tributary.broker.group;

import java.util.Locale;
import java.util.Optional;

/**
 * The states of a classic consumer group, named as Kafka names them on the wire (DescribeGroups, ListGroups):
 * <ul>
 *   <li>{@code Empty}: no members; may still hold committed offsets.</li>
 *   <li>{@code PreparingRebalance}: waiting for every member to (re)join.</li>
 *   <li>{@code CompletingRebalance}: the join is done; waiting for the leader's assignment.</li>
 *   <li>{@code Stable}: every member has its assignment and heartbeats.</li>
 *   <li>{@code Dead}: deleted, expired, or moved to another coordinator.</li>
 * </ul>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String wireName;

    GroupState(String wireName) {
        this.wireName = wireName;
    }

    /** The name in DescribeGroups and ListGroups responses. */
    public String wireName() {
        return wireName;
    }

    /** A state by its wire name, ignoring case (ListGroups filters); empty for an unknown name. */
    public static Optional<GroupState> parse(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        for (GroupState state : values()) {
            if (state.wireName.toLowerCase(Locale.ROOT).equals(wanted)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
