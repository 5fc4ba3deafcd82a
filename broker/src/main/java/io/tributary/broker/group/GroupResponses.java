package io.tributary.broker.group;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The JoinGroup, SyncGroup and LeaveGroup responses {@link GroupMembership} answers with or completes parked requests
 * with. Built from the group as it is: callers hold the group's monitor for {@link #joinResponse} and
 * {@link #syncResponse}; the error responses read no state.
 */
final class GroupResponses {

    private GroupResponses() {
    }

    /** A successful JoinGroup: the leader is also given every member's metadata for the chosen protocol. */
    static JoinGroupResponseData joinResponse(Group group, Member member) {
        JoinGroupResponseData response = new JoinGroupResponseData()
                .setErrorCode(Errors.NONE.code())
                .setGenerationId(group.generationId())
                .setProtocolType(group.protocolType())
                .setProtocolName(group.protocolName())
                .setLeader(group.leaderId())
                .setMemberId(member.memberId());
        if (group.isLeader(member.memberId())) {
            List<JoinGroupResponseMember> members = new ArrayList<>();
            for (Member each : group.members()) {
                members.add(new JoinGroupResponseMember()
                        .setMemberId(each.memberId())
                        .setGroupInstanceId(each.groupInstanceId())
                        .setMetadata(each.metadata(group.protocolName())));
            }
            response.setMembers(members);
        }
        return response;
    }

    /** A failed JoinGroup (or a parked one failed); {@code memberId} may be null. */
    static JoinGroupResponseData joinError(String memberId, Errors error) {
        return new JoinGroupResponseData()
                .setErrorCode(error.code())
                .setGenerationId(-1)
                .setProtocolName(null)
                .setProtocolType(null)
                .setLeader("")
                .setMemberId(memberId == null ? "" : memberId);
    }

    /** A successful SyncGroup: the member's part of the generation's assignment. */
    static SyncGroupResponseData syncResponse(Group group, byte[] assignment) {
        return new SyncGroupResponseData()
                .setErrorCode(Errors.NONE.code())
                .setProtocolType(group.protocolType())
                .setProtocolName(group.protocolName())
                .setAssignment(assignment);
    }

    /** A failed SyncGroup (or a parked one failed), with an empty assignment. */
    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    /** The answer to one member of a LeaveGroup. */
    static MemberResponse leaveResponse(MemberIdentity identity, Errors error) {
        return new MemberResponse()
                .setMemberId(identity.memberId())
                .setGroupInstanceId(identity.groupInstanceId())
                .setErrorCode(error.code());
    }
}
