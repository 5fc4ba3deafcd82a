package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;

import io.tributary.jms.kafka.ClientIdDecision.Member;
import org.junit.jupiter.api.Test;

class ClientIdDecisionTest {

    @Test
    void ofClaimantsThatJoinedTogetherTheLeaderHoldsTheClientId() {
        assertEquals(Optional.of("b"), ClientIdDecision.holder("b",
                List.of(new Member("a", false), new Member("b", false), new Member("c", false))));
    }

    @Test
    void aHolderKeepsTheClientIdWhoeverLeads() {
        assertEquals(Optional.of("c"), ClientIdDecision.holder("a",
                List.of(new Member("a", false), new Member("c", true))));
    }

    @Test
    void ofTwoHoldersTheLeaderWinsAndOtherwiseTheLeastMemberId() {
        assertEquals(Optional.of("b"), ClientIdDecision.holder("b",
                List.of(new Member("a", true), new Member("b", true))));
        assertEquals(Optional.of("a"), ClientIdDecision.holder("c",
                List.of(new Member("b", true), new Member("a", true), new Member("c", false))));
    }

    @Test
    void aLeaderMissingFromTheMembersLeavesTheLeastMemberId() {
        assertEquals(Optional.of("a"), ClientIdDecision.holder(null,
                List.of(new Member("b", false), new Member("a", false))));
        assertEquals(Optional.empty(), ClientIdDecision.holder("x", List.of()));
    }
}
