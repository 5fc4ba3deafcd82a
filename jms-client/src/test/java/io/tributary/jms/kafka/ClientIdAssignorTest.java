package io.tributary.jms.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** The assignor's formats and the verdicts a leader hands out, with claimants that record what they are told. */
class ClientIdAssignorTest {

    /** A claim that records its verdicts. */
    private static final class RecordingClaimant implements ClientIdAssignor.Claimant {
        final String token;
        final boolean holding;
        final List<String> verdicts = new ArrayList<>();

        RecordingClaimant(String token, boolean holding) {
            this.token = token;
            this.holding = holding;
        }

        @Override
        public String token() {
            return token;
        }

        @Override
        public String description() {
            return "claimant " + token;
        }

        @Override
        public boolean holding() {
            return holding;
        }

        @Override
        public void verdict(boolean holder, String holderDescription) {
            verdicts.add((holder ? "holder" : "refused") + ", held by " + holderDescription);
        }
    }

    private static ClientIdAssignor assignorOf(ClientIdAssignor.Claimant claimant) {
        ClientIdAssignor assignor = new ClientIdAssignor();
        assignor.configure(Map.of(ClientIdAssignor.CLAIMANT_CONFIG, claimant));
        return assignor;
    }

    @Test
    void theLeaderMakesItselfHolderAndTellsTheOthersWhoHoldsTheClientId() {
        RecordingClaimant leader = new RecordingClaimant("t-leader", false);
        RecordingClaimant other = new RecordingClaimant("t-other", false);
        ClientIdAssignor leading = assignorOf(leader);
        ClientIdAssignor following = assignorOf(other);
        GroupAssignment assignment = leading.assign(Cluster.empty(), new GroupSubscription(Map.of(
                "m-2", new Subscription(List.of(), leading.subscriptionUserData(Set.of())),
                "m-1", new Subscription(List.of(), following.subscriptionUserData(Set.of())))));

        Assignment toLeader = assignment.groupAssignment().get("m-2");
        Assignment toOther = assignment.groupAssignment().get("m-1");
        assertTrue(toLeader.partitions().isEmpty() && toOther.partitions().isEmpty(), "no partitions, ever");
        leading.onAssignment(toLeader, null);
        following.onAssignment(toOther, null);
        assertEquals(List.of("holder, held by claimant t-leader"), leader.verdicts);
        assertEquals(List.of("refused, held by claimant t-leader"), other.verdicts);
    }

    @Test
    void aMemberThatHoldsKeepsTheClientIdAgainstANewLeader() {
        RecordingClaimant leader = new RecordingClaimant("t-new", false);
        ClientIdAssignor leading = assignorOf(leader);
        GroupAssignment assignment = leading.assign(Cluster.empty(), new GroupSubscription(Map.of(
                "m-1", new Subscription(List.of(), leading.subscriptionUserData(Set.of())),
                "m-2", new Subscription(List.of(), ClientIdAssignor.encodeClaim(true, "t-held", "the holder")))));

        assertEquals(new ClientIdAssignor.Verdict(false, "the holder"),
                ClientIdAssignor.decodeVerdict(assignment.groupAssignment().get("m-1").userData()));
        assertEquals(new ClientIdAssignor.Verdict(true, "the holder"),
                ClientIdAssignor.decodeVerdict(assignment.groupAssignment().get("m-2").userData()));
    }

    @Test
    void claimsAndVerdictsReadBackAndUnreadableOnesNeitherHoldNorWin() {
        assertEquals(new ClientIdAssignor.Claim(true, "token", "connection c in process 1@host"),
                ClientIdAssignor.decodeClaim(ClientIdAssignor.encodeClaim(true, "token",
                        "connection c in process 1@host")));
        assertEquals(new ClientIdAssignor.Verdict(false, "h"),
                ClientIdAssignor.decodeVerdict(ClientIdAssignor.encodeVerdict(false, "h")));
        assertFalse(ClientIdAssignor.decodeClaim(ByteBuffer.wrap(new byte[] {1, 1, 0})).holding());
        assertFalse(ClientIdAssignor.decodeClaim(ByteBuffer.wrap(new byte[] {9, 1})).holding());
        assertFalse(ClientIdAssignor.decodeClaim(null).holding());
        assertFalse(ClientIdAssignor.decodeVerdict(ByteBuffer.wrap(new byte[] {1})).holder());
        String longDescription = "x".repeat(70_000);
        assertEquals(1_000, ClientIdAssignor.decodeVerdict(ClientIdAssignor.encodeVerdict(true, longDescription))
                .holderDescription().length());
    }

    @Test
    void anAssignorWithoutItsClaimIsAConfigurationError() {
        assertThrows(ConfigException.class, () -> new ClientIdAssignor().configure(Map.of()));
    }
}
