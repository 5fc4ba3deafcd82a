package io.tributary.broker.share;

import java.util.List;

import io.tributary.broker.share.SharePartition.StateBatch;

/**
 * The durable state of one share-partition, as its leader writes it and the share coordinator keeps it in
 * {@code __share_group_state}: the start offset and the in-flight records after it that are not plain available
 * (released records with their delivery counts, acknowledged and archived records). Records acquired when it was
 * written are stored available with their delivery count: a new leader delivers them again.
 *
 * @param stateEpoch  bumped when the state is reset (offsets altered or deleted by an admin); 0 at first
 * @param leaderEpoch the leader epoch of the partition whose leader wrote it; a write from an older leader is fenced
 * @param startOffset the share-partition start offset: every record before it is done
 * @param batches     the in-flight records, in offset order, not overlapping
 */
public record ShareState(int stateEpoch, int leaderEpoch, long startOffset, List<StateBatch> batches) {

    public ShareState {
        batches = List.copyOf(batches);
    }
}
