package io.tributary.jms.kafka;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;

/**
 * The partition assignor of a client id's claim: a JMS client id is held by membership of the consumer group
 * {@link #groupId(String) jms.client-id:<id>}, whose members are claims only (the protocol name
 * {@value #NAME} keeps ordinary consumers out: the coordinator refuses a member of another protocol with
 * {@code INCONSISTENT_GROUP_PROTOCOL}). It assigns no partitions (the members subscribe to no topic); what it
 * distributes is a verdict. Kafka runs {@link #assign} on the group's leader only, which decides the holder
 * ({@link ClientIdDecision}) from what every member said at its join, and each member learns its verdict in
 * {@link #onAssignment}.
 *
 * <p>Formats, versioned by their first byte (1), strings as a 2-byte length and UTF-8 bytes:
 * <ul>
 *   <li>subscription user data, sent by every member at every join: version, state (0 claiming, 1 holding), the
 *       claim's token (unique per claim: how the leader finds itself among the members), the claim's description
 *       (which connection in which process, for the refused);</li>
 *   <li>assignment user data, the leader's verdict: version, verdict (0 refused, 1 holder), the holder's
 *       description.</li>
 * </ul>
 *
 * <p>Kafka makes an instance per consumer by reflection (hence public, with a public no-argument constructor) and
 * hands it the consumer's {@link Claimant} through the configuration key {@value #CLAIMANT_CONFIG}.
 * {@link #subscriptionUserData} and {@link #onAssignment} run on the consumer's polling thread; {@link #assign} on
 * the thread that completes the join, the polling or the heartbeat thread. The assignor reads its claimant's state,
 * which the claimant keeps thread-safe.
 */
public final class ClientIdAssignor implements ConsumerPartitionAssignor, Configurable {

    /** The protocol name every member of a claim group joins with. */
    public static final String NAME = "tributary-client-id";
    /** The configuration key whose value is the consumer's {@link Claimant}. */
    public static final String CLAIMANT_CONFIG = "tributary.client-id.claimant";
    /**
     * The ':' cannot occur in a topic name, so no queue's group (named after its topic) is ever a claim group, and
     * the {@code jms.durable.}, {@code jms.shared.} and {@code jms.shared-durable.} groups of subscriptions differ
     * from the first dot on.
     */
    private static final String GROUP_PREFIX = "jms.client-id:";
    private static final byte VERSION = 1;
    private static final byte CLAIMING = 0;
    private static final byte HOLDING = 1;
    private static final byte REFUSED = 0;
    private static final byte HOLDER = 1;

    /** One claim of a client id, as its consumer's assignor sees it. */
    public interface Claimant {

        /** Unique to this claim among all claims of the client id, ever. */
        String token();

        /** Which connection in which process claims, for the message of a refused claimant. */
        String description();

        /** Whether this claim was told it holds the client id and has not lost it since. */
        boolean holding();

        /**
         * The leader's verdict of the generation just joined.
         *
         * @param holderDescription the holder's {@link #description()}
         */
        void verdict(boolean holder, String holderDescription);
    }

    private Claimant claimant;

    /** For Kafka, which makes assignors by reflection; {@link #configure} follows. */
    public ClientIdAssignor() {
    }

    /** The consumer group whose membership holds {@code clientId}. */
    public static String groupId(String clientId) {
        return GROUP_PREFIX + clientId;
    }

    @Override
    public void configure(Map<String, ?> configs) {
        if (!(configs.get(CLAIMANT_CONFIG) instanceof Claimant configured)) {
            throw new ConfigException(CLAIMANT_CONFIG, configs.get(CLAIMANT_CONFIG),
                    "a ClientIdAssignor needs its claim (Tributary's JMS provider sets it)");
        }
        this.claimant = configured;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return encodeClaim(claimant.holding(), claimant.token(), claimant.description());
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        Map<String, Claim> claims = new HashMap<>();
        List<ClientIdDecision.Member> members = new ArrayList<>();
        String leaderId = null;
        for (Map.Entry<String, Subscription> member : subscriptions.entrySet()) {
            Claim claim = decodeClaim(member.getValue().userData());
            claims.put(member.getKey(), claim);
            members.add(new ClientIdDecision.Member(member.getKey(), claim.holding()));
            if (claimant.token().equals(claim.token())) {
                leaderId = member.getKey();
            }
        }
        String holderId = ClientIdDecision.holder(leaderId, members).orElse(null);
        String holderDescription = holderId == null ? "" : claims.get(holderId).description();
        Map<String, Assignment> assignments = new HashMap<>();
        for (String memberId : subscriptions.keySet()) {
            assignments.put(memberId, new Assignment(List.of(),
                    encodeVerdict(memberId.equals(holderId), holderDescription)));
        }
        return new GroupAssignment(assignments);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        Verdict verdict = decodeVerdict(assignment.userData());
        claimant.verdict(verdict.holder(), verdict.holderDescription());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Formats

    /** What a member said at its join; a member whose data cannot be read claims, and holds nothing. */
    record Claim(boolean holding, String token, String description) {
    }

    /** The leader's verdict; unreadable data is a refusal. */
    record Verdict(boolean holder, String holderDescription) {
    }

    static ByteBuffer encodeClaim(boolean holding, String token, String description) {
        byte[] tokenBytes = token.getBytes(StandardCharsets.UTF_8);
        byte[] descriptionBytes = truncated(description);
        ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + tokenBytes.length + 2 + descriptionBytes.length);
        buffer.put(VERSION).put(holding ? HOLDING : CLAIMING);
        putString(buffer, tokenBytes);
        putString(buffer, descriptionBytes);
        return buffer.flip();
    }

    static Claim decodeClaim(ByteBuffer data) {
        try {
            ByteBuffer buffer = data.duplicate();
            if (buffer.get() != VERSION) {
                return new Claim(false, "", "a claim of an unknown format");
            }
            boolean holding = buffer.get() == HOLDING;
            return new Claim(holding, getString(buffer), getString(buffer));
        } catch (BufferUnderflowException | NullPointerException | IllegalArgumentException e) {
            return new Claim(false, "", "an unreadable claim");
        }
    }

    static ByteBuffer encodeVerdict(boolean holder, String holderDescription) {
        byte[] descriptionBytes = truncated(holderDescription);
        ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + descriptionBytes.length);
        buffer.put(VERSION).put(holder ? HOLDER : REFUSED);
        putString(buffer, descriptionBytes);
        return buffer.flip();
    }

    static Verdict decodeVerdict(ByteBuffer data) {
        try {
            ByteBuffer buffer = data.duplicate();
            if (buffer.get() != VERSION) {
                return new Verdict(false, "a holder that speaks an unknown format");
            }
            boolean holder = buffer.get() == HOLDER;
            return new Verdict(holder, getString(buffer));
        } catch (BufferUnderflowException | NullPointerException | IllegalArgumentException e) {
            return new Verdict(false, "unknown (the verdict was unreadable)");
        }
    }

    /** About 1,000 bytes at most: a description is for a message, and must fit its 2-byte length. */
    private static byte[] truncated(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= 1_000) {
            return bytes;
        }
        return new String(bytes, 0, 1_000, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }

    private static void putString(ByteBuffer buffer, byte[] bytes) {
        buffer.putShort((short) bytes.length).put(bytes);
    }

    private static String getString(ByteBuffer buffer) {
        byte[] bytes = new byte[Short.toUnsignedInt(buffer.getShort())];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
