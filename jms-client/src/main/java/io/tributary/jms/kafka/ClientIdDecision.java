package io.tributary.jms.kafka;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Which member of a client id's claim group holds the client id ({@link ClientIdAssignor}), decided by the group's
 * leader from the members of one generation:
 * <ol>
 *   <li>a member that already holds it keeps it: the leader if it holds, else the holder with the least member id
 *       (two holders meet only when a holder that stopped answering was dropped from the group, another member
 *       won, and the first one joined again before it learnt so: one of them must lose, and the leader is the one
 *       the coordinator kept);</li>
 *   <li>otherwise the leader: the coordinator makes the first member to join an empty group its leader and keeps it
 *       leader while it stays, so that of claimants that join together exactly one wins.</li>
 * </ol>
 * Every other member is refused.
 *
 * <p>Stateless; any thread.
 */
final class ClientIdDecision {

    /**
     * A member of the group as its join showed it.
     *
     * @param holding whether the member said it holds the client id (it was told so in an earlier generation)
     */
    record Member(String memberId, boolean holding) {
    }

    private ClientIdDecision() {
    }

    /**
     * The member id of the holder among {@code members}, or empty if there are none.
     *
     * @param leaderId the group's leader, the member deciding; null if it is not among {@code members}
     */
    static Optional<String> holder(String leaderId, Collection<Member> members) {
        Optional<Member> leader = members.stream().filter(m -> m.memberId().equals(leaderId)).findFirst();
        Comparator<Member> byId = Comparator.comparing(Member::memberId);
        boolean someoneHolds = members.stream().anyMatch(Member::holding);
        if (someoneHolds) {
            if (leader.isPresent() && leader.get().holding()) {
                return Optional.of(leaderId);
            }
            return members.stream().filter(Member::holding).min(byId).map(Member::memberId);
        }
        if (leader.isPresent()) {
            return Optional.of(leaderId);
        }
        return members.stream().min(byId).map(Member::memberId);
    }
}
