package io.tributary.broker.group;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * One member of a classic group: who it is, the protocols it offered in its last JoinGroup (in its order of
 * preference), its assignment, its timeouts, and the JoinGroup or SyncGroup request it has parked at the coordinator.
 *
 * <p>Not thread-safe: every field is guarded by the lock of the {@link Group} it belongs to.
 */
final class Member {

    private String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private String protocolType;
    /** Protocol name to its metadata, in the member's order of preference. */
    private Map<String, byte[]> protocols;
    private byte[] assignment = new byte[0];

    /** The parked JoinGroup, answered when the join phase completes; null when not waiting. */
    CompletableFuture<JoinGroupResponseData> awaitingJoin;
    /** The parked SyncGroup, answered when the leader's assignment is stored; null when not waiting. */
    CompletableFuture<SyncGroupResponseData> awaitingSync;
    /** Joined during the current rebalance (not yet part of a generation). */
    boolean isNew;
    /** {@link System#nanoTime()} of the last sign of life (join, sync, heartbeat, commit). */
    long lastHeartbeatNanos;
    /** Whether a session check task is scheduled for this member. */
    boolean sessionCheckScheduled;

    Member(String memberId, String groupInstanceId, String clientId, String clientHost, int rebalanceTimeoutMs,
           int sessionTimeoutMs, String protocolType, Map<String, byte[]> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = new LinkedHashMap<>(protocols);
    }

    String memberId() {
        return memberId;
    }

    /** A static member rejoining under a new member id (the old id is fenced). */
    void replaceMemberId(String newMemberId) {
        this.memberId = newMemberId;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    String protocolType() {
        return protocolType;
    }

    Map<String, byte[]> protocols() {
        return protocols;
    }

    /** The metadata this member gave for {@code protocol}, or empty if it does not support it. */
    byte[] metadata(String protocol) {
        byte[] metadata = protocols.get(protocol);
        return metadata == null ? new byte[0] : metadata;
    }

    /** This member's most preferred protocol among {@code candidates}. */
    String vote(java.util.Set<String> candidates) {
        for (String protocol : protocols.keySet()) {
            if (candidates.contains(protocol)) {
                return protocol;
            }
        }
        throw new IllegalStateException("member " + memberId + " supports none of " + candidates);
    }

    /** Whether a rejoin offers exactly the protocols (names, order and metadata) this member offered before. */
    boolean sameProtocols(Map<String, byte[]> offered) {
        if (!offered.keySet().stream().toList().equals(protocols.keySet().stream().toList())) {
            return false;
        }
        for (Map.Entry<String, byte[]> entry : offered.entrySet()) {
            if (!Arrays.equals(entry.getValue(), protocols.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    void update(int rebalanceTimeoutMs, int sessionTimeoutMs, String protocolType, Map<String, byte[]> protocols) {
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = new LinkedHashMap<>(protocols);
    }

    byte[] assignment() {
        return assignment;
    }

    void assignment(byte[] assignment) {
        this.assignment = assignment == null ? new byte[0] : assignment;
    }

    @Override
    public String toString() {
        return "Member(" + memberId + (groupInstanceId == null ? "" : ", instance " + groupInstanceId) + ", client "
                + clientId + "@" + clientHost + ")";
    }
}
