package io.tributary.broker.share;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;

import io.tributary.broker.share.SharePartition.StateBatch;
import io.tributary.broker.storage.VersionedStruct;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The keys and values of the records in {@code __share_group_state}, in Apache Kafka's layout for that topic (its
 * {@code ShareSnapshotKey} and {@code ShareSnapshotValue} messages), so that Kafka's tools decode them.
 *
 * <h2>Format</h2>
 * An int16 (the record type in a key, the version in a value), then the fields, big-endian.
 * <pre>
 * key     type 0 (ShareSnapshot)  group_id string (int16 length, UTF-8), topic_id uuid (16 bytes),
 *                                 partition int32
 * value   version 0, flexible     snapshot_epoch uint16, state_epoch int32, leader_epoch int32, start_offset int64,
 *                                 state_batches compact [first_offset int64, last_offset int64,
 *                                 delivery_state int8 ({@link RecordState#code}), delivery_count int16,
 *                                 tagged fields], tagged fields
 * </pre>
 * Compact counts are unsigned varints of the count + 1 (KIP-482); each tagged-field section is written empty (a 0
 * byte) and its fields, if a reader finds any, are passed over. A deleted state is a tombstone (null value).
 *
 * <p>Kafka's coordinator also writes record type 1 (ShareUpdate: a delta against the last snapshot); Tributary
 * writes every state whole, as a snapshot, so it writes and reads type 0 only, and reports type 1 as unreadable.
 * A malformed key or value is reported as {@link CorruptRecordException}.
 *
 * <p>Threads: stateless; any thread.
 */
final class ShareStateFormat {

    /** Kafka's record type of a ShareSnapshot key (ShareUpdate is 1). */
    static final short SNAPSHOT_KEY_TYPE = 0;
    static final short SNAPSHOT_VALUE_VERSION = 0;

    private static final Field GROUP_ID = new Field("group_id", Type.STRING);
    private static final Field TOPIC_ID = new Field("topic_id", Type.UUID);
    private static final Field PARTITION = new Field("partition", Type.INT32);
    private static final Schema KEY_V0 = new Schema(GROUP_ID, TOPIC_ID, PARTITION);

    private static final Field SNAPSHOT_EPOCH = new Field("snapshot_epoch", Type.UINT16);
    private static final Field STATE_EPOCH = new Field("state_epoch", Type.INT32);
    private static final Field LEADER_EPOCH = new Field("leader_epoch", Type.INT32);
    private static final Field START_OFFSET = new Field("start_offset", Type.INT64);
    private static final String STATE_BATCHES = "state_batches";
    private static final String TAGGED_FIELDS = "_tagged_fields";
    /** Written as each tagged-field section: none (Struct has no default for the section). */
    private static final NavigableMap<Integer, Object> NO_TAGGED_FIELDS = Collections.emptyNavigableMap();
    private static final Field FIRST_OFFSET = new Field("first_offset", Type.INT64);
    private static final Field LAST_OFFSET = new Field("last_offset", Type.INT64);
    private static final Field DELIVERY_STATE = new Field("delivery_state", Type.INT8);
    private static final Field DELIVERY_COUNT = new Field("delivery_count", Type.INT16);
    private static final Schema BATCH_V0 = new Schema(FIRST_OFFSET, LAST_OFFSET, DELIVERY_STATE, DELIVERY_COUNT,
            Field.TaggedFieldsSection.of());
    private static final Schema VALUE_V0 = new Schema(SNAPSHOT_EPOCH, STATE_EPOCH, LEADER_EPOCH, START_OFFSET,
            new Field(STATE_BATCHES, new CompactArrayOf(BATCH_V0)), Field.TaggedFieldsSection.of());

    /** The largest snapshot epoch (uint16); the next one after it is 0 again. */
    static final int MAX_SNAPSHOT_EPOCH = 0xFFFF;

    /** A value: the state and the number of the snapshot that holds it. */
    record Snapshot(int snapshotEpoch, ShareState state) {
    }

    private ShareStateFormat() {
    }

    static byte[] serializeKey(ShareKey key) {
        Struct struct = new Struct(KEY_V0).set(GROUP_ID.name, key.groupId()).set(TOPIC_ID.name, key.topicId())
                .set(PARTITION.name, key.partition());
        return VersionedStruct.write(SNAPSHOT_KEY_TYPE, struct, "share snapshot key of " + key);
    }

    /** @throws CorruptRecordException if the bytes are not a ShareSnapshot key */
    static ShareKey deserializeKey(ByteBuffer buffer) {
        ByteBuffer in = buffer.duplicate();
        short type = readShort(in, "key");
        if (type != SNAPSHOT_KEY_TYPE) {
            throw new CorruptRecordException("Unknown share group state record type " + type
                    + "; only 0 (ShareSnapshot) is written and read here");
        }
        Struct key = VersionedStruct.read(KEY_V0, in, "share snapshot key");
        return new ShareKey(key.getString(GROUP_ID.name), (Uuid) key.get(TOPIC_ID.name), key.getInt(PARTITION.name));
    }

    /** @param snapshotEpoch 0 to {@link #MAX_SNAPSHOT_EPOCH} */
    static byte[] serializeValue(int snapshotEpoch, ShareState state) {
        List<Struct> batches = new ArrayList<>(state.batches().size());
        for (StateBatch batch : state.batches()) {
            batches.add(new Struct(BATCH_V0).set(FIRST_OFFSET.name, batch.firstOffset())
                    .set(LAST_OFFSET.name, batch.lastOffset()).set(DELIVERY_STATE.name, batch.state().code)
                    .set(DELIVERY_COUNT.name, batch.deliveryCount()).set(TAGGED_FIELDS, NO_TAGGED_FIELDS));
        }
        Struct struct = new Struct(VALUE_V0).set(SNAPSHOT_EPOCH.name, snapshotEpoch)
                .set(STATE_EPOCH.name, state.stateEpoch()).set(LEADER_EPOCH.name, state.leaderEpoch())
                .set(START_OFFSET.name, state.startOffset()).set(STATE_BATCHES, batches.toArray())
                .set(TAGGED_FIELDS, NO_TAGGED_FIELDS);
        return VersionedStruct.write(SNAPSHOT_VALUE_VERSION, struct, "share snapshot value at start offset "
                + state.startOffset());
    }

    /**
     * @throws CorruptRecordException if the bytes are not a well-formed version 0 value, a batch's offsets are
     *                                reversed or its delivery state is unknown
     */
    static Snapshot deserializeValue(ByteBuffer buffer) {
        ByteBuffer in = buffer.duplicate();
        short version = readShort(in, "value");
        if (version != SNAPSHOT_VALUE_VERSION) {
            throw new CorruptRecordException("Unknown share snapshot value version " + version
                    + "; version 0 is known");
        }
        Struct value = VersionedStruct.read(VALUE_V0, in, "share snapshot value version 0");
        List<StateBatch> batches = new ArrayList<>();
        for (Object element : value.getArray(STATE_BATCHES)) {
            Struct batch = (Struct) element;
            long first = batch.getLong(FIRST_OFFSET.name);
            long last = batch.getLong(LAST_OFFSET.name);
            if (last < first) {
                throw new CorruptRecordException("A share state batch from " + first + " to " + last
                        + " ends before it starts");
            }
            byte code = (Byte) batch.get(DELIVERY_STATE.name);
            RecordState state;
            try {
                state = RecordState.forCode(code);
            } catch (IllegalArgumentException e) {
                throw new CorruptRecordException("Unknown delivery state " + code + " in the share state batch from "
                        + first + " to " + last);
            }
            batches.add(new StateBatch(first, last, state, batch.getShort(DELIVERY_COUNT.name)));
        }
        return new Snapshot(value.getInt(SNAPSHOT_EPOCH.name), new ShareState(value.getInt(STATE_EPOCH.name),
                value.getInt(LEADER_EPOCH.name), value.getLong(START_OFFSET.name), batches));
    }

    private static short readShort(ByteBuffer in, String what) {
        try {
            return in.getShort();
        } catch (BufferUnderflowException e) {
            throw new CorruptRecordException("The share group state " + what + " has " + in.remaining()
                    + " bytes, too few for its int16 type or version");
        }
    }
}
